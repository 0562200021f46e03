// iCalendar DATE / DATE-TIME / DURATION values → TimeValues with the instant they mean (spec/pipeline.md,
// "Time"). Read from the raw value, not from node-ical's Date, because node-ical turns every value into an
// instant (losing the wall time and the DATE/DATE-TIME distinction) and reads floating times in the host
// zone. Floating times get, in order: X-WR-TIMEZONE, the file's only VTIMEZONE, the caller's default zone;
// with none of these they stay floating (RFC 5545 §3.3.5 form #1).

import { DAY, fieldsToMs, fieldsToWire, msToWire, wireToMs } from '../../model/civil-time.ts';
import { offsetAt, wallToInstant, zoneInfo } from '../../model/timezone.ts';
import type { TimeValue } from '../record.ts';
import { type ContentLine, param } from './lines.ts';
import type { ZoneResolver } from './zones.ts';

/** A TimeValue and the instant it means, in epoch ms (floating and date values: their wall time as if UTC). */
export interface Moment {
  value: TimeValue;
  ms: number;
}

export interface TimeContext {
  zones: ZoneResolver;
  /** The zone floating times get, or null to keep them floating. */
  floatingZone: string | null;
}

export type ParsedTime = { moment: Moment; unknownZone?: string } | { error: string };

/** One DATE or DATE-TIME value of `line` (`text` for the items of a comma list). */
export function parseTime(line: ContentLine, text: string, ctx: TimeContext): ParsedTime {
  const value = text.trim();
  const isDate = param(line, 'VALUE')?.toUpperCase() === 'DATE';
  const f = dateFields(value);
  if (f === null) return { error: `expected a date or date-time, got "${value}"` };
  if (!validDate(f)) return { error: `bad ${f.time ? 'date-time' : 'date'} "${value}"` };
  // VALUE=DATE with a time part (some exporters): the date is what they meant.
  if (!f.time || isDate) {
    const date = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
    return { moment: { value: { kind: 'date', date }, ms: fieldsToMs(f.y, f.mo, f.d, 0, 0, 0) } };
  }
  // The digits as read (the fields are 0–9999 and two digits each): one flat string, not a rope of slices.
  const local = fieldsToWire(f.y, f.mo, f.d, f.h, f.mi, f.s);
  const wall = fieldsToMs(f.y, f.mo, f.d, f.h, f.mi, f.s);
  if (f.utc) return { moment: zoned(local, 'UTC', wall) };
  const tzid = param(line, 'TZID');
  if (tzid !== undefined) {
    const zone = ctx.zones.resolve(tzid);
    if (zone !== null) return { moment: zoned(local, zone, wall) };
    return { moment: floating(local, ctx.floatingZone, wall), unknownZone: tzid };
  }
  return { moment: floating(local, ctx.floatingZone, wall) };
}

interface DateFields {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  time: boolean;
  seconds: boolean;
  utc: boolean;
}

/**
 * `YYYYMMDD` (a stray `Z` allowed: older calendar servers write RDATEs so, and a date has no zone to be
 * in) or `YYYYMMDDTHHMM[SS][Z]`, read by character code (this runs for every date of the file); null
 * when the value has neither form.
 */
function dateFields(v: string): DateFields | null {
  const n = v.length;
  if (n < 8 || !digits(v, 0, 8)) return null;
  const y = num(v, 0, 4);
  const mo = num(v, 4, 2);
  const d = num(v, 6, 2);
  const z = (at: number) => at === n - 1 && (v.charCodeAt(at) | 32) === 122;
  if (n === 8 || (n === 9 && z(8)))
    return { y, mo, d, h: 0, mi: 0, s: 0, time: false, seconds: false, utc: false };
  if ((v.charCodeAt(8) | 32) !== 116 || n < 13 || !digits(v, 9, 4)) return null;
  const seconds = n >= 15 && digits(v, 13, 2);
  const end = seconds ? 15 : 13;
  if (end !== n && !z(end)) return null;
  const s = seconds ? num(v, 13, 2) : 0;
  return { y, mo, d, h: num(v, 9, 2), mi: num(v, 11, 2), s, time: true, seconds, utc: end !== n };
}

function digits(v: string, from: number, count: number): boolean {
  for (let i = from; i < from + count; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function num(v: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) n = n * 10 + v.charCodeAt(i) - 48;
  return n;
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Out of range is no date, leap seconds (`:60`) and 24:00 included (they would roll over).
function validDate(f: DateFields): boolean {
  if (f.y < 1 || f.mo < 1 || f.mo > 12 || f.d < 1 || f.d > MONTH_DAYS[f.mo - 1]) return false;
  if (f.mo === 2 && f.d === 29 && !(f.y % 4 === 0 && (f.y % 100 !== 0 || f.y % 400 === 0))) return false;
  return f.h < 24 && f.mi < 60 && f.s < 60;
}

function zoned(local: string, zone: string, wall = wireToMs(local), floating?: true): Moment {
  const ms = wallToInstant(wall, zoneInfo(zone));
  return { value: floating ? { kind: 'zoned', local, zone, floating } : { kind: 'zoned', local, zone }, ms };
}

function floating(local: string, zone: string | null, wall: number): Moment {
  return zone === null ? { value: { kind: 'floating', local }, ms: wall } : zoned(local, zone, wall, true);
}

/** The wall time of a moment as epoch ms (a date: its midnight). */
export function wallMs(value: TimeValue): number {
  return wireToMs(value.kind === 'date' ? `${value.date} 00:00:00` : value.local);
}

/** A moment of the same kind and zone as `like`, at wall time `wall`. */
export function atWall(like: TimeValue, wall: number): Moment {
  const wire = msToWire(wall);
  if (like.kind === 'date')
    return {
      value: { kind: 'date', date: wire.slice(0, 10) },
      ms: wireToMs(`${wire.slice(0, 10)} 00:00:00`),
    };
  if (like.kind === 'floating') return { value: { kind: 'floating', local: wire }, ms: wall };
  return zoned(wire, like.zone, wall, like.floating);
}

/** A moment of the same kind and zone as `like`, at instant `ms` (date and floating: wall as UTC). */
export function atInstant(like: TimeValue, ms: number): Moment {
  if (like.kind !== 'zoned') return atWall(like, ms);
  const info = zoneInfo(like.zone);
  const wall = ms + offsetAt(info, ms);
  return zoned(msToWire(wall), like.zone, wall, like.floating);
}

/**
 * The wall time of `moment` read in the frame of `like` (its zone, or no zone): an RDATE or EXDATE in UTC
 * on a series in Europe/Berlin is compared and lengthened on Berlin's wall clock.
 */
export function wallAs(moment: Moment, like: TimeValue): number {
  const v = moment.value;
  if (like.kind !== 'zoned' || v.kind !== 'zoned' || v.zone === like.zone) return wallMs(v);
  return wallMs(atInstant(like, moment.ms).value);
}

/**
 * The end of an occurrence starting at `start`, as long as `masterStart`→`masterEnd`: the same wall-clock
 * length when both ends share kind and zone (a 2-hour event stays 2 hours on the DST night's calendar
 * page), else the same elapsed time. A start in another zone than the series (an RDATE in UTC) is first
 * read on the series' wall clock.
 */
export function endFor(start: Moment, masterStart: Moment, masterEnd: Moment): Moment {
  const a = masterStart.value;
  const b = masterEnd.value;
  const sameFrame = a.kind === b.kind && (a.kind !== 'zoned' || (b.kind === 'zoned' && a.zone === b.zone));
  if (sameFrame && (start.value.kind === a.kind || a.kind === 'zoned'))
    return atWall(b, wallAs(start, a) + wallMs(b) - wallMs(a));
  return atInstant(b, start.ms + masterEnd.ms - masterStart.ms);
}

/** RFC 5545 §3.3.6 DURATION (`P1D`, `PT1H30M`, `-P1W`) in ms of wall time, or null. */
export function parseDuration(text: string): number | null {
  const m = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(text.trim());
  if (m === null || /^[+-]?PT?$/i.test(text.trim())) return null;
  const [weeks, days, hours, minutes, seconds] = [m[2], m[3], m[4], m[5], m[6]].map((n) => Number(n ?? 0));
  const ms = (weeks * 7 + days) * DAY + hours * 3_600_000 + minutes * 60_000 + seconds * 1000;
  return m[1] === '-' ? -ms : ms;
}

/** Identity of an occurrence: compact for keys (`20270301T180000Z`, `20270301`), ISO for the record. */
export function instanceOf(moment: Moment): { key: string; iso: string } {
  const v = moment.value;
  if (v.kind === 'date')
    return { key: v.date.slice(0, 4) + v.date.slice(5, 7) + v.date.slice(8), iso: v.date };
  // Floating times have no instant of their own (even once a reader's zone is applied): their wall time
  // stands in, without the `Z`, so that changing that zone does not re-key the series.
  const instant = v.kind === 'zoned' && !v.floating;
  const wire = instant ? msToWire(moment.ms) : v.local;
  const z = instant ? 'Z' : '';
  // By position, not by regex: this runs for every occurrence of every series.
  const date = wire.slice(0, 4) + wire.slice(5, 7) + wire.slice(8, 10);
  const time = wire.slice(11, 13) + wire.slice(14, 16) + wire.slice(17, 19);
  return { key: `${date}T${time}${z}`, iso: `${wire.slice(0, 10)}T${wire.slice(11)}${z}` };
}

/** `moment` as a date (for a date-time RECURRENCE-ID or EXDATE on an all-day series). */
export function asDate(moment: Moment): Moment {
  const v = moment.value;
  if (v.kind === 'date') return moment;
  const date = v.local.slice(0, 10);
  return { value: { kind: 'date', date }, ms: wireToMs(`${date} 00:00:00`) };
}
