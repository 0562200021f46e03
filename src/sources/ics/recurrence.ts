// A series → its occurrences overlapping the window (spec/pipeline.md, "Time": RRULE, RDATE, EXDATE expanded
// within a window into single events, because the API has no series). Pure: the RRULE arithmetic is the
// `rrule` object node-ical builds (rrule-temporal underneath, which keeps wall-clock times across DST when its
// DTSTART carries an IANA zone); this module turns its Dates back into wall times, adds RDATEs, removes
// EXDATEs and duplicates, gives each occurrence its instance id and end, and keeps what overlaps the window.
// Overrides (RECURRENCE-ID) are the reader's business: it matches them to `instance` keys.

import type { Window } from '../record.ts';
import { atInstant, atWall, endFor, instanceOf, type Moment } from './times.ts';

/** What node-ical's `rrule` offers (its RRuleCompatWrapper). */
export interface RuleSource {
  between(after: Date, before: Date, inclusive: boolean): Date[];
}

/**
 * How the rule's Dates are to be read, matching the DTSTART the reader gave node-ical:
 * `zone` → instants in the series' IANA zone; `wall` → wall times written as UTC (floating times and
 * fixed-offset zones); `date` → node-ical's all-day Dates, host-local midnights (read with local getters).
 */
export type RuleMode = 'zone' | 'wall' | 'date';

export interface Series {
  start: Moment;
  end: Moment;
  rule?: RuleSource;
  ruleMode: RuleMode;
  rdates: Moment[];
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
  const starts: Moment[] = [series.start];
  if (series.rule !== undefined) {
    // A day of margin each side: date and floating moments are wall times, up to 14 hours off the instant.
    const dates = series.rule.between(new Date(from - length - DAY), new Date(to + DAY), true);
    for (const date of dates.slice(0, MAX_OCCURRENCES + 1)) starts.push(fromRule(series, date));
  }
  starts.push(...series.rdates);

  const excluded = new Set<string>();
  const excludedDays = new Set<string>();
  for (const ex of series.exdates) {
    // A DATE EXDATE on a date-time series removes that day's occurrences (RFC 5545 §3.8.5.1 allows it).
    if (ex.value.kind === 'date' && series.start.value.kind !== 'date') excludedDays.add(ex.value.date);
    else excluded.add(instanceOf(ex).key);
  }

  const seen = new Set<string>();
  const occurrences: Occurrence[] = [];
  for (const start of starts) {
    const { key, iso } = instanceOf(start);
    if (seen.has(key) || excluded.has(key)) continue;
    seen.add(key);
    if (start.value.kind !== 'date' && excludedDays.has(start.value.local.slice(0, 10))) continue;
    const end = endFor(start, series.start, series.end);
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

function fromRule(series: Series, date: Date): Moment {
  const like = series.start.value;
  if (series.ruleMode === 'date') {
    // node-ical builds all-day occurrences as `new Date(y, m, d)`: local getters give the date back on any host.
    return atWall(like, Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()));
  }
  if (series.ruleMode === 'wall') return atWall(like, date.getTime());
  return atInstant(like, date.getTime());
}
