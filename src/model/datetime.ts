// Date-times and time zones of the contract: the wire format `YYYY-MM-DD HH:MM:SS` (A.0), date details
// (A.5), date and `timezone` input (B.6.1) and `timezone_abbr` (A.1). Pure and independent of the host
// zone: instants are epoch milliseconds, wall times are "epoch milliseconds as if the wall time were UTC".
// Offsets come from luxon's IANAZone (Intl underneath), memoised per zone and hour because serialising an
// event asks for them several times. Wall time → instant is resolved here, not by luxon's
// DateTime.fromObject, whose choice in a DST overlap depends on the current date.

import { IANAZone } from 'luxon';

/** Canonical zone: IANA name in canonical case (`America/New_York`), `UTC`, or `UTC+2`, `UTC-3:30`. */
export type Zone = string;

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const WIRE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
/** WordPress's "no date" (`date_utc` of an unpublished draft, A.0): passed through unconverted. */
const ZERO_DATE = '0000-00-00 00:00:00';
const MIN_MS = -62_135_596_800_000; // 0001-01-01 00:00:00
const MAX_MS = 253_402_300_799_000; // 9999-12-31 23:59:59

// ---- Time zone names -------------------------------------------------------------------------

// `UTC+2`, `UTC+02`, `UTC+2:30`, `UTC+0230`, `+02:00`, `-0330`, and WordPress's `UTC+5.5`.
const OFFSET_NAME = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2})|\.(\d{1,2}))?$/i;
const MAX_OFFSET_MINUTES = 14 * 60;

/** `input` as a canonical Zone, or `null` if it names no zone (B.6.1). */
export function normalizeTimezone(input: string): Zone | null {
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
  if (!/^[a-z][a-z0-9_+\-/]*$/.test(lower) || !IANAZone.isValidZone(name)) return null;
  return lower
    .split('/')
    .map((part) => part.replace(/[a-z]+/g, (word, at: number) => ianaWord(word, at === 0)))
    .join('/');
}

// The tzdata names (2025b) outside ICU's list that plain capitalisation gets wrong.
const words = (list: string): string[] => list.split(' ');
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

interface ZoneInfo {
  readonly name: Zone;
  readonly iana: IANAZone | null; // null: fixed offset
  readonly fixedMs: number;
  readonly hourOffsets: Map<number, number>; // UTC hour → offset in ms, for hours without a transition
  readonly abbrs: Map<number, string>; // offset in ms → abbreviation
}

const zoneInfos = new Map<string, ZoneInfo>();
const MAX_CACHED_HOURS = 20_000;

function zoneInfo(zone: Zone): ZoneInfo {
  let info = zoneInfos.get(zone);
  if (info !== undefined) return info;
  const name = normalizeTimezone(zone);
  if (name === null) throw new RangeError(`Unknown time zone: ${JSON.stringify(zone)}`);
  const minutes = name === 'UTC' ? 0 : name.startsWith('UTC') ? offsetNameMinutes(name) : null;
  info = {
    name,
    iana: typeof minutes === 'number' ? null : IANAZone.create(name),
    fixedMs: (minutes ?? 0) * 60 * SECOND,
    hourOffsets: new Map(),
    abbrs: new Map(),
  };
  zoneInfos.set(zone, info);
  return info;
}

function offsetAt(info: ZoneInfo, ms: number): number {
  const iana = info.iana;
  if (iana === null) return info.fixedMs;
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

// luxon answers in (possibly fractional, for local mean time) minutes; keep whole seconds.
function ianaOffset(iana: IANAZone, ms: number): number {
  return Math.round(iana.offset(ms) * 60) * SECOND;
}

// The instant a wall time means. Candidates are the offsets a day before and after; a valid one wins,
// the earlier instant first — in an overlap that is the first occurrence (PHP, Temporal "earlier").
// None valid is a gap: the offset from before it pushes the wall time forward by the gap's length
// (2:30 in a 2:00→3:00 gap becomes 3:30), as PHP and luxon do.
function wallToInstant(wall: number, info: ZoneInfo): number {
  if (info.iana === null) return wall - info.fixedMs;
  const before = offsetAt(info, wall - DAY);
  const after = offsetAt(info, wall + DAY);
  const early = wall - before;
  if (offsetAt(info, early) === before) return early;
  const late = wall - after;
  return offsetAt(info, late) === after ? late : early;
}

// ---- Wire format -----------------------------------------------------------------------------

const PAD2 = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : String(n)));

function pad2(n: number): string {
  return PAD2[n];
}

// Days since 1970-01-01 of a proleptic Gregorian date and back: Howard Hinnant's civil-date algorithms
// (https://howardhinnant.github.io/date_algorithms.html). Integer arithmetic beats Date on the hot path
// and, unlike Date.UTC, does not read years 0–99 as 1900–1999.
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

function fieldsToMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  return daysFromCivil(y, mo, d) * DAY + h * HOUR + mi * 60_000 + s * SECOND;
}

function wireToMs(wire: string): number {
  if (!WIRE.test(wire)) {
    throw new RangeError(`Expected a date-time as YYYY-MM-DD HH:MM:SS, got ${JSON.stringify(wire)}`);
  }
  const two = (at: number) => (wire.charCodeAt(at) - 48) * 10 + wire.charCodeAt(at + 1) - 48;
  return fieldsToMs(two(0) * 100 + two(2), two(5), two(8), two(11), two(14), two(17));
}

function msToWire(ms: number): string {
  const days = Math.floor(ms / DAY);
  const time = Math.floor((ms - days * DAY) / SECOND);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(time / 3600);
  const mi = Math.floor((time % 3600) / 60);
  return `${PAD2[Math.floor(year / 100)]}${PAD2[year % 100]}-${PAD2[month]}-${PAD2[day]} ${PAD2[h]}:${PAD2[mi]}:${PAD2[time % 60]}`;
}

/** Wall time in `zone` → UTC, both `YYYY-MM-DD HH:MM:SS`; DST gaps move forward, overlaps take the first. */
export function localToUtc(local: string, zone: Zone): string {
  if (local === ZERO_DATE) return local;
  return msToWire(wallToInstant(wireToMs(local), zoneInfo(zone)));
}

/** UTC → wall time in `zone`, both `YYYY-MM-DD HH:MM:SS`. */
export function utcToLocal(utc: string, zone: Zone): string {
  if (utc === ZERO_DATE) return utc;
  const info = zoneInfo(zone);
  const ms = wireToMs(utc);
  return msToWire(ms + offsetAt(info, ms));
}

/** `now` in UTC as `YYYY-MM-DD HH:MM:SS` (milliseconds dropped). */
export function formatUtcNow(now: Date): string {
  return msToWire(now.getTime());
}

export type DateParts = Record<'year' | 'month' | 'day' | 'hour' | 'minutes' | 'seconds', string>;

/** A.5: the parts of a wire date-time as zero-padded strings (sliced: called for every date serialised). */
export function dateDetails(wire: string): DateParts {
  return {
    year: wire.slice(0, 4),
    month: wire.slice(5, 7),
    day: wire.slice(8, 10),
    hour: wire.slice(11, 13),
    minutes: wire.slice(14, 16),
    seconds: wire.slice(17, 19),
  };
}

/** The same day at `00:00:00` (all-day starts, inclusive list windows). */
export function dayStart(date: string): string {
  return `${date.slice(0, 10)} 00:00:00`;
}

/** The same day at `23:59:59` (all-day ends, inclusive list windows). */
export function dayEnd(date: string): string {
  return `${date.slice(0, 10)} 23:59:59`;
}

/** JSON-LD form of a wall time: `2027-03-01T19:00:00-05:00`. */
export function isoWithOffset(local: string, zone: Zone): string {
  const info = zoneInfo(zone);
  const instant = wallToInstant(wireToMs(local), info);
  const offset = offsetAt(info, instant);
  const wire = msToWire(instant + offset);
  return `${wire.slice(0, 10)}T${wire.slice(11)}${formatOffset(offset, ':', true)}`;
}

function formatOffset(ms: number, separator: string, alwaysMinutes: boolean): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const rest = minutes % 60;
  const tail = rest || alwaysMinutes ? `${separator}${pad2(rest)}` : '';
  return `${ms < 0 ? '-' : '+'}${pad2(Math.floor(minutes / 60))}${tail}`;
}

// ---- Input (B.6.1) ---------------------------------------------------------------------------

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const ISO_INPUT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;
const TIMESTAMP_INPUT = /^\d{1,12}$/;

/**
 * A date input of B.6.1 in `zone`: a wall time (`YYYY-MM-DD[ HH:MM[:SS]]`, ISO 8601 without offset) or an
 * instant (ISO 8601 with `Z`/`±HH:MM`/`±HHMM`, Unix timestamp as digits). `null` for anything else,
 * impossible dates (`2027-02-30`) and results outside years 1–9999. Throws on an unknown `zone`.
 */
export function parseDateInput(input: string, zone: Zone): { utc: string; local: string } | null {
  const info = zoneInfo(zone);
  const text = input.trim();
  if (TIMESTAMP_INPUT.test(text)) return fromInstant(Number(text) * SECOND, info);
  const m = LOCAL_INPUT.exec(text) ?? ISO_INPUT.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  const wall = fieldsToMs(y, mo, d, h, mi, s);
  // The day arithmetic rolls 02-30 over to 03-02 and 24:00 to the next day: reject what did not survive.
  if (y < 1 || msToWire(wall) !== `${m[1]}-${m[2]}-${m[3]} ${pad2(h)}:${pad2(mi)}:${pad2(s)}`) return null;
  if (m[7] !== undefined) return fromInstant(wall, info);
  if (m[8] !== undefined) {
    const offsetMinutes = Number(m[9]) * 60 + Number(m[10]);
    if (Number(m[10]) >= 60 || offsetMinutes > 18 * 60) return null;
    return fromInstant(wall - (m[8] === '-' ? -offsetMinutes : offsetMinutes) * 60 * SECOND, info);
  }
  return fromInstant(wallToInstant(wall, info), info);
}

function fromInstant(ms: number, info: ZoneInfo): { utc: string; local: string } | null {
  const local = ms + offsetAt(info, ms);
  if (ms < MIN_MS || ms > MAX_MS || local < MIN_MS || local > MAX_MS) return null;
  return { utc: msToWire(ms), local: msToWire(local) };
}

// ---- Abbreviations ---------------------------------------------------------------------------

/**
 * `timezone_abbr` (A.1) at the instant `utc`, as PHP prints it from tzdata: `EST`, `CEST`, `GMT`/`BST`,
 * `UTC`; a fixed-offset zone repeats its name (`UTC+2`); zones tzdata gives no letters get the numeric
 * offset (`+03`, `+0530`).
 */
export function timezoneAbbr(zone: Zone, utc: string): string {
  const info = zoneInfo(zone);
  if (info.iana === null) return info.name;
  const ms = wireToMs(utc);
  const offset = offsetAt(info, ms);
  let abbr = info.abbrs.get(offset);
  if (abbr === undefined) {
    abbr = lookUpAbbr(info.name, ms, offset);
    info.abbrs.set(offset, abbr);
  }
  return abbr;
}

// Intl has no English short name for many zones (en-US says `GMT+1` for Berlin), but each English
// locale knows its region's: the first answer that is not `GMT±…` wins.
const ABBR_LOCALES = words('en-US en-GB en-AU en-IN en-NZ en-CA en-IE en-ZA en-HK en-ID');
const GMT_LIKE = /^(?:GMT|UTC)(?:[+\-−]|$)/;

// Where those locales and tzdata disagree (checked against tzdata 2025b with zdump), by ICU zone name:
// letters tzdata has at an offset (in minutes) that no English locale knows, or gets wrong...
// biome-ignore format: a table reads better packed
const TZDATA_ABBRS: Record<string, string> = {
  'JST 540': 'Asia/Tokyo', 'KST 540': 'Asia/Seoul Asia/Pyongyang', 'PKT 300': 'Asia/Karachi',
  'CST 480': 'Asia/Shanghai Asia/Macau Asia/Taipei', 'PST 480': 'Asia/Manila',
  'IST 120': 'Asia/Jerusalem', 'IDT 180': 'Asia/Jerusalem', 'CST -300': 'America/Havana', 'CDT -240': 'America/Havana',
  'MSK 180': 'Europe/Moscow Europe/Simferopol Europe/Kirov Europe/Volgograd',
  'SST -660': 'Pacific/Pago_Pago Pacific/Midway', 'ChST 600': 'Pacific/Guam Pacific/Saipan',
  'MST -420': 'America/Hermosillo America/Mazatlan America/Whitehorse America/Dawson',
  'HST -600': 'America/Adak', 'HDT -540': 'America/Adak', 'BST 60': 'Europe/Guernsey Europe/Isle_of_Man Europe/Jersey',
  'GMT 0': 'Etc/GMT Etc/GMT0 Etc/GMT+0 Etc/GMT-0 Etc/Greenwich GMT0 GMT+0 GMT-0 Greenwich', 'MET 60': 'MET', 'MEST 120': 'MET',
};
// ...and zones where a locale offers letters (`GST`, `AWST`, `LHDT`…) but tzdata has only the numeric offset.
const NUMERIC_ABBR_ZONES = new Set([
  ...words('Asia/Dubai Asia/Muscat Asia/Colombo Antarctica/Casey Antarctica/Troll Australia/Eucla'),
  ...words('Australia/Lord_Howe Pacific/Chatham America/Miquelon Africa/Casablanca Africa/El_Aaiun'),
]);
let tzdataAbbrs: Map<string, string> | undefined;

function lookUpAbbr(zone: Zone, ms: number, offset: number): string {
  tzdataAbbrs ??= new Map(
    Object.entries(TZDATA_ABBRS).flatMap(([key, zones]) => {
      const [abbr, minutes] = key.split(' ');
      return zones.split(' ').map((z): [string, string] => [`${z} ${minutes}`, abbr]);
    }),
  );
  const formatters = ABBR_LOCALES.map(
    (l) => new Intl.DateTimeFormat(l, { timeZone: zone, timeZoneName: 'short' }),
  );
  const numeric = formatOffset(offset, '', false);
  for (const name of [zone, formatters[0].resolvedOptions().timeZone]) {
    const abbr = tzdataAbbrs.get(`${name} ${offset / 60_000}`);
    if (abbr !== undefined) return abbr;
    if (NUMERIC_ABBR_ZONES.has(name)) return numeric;
  }
  let plain: string | undefined; // `GMT` for London in winter, `UTC` for Etc/UTC
  for (const formatter of formatters) {
    const name = formatter.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? '';
    if (name !== '' && !GMT_LIKE.test(name)) return name;
    if (name === 'GMT' || name === 'UTC') plain ??= name;
  }
  return offset === 0 && plain !== undefined ? plain : numeric;
}
