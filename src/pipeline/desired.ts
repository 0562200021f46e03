/**
 * Desired entities: what the source says the target should hold, one per source key and kind, in the
 * canonical form that is hashed, diffed, stored in the sync state and turned into request bodies.
 * References between entities are by source key (`refs`), resolved to remote ids only when written.
 */
import { hash } from 'node:crypto';
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
  return digest(jsonOf(sortedCopy(value), () => value));
}

/** `hashOf(canonical(d))`, without the copy canonical makes: the hash every desired entity gets. */
export function canonicalHash(d: Pick<Desired, 'fields' | 'refs'>): string {
  const withRefs = Object.keys(d.refs).length > 0;
  return digest(jsonOf(sortedObject(d.fields, withRefs ? d.refs : undefined), () => canonical(d)));
}

function digest(json: string | undefined): string {
  // One-shot: createHash().update().digest() costs three calls into the binding per entity.
  return hash('sha256', json as string, 'base64url').slice(0, 22);
}

/**
 * The JSON of `sorted` (a sortedCopy) by JSON.stringify — the same bytes as stableJson, written natively
 * as one flat string — or stableJson's of the value where the two could differ (UNUSUAL).
 */
function jsonOf(sorted: unknown, value: () => unknown): string | undefined {
  return sorted !== UNUSUAL ? JSON.stringify(sorted) : stableJson(value());
}

/**
 * What sortedCopy returns for a value JSON.stringify would not write as stableJson does: a function,
 * symbol or bigint, an array with a hole or an undefined member, a key JSON objects order by number or
 * one that is no plain property when set (`__proto__`). stableJson writes those (or throws) as it always did.
 */
const UNUSUAL = Symbol('unusual');

/** `value` with the keys of every object in stableJson's order (sortedKeys), or UNUSUAL. */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return scalar(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const sorted = typeof item === 'object' && item !== null ? sortedCopy(item) : scalar(item);
      if (sorted === UNUSUAL || sorted === undefined) return UNUSUAL;
      if (sorted !== item) {
        copy ??= value.slice();
        copy[i] = sorted;
      }
    }
    return copy ?? value;
  }
  return sortedObject(value as Record<string, unknown>);
}

function scalar(value: unknown): unknown {
  const type = typeof value;
  return type === 'function' || type === 'symbol' || type === 'bigint' ? UNUSUAL : value;
}

/** A plain object with the keys of `object` (and `refs` under "refs", as canonical puts it) in sorted order. */
function sortedObject(object: Record<string, unknown>, refs?: Refs): unknown {
  const keys = Object.keys(object);
  if (refs !== undefined && !Object.hasOwn(object, 'refs')) keys.push('refs');
  sortKeys(keys);
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === '__proto__') return UNUSUAL;
    const v = refs !== undefined && key === 'refs' ? refs : object[key];
    const sorted = typeof v === 'object' && v !== null ? sortedCopy(v) : scalar(v);
    if (sorted === UNUSUAL) return UNUSUAL;
    copy[key] = sorted;
  }
  return copy;
}

/**
 * JSON with the keys of every object sorted (UTF-16 order) and its `undefined` members left out. Its bytes
 * are what every sync state's hashes were made of: changing them would make every kept item look changed
 * (test/pipeline/desired.test.ts pins them). hashOf writes the same bytes by JSON.stringify of a copy with sorted
 * keys (one flat string, no rope for the hash to flatten), and comes here only for what JSON.stringify would
 * write otherwise (UNUSUAL); the tests compare the two on random values.
 */
export function stableJson(value: unknown): string | undefined {
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (stableJson(value[i]) ?? '');
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '';
  for (const key of sortedKeys(object)) {
    const v = object[key];
    if (v === undefined) continue;
    out += (out === '' ? '{' : ',') + quotedKey(key) + stableJson(v);
  }
  return out === '' ? '{}' : `${out}}`;
}

// The same few dozen keys on every entity: each quoted once.
const quotedKeys = new Map<string, string>();

/** `"key":` as the loop writes it. */
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${stableJson(key)}:`;
    if (quotedKeys.size < 1000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

// What JSON.stringify escapes in a string (ECMA-262 QuoteJSONString): `"`, `\`, controls, surrogates
// (a lone one is escaped; a pair is kept, which JSON.stringify does itself).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The keys of `object` in the order of Array.prototype.sort() (UTF-16 code units, which `<` compares too),
 * by insertion: a few dozen keys, often nearly in order, sort several times faster so than by the builtin.
 */
function sortedKeys(object: object): string[] {
  return sortKeys(Object.keys(object));
}

function sortKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return keys;
}

/** The dependency order of kinds: what an event references comes first. */
export const KIND_ORDER: readonly Kind[] = ['category', 'tag', 'venue', 'organizer', 'event'];

/** State hash of an event this pipeline turned into a draft (deletion policy `draft`): not drafted again. */
export const DRAFTED = 'drafted';
