// Civil time without zones: a date-time as epoch milliseconds, read and written in the wire format
// `YYYY-MM-DD HH:MM:SS` (A.0). The arithmetic under datetime.ts, timezone.ts and timezone-abbr.ts: pure and
// independent of the host zone; a wall time is "epoch milliseconds as if the wall time were UTC".

export const SECOND = 1000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
const WIRE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

const PAD2 = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : String(n)));

/** `n` (0–99) as two digits. */
export function pad2(n: number): string {
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

/** Epoch milliseconds of the fields; out-of-range fields roll over (`24:00` is the next day's `00:00`). */
export function fieldsToMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  return daysFromCivil(y, mo, d) * DAY + h * HOUR + mi * 60_000 + s * SECOND;
}

/** Epoch milliseconds of a wire date-time; throws a RangeError on anything else. */
export function wireToMs(wire: string): number {
  if (!WIRE.test(wire)) {
    throw new RangeError(`Expected a date-time as YYYY-MM-DD HH:MM:SS, got ${JSON.stringify(wire)}`);
  }
  const two = (at: number) => (wire.charCodeAt(at) - 48) * 10 + wire.charCodeAt(at + 1) - 48;
  return fieldsToMs(two(0) * 100 + two(2), two(5), two(8), two(11), two(14), two(17));
}

/** Epoch milliseconds (years 0–9999) as a wire date-time, milliseconds dropped. */
export function msToWire(ms: number): string {
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
  // Outside years 0–9999 (and NaN) as before: no wire form, which wireToMs refuses.
  if (!(year >= 0 && year <= 9999))
    return `${PAD2[Math.floor(year / 100)]}${PAD2[year % 100]}-${PAD2[month]}-${PAD2[day]} ${PAD2[h]}:${PAD2[mi]}:${PAD2[time % 60]}`;
  return fieldsToWire(year, month, day, h, mi, time % 60);
}

const ZERO = 48;
const tens = (n: number) => ZERO + Math.floor(n / 10);
const ones = (n: number) => ZERO + (n % 10);

/**
 * `YYYY-MM-DD HH:MM:SS` of the fields (year 0–9999) as one flat string. A template literal of its twelve
 * pieces makes a rope (a tree of joined strings) that each comparison, Map key, hash and JSON.stringify
 * later flattens into a copy; this runs for every time of every event an import reads.
 */
export function fieldsToWire(
  year: number,
  month: number,
  day: number,
  h: number,
  mi: number,
  s: number,
): string {
  const century = Math.floor(year / 100);
  const rest = year % 100;
  // biome-ignore format: the characters of the wire form, one group per field
  return String.fromCharCode(
    tens(century), ones(century), tens(rest), ones(rest), 45, tens(month), ones(month), 45, tens(day), ones(day),
    32, tens(h), ones(h), 58, tens(mi), ones(mi), 58, tens(s), ones(s),
  );
}
