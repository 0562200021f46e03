// One VEVENT block → a parsed event: identity (UID or a deterministic key), start and end as Moments
// (DTEND, else DURATION, else the RFC 5545 §3.6.1 defaults), RECURRENCE-ID, the recurrence parts (rule.ts)
// and the fields (fields.ts). A VEVENT that cannot become a record (no DTSTART, an unparseable date, an end
// before its start) is reported as an error naming file, line, UID and field, and yields null.

import { createHash } from 'node:crypto';
import { DAY } from '../../model/civil-time.ts';
import { zoneInfo } from '../../model/timezone.ts';
import type { SourceProblem } from '../record.ts';
import type { VEventBlock } from './components.ts';
import { ICS_PROBLEMS, NO_TITLE, problem } from './errors.ts';
import { type EventFields, readFields } from './fields.ts';
import { type ContentLine, param, unescapeText } from './lines.ts';
import type { RDate, RuleMode, RuleSource } from './recurrence.ts';
import { buildRule } from './rule.ts';
import { asDate, atWall, type Moment, parseDuration, parseTime, type TimeContext, wallMs } from './times.ts';

export interface ParsedEvent {
  line: number;
  uid?: string;
  /** UID, or `nouid-` + 16 hex of sha256(DTSTART, SUMMARY, LOCATION) for a UID-less VEVENT. */
  key: string;
  start: Moment;
  end: Moment;
  recurrenceId?: Moment;
  /** RECURRENCE-ID;RANGE=THISANDFUTURE: the override also changes every later occurrence (RFC 5545 §3.8.4.4). */
  thisAndFuture?: true;
  /** Its RRULE is COUNT=1 and DTSTART is not on the rule: DTSTART is the series' one instance. */
  dtstartOnly?: true;
  sequence: number;
  /** One per RRULE line (none on a single event or an override). */
  rules: RuleSource[];
  ruleMode: RuleMode;
  rdates: RDate[];
  exdates: Moment[];
  fields: EventFields;
}

interface Context extends TimeContext {
  file: string;
  problems: SourceProblem[];
}

/** The properties keyOf reads. */
export const KEY_PROPERTIES = ['UID', 'DTSTART', 'SUMMARY', 'LOCATION'] as const;

/**
 * The key `readVEvent` gives a VEVENT, from its lines alone (the streaming reader counts the VEVENTs of
 * each key before it reads them: stream.ts).
 */
export function keyOf(props: readonly ContentLine[]): string {
  const first = (name: string) => props.find((p) => p.name === name)?.value;
  return (
    uidOf(props.find((p) => p.name === 'UID')) ??
    derivedKey(first('DTSTART'), first('SUMMARY') ?? '', first('LOCATION') ?? '')
  );
}

function uidOf(uidLine: ContentLine | undefined): string | undefined {
  return uidLine === undefined ? undefined : unescapeText(uidLine.value).trim() || undefined;
}

/** A UID-less VEVENT's key: `nouid-` + 16 hex of sha256(DTSTART, SUMMARY, LOCATION) as written. */
function derivedKey(start: string | undefined, summary: string, location: string): string {
  return `nouid-${sha16(`${start ?? ''}\n${summary}\n${location}`)}`;
}

/** The properties of which readVEvent reads the first. */
type First = 'UID' | 'RECURRENCE-ID' | 'DTSTART' | 'DTEND' | 'DURATION' | 'SUMMARY' | 'LOCATION' | 'SEQUENCE';
const FIRST = new Set<string>([
  'UID',
  'RECURRENCE-ID',
  'DTSTART',
  'DTEND',
  'DURATION',
  'SUMMARY',
  'LOCATION',
  'SEQUENCE',
]);

/** The first line of each name in FIRST, in one pass over the block (not one search per name). */
function firstLines(props: readonly ContentLine[]): Partial<Record<First, ContentLine>> {
  const firsts: Partial<Record<First, ContentLine>> = {};
  // Indexed: for…of allocated an iterator result per line until the optimising compiler took over.
  for (let i = 0; i < props.length; i++) {
    const p = props[i];
    if (FIRST.has(p.name)) firsts[p.name as First] ??= p;
  }
  return firsts;
}

export function readVEvent(block: VEventBlock, ctx: Context): ParsedEvent | null {
  const props = block.props;
  const firsts = firstLines(props);
  const first = (name: First) => firsts[name];
  const uid = uidOf(firsts.UID);
  const at = (l: ContentLine | undefined, field: string) => ({
    file: ctx.file,
    line: l?.line ?? block.line,
    uid,
    field,
  });
  const fail = (code: string, message: string, l: ContentLine | undefined, field: string): null => {
    ctx.problems.push(
      problem('error', code, `${message}; VEVENT${uid ? ` ${uid}` : ''} dropped`, at(l, field)),
    );
    return null;
  };
  const time: TimeReader = (l, text, field, optional = false) => {
    const parsed = parseTime(l, text, ctx);
    if ('error' in parsed && optional) {
      ctx.problems.push(
        problem('warning', ICS_PROBLEMS.badDate, `${field}: ${parsed.error}; ignored`, at(l, field)),
      );
      return null;
    }
    if ('error' in parsed) return fail(ICS_PROBLEMS.badDate, `${field}: ${parsed.error}`, l, field);
    if (parsed.unknownZone !== undefined) {
      const as = parsed.moment.value.kind === 'zoned' ? `in ${parsed.moment.value.zone}` : 'as floating';
      ctx.problems.push(
        problem(
          'warning',
          ICS_PROBLEMS.unknownZone,
          `unknown TZID "${parsed.unknownZone}", read ${as}`,
          at(l, field),
        ),
      );
    }
    return parsed.moment;
  };

  const ridLine = first('RECURRENCE-ID');
  const recurrenceId = ridLine === undefined ? undefined : time(ridLine, ridLine.value, 'RECURRENCE-ID');
  if (recurrenceId === null) return null;
  const startLine = first('DTSTART');
  // An override without DTSTART keeps its original slot (RFC 5545 §3.8.4.4).
  if (startLine === undefined && recurrenceId === undefined) {
    return fail(ICS_PROBLEMS.noDtstart, 'no DTSTART', undefined, 'DTSTART');
  }
  const start = startLine === undefined ? recurrenceId : time(startLine, startLine.value, 'DTSTART');
  if (start === null || start === undefined) return null;
  const end = readEnd(start, first('DTEND'), first('DURATION'), time, ctx, at);
  if (end === null) return null;
  if (end.ms < start.ms)
    return fail(ICS_PROBLEMS.endBeforeStart, 'DTEND before DTSTART', first('DTEND'), 'DTEND');

  const summary = first('SUMMARY')?.value ?? '';
  // An override without SUMMARY takes its series' title (records.ts); a master or single event gets one.
  if (summary.trim() === '' && recurrenceId === undefined) {
    const message = `no SUMMARY; imported as "${NO_TITLE}"`;
    ctx.problems.push(problem('warning', ICS_PROBLEMS.noSummary, message, at(undefined, 'SUMMARY')));
  }
  const location = first('LOCATION')?.value ?? '';
  const key = uid ?? derivedKey(startLine?.value, summary, location);
  const rdates = rdateList(props, time);
  const exdates = dateList(props, 'EXDATE', time);
  const ruleLines = recurrenceId === undefined ? props.filter((p) => p.name === 'RRULE') : [];
  const ruleMode = modeOf(start);
  const rules: RuleSource[] = [];
  let dtstartOnly = false; // a COUNT=1 rule whose one instance is DTSTART: a series, so EXDATE applies
  for (const rruleLine of ruleLines) {
    try {
      const rule = countingDtstart(
        buildRule(rruleLine.value, start, ruleMode),
        rruleLine.value,
        start,
        ruleMode,
      );
      if (rule !== null) rules.push(rule);
      else dtstartOnly = true;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      ctx.problems.push(
        problem(
          'warning',
          ICS_PROBLEMS.badRrule,
          `RRULE not understood (${why}); ${ruleLines.length === 1 ? 'read as a single event' : 'this rule ignored'}`,
          at(rruleLine, 'RRULE'),
        ),
      );
    }
  }
  const sequence = Number(first('SEQUENCE')?.value);
  const event: ParsedEvent = {
    line: block.line,
    key,
    start,
    end,
    sequence: Number.isFinite(sequence) ? sequence : 0,
    rules,
    ruleMode,
    rdates,
    exdates,
    fields: readFields(props),
  };
  if (uid !== undefined) event.uid = uid;
  if (dtstartOnly) event.dtstartOnly = true;
  if (recurrenceId !== undefined) event.recurrenceId = recurrenceId;
  if (ridLine !== undefined && param(ridLine, 'RANGE')?.toUpperCase() === 'THISANDFUTURE')
    event.thisAndFuture = true;
  return event;
}

/** A DATE/DATE-TIME of line `l`; null after reporting (an error, or with `optional` a warning). */
type TimeReader = (l: ContentLine, text: string, field: string, optional?: boolean) => Moment | null;

function readEnd(
  start: Moment,
  endLine: ContentLine | undefined,
  durationLine: ContentLine | undefined,
  time: TimeReader,
  ctx: Context,
  at: (
    l: ContentLine | undefined,
    field: string,
  ) => { file: string; line: number; uid?: string; field: string },
): Moment | null {
  const isDate = start.value.kind === 'date';
  if (endLine !== undefined) {
    const end = time(endLine, endLine.value, 'DTEND');
    if (end === null) return null;
    if (end.value.kind === start.value.kind) return end;
    // Mixed kinds (DATE start, DATE-TIME end or the reverse): the end follows the start's kind.
    if (isDate) {
      const date = asDate(end);
      return date.ms > start.ms ? date : atWall(start.value, wallMs(start.value) + DAY);
    }
    return end.value.kind === 'zoned' ? end : atWall(start.value, wallMs(end.value));
  }
  if (durationLine !== undefined) {
    const ms = parseDuration(durationLine.value);
    if (ms !== null && ms >= 0) {
      return atWall(
        start.value,
        wallMs(start.value) + (isDate ? Math.max(DAY, Math.ceil(ms / DAY) * DAY) : ms),
      );
    }
    ctx.problems.push(
      problem(
        'warning',
        ICS_PROBLEMS.badDate,
        `DURATION "${durationLine.value}" not understood; ignored`,
        at(durationLine, 'DURATION'),
      ),
    );
  }
  // RFC 5545 §3.6.1: a DATE start lasts one day, a DATE-TIME start ends when it starts.
  return isDate ? atWall(start.value, wallMs(start.value) + DAY) : start;
}

function dateList(props: ContentLine[], name: 'RDATE' | 'EXDATE', time: TimeReader): Moment[] {
  const result: Moment[] = [];
  for (let i = 0; i < props.length; i++) {
    const l = props[i];
    if (l.name !== name) continue;
    for (const item of l.value.split(',')) {
      if (item.trim() === '') continue;
      // A bad item drops the item, not the event.
      const moment = time(l, item.split('/')[0], name, true);
      if (moment !== null) result.push(moment);
    }
  }
  return result;
}

/**
 * RDATEs; a `VALUE=PERIOD` item (`start/end` or `start/duration`) is an occurrence with its own length
 * (RFC 5545 §3.8.5.2). node-ical ignores RDATE altogether; ical.js 2.2 crashes on PERIOD.
 */
function rdateList(props: ContentLine[], time: TimeReader): RDate[] {
  const result: RDate[] = [];
  for (let i = 0; i < props.length; i++) {
    const l = props[i];
    if (l.name !== 'RDATE') continue;
    for (const item of l.value.split(',')) {
      if (item.trim() === '') continue;
      const [from, to] = item.split('/');
      const start = time(l, from, 'RDATE', true);
      if (start === null) continue;
      if (to === undefined) {
        result.push({ start });
        continue;
      }
      const duration = /^[+-]?P/i.test(to.trim()) ? parseDuration(to) : null;
      const end =
        duration !== null
          ? atWall(start.value, wallMs(start.value) + duration)
          : (time(l, to, 'RDATE', true) ?? undefined);
      result.push(end !== undefined && end.ms >= start.ms ? { start, end } : { start });
    }
  }
  return result;
}

/**
 * RFC 5545 §3.8.5.3: DTSTART is always the first instance and counts towards COUNT, even when the rule
 * does not produce it. rrule-temporal (like ical.js) counts only the rule's own instances, so a COUNT=n
 * rule whose DTSTART it does not produce is read as COUNT=n−1 (null: COUNT=1, DTSTART is the only one).
 */
function countingDtstart(rule: RuleSource, rrule: string, start: Moment, mode: RuleMode): RuleSource | null {
  const count = /(?:^|;)COUNT=(\d+)/i.exec(rrule);
  if (count === null) return rule;
  const at = ruleDate(start, mode);
  // A day each side, then an exact match: rrule-temporal widens or cuts narrow bounds on all-day rules.
  if (rule.between(new Date(at - DAY), new Date(at + DAY), true).some((d) => d.getTime() === at)) return rule;
  const n = Number(count[1]);
  if (n <= 1) return null;
  return buildRule(rrule.replace(/COUNT=\d+/i, `COUNT=${n - 1}`), start, mode);
}

/** DTSTART as the rule's Dates express it (see RuleMode). */
function ruleDate(start: Moment, mode: RuleMode): number {
  return mode === 'zone' ? start.ms : wallMs(start.value);
}

function modeOf(start: Moment): RuleMode {
  const v = start.value;
  if (v.kind === 'date') return 'date';
  // rrule-temporal keeps wall-clock times only in an IANA zone; fixed offsets and floating times are
  // handed to it as wall times in UTC, where wall time and instant agree.
  return v.kind === 'zoned' && v.zone !== 'UTC' && zoneInfo(v.zone).iana !== null ? 'zone' : 'wall';
}

function sha16(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
