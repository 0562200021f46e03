// Parsed VEVENTs → EventRecords: masters and overrides matched by UID and RECURRENCE-ID (duplicates: the
// higher SEQUENCE wins), series expanded in the window (recurrence.ts), overrides applied — one instance, or
// with RANGE=THISANDFUTURE every later one — and overrides whose series is missing kept as events of their own.
// Public: `toRecords`, for read.ts.
//
// Keys: a single event → its UID; an occurrence → `${uid}@${instance}` (UTC `20270301T180000Z`, or the date
// `20270301` on an all-day series); an override keeps the key of the occurrence it replaces.

import type { EventRecord, SourceProblem, Window } from '../record.ts';
import { ICS_PROBLEMS, NO_TITLE, problem } from './errors.ts';
import type { EventFields } from './fields.ts';
import { expandSeries, MAX_OCCURRENCES, type Occurrence, overlaps } from './recurrence.ts';
import { asDate, atWall, endFor, instanceOf, type Moment, wallAs, wallMs } from './times.ts';
import type { ParsedEvent } from './vevent.ts';

/** Masters by key and overrides by key and instance; of two versions the higher SEQUENCE, else the later, wins. */
export function toRecords(
  events: ParsedEvent[],
  ctx: { file: string; problems: SourceProblem[] },
  window: Window,
): EventRecord[] {
  // One VEVENT, the stream's call for every key the file has once (nearly all): nothing to pair, so none
  // of the maps below (two Maps and a closure per VEVENT, the heap profile's largest share of this file).
  if (events.length === 1) return recordsOfOne(events[0], ctx, window);
  const masters = new Map<string, ParsedEvent>();
  const overrides = new Map<string, Map<string, ParsedEvent>>();
  const keep = (old: ParsedEvent | undefined, next: ParsedEvent, what: string): boolean => {
    if (old === undefined) return true;
    const wins = next.sequence >= old.sequence;
    const loser = wins ? old : next;
    ctx.problems.push(
      problem(
        'warning',
        ICS_PROBLEMS.duplicate,
        `${what} appears twice; kept the VEVENT at line ${wins ? next.line : old.line}`,
        {
          file: ctx.file,
          line: loser.line,
          uid: loser.uid ?? loser.key,
        },
      ),
    );
    return wins;
  };
  for (const event of events) {
    if (event.recurrenceId === undefined) {
      if (keep(masters.get(event.key), event, `UID ${event.key}`)) masters.set(event.key, event);
      continue;
    }
    let byInstance = overrides.get(event.key);
    if (byInstance === undefined) {
      byInstance = new Map();
      overrides.set(event.key, byInstance);
    }
    const instance = instanceOf(event.recurrenceId).key;
    if (keep(byInstance.get(instance), event, `UID ${event.key} RECURRENCE-ID ${instance}`)) {
      byInstance.set(instance, event);
    }
  }

  const records: EventRecord[] = [];
  for (const event of events) {
    if (event.recurrenceId === undefined) {
      if (masters.get(event.key) === event)
        records.push(...seriesRecords(event, overrides.get(event.key), ctx, window));
    } else if (!isSeries(masters.get(event.key))) {
      if (overrides.get(event.key)?.get(instanceOf(event.recurrenceId).key) === event)
        records.push(standaloneOverride(event, event.recurrenceId, ctx.file));
    }
  }
  return records;
}

/** toRecords of a single VEVENT: a series, a single event, or an override without its series. */
function recordsOfOne(
  event: ParsedEvent,
  ctx: { file: string; problems: SourceProblem[] },
  window: Window,
): EventRecord[] {
  if (event.recurrenceId === undefined) return seriesRecords(event, undefined, ctx, window);
  return [standaloneOverride(event, event.recurrenceId, ctx.file)];
}

/** An override without its series (or of a single event): a standalone event, keyed as the occurrence. */
function standaloneOverride(event: ParsedEvent, recurrenceId: Moment, file: string): EventRecord {
  const rid = instanceOf(recurrenceId);
  return record(file, event, event.fields, `${event.key}@${rid.key}`, rid.iso, event.start, event.end);
}

function isSeries(event: ParsedEvent | undefined): boolean {
  return (
    event !== undefined && (event.rules.length > 0 || event.rdates.length > 0 || event.dtstartOnly === true)
  );
}

function seriesRecords(
  master: ParsedEvent,
  byInstance: Map<string, ParsedEvent> | undefined,
  ctx: { file: string; problems: SourceProblem[] },
  window: Window,
): EventRecord[] {
  if (!isSeries(master))
    return [record(ctx.file, master, master.fields, master.key, undefined, master.start, master.end)];
  let expansion: ReturnType<typeof expandSeries>;
  try {
    expansion = expandSeries(master, window);
  } catch (error) {
    // rrule-temporal validates some rules only when asked for occurrences.
    const why = error instanceof Error ? error.message : String(error);
    ctx.problems.push(
      problem('warning', ICS_PROBLEMS.badRrule, `RRULE not expandable (${why}); read as a single event`, {
        file: ctx.file,
        line: master.line,
        uid: master.uid,
        field: 'RRULE',
      }),
    );
    return [record(ctx.file, master, master.fields, master.key, undefined, master.start, master.end)];
  }
  if (expansion.capped) {
    ctx.problems.push(
      problem(
        'warning',
        ICS_PROBLEMS.badRrule,
        `more than ${MAX_OCCURRENCES} occurrences in the window; kept the first`,
        {
          file: ctx.file,
          line: master.line,
          uid: master.uid,
          field: 'RRULE',
        },
      ),
    );
  }
  const from = window.from.getTime();
  const to = window.to.getTime();
  const overridden = new Map<string, ParsedEvent>();
  const isDate = master.start.value.kind === 'date';
  for (const override of byInstance?.values() ?? []) {
    // A date-time RECURRENCE-ID on an all-day series means its date (spec/pipeline.md).
    overridden.set(
      instanceOf(isDate ? asDate(override.recurrenceId as Moment) : (override.recurrenceId as Moment)).key,
      override,
    );
  }
  const excluded = new Set(master.exdates.map((ex) => instanceOf(isDate ? asDate(ex) : ex).key));
  matchByWallTime(overridden, expansion.occurrences);

  // RANGE=THISANDFUTURE overrides, latest first: each reshapes the occurrences from its RECURRENCE-ID on
  // (node-ical ignores RANGE and treats it as a one-instance override).
  const ranges = [...overridden.values()]
    .filter((o) => o.thisAndFuture === true)
    .sort((a, b) => (b.recurrenceId as Moment).ms - (a.recurrenceId as Moment).ms);

  const timed: { ms: number; record: EventRecord }[] = [];
  for (const occurrence of expansion.occurrences) {
    if (overridden.has(occurrence.instance)) continue;
    const key = `${master.key}@${occurrence.instance}`;
    const range = ranges.find((o) => (o.recurrenceId as Moment).ms <= occurrence.start.ms);
    if (range !== undefined) {
      const { start, end } = shiftedBy(range, occurrence.start);
      if (!overlaps(start.ms, end.ms, from, to)) continue;
      const fields = mergeFields(master.fields, range.fields);
      timed.push({ ms: start.ms, record: record(ctx.file, range, fields, key, occurrence.iso, start, end) });
      continue;
    }
    const occurrenceRecord = record(
      ctx.file,
      master,
      master.fields,
      key,
      occurrence.iso,
      occurrence.start,
      occurrence.end,
    );
    timed.push({ ms: occurrence.start.ms, record: occurrenceRecord });
  }
  for (const [instance, override] of overridden) {
    if (excluded.has(instance)) continue;
    const rid = override.recurrenceId as Moment;
    // Kept when either its new time or the slot it replaces is in the window, so a move out of the
    // window is seen as an update rather than a deletion.
    if (!overlaps(override.start.ms, override.end.ms, from, to) && !overlaps(rid.ms, rid.ms, from, to))
      continue;
    const fields = mergeFields(master.fields, override.fields);
    const iso = instanceOf(isDate ? asDate(rid) : rid).iso;
    const overrideRecord = record(
      ctx.file,
      override,
      fields,
      `${master.key}@${instance}`,
      iso,
      override.start,
      override.end,
    );
    timed.push({ ms: override.start.ms, record: overrideRecord });
  }
  return timed.sort((a, b) => a.ms - b.ms).map((t) => t.record);
}

/**
 * Overrides whose RECURRENCE-ID names no occurrence as an instant but one by its wall time — written
 * floating, or in another zone than the series (Exchange does both): re-keyed to that occurrence, so that
 * they replace it rather than stand beside it. ical.js matches RECURRENCE-IDs by wall time too.
 */
function matchByWallTime(overridden: Map<string, ParsedEvent>, occurrences: readonly Occurrence[]): void {
  const instances = new Set(occurrences.map((o) => o.instance));
  for (const [instance, override] of [...overridden]) {
    if (instances.has(instance)) continue;
    const wall = wallMs((override.recurrenceId as Moment).value);
    const match = occurrences.find((o) => wallMs(o.start.value) === wall && !overridden.has(o.instance));
    if (match === undefined) continue;
    overridden.delete(instance);
    overridden.set(match.instance, override);
  }
}

/**
 * An occurrence at `slot` under a THISANDFUTURE override: moved by as much as the override moved its own
 * slot, on the override's wall clock (so a move from 18:00 to 19:00 stays 19:00 across DST), and as long
 * as the override (RFC 5545 §3.8.4.4; ical.js does the same).
 */
function shiftedBy(range: ParsedEvent, slot: Moment): { start: Moment; end: Moment } {
  const like = range.start.value;
  const shift = wallMs(like) - wallAs(range.recurrenceId as Moment, like);
  const start = atWall(like, wallAs(slot, like) + shift);
  return { start, end: endFor(start, range.start, range.end) };
}

// Overrides from Google and Apple repeat every property; Outlook's may carry only what changed.
function mergeFields(master: EventFields, override: EventFields): EventFields {
  const merged: EventFields = { ...master };
  for (const [name, value] of Object.entries(override) as [keyof EventFields, unknown][]) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    (merged as Record<string, unknown>)[name] = value;
  }
  return merged;
}

function record(
  file: string,
  event: ParsedEvent,
  fields: EventFields,
  key: string,
  instance: string | undefined,
  start: Moment,
  end: Moment,
): EventRecord {
  const result: EventRecord = {
    origin: { file, line: event.line },
    key,
    uid: event.uid ?? event.key,
    ...fields,
    // RFC 5545 makes SUMMARY optional; the target requires a title (vevent.ts warns).
    title: fields.title.trim() === '' ? NO_TITLE : fields.title,
    start: start.value,
    end: end.value,
    tags: [],
  };
  if (instance !== undefined) result.instance = instance;
  return result;
}
