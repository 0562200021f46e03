// Time zones of the contract: `timezone` names (B.6.1) read into a canonical `Zone`, and each zone's UTC
// offsets at an instant, for datetime.ts and timezone-abbr.ts. Pure and independent of the host zone:
// instants are epoch milliseconds, wall times are "epoch milliseconds as if the wall time were UTC".
// Offsets come from Intl (ICU's `longOffset` name, `GMT+05:30`), memoised per zone and day or hour because
// serialising an event asks for them several times. Wall time → instant is resolved here, not by luxon's
// DateTime.fromObject, whose choice in a DST overlap depends on the current date.

import { DAY, HOUR, pad2, SECOND } from './civil-time.ts';
import { detached } from './detached.ts';

/** Canonical zone: IANA name in canonical case (`America/New_York`), `UTC`, or `UTC+2`, `UTC-3:30`. */
export type Zone = string;

// ---- Time zone names -------------------------------------------------------------------------

// `UTC+2`, `UTC+02`, `UTC+2:30`, `UTC+0230`, `+02:00`, `-0330`, and WordPress's `UTC+5.5`.
const OFFSET_NAME = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2})|\.(\d{1,2}))?$/i;
const MAX_OFFSET_MINUTES = 14 * 60;

// Names seen so far: an import asks for the same few zones on every event, and validating a name that
// ICU's list lacks (`Asia/Kolkata`) builds an Intl.DateTimeFormat each time. Bounded: inputs are user text.
const normalized = new Map<string, Zone | null>();
const MAX_NORMALIZED = 1000;

/** `input` as a canonical Zone, or `null` if it names no zone (B.6.1). */
export function normalizeTimezone(input: string): Zone | null {
  let zone = normalized.get(input);
  if (zone === undefined) {
    if (normalized.size >= MAX_NORMALIZED) normalized.clear();
    zone = normalizeUncached(input);
    normalized.set(detached(input), zone);
  }
  return zone;
}

function normalizeUncached(input: string): Zone | null {
  const name = input.trim();
  if (/^(?:UTC|GMT|Z)$/i.test(name)) return 'UTC';
  const minutes = offsetNameMinutes(name);
  if (minutes !== undefined) return minutes === null ? null : fixedZoneName(minutes);
  return canonicalIana(name);
}

// undefined: not an offset at all; null: an offset out of range.
function offsetNameMinutes(name: string): number | null | undefined {
  const m = OFFSET_NAME.exec(name);
  if (!m) return undefined;
  const minutes = m[4] !== undefined ? Number(`0.${m[4]}`) * 60 : Number(m[3] ?? 0);
  const total = Number(m[2]) * 60 + minutes;
  if (!Number.isInteger(minutes) || minutes >= 60 || total > MAX_OFFSET_MINUTES) return null;
  return m[1] === '-' ? -total : total;
}

function fixedZoneName(minutes: number): Zone {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const rest = abs % 60;
  return `UTC${minutes < 0 ? '-' : '+'}${Math.floor(abs / 60)}${rest ? `:${pad2(rest)}` : ''}`;
}

let icuNames: Map<string, string> | undefined;

// Intl matches zone names case-insensitively but reports aliases by their target (`US/Eastern` →
// `America/New_York`, even `Asia/Kolkata` → `Asia/Calcutta` in ICU 78), and its list holds ICU's
// canonical names only. So: the list's spelling if it has the name, else tzdata's case conventions.
function canonicalIana(name: string): Zone | null {
  icuNames ??= new Map(Intl.supportedValuesOf('timeZone').map((zone) => [zone.toLowerCase(), zone]));
  const lower = name.toLowerCase();
  const listed = icuNames.get(lower);
  if (listed !== undefined) return listed;
  if (!/^[a-z][a-z0-9_+\-/]*$/.test(lower) || !isKnownZone(name)) return null;
  return lower
    .split('/')
    .map((part) => part.replace(/[a-z]+/g, (word, at: number) => ianaWord(word, at === 0)))
    .join('/');
}

/**
 * Whether Intl knows `name` as a time zone: luxon's `IANAZone.isValidZone`, which is this check, without
 * loading luxon for it (issue 17: an import that reads no CSV and writes no .ics needs nothing else of it).
 */
function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name }).format();
    return true;
  } catch {
    return false;
  }
}

/** A space-separated list as an array: the packed name tables here and in timezone-abbr.ts. */
export const words = (list: string): string[] => list.split(' ');

// The tzdata names (2025b) outside ICU's list that plain capitalisation gets wrong.
const UPPER_WORDS = new Set(
  words(
    'act cdt cet chat cst edt eet est gb gmt hst in lhi mdt met mst nsw nz pdt prc pst roc rok su uct us utc w wet',
  ),
);
const LOWER_WORDS = new Set(words('of es au')); // Isle_of_Man, Dar_es_Salaam, Port-au-Prince
const CAMEL_NAMES = words('BajaNorte BajaSur ComodRivadavia DeNoronha DumontDUrville EasterIsland McMurdo');
const CAMEL_WORDS = new Map(CAMEL_NAMES.map((name) => [name.toLowerCase(), name]));

function ianaWord(word: string, first: boolean): string {
  if (UPPER_WORDS.has(word)) return word.toUpperCase();
  if (!first && LOWER_WORDS.has(word)) return word;
  return CAMEL_WORDS.get(word) ?? word[0].toUpperCase() + word.slice(1);
}

// ---- Offsets ---------------------------------------------------------------------------------

/** A zone resolved once: its canonical name and what its offsets are read from. */
export interface ZoneInfo {
  readonly name: Zone;
  readonly iana: Intl.DateTimeFormat | null; // null: fixed offset; else the zone's offset formatter
  readonly fixedMs: number;
  readonly hourOffsets: Map<number, number>; // UTC hour → offset in ms, for hours without a transition
  readonly dayOffsets: Map<number, number>; // UTC day → offset in ms, or NaN: a transition that day
  readonly midnightOffsets: Map<number, number>; // UTC day → offset in ms at its first instant
}

const zoneInfos = new Map<string, ZoneInfo>();
const MAX_CACHED_HOURS = 20_000;

/** The memoised ZoneInfo of `zone` in any spelling normalizeTimezone accepts; throws a RangeError if none. */
export function zoneInfo(zone: Zone): ZoneInfo {
  let info = zoneInfos.get(zone);
  if (info !== undefined) return info;
  const name = normalizeTimezone(zone);
  if (name === null) throw new RangeError(`Unknown time zone: ${JSON.stringify(zone)}`);
  const minutes = name === 'UTC' ? 0 : name.startsWith('UTC') ? offsetNameMinutes(name) : null;
  info = {
    name,
    iana:
      typeof minutes === 'number'
        ? null
        : new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' }),
    fixedMs: (minutes ?? 0) * 60 * SECOND,
    hourOffsets: new Map(),
    dayOffsets: new Map(),
    midnightOffsets: new Map(),
  };
  zoneInfos.set(zone, info);
  return info;
}

/**
 * The zone's offset from UTC in ms (whole seconds) at the instant `ms`. Remembered per UTC day
 * when the offset is the same at both ends of it, else per hour: events spread over a year
 * touch ~365 days a zone, and each asks for several instants around its wall time.
 */
export function offsetAt(info: ZoneInfo, ms: number): number {
  const iana = info.iana;
  if (iana === null) return info.fixedMs;
  const day = Math.floor(ms / DAY);
  const daily = info.dayOffsets.get(day);
  if (daily !== undefined && !Number.isNaN(daily)) return daily;
  if (daily === undefined) {
    const start = midnightOffset(info, iana, day);
    // No zone changes its offset twice within a day, so equal offsets at its midnight and the next mean no
    // change inside (a change right at the next midnight is taken as one inside: answered per hour below).
    // Each midnight asked once: the end of one day is the start of the next.
    const same = start === midnightOffset(info, iana, day + 1);
    if (info.dayOffsets.size >= MAX_CACHED_HOURS) info.dayOffsets.clear();
    info.dayOffsets.set(day, same ? start : Number.NaN);
    if (same) return start;
  }
  const hour = Math.floor(ms / HOUR);
  const cached = info.hourOffsets.get(hour);
  if (cached !== undefined) return cached;
  const start = ianaOffset(iana, hour * HOUR);
  // Same offset at both ends of the hour: no transition inside (no zone has two within an hour).
  if (start !== ianaOffset(iana, hour * HOUR + HOUR - SECOND)) return ianaOffset(iana, ms);
  if (info.hourOffsets.size >= MAX_CACHED_HOURS) info.hourOffsets.clear();
  info.hourOffsets.set(hour, start);
  return start;
}

function midnightOffset(info: ZoneInfo, iana: Intl.DateTimeFormat, day: number): number {
  let offset = info.midnightOffsets.get(day);
  if (offset === undefined) {
    if (info.midnightOffsets.size >= MAX_CACHED_HOURS) info.midnightOffsets.clear();
    offset = ianaOffset(iana, day * DAY);
    info.midnightOffsets.set(day, offset);
  }
  return offset;
}

// ICU's offset at `ms` to the second, as its `longOffset` name ends the formatted date: `GMT+05:30`,
// `GMT+05:53:28` (local mean time), `GMT` (zero). The same numbers luxon's IANAZone gave (compared for every
// zone, years 1–9999, before the switch) at a quarter of the cost: luxon formats to parts and rebuilds a date.
const LONG_OFFSET = /GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/;

function ianaOffset(format: Intl.DateTimeFormat, ms: number): number {
  const text = format.format(ms);
  const m = LONG_OFFSET.exec(text);
  if (m === null) throw new RangeError(`Unexpected offset ${JSON.stringify(text)}`);
  if (m[1] === undefined) return 0;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return (m[1] === '-' ? -seconds : seconds) * SECOND;
}

// The instant a wall time means. Candidates are the offsets a day before and after; a valid one wins,
// the earlier instant first — in an overlap that is the first occurrence (PHP, Temporal "earlier").
// None valid is a gap: the offset from before it pushes the wall time forward by the gap's length
// (2:30 in a 2:00→3:00 gap becomes 3:30), as PHP and luxon do.
export function wallToInstant(wall: number, info: ZoneInfo): number {
  if (info.iana === null) return wall - info.fixedMs;
  const before = offsetAt(info, wall - DAY);
  const after = offsetAt(info, wall + DAY);
  const early = wall - before;
  if (offsetAt(info, early) === before) return early;
  const late = wall - after;
  return offsetAt(info, late) === after ? late : early;
}

/** An offset in ms as `±HH`, then `separator` and minutes if there are any or `alwaysMinutes`. */
export function formatOffset(ms: number, separator: string, alwaysMinutes: boolean): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const rest = minutes % 60;
  const tail = rest || alwaysMinutes ? `${separator}${pad2(rest)}` : '';
  return `${ms < 0 ? '-' : '+'}${pad2(Math.floor(minutes / 60))}${tail}`;
}
