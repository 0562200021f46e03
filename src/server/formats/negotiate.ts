/**
 * Content negotiation for GET routes (contract B.12, D6).
 *
 * Public: `MediaType`, `negotiate`, `contentType`.
 *
 * Algorithm (RFC 9110 §12.5.1): every available representation gets the weight of the most specific
 * `Accept` range that matches one of its media types (`type/subtype` over `type/*` over `*\/*`);
 * `q=0` makes it unacceptable. The highest weight wins; ties go to the range listed first in the
 * header, then to JSON, then to the order of `available` (the route's preference). So:
 *
 * - no header, an empty one, or one with no parsable range → JSON;
 * - `*\/*`, `application/*` → JSON; `text/*` → the first of `available` that has a `text/` type
 *   (`ical`, `csv`, or `xml` as `text/xml`), so the route's order decides;
 * - `application/xml` and `text/xml` → `xml`, `text/calendar` → `ical`, `text/csv` → `csv`;
 * - media-type parameters other than `q` (`charset`, `header`) are ignored: we only serve UTF-8;
 * - nothing acceptable → `null`, which the caller answers with 406 `rest_not_acceptable`.
 *
 * `?ical=1` forces iCalendar whatever `Accept` says (`null` where iCalendar is not available).
 */

export type MediaType = 'json' | 'ical' | 'csv' | 'xml';

// The media types each representation answers to; the first is the one we send (`contentType`).
const MEDIA: Readonly<Record<MediaType, readonly string[]>> = {
  json: ['application/json'],
  ical: ['text/calendar'],
  csv: ['text/csv'],
  xml: ['application/xml', 'text/xml'],
};

const CONTENT_TYPE: Readonly<Record<MediaType, string>> = {
  json: 'application/json; charset=UTF-8',
  ical: 'text/calendar; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  xml: 'application/xml; charset=UTF-8',
};

/** The `Content-Type` header value for a negotiated representation (B.12 table). */
export function contentType(t: MediaType): string {
  return CONTENT_TYPE[t];
}

interface Range {
  type: string; // lower-cased, `*` allowed
  subtype: string;
  q: number;
  position: number;
}

// RFC 9110 token; `*` is a token character, so `*/*` passes and is checked for sense below.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// RFC 9110 §12.4.2 weight: at most three decimals, 0 … 1.
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Splits at commas outside quoted strings (a parameter value may be quoted and hold a comma). */
function splitOutsideQuotes(s: string, sep: string): string[] {
  if (!s.includes('"')) return s.split(sep);
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === sep && !quoted) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/** Parses an `Accept` value; malformed ranges are skipped, not fatal. */
function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const element of splitOutsideQuotes(accept, ',')) {
    const [mediaRange, ...params] = splitOutsideQuotes(element, ';');
    const slash = mediaRange.indexOf('/');
    if (slash < 0) continue;
    const type = mediaRange.slice(0, slash).trim().toLowerCase();
    const subtype = mediaRange
      .slice(slash + 1)
      .trim()
      .toLowerCase();
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (!WEIGHT.test(value)) valid = false;
      else q = Number(value);
      break; // anything after the weight was an accept-ext (RFC 7231), never a media-type parameter
    }
    if (valid) ranges.push({ type, subtype, q, position: ranges.length });
  }
  return ranges;
}

/** The most specific range matching `media` (`type/subtype`), or undefined. */
function bestRange(ranges: readonly Range[], media: string): Range | undefined {
  const slash = media.indexOf('/');
  const type = media.slice(0, slash);
  const subtype = media.slice(slash + 1);
  let best: Range | undefined;
  let bestSpecificity = -1;
  for (const r of ranges) {
    let specificity: number;
    if (r.type === type && r.subtype === subtype) specificity = 2;
    else if (r.type === type && r.subtype === '*') specificity = 1;
    else if (r.type === '*') specificity = 0;
    else continue;
    // The first of equally specific ranges counts (RFC 9110 leaves duplicates undefined).
    if (specificity > bestSpecificity) {
      best = r;
      bestSpecificity = specificity;
    }
  }
  return best;
}

/**
 * Chooses the representation for a GET: `?ical=1` first, then `Accept` (see the module comment).
 * `available` lists the route's representations in its order of preference, JSON first.
 * Returns `null` when none is acceptable (→ 406).
 */
export function negotiate(
  accept: string | undefined,
  icalParam: boolean,
  available: readonly MediaType[],
): MediaType | null {
  if (icalParam) return available.includes('ical') ? 'ical' : null;
  const fallback = available.includes('json') ? 'json' : (available[0] ?? null);
  if (accept === undefined || accept.trim() === '') return fallback;
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return fallback;

  let winner: MediaType | null = null;
  let winnerQ = 0;
  let winnerPosition = 0;
  for (const t of available) {
    let q = 0;
    let position = Number.POSITIVE_INFINITY;
    for (const media of MEDIA[t]) {
      const r = bestRange(ranges, media);
      if (r && (r.q > q || (r.q === q && r.position < position))) {
        q = r.q;
        position = r.position;
      }
    }
    if (q === 0) continue;
    // Strictly better only: on a full tie the earlier of `available` (or JSON) stays.
    const better =
      winner === null ||
      q > winnerQ ||
      (q === winnerQ && position < winnerPosition) ||
      (q === winnerQ && position === winnerPosition && t === 'json');
    if (better) {
      winner = t;
      winnerQ = q;
      winnerPosition = position;
    }
  }
  return winner;
}
