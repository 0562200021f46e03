/**
 * Desired entities: what the source says the target should hold, one per source key and kind, in the
 * canonical form that is hashed, diffed, stored in the sync state and turned into request bodies.
 * References between entities are by source key (`refs`), resolved to remote ids only when written.
 */
import { createHash } from 'node:crypto';
import type { Kind } from '../model/kind.ts';
import type { Origin } from '../sources/record.ts';

export interface Refs {
  venue?: string;
  organizers?: string[];
  categories?: string[];
  tags?: string[];
}

export interface Desired {
  kind: Kind;
  /** Stable source key, unique per pipeline and kind (spec/pipeline.md, Identity). */
  key: string;
  origin: Origin;
  uid?: string;
  /** Title or name, for plans and messages. */
  label: string;
  /** Write fields without references (contract B.6.2, B.10.1, B.11), in canonical form. */
  fields: Record<string, unknown>;
  refs: Refs;
  /** Events: the slug we create it with, derived from the key, so that a lost create can be found again. */
  slug?: string;
  /** STATUS:CANCELLED in the source: the deletion policy applies. */
  cancelled: boolean;
  /** Hash of `canonical(this)`. */
  hash: string;
}

/** The form that is hashed and kept in the sync state as "what we last wrote". */
export function canonical(d: Pick<Desired, 'fields' | 'refs'>): Record<string, unknown> {
  const refs = Object.keys(d.refs).length > 0 ? { refs: d.refs } : {};
  return { ...d.fields, ...refs };
}

/** sha256 of JSON with sorted keys, shortened: equal canonical forms hash equal, whatever the key order. */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('base64url').slice(0, 22);
}

/**
 * JSON with the keys of every object sorted (UTF-16 order) and its `undefined` members left out. Its bytes
 * are what every sync state's hashes were made of: changing them would make every kept item look changed
 * (test/pipeline/desired.test.ts pins them). Written as loops: a third of mapping a large file's CPU was here.
 */
function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (stableJson(value[i]) ?? '');
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(object).sort()) {
    const v = object[key];
    if (v === undefined) continue;
    out += `${out === '{' ? '' : ','}${JSON.stringify(key)}:${stableJson(v)}`;
  }
  return `${out}}`;
}

/** The dependency order of kinds: what an event references comes first. */
export const KIND_ORDER: readonly Kind[] = ['category', 'tag', 'venue', 'organizer', 'event'];

/** State hash of an event this pipeline turned into a draft (deletion policy `draft`): not drafted again. */
export const DRAFTED = 'drafted';
