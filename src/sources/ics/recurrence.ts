// A series → its occurrences overlapping the window (spec/pipeline.md, "Time": RRULE, RDATE, EXDATE expanded
// within a window into single events, because the API has no series). Pure: the RRULE arithmetic is the rule
// rule.ts builds (rrule-temporal, node-ical's engine, which keeps wall-clock times across DST when its DTSTART
// carries an IANA zone; simple daily and weekly rules computed in rule.ts), one per RRULE line; this module
// turns its Dates back into wall times, adds DTSTART and the RDATEs (a PERIOD with its own end), removes
// EXDATEs and duplicates, gives each occurrence its instance id and end, and keeps what overlaps the window.
// Overrides (RECURRENCE-ID, RANGE=THISANDFUTURE) are the reader's business (read.ts): it matches them to
// `instance` keys.
//
// Why our own reader and rrule-temporal, not ical.js (issues 4 and 17, measured with bench/parse.ts): the
// reader takes well under ical.js's CPU for parse + expand of the same file. ical.js rejects a whole file over
// one malformed line, crashes on RDATE;VALUE=PERIOD, reads TZIDs without a VTIMEZONE as floating, ignores
// BYWEEKNO on yearly rules, puts wall times in a DST gap or overlap on the wrong side (RFC 5545 §3.3.5), drops
// a DTSTART its rule does not produce and doubles an RDATE equal to a rule instance — it serves as the tests'
// independent oracle instead (test/sources/ics/oracle.ts), where each of these is a commented deliberate
// difference. What node-ical (whose rule engine we use) alone gets wrong, and where it is handled: RDATE
// ignored (vevent.ts rdateList, here), RANGE=THISANDFUTURE read as a one-instance override (read.ts
// shiftedBy), only the first of several RRULEs (vevent.ts), COUNT not counting a DTSTART the rule does not
// produce (vevent.ts countingDtstart), custom and Windows-label TZIDs read as UTC (zones.ts), floating times
// in the host's zone and all-day dates as host midnights (times.ts, RuleMode `date` below), overrides without
// their master collapsed (read.ts).

import { msToWire } from '../../model/civil-time.ts';
import type { Window } from '../record.ts';
import { atInstant, atWall, endFor, instanceOf, type Moment } from './times.ts';

/** A rule's occurrences between two instants (rule.ts builds it with rrule-temporal). */
export interface RuleSource {
  between(after: Date, before: Date, inclusive: boolean): Date[];
}

/**
 * How the rule's Dates are to be read, matching the DTSTART rule.ts gave rrule-temporal:
 * `zone` → instants in the series' IANA zone; `wall` → wall times written as UTC (floating times and
 * fixed-offset zones); `date` → all-day dates as UTC midnights.
 */
export type RuleMode = 'zone' | 'wall' | 'date';

/** An RDATE: a start, and with `VALUE=PERIOD` its own end (RFC 5545 §3.8.5.2). */
export interface RDate {
  start: Moment;
  end?: Moment;
}

export interface Series {
  start: Moment;
  end: Moment;
  /** One per RRULE line: RFC 5545 allows several (deprecated in RFC 5545, still written by some clients). */
  rules: RuleSource[];
  ruleMode: RuleMode;
  rdates: RDate[];
  exdates: Moment[];
}

export interface Occurrence {
  start: Moment;
  end: Moment;
  /** Compact instance id for keys: `20270301T180000Z`, or `20270301` on an all-day series. */
  instance: string;
  /** The same as ISO: `2027-03-01T18:00:00Z`, `2027-03-01`. */
  iso: string;
}

/** More occurrences than this in one window is a runaway rule (FREQ=MINUTELY for a year): the rest is cut. */
export const MAX_OCCURRENCES = 5000;

export interface Expansion {
  occurrences: Occurrence[];
  /** True when MAX_OCCURRENCES cut the series. */
  capped: boolean;
}

const DAY = 86_400_000;

export function expandSeries(series: Series, window: Window): Expansion {
  const length = Math.max(0, series.end.ms - series.start.ms);
  const from = window.from.getTime();
  const to = window.to.getTime();
  const starts: RDate[] = [{ start: series.start }];
  for (const rule of series.rules) {
    // A day of margin each side: date and floating moments are wall times, up to 14 hours off the instant.
    const dates = rule.between(new Date(from - length - DAY), new Date(to + DAY), true);
    for (const date of dates.slice(0, MAX_OCCURRENCES + 1)) starts.push({ start: fromRule(series, date) });
  }
  starts.push(...series.rdates);

  const excluded = new Set<string>();
  const excludedDays = new Set<string>();
  for (const ex of series.exdates) {
    // A DATE EXDATE on a date-time series removes that day's occurrences (RFC 5545 §3.8.5.1 allows it).
    if (ex.value.kind === 'date' && series.start.value.kind !== 'date') excludedDays.add(ex.value.date);
    else excluded.add(instanceOf(ex).key);
    // A floating EXDATE given the file's zone (X-WR-TIMEZONE, its only VTIMEZONE) on a zoned series names
    // that instant: its key is wall-based, so add the instant's key too.
    if (ex.value.kind === 'zoned' && ex.value.floating === true) excluded.add(instantKey(ex.ms));
  }

  const seen = new Set<string>();
  const occurrences: Occurrence[] = [];
  for (const { start, end: periodEnd } of starts) {
    const { key, iso } = instanceOf(start);
    if (seen.has(key) || excluded.has(key)) continue;
    seen.add(key);
    if (start.value.kind !== 'date' && excludedDays.has(start.value.local.slice(0, 10))) continue;
    const end = periodEnd ?? endFor(start, series.start, series.end);
    if (!overlaps(start.ms, end.ms, from, to)) continue;
    occurrences.push({ start, end, instance: key, iso });
  }
  occurrences.sort((a, b) => a.start.ms - b.start.ms);
  const capped = occurrences.length > MAX_OCCURRENCES;
  return { occurrences: capped ? occurrences.slice(0, MAX_OCCURRENCES) : occurrences, capped };
}

/** [start, end) overlaps [from, to); an event without length counts when it starts inside. */
export function overlaps(start: number, end: number, from: number, to: number): boolean {
  return end > start ? start < to && end > from : start >= from && start < to;
}

function instantKey(ms: number): string {
  return `${msToWire(ms).replace(/[-:]/g, '').replace(' ', 'T')}Z`;
}

function fromRule(series: Series, date: Date): Moment {
  const like = series.start.value;
  if (series.ruleMode !== 'zone') return atWall(like, date.getTime());
  return atInstant(like, date.getTime());
}
