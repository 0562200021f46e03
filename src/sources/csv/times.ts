// A row's start and end as TimeValues. Public: RowTimes, TimeCells, rowTimes.
//
// Rules (TEC's CSV importer, and RFC 5545 3.6.1 for all-day ends):
// - all-day when `all_day` says yes, or when no time is given anywhere (neither a time column nor a time
//   inside a date cell): `date` values with an exclusive end, the day after the end date (after the start
//   date when there is none). The day is read in no zone; a valid zone cell is kept with it for the target
//   (TEC's all-day events have one), a bad one is not looked at.
// - all-day too when it runs from midnight to midnight of a later day (Outlook and Google export all-day
//   events so), unless `all_day` says no: the end date is then already the exclusive end.
// - otherwise the end defaults to the start's date and the start's time: an event with no end lasts zero
//   minutes, as in TEC. A start cell holding a range (`15:15 - 17:45`) gives the end time too.
// - the zone is the row's timezone cell (IANA name in any case, or `UTC±H`), else the default zone; with
//   neither the times are floating and the pipeline's default zone applies later.

import { normalizeTimezone } from '../../model/timezone.ts';
import type { TimeValue } from '../record.ts';
import { readTimeRange } from './clock.ts';
import type { CsvField } from './columns.ts';
import { addDays, type DateOrder, readDate } from './dates.ts';
import { CSV_PROBLEMS } from './errors.ts';

export interface TimeCells {
  start_date: string;
  start_time?: string;
  end_date?: string;
  end_time?: string;
  timezone?: string;
  /** `all_day` read as a boolean (an unreadable one is undefined). */
  allDay?: boolean;
}

export interface RowTimes {
  start: TimeValue;
  end: TimeValue;
}

export interface TimeError {
  code: string;
  field: CsvField;
  reason: string;
}

/** The start and end of a row, or every reason it has none. */
export function rowTimes(
  cells: TimeCells,
  order: DateOrder,
  defaultZone: string | undefined,
): { ok: true; value: RowTimes } | { ok: false; errors: TimeError[] } {
  const errors: TimeError[] = [];
  const date = (field: 'start_date' | 'end_date', cell: string | undefined) => {
    if (cell === undefined) return undefined;
    const read = readDate(cell, order);
    if (read.ok) return read.value;
    errors.push({
      code: read.ambiguous ? CSV_PROBLEMS.ambiguousDate : CSV_PROBLEMS.badDate,
      field,
      reason: read.reason,
    });
    return undefined;
  };
  const time = (field: 'start_time' | 'end_time', cell: string | undefined) => {
    if (cell === undefined) return undefined;
    const read = readTimeRange(cell);
    if (read.ok) return read.value;
    errors.push({ code: CSV_PROBLEMS.badTime, field, reason: read.reason });
    return undefined;
  };
  const start = date('start_date', cells.start_date);
  const end = date('end_date', cells.end_date);
  // A time column wins over a time written in the date cell.
  const startTimes = time('start_time', cells.start_time ?? start?.time);
  const endTimes = time('end_time', cells.end_time ?? end?.time);
  if (errors.length > 0 || start === undefined) return { ok: false, errors };
  const startTime = startTimes?.start;
  const endTime = endTimes?.start ?? startTimes?.end;

  const midnightToMidnight =
    startTime === '00:00:00' && endTime === '00:00:00' && end !== undefined && end.date > start.date;
  // `all_day: no` without any time is still a day: there is no time to give it.
  const allDay =
    cells.allDay === true ||
    (startTime === undefined && endTime === undefined) ||
    (midnightToMidnight && cells.allDay !== false);
  let value: RowTimes;
  if (allDay) {
    const last = midnightToMidnight ? addDays(end.date, -1) : (end?.date ?? start.date);
    value = { start: { kind: 'date', date: start.date }, end: { kind: 'date', date: addDays(last, 1) } };
    // A day has no zone to read it in, but the event has one on the target: keep the row's.
    const zone = cells.timezone === undefined ? undefined : normalizeTimezone(cells.timezone);
    if (zone) value = { start: { ...value.start, zone }, end: { ...value.end, zone } } as RowTimes;
  } else {
    const zoneCell = cells.timezone;
    const zone = zoneCell === undefined ? defaultZone : normalizeTimezone(zoneCell);
    if (zone === null) {
      const reason = `${JSON.stringify(zoneCell)} is no time zone (expected an IANA name such as Europe/Berlin, or UTC+2)`;
      return { ok: false, errors: [{ code: CSV_PROBLEMS.badTimezone, field: 'timezone', reason }] };
    }
    const from = `${start.date} ${startTime ?? '00:00:00'}`;
    const to = `${end?.date ?? start.date} ${endTime ?? startTime ?? '00:00:00'}`;
    value =
      zone === undefined
        ? { start: { kind: 'floating', local: from }, end: { kind: 'floating', local: to } }
        : { start: { kind: 'zoned', local: from, zone }, end: { kind: 'zoned', local: to, zone } };
  }
  const [from, to] = [timeText(value.start), timeText(value.end)];
  if (to < from) {
    const reason = `the end ${to} is before the start ${from}`;
    return { ok: false, errors: [{ code: CSV_PROBLEMS.endBeforeStart, field: 'end_date', reason }] };
  }
  return { ok: true, value };
}

/** A TimeValue's date or wall time: the form keys are hashed from and ends compared in. */
export function timeText(value: TimeValue): string {
  return value.kind === 'date' ? value.date : value.local;
}
