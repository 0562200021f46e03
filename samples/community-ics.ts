/**
 * Renders the Riverside sample as a Google Calendar export: PRODID, X-WR-CALNAME and X-WR-TIMEZONE, a
 * VTIMEZONE per zone used, DTSTAMP = export time, CREATED / LAST-MODIFIED / SEQUENCE per event, Google's
 * property order, TRANSP:TRANSPARENT on all-day events, lines folded at 75 octets, CRLF throughout.
 *
 * Public: `EXPORTED_AT`, `CALENDAR_ZONE`, `communityEvents()`, `renderCommunityIcs()`.
 * CREATED and LAST-MODIFIED are derived from a hash of the UID, so the file is byte-identical on every run.
 */

import { CATEGORIES, location, ORGANIZERS, type SampleEvent, VENUES, type Venue } from './community-data.ts';
import { SERIES } from './community-series.ts';
import { SINGLES } from './community-singles.ts';
import { escapeText, foldLine, paramValue, utcStamp, VTIMEZONES } from './ics-lines.ts';

/** When the calendar was "exported": every DTSTAMP, and the latest possible LAST-MODIFIED. */
export const EXPORTED_AT = new Date('2026-11-22T09:15:00Z');

/** X-WR-TIMEZONE: the calendar's own zone. */
export const CALENDAR_ZONE = 'Europe/London';
const DAY = 86_400_000;

/** FNV-1a, for deterministic per-event variation without a PRNG stream that shifts when events are added. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` as a property value with its parameters (`;TZID=…:…`). */
function timeProperty(name: string, value: string, zone: string): string {
  if (value.length === 10) return `${name};VALUE=DATE:${value.replaceAll('-', '')}`;
  const stamp = `${value.replace(/[-:]/g, '').replace(' ', 'T')}00`;
  return zone === 'UTC' ? `${name}:${stamp}Z` : `${name};TZID=${zone}:${stamp}`;
}

/** CREATED some weeks before the event (or the export), LAST-MODIFIED between it and the export. */
function history(e: SampleEvent): { created: Date; modified: Date } {
  const h = hash(e.uid + (e.recurrenceId ?? ''));
  const eventAt = Date.parse(`${e.start.slice(0, 10)}T00:00:00Z`);
  const latest = Math.min(eventAt, EXPORTED_AT.getTime());
  const created = latest - (14 + (h % 120)) * DAY - (h % 86_400) * 1000;
  const span = EXPORTED_AT.getTime() - created;
  const modified = e.recurrenceId
    ? EXPORTED_AT.getTime() - (h % 7) * DAY
    : created + ((h >>> 8) % 1000) * (span / 4000);
  return { created: new Date(created), modified: new Date(Math.floor(modified / 1000) * 1000) };
}

function vevent(e: SampleEvent): string[] {
  const venue: Venue = VENUES[e.venue];
  const organizer = ORGANIZERS[e.organizer];
  const { created, modified } = history(e);
  const lines = [timeProperty('DTSTART', e.start, e.zone), timeProperty('DTEND', e.end, e.zone)];
  if (e.rrule) lines.push(`RRULE:${e.rrule}`);
  // Google writes one EXDATE line per excluded occurrence.
  for (const ex of e.exdates ?? []) lines.push(timeProperty('EXDATE', ex, e.zone));
  lines.push(`DTSTAMP:${utcStamp(EXPORTED_AT)}`);
  lines.push(`ORGANIZER;CN=${paramValue(organizer.name)}:mailto:${organizer.email}`);
  lines.push(`UID:${e.uid}`);
  if (e.recurrenceId) lines.push(timeProperty('RECURRENCE-ID', e.recurrenceId, e.zone));
  if (e.attach) {
    const file = e.attach.slice(e.attach.lastIndexOf('/') + 1);
    lines.push(`ATTACH;FILENAME=${paramValue(file)};FMTTYPE=image/jpeg:${e.attach}`);
  }
  if (e.categories.length > 0) lines.push(`CATEGORIES:${e.categories.map(escapeText).join(',')}`);
  lines.push(`CREATED:${utcStamp(created)}`);
  lines.push(`DESCRIPTION:${escapeText(e.description)}`);
  if (venue.geo) lines.push(`GEO:${venue.geo[0]};${venue.geo[1]}`);
  lines.push(`LAST-MODIFIED:${utcStamp(modified)}`);
  lines.push(`LOCATION:${escapeText(location(venue))}`);
  lines.push(`SEQUENCE:${e.sequence ?? 0}`);
  lines.push(`STATUS:${e.status ?? 'CONFIRMED'}`);
  lines.push(`SUMMARY:${escapeText(e.title)}`);
  lines.push(`TRANSP:${e.start.length === 10 ? 'TRANSPARENT' : 'OPAQUE'}`);
  if (e.url) lines.push(`URL:${e.url}`);
  return ['BEGIN:VEVENT', ...lines, 'END:VEVENT'];
}

/** Every event of the sample: series masters, their overrides, then the one-offs. */
export function communityEvents(): readonly SampleEvent[] {
  return [...SERIES, ...SINGLES];
}

/** The whole sample calendar as .ics text (CRLF, folded, ends with CRLF). */
export function renderCommunityIcs(): string {
  const events = communityEvents();
  const zones = new Set(events.filter((e) => e.start.length > 10 && e.zone !== 'UTC').map((e) => e.zone));
  const others = [...zones].filter((z) => z !== CALENDAR_ZONE).sort();
  const lines = [
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Riverside Community Calendar',
    'X-WR-TIMEZONE:Europe/London',
    `X-WR-CALDESC:${escapeText(
      `What's on in Riverside: concerts, workshops, markets, classes, council meetings and festivals. Categories: ${CATEGORIES.join(', ')}.\nSubmit an event: https://example.org/riverside/submit`,
    )}`,
    ...[CALENDAR_ZONE, ...others].flatMap((z) => VTIMEZONES[z].split('\r\n')),
    ...events.flatMap(vevent),
    'END:VCALENDAR',
  ];
  return `${lines.map(foldLine).join('\r\n')}\r\n`;
}
