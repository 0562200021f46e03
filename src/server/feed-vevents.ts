/**
 * Each event's VEVENT kept by what it is made of (issue 15): a feed render reads its events' records
 * (cheap, a page at a time: src/export/store-feed.ts `feedRecordPages`), and renders to the wire and to
 * iCalendar only the events whose records changed since the last render — a write re-renders one event,
 * not 10,000. A feed is then the concatenation of kept VEVENTs plus its VTIMEZONEs (export/ical.ts
 * `icalBytes`). They are kept as UTF-8 bytes (`VeventBytes`): after a 100,000-event render, its records
 * dropped, the thread's heap held 199 MB with the VEVENTs as strings and 135 MB so.
 *
 * The key of an event is a SHA-1 of everything its VEVENT is made from: its row, its SEQUENCE, the rows
 * of the venue, organizers and images it links to (a venue renamed changes the key of each of its
 * events) and its categories' names. So nothing has to tell the cache what changed, and a commit by
 * another process is seen like one of this one. Entries no render used for a while are dropped.
 *
 * Public: `VeventCache` (`pass(cfg, host)`: `add` each page of records, then `end`).
 */
import { hash } from 'node:crypto';
import { type VeventBytes, veventBytes, veventOf } from '../export/ical.ts';
import { type FeedRecords, feedEvent, tombstoneEvent } from '../export/store-feed.ts';
import type { Related } from '../render/event.ts';
import type { EventRecord } from '../store/store.ts';
import type { Config } from './config.ts';

/** Renders after which an entry no render asked for is dropped (feeds differ in what they show). */
const UNUSED_RENDERS = 8;

export interface RenderPass {
  add(page: FeedRecords): void;
  end(): VeventBytes[];
}

interface Entry {
  key: string;
  vevent: VeventBytes;
  usedAt: number;
}

export class VeventCache {
  readonly #entries = new Map<string, Entry>();
  #renders = 0;
  /** Events (and tombstones) the last `render` had to render, not take from the cache. */
  lastRendered = 0;

  get size(): number {
    return this.#entries.size;
  }

  /**
   * One render of a feed: `add` each page of its records in feed order (feedRecordPages), then `end`
   * gives their VEVENTs (live events, then tombstones).
   */
  pass(cfg: Config, host: string): RenderPass {
    const renderNo = ++this.#renders;
    this.lastRendered = 0;
    const rowDigests = new WeakMap<object, string>();
    const vevents: VeventBytes[] = [];
    const add = (r: FeedRecords) => {
      for (const e of r.items) {
        const sequence = r.sequences.get(e.id) ?? 0;
        vevents.push(
          this.#get(`e${e.id}`, eventKey(e, r.rel, sequence, rowDigests), renderNo, () =>
            veventBytes(veventOf(feedEvent(e, r.rel, cfg), { host, sequence: () => sequence })),
          ),
        );
      }
      for (const t of r.tombstones) {
        vevents.push(
          this.#get(`t${t.id}`, digest(JSON.stringify(t)), renderNo, () =>
            veventBytes(
              veventOf(tombstoneEvent(t), { host, sequence: () => t.sequence, cancelled: () => true }),
            ),
          ),
        );
      }
    };
    const end = () => {
      if (renderNo % UNUSED_RENDERS === 0) {
        for (const [id, entry] of this.#entries)
          if (entry.usedAt <= renderNo - UNUSED_RENDERS) this.#entries.delete(id);
      }
      return vevents;
    };
    return { add, end };
  }

  #get(id: string, key: string, renderNo: number, make: () => VeventBytes): VeventBytes {
    let entry = this.#entries.get(id);
    if (entry?.key !== key) {
      this.lastRendered++;
      entry = { key, vevent: make(), usedAt: renderNo };
      this.#entries.set(id, entry);
    }
    // Two renders of different feeds may run at once (inline, on PostgreSQL): the later one counts.
    entry.usedAt = Math.max(entry.usedAt, renderNo);
    return entry.vevent;
  }
}

const digest = (text: string) => hash('sha1', text, 'base64');

const NO_ROW = digest('null');

/**
 * What an event's VEVENT is made of, hashed; `rowDigests` keeps the digest of each linked row's JSON for
 * the render. A venue or organizer row is hashed once per render and its digest, not its JSON, goes into
 * the key of each event that links it, so its JSON is not hashed again with every event (the keys of
 * 10,000 events: 134 → 116 ms of CPU; the event's own JSON is most of what is left). Kept by the row
 * itself, not its id: a row read again on a later page (an image; a venue that was not public when an
 * earlier page read it) may have changed meanwhile, and the key must be that of the row rendered.
 */
function eventKey(
  e: EventRecord,
  rel: Related,
  sequence: number,
  rowDigests: WeakMap<object, string>,
): string {
  const of = (row: object | undefined) => {
    if (row === undefined) return NO_ROW;
    let d = rowDigests.get(row);
    if (d === undefined) {
      d = digest(JSON.stringify(row));
      rowDigests.set(row, d);
    }
    return d;
  };
  const image = (id: number | null | undefined) => (id ? of(rel.attachments.get(id)) : '');
  const linked = (id: number) => {
    const p = rel.linked.get(id);
    return `${of(p)}${image(p?.image_id)}`;
  };
  let text = `${sequence}\n${JSON.stringify(e)}\n${image(e.image_id)}`;
  if (e.venue_id) text += `\n${linked(e.venue_id)}`;
  for (const id of e.organizer_ids) text += `\n${linked(id)}`;
  // A VEVENT shows its categories' names (CATEGORIES) and no tags; a term's count moves with every
  // event written with it, and must not make its other events render again.
  for (const id of e.category_ids) text += `\nc${id} ${rel.terms.get(id)?.name}`;
  return digest(text);
}
