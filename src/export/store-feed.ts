/**
 * A feed's events read from the server's store: the published events its filters and window select,
 * rendered to the wire as an anonymous reader sees them (src/render), each with its SEQUENCE,
 * plus STATUS:CANCELLED tombstones of events that left within `tombstoneDays` (migration 5).
 *
 * Public: `FeedEvents`, `loadStoreFeed`; `FeedRecords`, `feedRecordPages`, `feedEvent` and `tombstoneEvent`,
 * its steps, for a renderer that keeps each event's rendering (src/server/feed-render.ts).
 *
 * No item cap (TEC's own feed stops at 30 events): the list query asks for every match.
 */
import type { RenderConfig } from '../render/config.ts';
import { type StoredTexts, storedTexts } from '../render/csv.ts';
import { loadRelated, type Related, renderEvent } from '../render/event.ts';
import type { WireEvent } from '../render/wire.ts';
import type {
  EventQuery,
  EventRecord,
  EventTombstone,
  LinkedKind,
  LinkedRecord,
  Store,
  Visibility,
} from '../store/store.ts';
import { type FeedFilters, feedWindow } from './feed-spec.ts';

export interface FeedEvents {
  events: WireEvent[];
  /** SEQUENCE by event id (absent = 0). */
  sequences: Map<number, number>;
  /** Ids of the tombstones among `events`. */
  cancelled: Set<number>;
  /** The newest `modified_utc` or removal among them; null for an empty feed. */
  lastModified: Date | null;
  /**
   * The stored descriptions and excerpts of the events and their venues and organizers (for CSV); none
   * from an API, which shows only their HTML.
   */
  texts?: StoredTexts;
}

const ANONYMOUS: Visibility = { statuses: ['publish'], ownStatuses: [], ownerId: null };
const ZERO_DATE = '0000-00-00 00:00:00';

/** Term ids for names or slugs; categories with their descendants. `[]` when none is known. */
async function termIds(
  store: Store,
  kind: 'categories' | 'tags',
  names: readonly string[],
): Promise<number[]> {
  const ids = new Set<number>();
  for (const name of names) {
    const term = (await store.findTermBySlug(kind, name)) ?? (await store.findTermByName(kind, name));
    if (!term) continue;
    if (kind === 'categories') for (const id of await store.categoryDescendants(term.id)) ids.add(id);
    else ids.add(term.id);
  }
  return [...ids];
}

async function linkedIds(store: Store, kind: LinkedKind, names: readonly string[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const name of names) {
    const byId = /^\d+$/.test(name) ? await store.getLinked(kind, Number(name)) : undefined;
    const found =
      byId ??
      (await store.findBySlug(kind, name)) ??
      (await store.findLinkedByName(kind, name, undefined, ANONYMOUS));
    if (found && found.kind === kind) ids.add(found.id);
  }
  return [...ids];
}

interface Resolved {
  query: EventQuery;
  /** Filters that named nothing known: the feed is empty rather than unfiltered. */
  nothing: boolean;
}

async function resolve(store: Store, f: FeedFilters, now: Date): Promise<Resolved> {
  const { endsAfter, startsBefore } = feedWindow(f, now);
  const query: EventQuery = {
    offset: 0,
    limit: Number.MAX_SAFE_INTEGER,
    visibility: ANONYMOUS,
    endsAfter,
    startsBefore,
    featured: f.featured,
  };
  let nothing = false;
  const pick = async (
    names: readonly string[] | undefined,
    find: (n: readonly string[]) => Promise<number[]>,
  ) => {
    if (!names || names.length === 0) return undefined;
    const ids = await find(names);
    if (ids.length === 0) nothing = true;
    return ids;
  };
  query.categoryIds = await pick(f.categories, (n) => termIds(store, 'categories', n));
  query.tagIds = await pick(f.tags, (n) => termIds(store, 'tags', n));
  query.venueIds = await pick(f.venues, (n) => linkedIds(store, 'venue', n));
  query.organizerIds = await pick(f.organizers, (n) => linkedIds(store, 'organizer', n));
  return { query, nothing };
}

function overlaps(ids: readonly number[], wanted: readonly number[] | undefined): boolean {
  return wanted === undefined || ids.some((id) => wanted.includes(id));
}

/** What the feed's filters read of an event or a tombstone, but for its terms. */
type Selectable = Pick<EventTombstone, 'end_utc' | 'start_utc' | 'featured' | 'venue_id' | 'organizer_ids'>;

/**
 * Whether an event or a tombstone with these categories and tags (`termIds`) passes the feed's window and
 * filters, those `resolve` sets, as its list query applies them.
 */
function selects(t: Selectable, termIds: readonly number[], q: EventQuery): boolean {
  if (q.endsAfter !== undefined && !(t.end_utc > q.endsAfter)) return false;
  if (q.startsBefore !== undefined && !(t.start_utc < q.startsBefore)) return false;
  if (q.featured !== undefined && t.featured !== q.featured) return false;
  if (!overlaps(termIds, q.categoryIds) || !overlaps(termIds, q.tagIds)) return false;
  if (!overlaps(t.venue_id === null ? [] : [t.venue_id], q.venueIds)) return false;
  return overlaps(t.organizer_ids, q.organizerIds);
}

/** The wire fields the renderers read, for an event that is gone. */
export function tombstoneEvent(t: EventTombstone): WireEvent {
  return {
    id: t.id,
    title: t.title,
    description: '',
    excerpt: '',
    url: '',
    website: '',
    date_utc: t.date_utc ?? ZERO_DATE,
    modified_utc: t.removed_utc,
    all_day: t.all_day,
    start_date: t.start_local,
    end_date: t.end_local,
    utc_start_date: t.start_utc,
    utc_end_date: t.end_utc,
    timezone: t.timezone,
    venue: [],
    organizer: [],
    categories: [],
    tags: [],
    image: false,
  } as unknown as WireEvent;
}

const utcDate = (s: string) => new Date(`${s.replace(' ', 'T')}Z`);

/** What a feed shows, as stored: its live events with what they link to, and its tombstones. */
export interface FeedRecords {
  items: EventRecord[];
  rel: Related;
  /** SEQUENCE by event id (absent = 0), tombstones' too. */
  sequences: Map<number, number>;
  tombstones: EventTombstone[];
  /** The newest `modified_utc` or removal among them; null for an empty feed. */
  lastModified: Date | null;
}

/** Events a feed render holds at once (`feedRecordPages`). */
const FEED_PAGE = 2_000;

/**
 * The feed's records at `now`, a page of at most `size` events at a time (the records of a
 * 100,000-event feed held at once were ~200 MB), then for an .ics feed its tombstones as a last page
 * without events. Live events come in list order (start, then publication). A CSV has no tombstones (it
 * cannot say "cancelled"), and has the events hidden from listings too (see `loadStoreFeed`).
 *
 * The feed's ids are read at once (`listEventIds`), each page then by its ids as the event is now
 * (`getEventsMany`), with the feed's visibility, window and filters applied again: none comes twice or is
 * skipped because a write moved the others (pages by offset would shift), and one deleted, unpublished or
 * moved out of the feed since is left out (a tombstone shown instead where it has one). Each public venue
 * and organizer is read once, with the first page that shows it.
 */
export async function* feedRecordPages(
  store: Store,
  f: FeedFilters & { tombstoneDays: number },
  now: Date,
  format: 'ics' | 'csv' = 'ics',
  size = FEED_PAGE,
): AsyncGenerator<FeedRecords> {
  const { query, nothing } = await resolve(store, f, now);
  if (format === 'csv') query.withHidden = true;
  const ids = nothing ? [] : await store.listEventIds(query);
  const linked = new Map<number, LinkedRecord>();
  /** The events shown: one gone since its id was read has its tombstone shown instead. */
  const shown = new Set<number>();
  for (let from = 0; from < ids.length; from += size) {
    const page = ids.slice(from, from + size);
    const found = await store.getEventsMany(page, ids.length);
    const items: EventRecord[] = [];
    for (const id of page) {
      const e = found.get(id);
      if (e === undefined || !ANONYMOUS.statuses.includes(e.status)) continue;
      // As the feed's query would select it now: a write since the ids were read may have moved it out.
      if (e.hide_from_listings && !query.withHidden) continue;
      if (!selects(e, [...e.category_ids, ...e.tag_ids], query)) continue;
      items.push(e);
      shown.add(id);
    }
    const rel = await loadRelated(store, items, null, linked);
    for (const [id, record] of rel.linked) linked.set(id, record);
    const sequences = await store.eventSequences(items.map((e) => e.id));
    yield { items, rel, sequences, tombstones: [], lastModified: newest(items.map((e) => e.modified_utc)) };
  }
  if (format === 'ics' && !nothing) {
    // From the start of the UTC day, like the window: the feed stays the same all day.
    const since = new Date((Math.floor(now.getTime() / 86_400_000) - f.tombstoneDays) * 86_400_000);
    const tombstones: EventTombstone[] = [];
    const sequences = new Map<number, number>();
    for (const t of await store.eventTombstones(since.toISOString().slice(0, 19).replace('T', ' '))) {
      if (shown.has(t.id) || !selects(t, t.term_ids, query)) continue;
      tombstones.push(t);
      sequences.set(t.id, t.sequence);
    }
    const rel = { linked: new Map(), attachments: new Map(), terms: new Map() };
    const lastModified = newest(tombstones.map((t) => t.removed_utc));
    if (tombstones.length > 0) yield { items: [], rel, sequences, tombstones, lastModified };
  }
}

/** The latest of wire UTC date-times, as a Date; null for none. */
function newest(times: readonly string[]): Date | null {
  let latest = '';
  for (const t of times) if (t > latest) latest = t;
  return latest ? utcDate(latest) : null;
}

/** The later of two dates, either of which may be null. */
export function later(a: Date | null, b: Date | null): Date | null {
  return a === null || (b !== null && b > a) ? b : a;
}

/** All of `feedRecordPages` as one, for the renderers that take every event at once. */
async function loadFeedRecords(
  store: Store,
  f: FeedFilters & { tombstoneDays: number },
  now: Date,
  format: 'ics' | 'csv' = 'ics',
): Promise<FeedRecords> {
  const all: FeedRecords = {
    items: [],
    // With `rendered`: each venue, organizer and term is rendered once for all events, as one page does.
    rel: {
      linked: new Map(),
      attachments: new Map(),
      terms: new Map(),
      rendered: { linked: new Map(), terms: new Map() },
    },
    sequences: new Map(),
    tombstones: [],
    lastModified: null,
  };
  for await (const page of feedRecordPages(store, f, now, format)) {
    for (const e of page.items) all.items.push(e);
    for (const t of page.tombstones) all.tombstones.push(t);
    for (const kind of ['linked', 'attachments', 'terms'] as const) {
      const into = all.rel[kind] as Map<number, unknown>;
      for (const [id, record] of page.rel[kind]) into.set(id, record);
    }
    for (const [id, sequence] of page.sequences) all.sequences.set(id, sequence);
    all.lastModified = later(all.lastModified, page.lastModified);
  }
  return all;
}

const redacted = (e: EventRecord) => e.password !== null && e.password !== '';

/** A live event of a feed on the wire, as an anonymous reader sees it. */
export function feedEvent(e: EventRecord, rel: Related, cfg: RenderConfig): WireEvent {
  return renderEvent(e, rel, cfg, { single: false, redact: redacted(e) }) as unknown as WireEvent;
}

/**
 * The feed's events at `now`: live ones in list order (start, then publication), then tombstones.
 * A CSV has no tombstones (it cannot say "cancelled"), and lists the events hidden from listings too:
 * it is the calendar's data (`npm run export` → `npm run import` gives the same store), not a listing;
 * their `event_hide` column says they are hidden.
 */
export async function loadStoreFeed(
  store: Store,
  cfg: RenderConfig,
  f: FeedFilters & { tombstoneDays: number },
  now: Date,
  format: 'ics' | 'csv' = 'ics',
): Promise<FeedEvents> {
  const r = await loadFeedRecords(store, f, now, format);
  const events = r.items.map((e) => feedEvent(e, r.rel, cfg));
  const texts = storedTexts(
    r.items.filter((e) => !redacted(e)),
    r.rel.linked.values(),
  );
  for (const t of r.tombstones) events.push(tombstoneEvent(t));
  return {
    events,
    sequences: r.sequences,
    cancelled: new Set(r.tombstones.map((t) => t.id)),
    lastModified: r.lastModified,
    texts,
  };
}
