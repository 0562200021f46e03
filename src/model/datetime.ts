// Date-times of the contract in the wire format `YYYY-MM-DD HH:MM:SS` (A.0): UTC ↔ a zone's wall time, the
// JSON-LD form with offset, date details (A.5), day bounds and date input (B.6.1). Pure and independent of
// the host zone; the calendar arithmetic is civil-time.ts's, zones and offsets are timezone.ts's.

import { fieldsToMs, msToWire, pad2, SECOND, wireToMs } from './civil-time.ts';
import { formatOffset, offsetAt, wallToInstant, type Zone, type ZoneInfo, zoneInfo } from './timezone.ts';

/** WordPress's "no date" (`date_utc` of an unpublished draft, A.0): passed through unconverted. */
const ZERO_DATE = '0000-00-00 00:00:00';
const MIN_MS = -62_135_596_800_000; // 0001-01-01 00:00:00
const MAX_MS = 253_402_300_799_000; // 9999-12-31 23:59:59

// ---- Conversions and parts -------------------------------------------------------------------

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
