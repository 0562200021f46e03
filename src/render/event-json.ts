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
 * Bounded by the summed length of the fragments; when full the oldest are dropped, events' first.
 *
 * A page's ETag is made from its fragments' digests (each hashed once, when first needed) rather
 * than from its ~200 KB of bytes: hashing the body was a tenth of a fresh page's CPU.
 */
import { hash } from 'node:crypto';

import type { AttachmentRecord, EventRecord, LinkedRecord, TermRecord } from '../store/store.ts';
import type { RenderConfig } from './config.ts';
import { eventHead, linkedOf, type Related, sortedTerms } from './event.ts';
import { renderOrganizer, renderVenue } from './linked.ts';
import { renderEmbeddedTerm } from './term.ts';

interface Fragment<R> {
  record: R;
  image: AttachmentRecord | undefined;
  bytes: Buffer;
  /** sha256 of `bytes`, base64url (digestOf): made when a page's ETag first needs it. */
  digest?: string;
  /** An event head's bytes without the closing brace, where an item's linked fields go on. */
  open?: Buffer;
}

/** A list page's body and its strong ETag (RFC 9110 §8.8.3), a function of the body's bytes. */
export interface JsonPage {
  body: Buffer;
  etag: string;
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
  readonly #maxBytes: number;
  readonly #keepHeads: boolean;
  #bytes = 0;
  readonly #heads = new Map<number, Fragment<EventRecord>>();
  readonly #linked = new Map<number, Fragment<LinkedRecord>>();
  readonly #terms = new Map<number, Fragment<TermRecord>>();

  constructor(cfg: RenderConfig, maxBytes = cfg.renderCacheBytes, keepHeads = cfg.renderCacheEvents) {
    this.#cfg = cfg;
    this.#maxBytes = maxBytes;
    this.#keepHeads = keepHeads;
  }

  /**
   * The event as a list item, not redacted (redacted items go through renderEvent): the pieces of its
   * bytes, pushed onto `out` (mostly kept fragments, none copied).
   */
  item(e: EventRecord, rel: Related, out: Buffer[] = []): Buffer[] {
    this.#item(e, rel, out, null);
    return out;
  }

  /**
   * `item`, and when `tag` is given, the digests of the item's fragments appended to it in their order,
   * `F<head>.<categories>.<tags>.<venue>.<organizers>;` (lists joined by `,`): the item's bytes are a
   * function of that text, as renderEvent's order and the pieces between fragments are fixed.
   */
  #item(e: EventRecord, rel: Related, out: Buffer[], tag: string[] | null): void {
    const cfg = this.#cfg;
    const image = (id: number | null) => (id ? rel.attachments.get(id) : undefined);
    const renderHead = () => utf8(JSON.stringify(eventHead(e, image(e.image_id), cfg)));
    const head = this.#keepHeads
      ? this.#kept(this.#heads, e, image(e.image_id), renderHead)
      : { record: e, image: undefined, bytes: renderHead() };
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
    const list = (fragments: Fragment<object>[], separator: string) => {
      for (let i = 0; i < fragments.length; i++) {
        if (i > 0) out.push(COMMA);
        out.push(fragments[i].bytes);
        tag?.push(i > 0 ? ',' : separator, digestOf(fragments[i]));
      }
      if (fragments.length === 0) tag?.push(separator);
    };
    const { venue, organizers } = linkedOf(e, rel);
    // The head is an object: its closing brace gives way to the linked fields, in renderEvent's order.
    head.open ??= head.bytes.subarray(0, -1);
    out.push(head.open, CATEGORIES);
    tag?.push('F', digestOf(head));
    list(sortedTerms(e.category_ids, rel).map(term), '.');
    out.push(TAGS);
    list(sortedTerms(e.tag_ids, rel).map(term), '.');
    if (venue) {
      const fragment = linked(venue);
      out.push(VENUE, fragment.bytes, ORGANIZERS);
      tag?.push('.', digestOf(fragment));
    } else {
      out.push(VENUE, NO_VENUE, ORGANIZERS);
      tag?.push('.');
    }
    list(organizers.map(linked), '.');
    out.push(END);
    tag?.push(';');
  }

  /**
   * A list page's body: `{"<key>":[items…],<rest>` where `rest` is the text after the page's array,
   * each item the bytes of `item`, or of `other(e)` when it returns text (a redacted event, say). Its
   * ETag hashes the fragments' digests and the other text, each told apart (`R<length>:<text>`), so two
   * different bodies never share the text hashed.
   */
  page(
    key: string,
    items: readonly EventRecord[],
    rel: Related,
    rest: string,
    other: (e: EventRecord) => string | null,
  ): JsonPage {
    const open = `{${JSON.stringify(key)}:[`;
    const close = `],${rest}`;
    const out: Buffer[] = [utf8(open)];
    const tag: string[] = [`${open.length}:${open}`];
    items.forEach((e, i) => {
      if (i > 0) out.push(COMMA);
      const text = other(e);
      if (text === null) this.#item(e, rel, out, tag);
      else {
        out.push(utf8(text));
        tag.push(`R${text.length}:${text}`);
      }
    });
    out.push(utf8(close));
    tag.push('|', close);
    return { body: Buffer.concat(out), etag: `"${hash('sha256', tag.join(''), 'base64url').slice(0, 32)}"` };
  }

  #kept<R extends object>(
    fragments: Map<number, Fragment<R>>,
    record: R & { id: number },
    image: AttachmentRecord | undefined,
    render: () => Buffer,
  ): Fragment<R> {
    const kept = fragments.get(record.id);
    if (kept && sameFields(kept.record, record) && sameImage(kept.image, image)) return kept;
    const fragment: Fragment<R> = { record, image, bytes: render() };
    if (kept) {
      this.#bytes -= kept.bytes.length;
      fragments.delete(record.id);
    }
    this.#makeRoom(fragment.bytes.length);
    fragments.set(record.id, fragment);
    this.#bytes += fragment.bytes.length;
    return fragment;
  }

  /**
   * Drops the fragments kept longest (a Map iterates in insertion order, and a changed record is
   * inserted again) until `bytes` more fit: events' heads first, the most and the least shared.
   */
  #makeRoom(bytes: number): void {
    for (const fragments of [this.#heads, this.#linked, this.#terms] as Map<number, Fragment<object>>[]) {
      for (const [id, fragment] of fragments) {
        if (this.#bytes + bytes <= this.#maxBytes) return;
        fragments.delete(id);
        this.#bytes -= fragment.bytes.length;
      }
    }
  }
}

/** 22 characters (132 bits, as the pipeline's entity hashes): a page's ETag hashes ~300 of them. */
function digestOf(fragment: Fragment<object>): string {
  fragment.digest ??= hash('sha256', fragment.bytes, 'base64url').slice(0, 22);
  return fragment.digest;
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
