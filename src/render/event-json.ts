/**
 * List items (A.7) as UTF-8 JSON, from fragments kept by what they are made of. Public:
 * `EventListJson#item`, the bytes of `JSON.stringify(renderEvent(e, rel, cfg, { single: false }))` as
 * pieces to concatenate, and `EventListJson#page`, a list page's body from them.
 *
 * Rendering and serialising a page of 50 events cost ~2 ms of the ~4 ms an uncached page took, yet
 * between two writes, and mostly across them, the events, venues, organizers and terms of a page are
 * the ones rendered before. So the JSON of each event's own fields (`eventHead`), of each venue and
 * organizer and of each embedded term is kept with the record it was made from, and reused while the
 * record read now is field for field the same; an item is its head with the fragments of its terms,
 * venue and organizers spliced in, in renderEvent's order. Changes need no invalidation: a changed
 * record (a term's count after a write, an edited venue) simply no longer matches its fragment.
 *
 * Bounded by the summed length of the fragments; when full it starts over.
 */

import type { AttachmentRecord, EventRecord, LinkedRecord, TermRecord } from '../store/store.ts';
import type { RenderConfig } from './config.ts';
import { eventHead, linkedOf, type Related, sortedTerms } from './event.ts';
import { renderOrganizer, renderVenue } from './linked.ts';
import { renderEmbeddedTerm } from './term.ts';

interface Fragment<R> {
  record: R;
  image: AttachmentRecord | undefined;
  bytes: Buffer;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const COMMA = utf8(',');
const CATEGORIES = utf8(',"categories":[');
const TAGS = utf8('],"tags":[');
const VENUE = utf8('],"venue":');
const NO_VENUE = utf8('[]');
const ORGANIZERS = utf8(',"organizer":[');
const END = utf8(']}');

export class EventListJson {
  readonly #cfg: RenderConfig;
  readonly #maxChars: number;
  readonly #keepHeads: boolean;
  #chars = 0;
  readonly #heads = new Map<number, Fragment<EventRecord>>();
  readonly #linked = new Map<number, Fragment<LinkedRecord>>();
  readonly #terms = new Map<number, Fragment<TermRecord>>();

  constructor(cfg: RenderConfig, maxChars = cfg.renderCacheChars, keepHeads = cfg.renderCacheEvents) {
    this.#cfg = cfg;
    this.#maxChars = maxChars;
    this.#keepHeads = keepHeads;
  }

  /**
   * The event as a list item, not redacted (redacted items go through renderEvent): the pieces of its
   * bytes, pushed onto `out` (mostly kept fragments, none copied).
   */
  item(e: EventRecord, rel: Related, out: Buffer[] = []): Buffer[] {
    const cfg = this.#cfg;
    const image = (id: number | null) => (id ? rel.attachments.get(id) : undefined);
    const renderHead = () => utf8(JSON.stringify(eventHead(e, image(e.image_id), cfg)));
    const head = this.#keepHeads ? this.#kept(this.#heads, e, image(e.image_id), renderHead) : renderHead();
    const term = (t: TermRecord) =>
      this.#kept(this.#terms, t, undefined, () => utf8(JSON.stringify(renderEmbeddedTerm(t, cfg))));
    const linked = (p: LinkedRecord) =>
      this.#kept(this.#linked, p, image(p.image_id), () =>
        utf8(
          JSON.stringify(
            p.kind === 'venue'
              ? renderVenue(p, image(p.image_id), cfg, false)
              : renderOrganizer(p, image(p.image_id), cfg, false),
          ),
        ),
      );
    const list = (pieces: Buffer[]) => {
      for (let i = 0; i < pieces.length; i++) {
        if (i > 0) out.push(COMMA);
        out.push(pieces[i]);
      }
    };
    const { venue, organizers } = linkedOf(e, rel);
    // The head is an object: its closing brace gives way to the linked fields, in renderEvent's order.
    out.push(head.subarray(0, -1), CATEGORIES);
    list(sortedTerms(e.category_ids, rel).map(term));
    out.push(TAGS);
    list(sortedTerms(e.tag_ids, rel).map(term));
    out.push(VENUE, venue ? linked(venue) : NO_VENUE, ORGANIZERS);
    list(organizers.map(linked));
    out.push(END);
    return out;
  }

  /**
   * A list page's body: `{"<key>":[items…],<rest>` where `rest` is the text after the page's array,
   * each item the bytes of `item`, or of `other(e)` when it returns text (a redacted event, say).
   */
  page(
    key: string,
    items: readonly EventRecord[],
    rel: Related,
    rest: string,
    other: (e: EventRecord) => string | null,
  ): Buffer {
    const out: Buffer[] = [utf8(`{${JSON.stringify(key)}:[`)];
    items.forEach((e, i) => {
      if (i > 0) out.push(COMMA);
      const text = other(e);
      if (text === null) this.item(e, rel, out);
      else out.push(utf8(text));
    });
    out.push(utf8(`],${rest}`));
    return Buffer.concat(out);
  }

  #kept<R extends object>(
    fragments: Map<number, Fragment<R>>,
    record: R & { id: number },
    image: AttachmentRecord | undefined,
    render: () => Buffer,
  ): Buffer {
    const kept = fragments.get(record.id);
    if (kept && sameFields(kept.record, record) && sameImage(kept.image, image)) return kept.bytes;
    const bytes = render();
    if (kept) this.#chars -= kept.bytes.length;
    if (this.#chars + bytes.length > this.#maxChars) this.#clear();
    fragments.set(record.id, { record, image, bytes });
    this.#chars += bytes.length;
    return bytes;
  }

  #clear(): void {
    this.#heads.clear();
    this.#linked.clear();
    this.#terms.clear();
    this.#chars = 0;
  }
}

/**
 * Every scalar field equal. Arrays (an event's links) are skipped: the head does not show them, and
 * the fragments of what they point to are checked on their own.
 */
function sameFields(a: object, b: object): boolean {
  if (a === b) return true;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key in y) {
    const v = y[key];
    if (v !== x[key] && !Array.isArray(v)) return false;
  }
  return true;
}

/** Attachments are never updated once stored: the same id is the same image. */
function sameImage(a: AttachmentRecord | undefined, b: AttachmentRecord | undefined): boolean {
  return a?.id === b?.id;
}
