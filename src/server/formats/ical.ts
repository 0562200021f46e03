/**
 * iCalendar (RFC 5545) rendering of events (contract B.12, D6), built with ical-generator.
 *
 * Public: `IcalOptions`, `eventsToIcal`.
 *
 * Per event: `UID:<id>@<host>` (never derived from times, so rescheduling keeps it), `DTSTAMP` and
 * `LAST-MODIFIED` from `modified_utc`, `CREATED` from `date_utc` (both omitted while they are
 * `0000-00-00 00:00:00`), `DTSTART`/`DTEND` with `TZID` and one generated VTIMEZONE per IANA zone
 * (./vtimezone.ts), UTC `…Z` for the zones `UTC` and `UTC+2`-style offsets, `VALUE=DATE` with an
 * exclusive `DTEND` for all-day events. Times come from the wire's `utc_*` instants, so a local time in a
 * DST gap is written as the instant the wire meant.
 *
 * What ical-generator does that matters here (read in its src/, v11):
 * - Folding (tools.ts `foldLines`) counts UTF-8 octets and never splits a character or surrogate pair;
 *   it breaks after 74 octets, so a first line is at most 74 octets and a continuation line 75 with its
 *   leading space — within RFC 5545 §3.1's 75.
 * - With an event `timezone` it writes `;TZID=…` and the time in that zone — correct only for luxon
 *   (or moment/dayjs) values: for a native `Date` it uses the host's local time, so zoned times are
 *   passed as luxon DateTimes and everything else as `Date`s, whose UTC fields it reads.
 * - The calendar time zone would add `TIMEZONE-ID`/`X-WR-TIMEZONE` and shift DTSTAMP; it is given an
 *   empty name so that only its VTIMEZONE generator is used, which it calls once per event zone.
 * - `NAME`/`X-WR-CALNAME` are written unescaped, so the name is escaped here; `SEQUENCE:0` and, for
 *   all-day events, the `X-MICROSOFT-…-ALLDAYEVENT` lines are always written.
 * - The calendar ends without a CRLF; RFC 5545 §3.1 ends every content line with one, so it is added.
 */

import type { ICalEventData } from 'ical-generator';
import { ICalCalendar, ICalCalendarMethod } from 'ical-generator';
import { DateTime, IANAZone } from 'luxon';
import { decodeEntities, htmlToText } from './text.ts';
import { vtimezone } from './vtimezone.ts';
import type { WireEvent } from './wire.ts';
import { venueOf } from './wire.ts';

export interface IcalOptions {
  /** `{host}` of the contract: host name + path of the public site, no scheme or port. */
  host: string;
  /** `X-WR-CALNAME`. */
  calendarName: string;
  /** `DTSTAMP` of an event that was never published nor modified (both dates zero). Default: now. */
  now?: Date;
}

const PROD_ID = '//calsync//calendar/events/v1//EN';

/** RFC 5545 §3.3.11 TEXT escaping, for the values ical-generator writes raw. */
function escapeText(s: string): string {
  return s.replace(/[\\;,]/g, '\\$&').replace(/\r\n|\r|\n/g, '\\n');
}

/** A wire UTC date-time (`YYYY-MM-DD HH:MM:SS`) as epoch ms; NaN for `0000-00-00 00:00:00`. */
function utcMillis(s: string): number {
  return Date.parse(`${s.slice(0, 10)}T${s.slice(11, 19)}Z`);
}

function utcDate(s: string): Date | null {
  const ms = utcMillis(s);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** A wire date's `YYYY-MM-DD` as midnight UTC, `days` later. */
function dateOnly(s: string, days = 0): Date {
  const d = new Date(`${s.slice(0, 10)}T00:00:00Z`);
  if (days) d.setUTCDate(d.getUTCDate() + days);
  return d;
}

const zoneCache = new Map<string, boolean>();

/** IANA zones get TZID; `UTC`, `UTC+2`-style offsets and unknown names are written in UTC. */
function isIanaZone(tz: string): boolean {
  let valid = zoneCache.get(tz);
  if (valid === undefined) {
    valid = tz !== 'UTC' && !/^UTC[+-]/.test(tz) && IANAZone.isValidZone(tz);
    if (zoneCache.size < 1_000) zoneCache.set(tz, valid);
  }
  return valid;
}

function location(e: WireEvent): string | null {
  const v = venueOf(e);
  if (!v) return null;
  const parts = [decodeEntities(v.venue ?? ''), v.address, v.city, v.stateprovince, v.zip, v.country];
  const text = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(', ');
  return text || null;
}

function eventData(e: WireEvent, opts: IcalOptions, zoneYears: Map<string, Set<number>>): ICalEventData {
  const modified = utcDate(e.modified_utc);
  const created = utcDate(e.date_utc);
  const data: ICalEventData = {
    id: `${e.id}@${opts.host}`,
    stamp: modified ?? created ?? opts.now ?? new Date(),
    lastModified: modified,
    created,
    start: new Date(0),
    summary: decodeEntities(e.title),
    url: e.url || null,
    location: location(e),
  };

  if (e.all_day) {
    // The wire shows all-day events as 00:00:00–23:59:59 local; DTEND is exclusive (RFC 5545 §3.6.1).
    data.allDay = true;
    data.start = dateOnly(e.start_date);
    data.end = dateOnly(e.end_date, 1);
  } else if (isIanaZone(e.timezone)) {
    const start = utcMillis(e.utc_start_date);
    const end = utcMillis(e.utc_end_date);
    data.timezone = e.timezone;
    data.start = DateTime.fromMillis(start, { zone: 'utc' });
    data.end = DateTime.fromMillis(end, { zone: 'utc' });
    const years = zoneYears.get(e.timezone) ?? new Set<number>();
    zoneYears.set(e.timezone, years);
    years.add(new Date(start).getUTCFullYear()).add(new Date(end).getUTCFullYear());
  } else {
    data.start = new Date(utcMillis(e.utc_start_date));
    data.end = new Date(utcMillis(e.utc_end_date));
  }

  const description = htmlToText(e.description);
  if (description) data.description = description;
  if (e.categories.length > 0) data.categories = e.categories.map((c) => ({ name: decodeEntities(c.name) }));
  const organizer = e.organizer.find((o) => typeof o.email === 'string' && o.email !== '');
  if (organizer) {
    const email = organizer.email!;
    data.organizer = { name: decodeEntities(organizer.organizer ?? '') || email, email };
  }
  if (e.image) data.attachments = [e.image.url];
  return data;
}

/** Events (a list page or a single event) as one VCALENDAR, CRLF line ends, folded. */
export function eventsToIcal(events: readonly WireEvent[], opts: IcalOptions): string {
  const zoneYears = new Map<string, Set<number>>();
  const calendar = new ICalCalendar({
    prodId: PROD_ID,
    scale: 'GREGORIAN',
    method: ICalCalendarMethod.PUBLISH,
    name: escapeText(opts.calendarName),
  });
  calendar.timezone({ name: '', generator: (tz) => vtimezone(tz, zoneYears.get(tz) ?? []) });
  for (const e of events) calendar.createEvent(eventData(e, opts, zoneYears));
  return `${calendar.toString()}\r\n`;
}
