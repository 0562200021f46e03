// The independent oracle for recurrence and time: ical.js (not node-ical, not rrule-temporal, not luxon) computes
// every occurrence of a calendar in a window, and `ourOccurrences` puts readIcs' records in the same shape, so
// a test can compare the two lists. Public: `oracleOccurrences`, `ourOccurrences`, `Occurrence`.
//
// ical.js knows no IANA data of its own: a TZID without a VTIMEZONE in the file is read as floating (hours off,
// spec/pipeline.md). So every such TZID gets a VTIMEZONE built from the host's Intl data (intl-zones.ts),
// registered in ICAL.TimezoneService under the TZID as written. A VTIMEZONE in the file wins (ical.js looks
// it up in the calendar first) unless its TZID is an IANA name (registerZones says why).
//
// Traps of ical.js avoided here (spec/pipeline.md, "Parsing .ics written by real software"):
// - `new ICAL.Event(vevent)` without options relates every override in the calendar to it, whatever its UID:
//   overrides are grouped by UID and passed with `strictExceptions`.
// - `RDATE;VALUE=PERIOD` crashes its expansion: PERIOD RDATEs are removed from the component and added here,
//   each occurrence lasting its own period (RFC 5545 §3.8.5.2).

import ICAL from 'ical.js';
import { wireToMs } from '../../../src/model/civil-time.ts';
import { normalizeTimezone, wallToInstant, zoneInfo } from '../../../src/model/timezone.ts';
import type { EventRecord, TimeValue, Window } from '../../../src/sources/record.ts';
import { ianaNames, ianaOf, pad, vtimezoneFor } from './intl-zones.ts';

/** One occurrence as a user sees it: `start`/`end` are ISO instants, or dates (end exclusive) when all-day. */
export interface Occurrence {
  uid: string;
  start: string;
  end: string;
  allDay: boolean;
  title: string;
}

function registerZones(calendar: ICAL.Component): void {
  ICAL.TimezoneService.reset();
  // Deliberate: a VTIMEZONE whose TZID is an IANA name is replaced by that zone's real rules, as readIcs
  // resolves IANA names first. Files carry wrong or cut VTIMEZONEs under IANA names — The Events Calendar
  // writes each transition at its UTC hour as if it were local time, Meetup and others ship only the
  // current year — and ical.js obeys them, hours off (spec/pipeline.md).
  for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = String(vtimezone.getFirstPropertyValue('tzid'));
    if (tzid.includes('/') && ianaNames.has(tzid.toLowerCase())) calendar.removeSubcomponent(vtimezone);
  }
  const own = new Set(
    calendar.getAllSubcomponents('vtimezone').map((z) => String(z.getFirstPropertyValue('tzid'))),
  );
  const wanted = new Set<string>();
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    for (const prop of vevent.getAllProperties()) {
      const tzid = prop.getParameter('tzid');
      if (typeof tzid === 'string' && !own.has(tzid)) wanted.add(tzid);
    }
  }
  for (const tzid of wanted) {
    const zone = ianaOf(tzid);
    if (zone === null || zone === 'UTC') continue;
    const component = new ICAL.Component(ICAL.parse(vtimezoneFor(tzid, zone)));
    ICAL.TimezoneService.register(new ICAL.Timezone({ component, tzid }));
  }
}

/** X-WR-TIMEZONE, else the file's only VTIMEZONE, else the default: the zone floating times are read in. */
function floatingZoneOf(calendar: ICAL.Component, defaultZone: string): ICAL.Timezone {
  const wr = calendar.getFirstPropertyValue('x-wr-timezone');
  if (typeof wr === 'string' && ianaOf(wr) !== null) return zoneFromName(wr);
  const zones = calendar.getAllSubcomponents('vtimezone');
  if (zones.length === 1) {
    const tzid = String(zones[0].getFirstPropertyValue('tzid'));
    return ianaOf(tzid) !== null ? zoneFromName(tzid) : new ICAL.Timezone(zones[0]);
  }
  return zoneFromName(defaultZone);
}

function zoneFromName(name: string): ICAL.Timezone {
  const zone = ianaOf(name) ?? 'UTC';
  if (zone === 'UTC') return ICAL.Timezone.utcTimezone;
  return new ICAL.Timezone({
    component: new ICAL.Component(ICAL.parse(vtimezoneFor(name, zone))),
    tzid: name,
  });
}

interface Span {
  start: ICAL.Time;
  end: ICAL.Time;
}

function shape(uid: string, span: Span, title: string, floating: ICAL.Timezone): Occurrence {
  if (span.start.isDate) {
    const end = span.end.isDate ? span.end : span.end.clone();
    return { uid, start: dateOf(span.start), end: dateOf(end), allDay: true, title };
  }
  return {
    uid,
    start: instantOf(span.start, floating),
    end: instantOf(span.end, floating),
    allDay: false,
    title,
  };
}

const dateOf = (t: ICAL.Time) => `${t.year}-${pad(t.month)}-${pad(t.day)}`;

function instantOf(time: ICAL.Time, floating: ICAL.Timezone): string {
  let t = time;
  if (t.zone === ICAL.Timezone.localTimezone || t.zone === undefined || t.zone === null) {
    t = ICAL.Time.fromData(
      { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second },
      floating,
    );
  }
  return new Date(t.toUnixTime() * 1000).toISOString().replace('.000Z', 'Z');
}

const overlapsWindow = (start: number, end: number, w: Window) =>
  end > start
    ? start < w.to.getTime() && end > w.from.getTime()
    : start >= w.from.getTime() && start < w.to.getTime();

function spanMs(span: Span, floating: ICAL.Timezone): [number, number] {
  if (span.start.isDate) {
    // Dates are compared as UTC days with a day's margin, as readIcs does for all-day series (recurrence.ts).
    return [Date.parse(dateOf(span.start)), Date.parse(dateOf(span.end))];
  }
  return [Date.parse(instantOf(span.start, floating)), Date.parse(instantOf(span.end, floating))];
}

/** A VEVENT without SUMMARY shows as "(No title)" in calendar apps, and is imported so (not a parse matter). */
const titleOf = (summary: string | null | undefined) => (summary ? summary : '(No title)');

/** Every occurrence ical.js finds: single events always, series' occurrences that overlap `window`. */
export function oracleOccurrences(text: string, window: Window, defaultZone = 'UTC'): Occurrence[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const floating = floatingZoneOf(calendar, defaultZone);
  registerZones(calendar);
  if (floating !== ICAL.Timezone.utcTimezone) ICAL.TimezoneService.register(floating, floating.tzid);
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    if (vevent.getFirstProperty('dtstart')?.getParameter('tzid') === undefined) continue;
    for (const exdate of vevent.getAllProperties('exdate')) {
      // A floating EXDATE on a zoned series means the floating zone's wall time (RFC 5545 §3.3.5 leaves
      // floating to the reader; the spec gives it X-WR-TIMEZONE or the only VTIMEZONE); ical.js would
      // compare it as UTC and keep the occurrence.
      const [name, params, type, ...values] = exdate.toJSON() as [
        string,
        Record<string, string>,
        string,
        ...string[],
      ];
      if (type !== 'date-time' || params.tzid !== undefined || values.some((v) => v.endsWith('Z'))) continue;
      vevent.removeProperty(exdate);
      vevent.addProperty(new ICAL.Property([name, { ...params, tzid: floating.tzid }, type, ...values]));
    }
  }
  const byUid = new Map<string, { masters: ICAL.Component[]; overrides: ICAL.Component[] }>();
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid'));
    let group = byUid.get(uid);
    if (group === undefined) {
      group = { masters: [], overrides: [] };
      byUid.set(uid, group);
    }
    (vevent.hasProperty('recurrence-id') ? group.overrides : group.masters).push(vevent);
  }

  const result: Occurrence[] = [];
  const cancelled = (c: ICAL.Component) =>
    String(c.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
  for (const [uid, group] of byUid) {
    const master = group.masters[0];
    const isSeries = master !== undefined && (master.hasProperty('rrule') || master.hasProperty('rdate'));
    if (!isSeries) {
      // A single event, or overrides whose series is not in the file: each is an event of its own.
      for (const c of [...group.masters, ...group.overrides]) {
        if (cancelled(c)) continue;
        const event = new ICAL.Event(c);
        result.push(
          shape(uid, { start: event.startDate, end: event.endDate }, titleOf(event.summary), floating),
        );
      }
      continue;
    }
    if (cancelled(master)) continue;
    const masterTitle = String(master.getFirstPropertyValue('summary') ?? '');
    const periods: Span[] = [];
    for (const rdate of master.getAllProperties('rdate')) {
      if (rdate.type !== 'period') continue;
      for (const value of rdate.getValues() as ICAL.Period[]) {
        periods.push({ start: value.start, end: value.getEnd() });
      }
      master.removeProperty(rdate);
    }
    const event = new ICAL.Event(master, {
      strictExceptions: true,
      exceptions: group.overrides.map((c) => new ICAL.Event(c)),
    });
    const iterator = event.iterator();
    const limit = ICAL.Time.fromJSDate(new Date(window.to.getTime() + 86_400_000 * 2), true);
    const occurrences: { span: Span; item: ICAL.Event; rid: ICAL.Time }[] = [];
    for (let next = iterator.next(); next !== null && next !== undefined; next = iterator.next()) {
      if (next.compare(limit) > 0 && !next.isDate) break;
      if (next.isDate && dateOf(next) > dateOf(limit)) break;
      const details = event.getOccurrenceDetails(next);
      occurrences.push({
        span: { start: details.startDate, end: details.endDate },
        item: details.item,
        rid: next,
      });
      if (occurrences.length > 5000) break;
    }
    for (const period of periods) {
      // An override of a PERIOD occurrence replaces it like any other.
      const override = group.overrides.find(
        (c) => (c.getFirstPropertyValue('recurrence-id') as ICAL.Time).compare(period.start) === 0,
      );
      const item = override === undefined ? event : new ICAL.Event(override);
      const span = override === undefined ? period : { start: item.startDate, end: item.endDate };
      occurrences.push({ span, item, rid: period.start });
    }
    // Deliberate: an instant named twice (an RDATE equal to a rule occurrence, two RRULEs meeting) is one
    // occurrence (RFC 5545 §3.8.5.3, spec/pipeline.md); ical.js yields it twice.
    const seen = new Set<string>();
    for (const { span, item, rid } of occurrences) {
      const ridKey = rid.isDate ? dateOf(rid) : instantOf(rid, floating);
      if (seen.has(ridKey)) continue;
      seen.add(ridKey);
      if (cancelled(item.component)) continue;
      const [start, end] = spanMs(span, floating);
      // Deliberate, as readIcs does: an override is kept when its new time or the slot it replaces is in the
      // window, so that a move out of the window is an update, not a deletion.
      const ridMs = spanMs({ start: rid, end: rid }, floating)[0];
      const isOverride = item !== event;
      if (!overlapsWindow(start, end, window) && !(isOverride && overlapsWindow(ridMs, ridMs, window)))
        continue;
      result.push(shape(uid, span, titleOf(item.summary || masterTitle), floating));
    }
  }
  return sortOccurrences(result);
}

function recordInstant(value: TimeValue, floatingZone: string): string {
  if (value.kind === 'date') return value.date;
  const zone = value.kind === 'zoned' ? value.zone : floatingZone;
  const info = zoneInfo(normalizeTimezone(zone) ?? 'UTC');
  return new Date(wallToInstant(wireToMs(value.local), info)).toISOString().replace('.000Z', 'Z');
}

/** readIcs' records as occurrences (cancelled ones left out, as the oracle leaves them out). */
export function ourOccurrences(records: EventRecord[], floatingZone = 'UTC'): Occurrence[] {
  return sortOccurrences(
    records
      .filter((r) => r.status !== 'cancelled')
      .map((r) => ({
        uid: r.uid ?? r.key,
        start: recordInstant(r.start, floatingZone),
        end: recordInstant(r.end, floatingZone),
        allDay: r.start.kind === 'date',
        title: r.title,
      })),
  );
}

function sortOccurrences(list: Occurrence[]): Occurrence[] {
  const line = (o: Occurrence) => `${o.uid} ${o.start} ${o.end} ${o.allDay} ${o.title}`;
  return list.sort((a, b) => (line(a) < line(b) ? -1 : line(a) > line(b) ? 1 : 0));
}
