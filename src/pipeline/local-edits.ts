/**
 * Fields edited on the target since our last write (the `preserve-local-edits` update policy,
 * spec/pipeline.md "Policies"). Public: fieldHashes, editedFields, keptValues, toWire, REF_FIELDS.
 *
 * What we wrote and what the target shows differ in form (titles come back HTML-escaped, descriptions
 * wrapped in paragraphs, images as attachment ids, references as ids: contract C.5), so an edit is not
 * found by comparing the two. Instead each write records, per field, a hash of the field *as the target
 * showed it in its answer* (`fieldHashes`); later, a field whose hash on the target differs was changed
 * there. The form is the writer's `resendBody` — the item as a complete write body — so that a kept field
 * can be sent back unchanged to a target whose updates replace the whole item (TEC, C.4).
 */
import { hash } from 'node:crypto';
import type { Kind } from '../model/kind.ts';
import type { StateItem } from '../state/sync-state.ts';
import { resendBody } from '../writer/resend-body.ts';
import type { Remote } from '../writer/target.ts';

/** Canonical reference fields (desired.ts `refs`), flattened beside the write fields in diffs. */
export const REF_FIELDS = ['venue', 'organizers', 'categories', 'tags'] as const;

/** Canonical field name → its name in a write body (events send `organizer`, contract B.6.2). */
export const toWire = (field: string) => (field === 'organizers' ? 'organizer' : field);
const fromWire = (field: string) => (field === 'organizer' ? 'organizers' : field);

/**
 * Fields the target sets, not we: the publication date (C.4: TEC sets it to now on every update that does
 * not send it) and the target's own description of a venue or organizer, which we never write.
 */
const NOT_OURS = new Set(['date', 'description', 'stateprovince']);

/** Field → hash of the item's field as the target shows it (`body` is the API's JSON of the item). */
export function fieldHashes(kind: Kind, body: Record<string, unknown>): Record<string, string> {
  const form = resendBody(kind, body);
  const hashes: Record<string, string> = {};
  for (const [wire, value] of Object.entries(form)) {
    if (kind === 'event' || !NOT_OURS.has(wire)) {
      if (wire !== 'date') hashes[fromWire(wire)] = fingerprint(value);
    }
  }
  return hashes;
}

/**
 * A field's value as recorded: short values (dates, flags, ids, statuses) as their JSON, longer ones as a
 * hash of it. Every write records ~20 fields; a sha256 of each cost the 10,000-event import ~1.3 s,
 * against ~0.05 s for the two or three values long enough to need hashing (bench/import.ts).
 */
function fingerprint(value: unknown): string {
  const json = JSON.stringify(value ?? null);
  return json.length <= 40 ? json : `#${hash('sha1', json, 'base64url').slice(0, 16)}`;
}

/**
 * The canonical fields of `item` changed on the target since our last write: those whose hash in
 * `current` differs from the one recorded after that write. `unknown` when the item was written before
 * per-field hashes existed and the target's `modified` moved since (what changed cannot be told).
 */
export function editedFields(item: StateItem, current: Remote): string[] | 'unknown' {
  if (!item.remoteFields) {
    return item.remoteModified !== null && current.modified === item.remoteModified ? [] : 'unknown';
  }
  const before = item.remoteFields;
  const now = fieldHashes(item.kind, current.body);
  // Both sides' keys: a venue linked on the site to an event we wrote without one is an edit too.
  return [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((f) => now[f] !== before[f]);
}

/** The target's current values of `fields`, in write form (ids for references), to send back unchanged. */
export function keptValues(kind: Kind, current: Remote, fields: readonly string[]): Record<string, unknown> {
  const form = resendBody(kind, current.body);
  return Object.fromEntries(fields.map((f) => [f, form[toWire(f)]]));
}

/** Reads a flattened field of a canonical body (desired.ts `canonical`): references live under `refs`. */
export function fieldOf(body: Record<string, unknown>, field: string): unknown {
  if ((REF_FIELDS as readonly string[]).includes(field))
    return (body.refs as Record<string, unknown> | undefined)?.[field];
  return body[field];
}

/** `body` with a flattened field set to `value` (or removed, for `undefined`). */
export function withField(
  body: Record<string, unknown>,
  field: string,
  value: unknown,
): Record<string, unknown> {
  if (!(REF_FIELDS as readonly string[]).includes(field)) {
    const out = { ...body };
    if (value === undefined) delete out[field];
    else out[field] = value;
    return out;
  }
  const refs = { ...((body.refs as Record<string, unknown> | undefined) ?? {}) };
  if (value === undefined) delete refs[field];
  else refs[field] = value;
  const { refs: _, ...rest } = body;
  return Object.keys(refs).length > 0 ? { ...rest, refs } : rest;
}
