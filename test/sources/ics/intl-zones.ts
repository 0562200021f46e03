// Time zones for the ical.js oracle (oracle.ts), from the host's Intl data rather than from calsync's zone
// code: the IANA zone a TZID names (IANA names case-insensitively, Windows IDs through windows-iana's CLDR
// table) and a VTIMEZONE for it with one observance per offset change, 2020–2032, for ical.js, which has no
// zone data of its own. Public: `ianaNames`, `ianaOf`, `vtimezoneFor`, `pad`.

import { WINDOWS_TO_IANA_MAP } from 'windows-iana';

export const ianaNames = new Map(
  Intl.supportedValuesOf('timeZone').map((zone) => [zone.toLowerCase(), zone] as [string, string]),
);
for (const row of WINDOWS_TO_IANA_MAP)
  if (row.territory === '001') ianaNames.set(row.windowsName.toLowerCase(), row.iana[0]);

export function ianaOf(tzid: string): string | null {
  const name = tzid.trim();
  if (/^(utc|gmt|z)$/i.test(name)) return 'UTC';
  const known = ianaNames.get(name.toLowerCase());
  if (known !== undefined) return known;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC in `zone` at `ms`, from Intl's `longOffset` name (`GMT+05:30`). */
function offsetMinutes(zone: string, ms: number): number {
  let format = offsetFormats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  const name = format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  if (m === null) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

export const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
const utcOffset = (minutes: number) =>
  `${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}${pad(minutes % 60)}`;
const compactWall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');

const builtZones = new Map<string, string>();

/** A VTIMEZONE for `zone` (IANA), one observance per offset change between 2020 and 2032. */
export function vtimezoneFor(tzid: string, zone: string): string {
  const cacheKey = `${tzid}\u0000${zone}`;
  const cached = builtZones.get(cacheKey);
  if (cached !== undefined) return cached;
  const HOUR = 3_600_000;
  const from = Date.UTC(2020, 0, 1);
  const to = Date.UTC(2033, 0, 1);
  const first = offsetMinutes(zone, from);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${tzid}`];
  const observance = (kind: string, at: number, before: number, after: number) =>
    lines.push(
      `BEGIN:${kind}`,
      `DTSTART:${compactWall(at + before * 60_000)}`,
      `TZOFFSETFROM:${utcOffset(before)}`,
      `TZOFFSETTO:${utcOffset(after)}`,
      `END:${kind}`,
    );
  observance('STANDARD', Date.UTC(1970, 0, 1), first, first);
  let previous = first;
  for (let day = from; day < to; day += 24 * HOUR) {
    const next = offsetMinutes(zone, day + 24 * HOUR);
    if (next === previous) continue;
    // Bisect to the minute of the change within this day.
    let lo = day;
    let hi = day + 24 * HOUR;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetMinutes(zone, mid) === previous) lo = mid;
      else hi = mid;
    }
    observance(next > previous ? 'DAYLIGHT' : 'STANDARD', hi, previous, next);
    previous = next;
  }
  lines.push('END:VTIMEZONE');
  const text = lines.join('\r\n');
  builtZones.set(cacheKey, text);
  return text;
}
