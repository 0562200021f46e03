// One RRULE line → the rule object recurrence.ts expands (RuleSource), built with rrule-temporal directly:
// what node-ical did for us before (issue 17: a whole node-ical parse per VEVENT was a fifth of the source
// stage), down to the same normalisation of the rule text. rrule-temporal keeps wall-clock times across DST
// when DTSTART carries an IANA zone; floating times and fixed offsets are handed to it as wall times in UTC,
// all-day series as dates (anchored at UTC midnight), see RuleMode.

import { RRuleTemporal } from 'rrule-temporal';
import { DAY, msToWire, wireToMs } from '../../model/civil-time.ts';
import { wallToInstant, zoneInfo } from '../../model/timezone.ts';
import type { RuleMode, RuleSource } from './recurrence.ts';
import { atInstant, type Moment, wallMs } from './times.ts';

/**
 * The rule of RRULE value `rrule` for a series starting at `start`, read in `mode`. Its Dates are instants
 * (`zone`), or wall times written as UTC (`wall`, `date`). Throws what rrule-temporal throws on a rule it
 * rejects (some only when asked for occurrences). `simple: false` always asks rrule-temporal (tests compare
 * the two).
 */
export function buildRule(rrule: string, start: Moment, mode: RuleMode, { simple = true } = {}): RuleSource {
  const freq = rrule.lastIndexOf('FREQ=');
  if (freq === -1) throw new Error('no FREQ');
  // As node-ical did: no DTSTART/VALUE/TZID parts inside the rule, no milliseconds in UNTIL.
  const parts = rrule
    .slice(freq)
    .replaceAll(/\.\d{3}/g, '')
    .split(';')
    .filter((part) => !part.startsWith('DTSTART') && !part.startsWith('VALUE=') && !part.startsWith('TZID='))
    .join(';');
  const normalized = normalizedUntil(parts, start, mode);
  const fast = simple ? simpleRule(normalized, start, mode) : null;
  if (fast !== null) return fast;
  const rule = new RRuleTemporal({ rruleString: `${dtstartLine(start, mode)}\nRRULE:${normalized}` });
  return {
    between: (after, before, inclusive) =>
      rule.between(after, before, inclusive).map((zdt) => new Date(zdt.epochMilliseconds)),
  };
}

const SIMPLE_PART =
  /^(?:FREQ=(?:DAILY|WEEKLY)|INTERVAL=[1-9]\d*|COUNT=[1-9]\d*|UNTIL=\d{8}(?:T\d{6}Z)?|WKST=(?:MO|TU|WE|TH|FR|SA|SU))$/;

/**
 * A rule that only repeats DTSTART every n days or weeks (FREQ=DAILY or WEEKLY with no BY… part; the
 * generated benchmark's and many real files' series): computed here on the series' wall clock, the way
 * rrule-temporal does (each occurrence at DTSTART's wall time, a time in a DST gap moved forward, in an
 * overlap the earlier instant), without building its rule — that cost ~0.2 ms of CPU per series. Null
 * for any other rule.
 */
function simpleRule(rule: string, start: Moment, mode: RuleMode): RuleSource | null {
  const parts = rule.split(';');
  if (!parts.every((part) => SIMPLE_PART.test(part))) return null;
  const get = (name: string) => parts.find((part) => part.startsWith(`${name}=`))?.slice(name.length + 1);
  const freq = get('FREQ');
  if (freq === undefined) return null;
  const interval = Number(get('INTERVAL') ?? 1);
  const count = get('COUNT');
  const until = get('UNTIL');
  const v = start.value;
  // UNTIL of the other kind than DTSTART (RFC 5545 says it must match): left to rrule-temporal.
  if (until !== undefined && (until.length === 8) !== (v.kind === 'date')) return null;
  const step = (freq === 'WEEKLY' ? 7 : 1) * interval * DAY;
  const zone = mode === 'zone' && v.kind === 'zoned' ? zoneInfo(v.zone) : null;
  const wall0 = zone === null ? wallMs(v) : wallMs(atInstant(v, start.ms).value);
  const at =
    zone === null ? (k: number) => wall0 + k * step : (k: number) => wallToInstant(wall0 + k * step, zone);
  const last = Math.min(
    count === undefined ? Number.POSITIVE_INFINITY : Number(count) - 1,
    until === undefined ? Number.POSITIVE_INFINITY : lastBefore(untilMs(until), at, wall0, step),
  );
  return {
    between(after, before, inclusive) {
      const from = after.getTime();
      const to = before.getTime();
      const dates: Date[] = [];
      // Instants stay within a day of their wall time: start two steps early, then test exactly.
      for (let k = Math.max(0, Math.floor((from - DAY - wall0) / step) - 1); k <= last; k++) {
        const ms = at(k);
        if (inclusive ? ms > to : ms >= to) {
          if (ms - DAY > to) break;
          continue;
        }
        if (inclusive ? ms >= from : ms > from) dates.push(new Date(ms));
      }
      return dates;
    },
  };
}

/** UNTIL (normalised: `YYYYMMDD` or `YYYYMMDDTHHMMSSZ`) as ms. */
function untilMs(until: string): number {
  return wireToMs(wire(until.slice(0, 8), until.length === 8 ? 'T000000' : until.slice(8, 15)));
}

/** The last k with at(k) ≤ limit (−1: none). */
function lastBefore(limit: number, at: (k: number) => number, wall0: number, step: number): number {
  let k = Math.max(-1, Math.floor((limit - wall0) / step) + 2);
  while (k >= 0 && at(k) > limit) k--;
  return k;
}

function dtstartLine(start: Moment, mode: RuleMode): string {
  const v = start.value;
  if (v.kind === 'date') return `DTSTART;VALUE=DATE:${v.date.replaceAll('-', '')}`;
  if (mode !== 'zone' || v.kind !== 'zoned') return `DTSTART:${compact(v.local)}Z`;
  // The wall time of the instant, as node-ical gave it: a wall time in a DST gap starts where its instant is.
  const wall = atInstant(v, start.ms).value;
  return `DTSTART;TZID=${v.zone}:${compact(wall.kind === 'date' ? v.local : wall.local)}`;
}

/** `2027-03-01 19:00:00` → `20270301T190000`. */
function compact(wire: string): string {
  return `${wire.slice(0, 4)}${wire.slice(5, 7)}${wire.slice(8, 10)}T${wire.slice(11, 13)}${wire.slice(14, 16)}${wire.slice(17, 19)}`;
}

const UNTIL = /UNTIL=(\d{8})(T\d{6})?(Z)?/;

/**
 * UNTIL in the form rrule-temporal expects, as node-ical wrote it: on an all-day series a date (a UTC
 * date-time within the day before DTSTART, as Outlook writes it, becomes DTSTART's date); on a timed series
 * a UTC date-time (a local one read in the series' zone).
 */
function normalizedUntil(rule: string, start: Moment, mode: RuleMode): string {
  const until = UNTIL.exec(rule);
  if (until === null) return rule;
  const [whole, date, time, z] = until;
  const replace = (value: string) =>
    `${rule.slice(0, until.index)}UNTIL=${value}${rule.slice(until.index + whole.length)}`;
  const v = start.value;
  if (v.kind === 'date') {
    if (time === undefined) return rule;
    if (z === undefined) return replace(date);
    const at = wireToMs(wire(date, time));
    const dtstart = wallMs(v);
    return replace(at < dtstart && dtstart - at < DAY ? v.date.replaceAll('-', '') : date);
  }
  if (time === undefined || z !== undefined) return rule;
  const local = wire(date, time);
  const ms =
    mode === 'zone' && v.kind === 'zoned'
      ? wallToInstant(wireToMs(local), zoneInfo(v.zone))
      : wireToMs(local);
  return replace(`${compact(msToWire(ms))}Z`);
}

/** `20270301`, `T190000` → `2027-03-01 19:00:00`. */
function wire(date: string, time: string): string {
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)} ${time.slice(1, 3)}:${time.slice(3, 5)}:${time.slice(5)}`;
}
