// Date cells as spreadsheets, calendar apps and people write them. Public: DateOrder, DATE_FORMATS,
// dateOrder, readDate, orderHint, addDays, pivotYear, PIVOT. Pure; each reader returns a value or a reason.
//
// Read without any setting:
// - ISO `2027-03-04` (TEC's importer, our writer), year first `2027/03/04` or `2027.03.04` (no locale writes
//   year-day-month), compact `20270304`;
// - dotted `04.03.2027` / `4.3.27`: day first, as every locale that writes dots (de, fr-CH, it-CH, nl-BE…);
// - month names and abbreviations in English, German, French, Italian, Spanish, Dutch and Portuguese, in
//   any order with the day (`apr 19, 2016`, `19. April 2016`, `1er mars 2024`, `03-Mar-24`), the names
//   taken from the platform's CLDR data through luxon's Info, not from tables of our own;
// - a weekday before the date (`Fr., 10.05.2024`, `Friday, May 10, 2024`), dropped;
// - two-digit years: 00–68 are 2000–2068, 69–99 are 1969–1999 (POSIX strptime's %y pivot; `PIVOT`).
// A date with slashes or dashes and the day first or second (`03/04/2027`) is the locale's short date:
// 3 April in Europe, March 4 in the US. It needs an order: the `date_format` setting, or the file itself —
// `orderHint` says which order a value settles (`19/11/2014`: 19 cannot be a month), and the CSV reader
// applies the first one found to the whole column (read.ts).

import { Info } from 'luxon';
import { fieldsToMs, msToWire, pad2 } from '../../model/civil-time.ts';

/** The order of day, month and year in a numeric date; `undefined`: not known (yet). */
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

/** Two-digit years up to this one are 20xx, later ones 19xx (POSIX strptime `%y`). */
export const PIVOT = 68;

export function pivotYear(year: string): number {
  const n = Number(year);
  if (year.length > 2) return n;
  return n <= PIVOT ? 2000 + n : 1900 + n;
}

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const YEAR_FIRST = /^(\d{4})([/.])(\d{1,2})\2(\d{1,2})$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/;
const BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/;
const DOTTED = /^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})\.?$/;
const DAY_MONTH = /^(\d{1,2})([/-])(\d{1,2})\2(\d{2}|\d{4})$/;
// Where the time starts in a date cell: `T19:30`, ` 19:30`, ` 7 pm`, ` 7.30 pm`, `, 19:30 Uhr`.
const TIME_START =
  /(?:T|[\s,]+(?:um\s+|at\s+|à\s+|alle\s+|a las\s+)?)(?=\d{1,2}(?::\d{2}|[.h]\d{2}\s*(?:[ap]\.?\s*m|uhr|h\b)|\s*[ap]\.?\s*m\.?(?:\s|$)|h(?:\s|$)))/i;

/**
 * A date cell as `YYYY-MM-DD`, plus the time written after it in the same cell (`2027-03-04 19:30`,
 * `2027-03-04T19:30:00`, `apr 19, 2016 7:30 pm`), if any, unread.
 */
export function readDate(cell: string, order: DateOrder): Read<{ date: string; time?: string }> {
  const trimmed = cell.trim();
  const basic = BASIC.exec(trimmed); // `20270304T193000`, as .ics writes it
  if (basic) {
    const date = calendarDate(trimmed, Number(basic[1]), Number(basic[2]), Number(basic[3]));
    return date.ok
      ? { ok: true, value: { date: date.value, time: `${basic[4]}:${basic[5]}:${basic[6]}` } }
      : date;
  }
  const cut = TIME_START.exec(trimmed);
  const text = (cut ? trimmed.slice(0, cut.index) : trimmed).replace(/[\s,]+$/, '');
  const time = cut ? trimmed.slice(cut.index + cut[0].length).trim() : undefined;
  const date = readDateOnly(text, order);
  if (!date.ok) return date;
  return { ok: true, value: time === undefined ? { date: date.value } : { date: date.value, time } };
}

function readDateOnly(text: string, order: DateOrder): Read<string> {
  const numeric = readNumeric(text, order);
  if (numeric !== undefined) return numeric;
  // A weekday first (`Fr., 10.05.2024`): what follows must be a date by itself.
  const weekday = /^(\p{L}+)\.?,?\s+(.+)$/u.exec(text);
  if (weekday && isWeekday(weekday[1])) {
    const rest = readNumeric(weekday[2], order) ?? readNamed(weekday[2]);
    if (rest.ok || rest.ambiguous) return rest;
  }
  return readNamed(text);
}

/** A date of digits; undefined when `text` has none of the numeric forms. */
function readNumeric(text: string, order: DateOrder): Read<string> | undefined {
  let m = ISO.exec(text) ?? COMPACT.exec(text);
  if (m) return calendarDate(text, Number(m[1]), Number(m[2]), Number(m[3]));
  m = YEAR_FIRST.exec(text);
  if (m) return calendarDate(text, Number(m[1]), Number(m[3]), Number(m[4]));
  m = DOTTED.exec(text);
  if (m) return calendarDate(text, pivotYear(m[3]), Number(m[2]), Number(m[1]));
  m = DAY_MONTH.exec(text);
  if (!m) return undefined;
  const year = pivotYear(m[4]);
  if (order === undefined || order === 'ymd') {
    return {
      ok: false,
      ambiguous: true,
      reason: `${JSON.stringify(text)} could be day/month or month/day, and no date in the file settles it (a day over 12); pass --date-format DD/MM/YYYY or MM/DD/YYYY (date_format in a pipeline file)`,
    };
  }
  const [day, month] = order === 'mdy' ? [m[3], m[1]] : [m[1], m[3]];
  return calendarDate(text, year, Number(month), Number(day));
}

/**
 * The order a date value settles for its column: `19/11/2014` is day first, `11/19/2014` month first;
 * undefined when it settles nothing (`03/04/2027`, ISO, dotted, named months).
 */
export function orderHint(cell: string): 'dmy' | 'mdy' | undefined {
  // Anywhere in the cell: after a weekday (`sam. 20/04/2025`), before a time.
  const m = /(?:^|[\s,])(\d{1,2})([/-])(\d{1,2})\2(\d{2}|\d{4})(?=$|[\sT,])/.exec(cell.trim());
  if (!m) return undefined;
  const [first, second] = [Number(m[1]), Number(m[3])];
  if (first > 12 && second <= 12) return 'dmy';
  if (second > 12 && first <= 12) return 'mdy';
  return undefined;
}

/** A date with a month name: one month word, a day and a year among the tokens, in any order. */
function readNamed(text: string): Read<string> {
  const tokens = text
    .toLowerCase()
    .split(/[\s,./-]+/)
    .filter((t) => t !== '' && t !== 'de' && t !== 'del' && t !== 'of');
  let month: number | undefined;
  const numbers: string[] = [];
  for (const token of tokens) {
    const digits = /^(\d{1,4})(?:st|nd|rd|th|er|e|º|°|ª)?$/.exec(token);
    if (digits) numbers.push(digits[1]);
    else if (month === undefined && monthOf(token) !== undefined) month = monthOf(token);
    else if (!isWeekday(token)) return noDate(text);
  }
  if (month === undefined || numbers.length !== 2) return noDate(text);
  // The four-digit number is the year; of two short ones the day comes first (`3-Mar-24`, `Mar 3 24`).
  const yearAt = numbers[0].length === 4 ? 0 : 1;
  const [day, year] = [numbers[1 - yearAt], numbers[yearAt]];
  if (day.length > 2) return noDate(text);
  return calendarDate(text, pivotYear(year), month, Number(day));
}

const noDate = (text: string): Read<string> => ({
  ok: false,
  reason: `expected a date such as 2027-03-04, 04.03.2027, 03/04/2027 or 4 March 2027, got ${JSON.stringify(text)}`,
});

function calendarDate(text: string, year: number, month: number, day: number): Read<string> {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, reason: `${JSON.stringify(text)} is no calendar date` };
  }
  return { ok: true, value: `${year}-${pad2(month)}-${pad2(day)}` };
}

// Month and weekday names of the common locales, lower case without accents or dots: CLDR's, via luxon.
const LOCALES = ['en', 'de', 'fr', 'it', 'es', 'nl', 'pt'];
const fold = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\.$/, '');
const MONTHS = new Map<string, number>();
const LONG_MONTHS: [string, number][] = [];
const WEEKDAYS = new Set<string>();
const LONG_WEEKDAYS: string[] = [];
for (const locale of LOCALES) {
  for (const length of ['long', 'short'] as const) {
    for (const names of [Info.months(length, { locale }), Info.monthsFormat(length, { locale })]) {
      names.forEach((name, at) => {
        if (!MONTHS.has(fold(name))) MONTHS.set(fold(name), at + 1);
        if (length === 'long') LONG_MONTHS.push([fold(name), at + 1]);
      });
    }
    for (const name of [...Info.weekdays(length, { locale }), ...Info.weekdaysFormat(length, { locale })]) {
      WEEKDAYS.add(fold(name));
      if (length === 'long') LONG_WEEKDAYS.push(fold(name));
    }
  }
}

/** 1–12 for a month name or an abbreviation of one (`Sept`, `juil`, `Febr.`) of three letters or more. */
function monthOf(token: string): number | undefined {
  const word = fold(token);
  const exact = MONTHS.get(word);
  if (exact !== undefined || word.length < 3) return exact;
  const found = new Set(LONG_MONTHS.filter(([name]) => name.startsWith(word)).map(([, n]) => n));
  return found.size === 1 ? [...found][0] : undefined;
}

/** A weekday name or abbreviation (`Fr`, `Fri`, `Thurs`, `ven`, `mié`) in one of the locales. */
function isWeekday(token: string): boolean {
  const word = fold(token);
  return WEEKDAYS.has(word) || (word.length >= 2 && LONG_WEEKDAYS.some((name) => name.startsWith(word)));
}

function daysInMonth(year: number, month: number): number {
  return (fieldsToMs(year, month + 1, 1, 0, 0, 0) - fieldsToMs(year, month, 1, 0, 0, 0)) / 86_400_000;
}

/** `date` (`YYYY-MM-DD`) plus `days`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return msToWire(fieldsToMs(y, m, d + days, 0, 0, 0)).slice(0, 10);
}
