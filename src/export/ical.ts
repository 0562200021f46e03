/**
 * iCalendar (RFC 5545) rendering of events (contract B.12, D6), built with ical-generator.
 *
 * Public: `IcalOptions`, `eventsToIcal`; `veventOf` and `icalOf`, its two halves, for feeds that keep
 * each event's VEVENT. Shared by the API's negotiated answers (D6), the server's
 * feeds (src/server/routes/feeds.ts) and `npm run export`.
 *
 * Calendar: `METHOD:PUBLISH`, `NAME`/`X-WR-CALNAME` (not in the Outlook variant), and when given
 * `DESCRIPTION`/`X-WR-CALDESC`, `X-WR-TIMEZONE`, `REFRESH-INTERVAL`/`X-PUBLISHED-TTL`, `SOURCE`, `COLOR`.
 * Nothing in the output depends on the clock (DTSTAMP is the event's own modification time), so
 * unchanged data renders byte-identical and a feed's ETag only moves when an event does.
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
 * - With an event `timezone` it writes `;TZID=…` and the time in that zone — correct only for values
 *   that carry a zone (luxon, Temporal): for a native `Date` it uses the host's local time, so zoned times
 *   are passed as Temporal-shaped wall times (./wall-time.ts, from the wire's local time and UTC instant)
 *   and everything else as `Date`s, whose UTC fields it reads.
 * - The calendar time zone would add `TIMEZONE-ID` and shift DTSTAMP, so it is not set: `X-WR-TIMEZONE`
 *   is written as an X- property and the VTIMEZONEs are added here (see `eventsToIcal`).
 * - `NAME`/`X-WR-CALNAME` are written unescaped, so the name is escaped here; `SEQUENCE:0` and, for
 *   all-day events, the `X-MICROSOFT-…-ALLDAYEVENT` lines are always written.
 * - The calendar ends without a CRLF; RFC 5545 §3.1 ends every content line with one, so it is added.
 */

import type { ICalEventData, ICalLocation } from 'ical-generator';
import { foldLines, ICalCalendar, ICalCalendarMethod, ICalEvent, ICalEventStatus } from 'ical-generator';
import { IANAZone } from 'luxon';
import { htmlToText } from '../model/html.ts';
import { decodeEntities } from '../render/text.ts';
import type { WireEvent } from '../render/wire.ts';
import { venueOf } from '../render/wire.ts';
import { vtimezone } from './vtimezone.ts';
import { wallTime } from './wall-time.ts';

export interface IcalOptions {
  /** `{host}` of the contract: host name + path of the public site, no scheme or port. */
  host: string;
  /** `NAME` and `X-WR-CALNAME` (RFC 7986 §5.1 and Apple's/Google's older property). */
  calendarName: string;
  /** `DTSTAMP` of an event that was never published nor modified (both dates zero). Default: now. */
  now?: Date;
  /** `DESCRIPTION` (RFC 7986 §5.2) and `X-WR-CALDESC`. */
  description?: string;
  /** `X-WR-TIMEZONE`: the zone Apple Calendar and Google show floating times in (the site's zone). */
  timezone?: string;
  /** `REFRESH-INTERVAL;VALUE=DURATION` (RFC 7986 §5.7) and `X-PUBLISHED-TTL` (Outlook), in minutes. */
  refreshMinutes?: number;
  /** `SOURCE;VALUE=URI` (RFC 7986 §5.8): where the feed is fetched again. */
  source?: string;
  /** `COLOR` (RFC 7986 §5.9): a CSS3 colour name such as `steelblue`. */
  color?: string;
  /**
   * Leave out `X-WR-CALNAME` (keeping `NAME`): the variant for Outlook, which takes that property as the
   * calendar's name on every refresh, over the name its user gave the subscription.
   */
  outlook?: boolean;
  /** SEQUENCE of an event (RFC 5545 §3.8.7.4); default 0. The store counts changes of time and status. */
  sequence?: (e: WireEvent) => number;
  /** Whether an event is written as a `STATUS:CANCELLED` tombstone (deleted or unpublished). */
  cancelled?: (e: WireEvent) => boolean;
}

const PROD_ID = '//calsync//calendar/events/v1//EN';

/** RFC 5545 §3.3.11 TEXT escaping, for the values ical-generator writes raw. */
function escapeText(s: string): string {
  return s.replace(/[\\;,]/g, '\\$&').replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * A wire UTC date-time (`YYYY-MM-DD HH:MM:SS`) as epoch ms; NaN for `0000-00-00 00:00:00`. Date.UTC on the
 * digits, not Date.parse of a built ISO string: three of these per event were 6% of a feed's render.
 */
function utcMillis(s: string): number {
  const month = Number(s.slice(5, 7));
  if (!(month >= 1)) return Number.NaN;
  const n = (from: number) => Number(s.slice(from, from + 2));
  return Date.UTC(Number(s.slice(0, 4)), month - 1, n(8), n(11), n(14), n(17));
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

/** `LOCATION`, plus `GEO` (RFC 5545 §3.8.1.6) when the venue has coordinates (TEC Pro's `geo_lat`/`geo_lng`). */
function location(e: WireEvent): ICalLocation | string | null {
  const v = venueOf(e);
  if (!v) return null;
  const parts = [decodeEntities(v.venue ?? ''), v.address, v.city, v.stateprovince, v.zip, v.country];
  const text = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(', ');
  if (!text) return null;
  const { geo_lat: lat, geo_lng: lon } = v as { geo_lat?: unknown; geo_lng?: unknown };
  const geo = { lat: Number(lat), lon: Number(lon) };
  if (lat === undefined || lon === undefined || lat === '' || lon === '') return text;
  if (!Number.isFinite(geo.lat) || !Number.isFinite(geo.lon) || Math.abs(geo.lat) > 90) return text;
  return { title: text, geo };
}

/**
 * What ical-generator is handed for one event (bench/export.ts's anchor hands it the same, its zoned times
 * as luxon DateTimes); `zoneYears` gets the years each zone needs a VTIMEZONE for.
 */
export function eventData(
  e: WireEvent,
  opts: VeventOptions,
  zoneYears: Map<string, Set<number>>,
): ICalEventData {
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
    sequence: opts.sequence?.(e) ?? 0,
  };
  if (opts.cancelled?.(e)) data.status = ICalEventStatus.CANCELLED;

  if (e.all_day) {
    // The wire shows all-day events as 00:00:00–23:59:59 local; DTEND is exclusive (RFC 5545 §3.6.1).
    data.allDay = true;
    data.start = dateOnly(e.start_date);
    data.end = dateOnly(e.end_date, 1);
  } else if (isIanaZone(e.timezone)) {
    const start = utcMillis(e.utc_start_date);
    const end = utcMillis(e.utc_end_date);
    data.timezone = e.timezone;
    data.start = wallTime(e.start_date, e.timezone, start);
    data.end = wallTime(e.end_date, e.timezone, end);
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

/**
 * A VEVENT as ical-generator writes it, folded (RFC 5545 §3.1) by ical-generator's `foldLines` when one of
 * its lines may need it: an ASCII event without a line of 75 characters or more is already folded.
 */
function foldEvent(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is exactly U+0000–U+007F.
  if (!/^[\u0000-\u007f]*$/.test(text)) return foldLines(text);
  // Line lengths by indexOf: a regex such as /[^\r\n]{75}/ retries from every position (4× slower here).
  for (let from = 0; from < text.length; ) {
    const eol = text.indexOf('\r\n', from);
    const end = eol < 0 ? text.length : eol;
    if (end - from >= 75) return foldLines(text);
    from = end + 2;
  }
  return text;
}

const END = 'END:VCALENDAR';
const VEVENT_END = 'END:VEVENT\r\n';

/** One event's VEVENT (folded, CRLF line ends) and the years each of its zones needs a VTIMEZONE for. */
export interface Vevent {
  text: string;
  zoneYears: readonly (readonly [zone: string, year: number])[];
}

/** What an event's VEVENT depends on besides the event: the rest of `IcalOptions` is the calendar's. */
export type VeventOptions = Pick<IcalOptions, 'host' | 'now' | 'sequence' | 'cancelled'>;

/** ical-generator's events read their calendar's time zone only, which is never set (see above). */
const EVENTS_CALENDAR = new ICalCalendar();

/**
 * An event's VEVENT, on its own: a feed keeps them by event (src/server/feed-render.ts), so that a write
 * re-renders one event, not the feed.
 */
export function veventOf(e: WireEvent, opts: VeventOptions): Vevent {
  const zoneYears = new Map<string, Set<number>>();
  let text = new ICalEvent(eventData(e, opts, zoneYears), EVENTS_CALENDAR).toString();
  // RFC 7986 §5.10 IMAGE, the property for an event's picture (ATTACH is any attachment); ical-generator
  // has none.
  if (e.image)
    text = `${text.slice(0, -VEVENT_END.length)}IMAGE;VALUE=URI;DISPLAY=BADGE:${e.image.url}\r\n${VEVENT_END}`;
  const zones: [string, number][] = [];
  for (const [zone, years] of zoneYears) for (const year of years) zones.push([zone, year]);
  return { text: foldEvent(text), zoneYears: zones };
}

/**
 * Events (a list page, a single event or a feed) as one VCALENDAR, CRLF line ends, folded.
 *
 * The calendar's own lines come from ical-generator's `ICalCalendar.toString()` with no events in it,
 * and each VEVENT from its `ICalEvent.toString()`: the calendar's toString folds its whole text by
 * splitting it into lines and joining them again, which was 40% of the time of a 10,000-event feed
 * (bench/export.ts); folded one event at a time, most need nothing. VTIMEZONEs come from ./vtimezone.ts
 * as the calendar's generator would call it, one per zone in order of first use.
 */
export function eventsToIcal(events: readonly WireEvent[], opts: IcalOptions): string {
  return icalOf(
    events.map((e) => veventOf(e, opts)),
    opts,
  );
}

/** VEVENTs made by `veventOf` as one VCALENDAR, with their VTIMEZONEs. */
export function icalOf(vevents: readonly Vevent[], opts: IcalOptions): string {
  let body = calendarHead(vevents, opts);
  for (const v of vevents) body += v.text;
  return `${body}${CALENDAR_END}`;
}

/**
 * A VEVENT kept as its UTF-8 bytes, one per character of `bytes` (Buffer's `latin1`): a flat one-byte string
 * is the most compact form V8 keeps (a VEVENT with one non-ASCII character is otherwise two bytes per
 * character), and `icalBytes` copies it to the feed without encoding it again.
 */
export interface VeventBytes {
  bytes: string;
  zoneYears: Vevent['zoneYears'];
}

export function veventBytes(v: Vevent): VeventBytes {
  return { bytes: Buffer.from(v.text).toString('latin1'), zoneYears: v.zoneYears };
}

/**
 * `icalOf` as UTF-8 bytes, written into one buffer of exactly their size with an ArrayBuffer of its own
 * (a thread can transfer it as it is): the feed is never one string. A 100,000-event feed as one string
 * was 134 MB (two bytes per character once one event has a non-ASCII one), and its bytes 67 MB more.
 */
export function icalBytes(vevents: readonly VeventBytes[], opts: IcalOptions): Buffer {
  const head = calendarHead(vevents, opts);
  let size = Buffer.byteLength(head) + CALENDAR_END.length;
  for (const v of vevents) size += v.bytes.length;
  const out = Buffer.allocUnsafeSlow(size);
  let at = out.write(head);
  for (const v of vevents) at += out.write(v.bytes, at, 'latin1');
  out.write(CALENDAR_END, at);
  return out;
}

// RFC 5545 §3.1 ends every content line with CRLF, the last one too (ical-generator leaves it off).
const CALENDAR_END = `${END}\r\n`;

/** The calendar's lines before its first VEVENT: its properties, then the VTIMEZONEs `vevents` need. */
function calendarHead(vevents: readonly Pick<Vevent, 'zoneYears'>[], opts: IcalOptions): string {
  const calendar = new ICalCalendar({
    prodId: PROD_ID,
    scale: 'GREGORIAN',
    method: ICalCalendarMethod.PUBLISH,
    name: escapeText(opts.calendarName),
  });
  if (opts.description) calendar.description(escapeText(opts.description));
  if (opts.source) calendar.source(opts.source);
  if (opts.refreshMinutes) calendar.ttl(opts.refreshMinutes * 60);
  if (opts.timezone) calendar.x('X-WR-TIMEZONE', opts.timezone);
  const zoneYears = new Map<string, Set<number>>();
  for (const v of vevents) {
    for (const [zone, year] of v.zoneYears) {
      const years = zoneYears.get(zone) ?? new Set<number>();
      zoneYears.set(zone, years);
      years.add(year);
    }
  }
  let head = calendar.toString();
  head = head.slice(0, head.length - END.length);
  // ical-generator writes NAME and X-WR-CALNAME together and has no RFC 7986 COLOR or calendar
  // DESCRIPTION; those lines are added (folded alike) after its METHOD line, removed for Outlook.
  const extra: string[] = [];
  if (opts.description) extra.push(`DESCRIPTION:${escapeText(opts.description)}`);
  if (opts.color) extra.push(`COLOR:${escapeText(opts.color)}`);
  const method = 'METHOD:PUBLISH\r\n';
  const at = head.indexOf(method) + method.length;
  if (extra.length > 0) head = `${head.slice(0, at)}${foldLines(extra.join('\r\n'))}\r\n${head.slice(at)}`;
  if (opts.outlook) head = head.replace(/\r\nX-WR-CALNAME:[^\r]*(?:\r\n [^\r]*)*/, '');
  for (const [tz, years] of zoneYears) {
    const block = vtimezone(tz, years);
    if (block) head += `${block}\r\n`;
  }
  return head;
}
