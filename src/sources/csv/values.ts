// Cell values: dates, times, yes/no and lists as spreadsheets write them. Public: DateOrder, dateOrder,
// readDate, readTime, readBoolean, readList, addDays. Pure; each reader returns a value or a reason.
//
// Dates are ISO `YYYY-MM-DD` first (what TEC's importer documents and what our writer emits). A date with
// slashes or dots is the locale's short date: `03/04/2027` is 3 April in Europe and March 4 in the US,
// and guessing per row would read one file two ways, so it needs the `date_format` setting. Year-first
// dates (`2027/03/04`) are read without it: no locale writes year-day-month.

import { fieldsToMs, msToWire, pad2 } from '../../model/civil-time.ts';

/** The order of day, month and year in a non-ISO date; `undefined`: none given (ISO and year-first only). */
export type DateOrder = 'dmy' | 'mdy' | 'ymd' | undefined;

const FORMATS: Record<string, DateOrder> = {
  'YYYY-MM-DD': undefined,
  'DD/MM/YYYY': 'dmy',
  'MM/DD/YYYY': 'mdy',
  'DD.MM.YYYY': 'dmy',
  'YYYY/MM/DD': 'ymd',
};

/** The order a `dateFormat` option means, or `null` for an unknown format. */
export function dateOrder(format: string): DateOrder | null {
  return format in FORMATS ? FORMATS[format] : null;
}

export const DATE_FORMATS = Object.keys(FORMATS);

export type Read<T> = { ok: true; value: T } | { ok: false; ambiguous?: boolean; reason: string };

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const YEAR_FIRST = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/;
const YEAR_LAST = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;

/**
 * A date cell as `YYYY-MM-DD`, plus the time written after it in the same cell (`2027-03-04 19:30`,
 * `2027-03-04T19:30:00`), if any, unread.
 */
export function readDate(cell: string, order: DateOrder): Read<{ date: string; time?: string }> {
  const split = /^(\S+?)(?:[T ]\s*(.+))?$/.exec(cell);
  const text = split?.[1] ?? cell;
  const time = split?.[2];
  let parts: [string, string, string] | undefined;
  const yearFirst = ISO.exec(text) ?? YEAR_FIRST.exec(text);
  const m = YEAR_LAST.exec(text);
  if (yearFirst) parts = [yearFirst[1], yearFirst[2], yearFirst[3]];
  else if (m) {
    if (order === undefined) {
      return {
        ok: false,
        ambiguous: true,
        reason: `${JSON.stringify(text)} could be day/month or month/day; set date_format (DD/MM/YYYY or MM/DD/YYYY)`,
      };
    }
    parts = order === 'mdy' ? [m[4], m[1], m[3]] : [m[4], m[3], m[1]];
  }
  if (parts === undefined) {
    return { ok: false, reason: `expected a date as YYYY-MM-DD, got ${JSON.stringify(cell)}` };
  }
  const [year, month, day] = parts.map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, reason: `${JSON.stringify(text)} is no calendar date` };
  }
  const date = `${year}-${pad2(month)}-${pad2(day)}`;
  return { ok: true, value: time === undefined ? { date } : { date, time } };
}

function daysInMonth(year: number, month: number): number {
  return (fieldsToMs(year, month + 1, 1, 0, 0, 0) - fieldsToMs(year, month, 1, 0, 0, 0)) / 86_400_000;
}

/** `date` (`YYYY-MM-DD`) plus `days`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return msToWire(fieldsToMs(y, m, d + days, 0, 0, 0)).slice(0, 10);
}

// 24-hour `19:30`, `19:30:00`, `19:30:00.000`; 12-hour `7:30 pm`, `7pm`, `7:30:00 P.M.`.
const H24 = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const H12 = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;

/** A time cell as `HH:MM:SS`. */
export function readTime(cell: string): Read<string> {
  let hour: number;
  let minute: number;
  let second: number;
  const h24 = H24.exec(cell);
  const m = h24 ? null : H12.exec(cell);
  if (h24) {
    [hour, minute, second] = [Number(h24[1]), Number(h24[2]), Number(h24[3] ?? 0)];
  } else if (m) {
    [hour, minute, second] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
    if (hour < 1 || hour > 12) return { ok: false, reason: `${JSON.stringify(cell)}: hour is not 1-12` };
    hour = (hour % 12) + (m[4].toLowerCase() === 'p' ? 12 : 0); // 12 am is midnight, 12 pm noon
  } else {
    return { ok: false, reason: `expected a time as HH:MM or h:mm am/pm, got ${JSON.stringify(cell)}` };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, reason: `${JSON.stringify(cell)} is no time of day` };
  }
  return { ok: true, value: `${pad2(hour)}:${pad2(minute)}:${pad2(second)}` };
}

const YES = new Set(['yes', 'y', 'true', '1']);
const NO = new Set(['no', 'n', 'false', '0']);

/** yes/no/true/false/1/0/y/n in any case. */
export function readBoolean(cell: string): Read<boolean> {
  const word = cell.toLowerCase();
  if (YES.has(word)) return { ok: true, value: true };
  if (NO.has(word)) return { ok: true, value: false };
  return { ok: false, reason: `expected yes or no, got ${JSON.stringify(cell)}` };
}

/** A comma-separated list: items trimmed, empty ones and repeats dropped. */
export function readList(cell: string): string[] {
  const items = cell.split(',').map((item) => item.trim());
  return [...new Set(items.filter((item) => item !== ''))];
}

/**
 * A cell without the `'` a CSV writer put before a formula-like value (`'=SUM(A1)` → `=SUM(A1)`; OWASP's
 * rule, which our export follows): a spreadsheet shows that `'` nowhere, so it is not part of the text.
 */
export function unescapeFormula(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && /[=+\-@\t\r]/.test(cell[1]) ? cell.slice(1) : cell;
}
