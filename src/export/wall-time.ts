/**
 * A time of day in a named zone, in the shape of `Temporal.ZonedDateTime`, which ical-generator 11 reads
 * (src/tools.ts `isTemporalZonedDateTime`, `formatDate`): it writes `DTSTART;TZID=<zone>:` from the value's
 * own wall-clock fields and compares instants through `toInstant()`.
 *
 * Public: `wallTime`.
 *
 * Why not luxon here (as before): the wire already carries both the event-local wall time and the UTC
 * instant, and a luxon DateTime with a zone recomputes the wall time through `Intl.DateTimeFormat` for
 * every value (`setZone` → `partsOffset`): half of the time of rendering a 10,000-event feed went there
 * (bench/export.ts). These values are what a real `Temporal.ZonedDateTime` of that instant and zone
 * would hold; only the members ical-generator reads are provided.
 */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

interface PlainFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function plainString(f: PlainFields): string {
  return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
}

function unsupported(): never {
  throw new Error('wallTime: a fixed-zone value; ical-generator asked for a conversion it never needs');
}

/**
 * `local` is the wall time `YYYY-MM-DD HH:MM:SS` of the instant `utcMs` in the IANA zone `zone` (the
 * wire's `start_date` and `utc_start_date`).
 */
export function wallTime(local: string, zone: string, utcMs: number) {
  const fields: PlainFields = {
    year: Number(local.slice(0, 4)),
    month: Number(local.slice(5, 7)),
    day: Number(local.slice(8, 10)),
    hour: Number(local.slice(11, 13)),
    minute: Number(local.slice(14, 16)),
    second: Number(local.slice(17, 19)),
  };
  const iso = plainString(fields);
  const plain = {
    ...fields,
    toJSON: () => iso,
    toString: () => iso,
    toPlainDate: unsupported,
    toZonedDateTime: unsupported,
  };
  const instant = {
    epochMilliseconds: utcMs,
    toJSON: () => new Date(utcMs).toISOString(),
    toString: () => new Date(utcMs).toISOString(),
    toZonedDateTimeISO: unsupported,
  };
  const zoned = {
    ...fields,
    timeZoneId: zone,
    toInstant: () => instant,
    toPlainDateTime: () => plain,
    toJSON: () => `${iso}[${zone}]`,
    toString: () => `${iso}[${zone}]`,
    // Asked for the event's own zone only (ICalEvent.timezone is set to the same name).
    withTimeZone: (tz: string) => (tz === zone ? zoned : unsupported()),
  };
  return zoned;
}
