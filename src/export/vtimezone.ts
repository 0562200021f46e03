/**
 * VTIMEZONE components generated from the runtime's time-zone database (ICU, read through luxon).
 *
 * Public: `vtimezone`.
 *
 * Why not a package of prebuilt blocks (timezones-ical-library, @touch4it/ical-timezones, as
 * ical-generator's README suggests): those ship today's rules as one RRULE pair, wrong for years before a
 * rule change, and from their own tzdata release, which can disagree with the one that computed the
 * wire's `utc_start_date`. Generating from the same database keeps DTSTART;TZID and the wire's UTC
 * instants in agreement.
 *
 * Algorithm: for each UTC year asked for, find every offset change in it and in the year before
 * (sampling the offset daily, then bisecting to the minute), so every instant of those years falls after
 * an onset. A year without a change before it gets a synthetic onset (TZOFFSETFROM = TZOFFSETTO) on
 * 1 January of the year before. Each onset is its own STANDARD or DAYLIGHT component with a DTSTART in
 * local time per TZOFFSETFROM (RFC 5545 §3.6.5) and no RRULE/RDATE: ical.js 2.2 drops the DTSTART onset
 * of a component that has RDATEs and reads only the first value of each RDATE (timezone.js
 * `_expandComponent`), so grouping onsets into one component with RDATEs breaks there.
 * Year scans and finished blocks are cached; a year costs ~400 offset look-ups once.
 */

import { IANAZone } from 'luxon';

const MINUTE = 60_000;
const DAY = 86_400_000;
const CACHE_LIMIT = 2_000;

interface Onset {
  at: number; // UTC epoch ms of the change
  from: number; // offset before, minutes east of UTC
  to: number; // offset after
}

interface YearScan {
  startOffset: number; // offset at 1 January 00:00 UTC
  onsets: Onset[];
}

const yearCache = new Map<string, YearScan>();
const blockCache = new Map<string, string | null>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

function scanYear(zone: IANAZone, year: number): YearScan {
  const key = `${zone.name}|${year}`;
  const cached = yearCache.get(key);
  if (cached) return cached;
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  // Start a minute early so that a change at exactly 00:00 UTC on 1 January is found in this year.
  let t = start - MINUTE;
  let offset = zone.offset(t);
  const scan: YearScan = { startOffset: zone.offset(start), onsets: [] };
  while (t < end) {
    const next = Math.min(t + DAY, end);
    const nextOffset = zone.offset(next);
    if (nextOffset === offset) {
      t = next;
      continue;
    }
    // offset(lo) = offset, offset(hi) ≠ offset; changes happen on whole minutes.
    let lo = t;
    let hi = next;
    while (hi - lo > MINUTE) {
      const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE;
      if (zone.offset(mid) === offset) lo = mid;
      else hi = mid;
    }
    if (hi >= end) break; // belongs to the next year's scan
    const to = zone.offset(hi);
    scan.onsets.push({ at: hi, from: offset, to });
    t = hi;
    offset = to;
  }
  return remember(yearCache, key, scan);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function formatOffset(minutes: number): string {
  const m = Math.round(Math.abs(minutes));
  return `${minutes < 0 ? '-' : '+'}${pad2(Math.floor(m / 60))}${pad2(m % 60)}`;
}

/** The local wall time of an onset as `YYYYMMDDTHHMMSS`, per the offset before it. */
function localStamp(at: number, offset: number): string {
  const d = new Date(at + offset * MINUTE);
  const year = String(d.getUTCFullYear()).padStart(4, '0');
  return `${year}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}`;
}

/** An abbreviation (`CEST`, `EST`); en-US knows the American ones, en-GB the European ones. */
function zoneName(zone: IANAZone, at: number): string {
  const us = zone.offsetName(at, { format: 'short', locale: 'en-US' }) ?? '';
  if (!us.startsWith('GMT') || us === 'GMT') return us;
  const gb = zone.offsetName(at, { format: 'short', locale: 'en-GB' }) ?? '';
  return gb.startsWith('GMT') && gb !== 'GMT' ? us : gb;
}

/** Daylight time = above the lesser of the January and July offsets (luxon's `isInDST` rule). */
function isDaylight(zone: IANAZone, at: number, offset: number): boolean {
  const year = new Date(at).getUTCFullYear();
  return offset > Math.min(zone.offset(Date.UTC(year, 0, 1)), zone.offset(Date.UTC(year, 6, 1)));
}

function render(tzid: string, zone: IANAZone, onsets: readonly Onset[]): string {
  const lines = ['BEGIN:VTIMEZONE', `TZID:${tzid}`, `X-LIC-LOCATION:${tzid}`];
  for (const o of onsets) {
    const kind = isDaylight(zone, o.at, o.to) ? 'DAYLIGHT' : 'STANDARD';
    const name = zoneName(zone, o.at);
    lines.push(`BEGIN:${kind}`, `DTSTART:${localStamp(o.at, o.from)}`);
    lines.push(`TZOFFSETFROM:${formatOffset(o.from)}`, `TZOFFSETTO:${formatOffset(o.to)}`);
    if (name) lines.push(`TZNAME:${name}`);
    lines.push(`END:${kind}`);
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/**
 * The VTIMEZONE component (CRLF-separated lines, unfolded, no final CRLF) for an IANA zone, valid for
 * every instant in the given UTC years; `null` for a name the time-zone database does not know.
 */
export function vtimezone(name: string, utcYears: Iterable<number>): string | null {
  const years = [...new Set(utcYears)].sort((a, b) => a - b);
  const key = `${name}|${years.join(',')}`;
  const cached = blockCache.get(key);
  if (cached !== undefined) return cached;
  if (years.length === 0 || !IANAZone.isValidZone(name)) return remember(blockCache, key, null);
  const zone = IANAZone.create(name);

  const onsets = new Map<number, Onset>();
  for (const year of years) {
    const before = scanYear(zone, year - 1);
    if (before.onsets.length === 0) {
      const at = Date.UTC(year - 1, 0, 1);
      onsets.set(at, { at, from: before.startOffset, to: before.startOffset });
    }
    for (const o of before.onsets) onsets.set(o.at, o);
    for (const o of scanYear(zone, year).onsets) onsets.set(o.at, o);
  }
  const sorted = [...onsets.values()].sort((a, b) => a.at - b.at);
  return remember(blockCache, key, render(name, zone, sorted));
}
