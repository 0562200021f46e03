/**
 * Line-level helpers for writing iCalendar text the way real calendar software does, shared by the
 * sample generator (samples/generate.ts) and the benchmark generator (bench/generate-ics.ts).
 *
 * Public: `foldLine`, `escapeText`, `paramValue`, `utcStamp`, `localStamp`, `dateStamp`, `VTIMEZONES`.
 *
 * Folding counts octets, not characters (RFC 5545 §3.1: "lines SHOULD NOT be longer than 75 octets"),
 * and never splits a UTF-8 sequence — ical-generator's folding notes describe the same trap.
 */

const CRLF = '\r\n';
const ASCII = /^[\x20-\x7e]*$/;

/** One content line folded at 75 octets: CRLF plus one space before each continuation (RFC 5545 §3.1). */
export function foldLine(line: string): string {
  // A UTF-16 code unit is at most 3 octets in UTF-8, so short lines need no counting.
  if (line.length <= 25) return line;
  // ASCII-only lines (nearly all of them) are folded by index, which is the same as by octet.
  if (ASCII.test(line)) {
    if (line.length <= 75) return line;
    const parts = [line.slice(0, 75)];
    for (let i = 75; i < line.length; i += 74) parts.push(line.slice(i, i + 74));
    return parts.join(`${CRLF} `);
  }
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  let limit = 75; // the first line has 75 octets; continuations 74 plus the leading space
  for (const ch of line) {
    const code = ch.codePointAt(0)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
      limit = 74;
    }
    current += ch;
    octets += size;
  }
  parts.push(current);
  return parts.join(`${CRLF} `);
}

/** TEXT value escaping (RFC 5545 §3.3.11): backslash, semicolon, comma and newline. */
export function escapeText(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');
}

/** A parameter value, DQUOTE-d when it holds `:`, `;` or `,` (RFC 5545 §3.2), as Outlook does for `CN="Last, First"`. */
export function paramValue(value: string): string {
  return /[:;,]/.test(value) ? `"${value.replace(/"/g, "'")}"` : value;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A UTC instant as `YYYYMMDDTHHMMSSZ` (DTSTAMP, CREATED, LAST-MODIFIED, `Z` times). */
export function utcStamp(date: Date): string {
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}T${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** A wall time (fields read in UTC, so the host zone never matters) as `YYYYMMDDTHHMMSS`, for TZID values. */
export function localStamp(wall: Date): string {
  return utcStamp(wall).slice(0, -1);
}

/** A date (fields read in UTC) as `YYYYMMDD`, for VALUE=DATE. */
export function dateStamp(wall: Date): string {
  return utcStamp(wall).slice(0, 8);
}

function block(tzid: string, components: string[][]): string {
  const lines = [`BEGIN:VTIMEZONE`, `TZID:${tzid}`, `X-LIC-LOCATION:${tzid}`];
  for (const c of components) lines.push(...c);
  lines.push('END:VTIMEZONE');
  return lines.join(CRLF);
}

function onset(
  kind: 'STANDARD' | 'DAYLIGHT',
  from: string,
  to: string,
  name: string,
  start: string,
  rule?: string,
): string[] {
  const lines = [`BEGIN:${kind}`, `TZOFFSETFROM:${from}`, `TZOFFSETTO:${to}`, `TZNAME:${name}`];
  lines.push(`DTSTART:${start}`);
  if (rule) lines.push(`RRULE:${rule}`);
  lines.push(`END:${kind}`);
  return lines;
}

/**
 * Complete VTIMEZONE blocks (CRLF-joined, no final CRLF) in Google Calendar's export shape: one
 * STANDARD and one DAYLIGHT component with a 1970 onset and a yearly RRULE. The rules are today's
 * (EU since 1996, US since 2007), which is all that events from 2026 on need.
 */
export const VTIMEZONES: Readonly<Record<string, string>> = {
  'Europe/London': block('Europe/London', [
    onset('DAYLIGHT', '+0000', '+0100', 'BST', '19700329T010000', 'FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU'),
    onset('STANDARD', '+0100', '+0000', 'GMT', '19701025T020000', 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU'),
  ]),
  'Europe/Berlin': block('Europe/Berlin', [
    onset('DAYLIGHT', '+0100', '+0200', 'CEST', '19700329T020000', 'FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU'),
    onset('STANDARD', '+0200', '+0100', 'CET', '19701025T030000', 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU'),
  ]),
  'America/New_York': block('America/New_York', [
    onset('DAYLIGHT', '-0500', '-0400', 'EDT', '19700308T020000', 'FREQ=YEARLY;BYMONTH=3;BYDAY=2SU'),
    onset('STANDARD', '-0400', '-0500', 'EST', '19701101T020000', 'FREQ=YEARLY;BYMONTH=11;BYDAY=1SU'),
  ]),
  'Asia/Tokyo': block('Asia/Tokyo', [onset('STANDARD', '+0900', '+0900', 'JST', '19700101T000000')]),
  'Asia/Kolkata': block('Asia/Kolkata', [onset('STANDARD', '+0530', '+0530', 'IST', '19700101T000000')]),
};
