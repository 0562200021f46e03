// One CSV row → one EventRecord, or the problems that drop it. Public: RowContext, readRow.
//
// Identity (spec/pipeline.md "Identity"): `id:<id cell>` when the file has an id column and the row a
// value in it; else `row-` + 16 hex digits of SHA-256 over the normalised title and the start as written
// (date or wall time, not the zone) — what TEC's own CSV importer matches existing events on, so fixing a
// typo in the description updates the event instead of creating a second one.

import { createHash } from 'node:crypto';
import { CURRENCY_CODE } from '../../model/cost.ts';
import type { EventRecord, OrganizerRecord, SourceProblem, VenueRecord } from '../record.ts';
import type { ColumnMap, CsvField } from './columns.ts';
import type { DateOrder } from './dates.ts';
import { CSV_PROBLEMS, problem } from './errors.ts';
import { rowTimes, timeText } from './times.ts';
import { readBoolean, readList, unescapeFormula } from './values.ts';

export interface RowContext {
  file: string;
  columns: ColumnMap;
  order: DateOrder;
  /** Canonical zone for rows without a timezone cell. */
  defaultZone?: string;
}

// `25`, `12.50`, and the range our export writes (`10 - 25`).
const NUMERIC_COST = /^\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:[.,]\d+)?)?$/;

/** The record a row describes (absent when an error dropped it) and the problems found in it. */
export function readRow(
  cells: readonly string[],
  line: number,
  context: RowContext,
): { record?: EventRecord; problems: SourceProblem[] } {
  const { file, columns } = context;
  const problems: SourceProblem[] = [];
  const cell = (field: CsvField): string | undefined => {
    const at = columns[field];
    const value = at === undefined ? undefined : unescapeFormula(cells[at] ?? '').trim();
    return value === '' ? undefined : value;
  };
  // Texts as written, blanks and blank lines included: an export read back gives the stored text.
  const text = (field: 'description' | 'excerpt'): string | undefined => {
    const at = columns[field];
    const value = at === undefined ? '' : unescapeFormula(cells[at] ?? '');
    return value === '' ? undefined : value;
  };
  const fail = (code: string, field: CsvField, reason: string) =>
    problems.push(problem('error', code, `row dropped: ${field}: ${reason}`, { file, line, field }));
  const flag = (field: CsvField): boolean | undefined => {
    const text = cell(field);
    if (text === undefined) return undefined;
    const read = readBoolean(text);
    if (read.ok) return read.value;
    const message = `${field}: ${read.reason}; read as empty`;
    problems.push(problem('warning', CSV_PROBLEMS.badBoolean, message, { file, line, field }));
    return undefined;
  };

  const title = cell('title');
  const startDate = cell('start_date');
  if (title === undefined) fail(CSV_PROBLEMS.missingTitle, 'title', 'the title is empty');
  if (startDate === undefined) fail(CSV_PROBLEMS.missingStart, 'start_date', 'the start date is empty');
  const allDay = flag('all_day');
  const featured = flag('featured');
  const display: NonNullable<EventRecord['display']> = {};
  for (const field of ['sticky', 'hide_from_listings', 'show_map', 'show_map_link'] as const) {
    const value = flag(field);
    if (value !== undefined) display[field] = value;
  }
  if (title === undefined || startDate === undefined) return { problems };

  const times = rowTimes(
    {
      start_date: startDate,
      start_time: cell('start_time'),
      end_date: cell('end_date'),
      end_time: cell('end_time'),
      timezone: cell('timezone'),
      allDay,
    },
    context.order,
    context.defaultZone,
  );
  if (!times.ok) {
    for (const error of times.errors) fail(error.code, error.field, error.reason);
    return { problems };
  }

  const id = cell('id');
  const record: EventRecord = {
    origin: { file, line },
    key: id === undefined ? rowKey(title, timeText(times.value.start)) : `id:${id}`,
    title,
    start: times.value.start,
    end: times.value.end,
    organizers: organizers(cell, (message) =>
      problems.push(problem('warning', CSV_PROBLEMS.organizerDetails, message, { file, line })),
    ),
    categories: readList(cell('categories') ?? ''),
    tags: readList(cell('tags') ?? ''),
  };
  if (id !== undefined) record.uid = id;
  const optional: [keyof EventRecord, string | undefined][] = [
    ['description', text('description')],
    ['excerpt', text('excerpt')],
    ['url', cell('url')],
    ['image', cell('image')],
    ['cost', cost(cell('cost'), cell('currency_symbol') ?? cell('currency_code'), cell('currency_position'))],
  ];
  for (const [name, value] of optional) if (value !== undefined) Object.assign(record, { [name]: value });
  const code = cell('currency_code');
  if (code !== undefined && CURRENCY_CODE.test(code)) record.currencyCode = code.toUpperCase();
  else if (code !== undefined) {
    const message = `currency_code: expected a three-letter ISO 4217 code such as EUR, got ${JSON.stringify(code)}; not kept`;
    problems.push(
      problem('warning', CSV_PROBLEMS.badCurrencyCode, message, { file, line, field: 'currency_code' }),
    );
  }
  if (featured !== undefined) record.featured = featured;
  if (Object.keys(display).length > 0) record.display = display;
  const place = venue(cell);
  if (place !== undefined) record.venue = place;
  return { record, problems };
}

function rowKey(title: string, start: string): string {
  const normal = title.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  return `row-${createHash('sha256').update(`${normal}\n${start}`).digest('hex').slice(0, 16)}`;
}

// TEC keeps the symbol apart (`event_currency_symbol`, `event_currency_position`); a record has one cost
// text, so `25` with `€` and `suffix` becomes `25€`, which the cost parser of the contract (A.6) reads back
// as amount, symbol and position. A currency code (`EUR`) stands in for a missing symbol: kept, not dropped.
function cost(text: string | undefined, symbol: string | undefined, position: string | undefined) {
  if (text === undefined || symbol === undefined || !NUMERIC_COST.test(text)) return text;
  return /^(suffix|postfix|after)$/i.test(position ?? '') ? `${text}${symbol}` : `${symbol}${text}`;
}

type Cell = (field: CsvField) => string | undefined;

function venue(cell: Cell): VenueRecord | undefined {
  const name = cell('venue_name');
  if (name === undefined) return undefined;
  const result: VenueRecord = { name };
  const fields: [keyof VenueRecord, CsvField][] = [
    ['id', 'venue_id'],
    ['address', 'venue_address'],
    ['city', 'venue_city'],
    ['state', 'venue_state'],
    ['province', 'venue_province'],
    ['zip', 'venue_zip'],
    ['country', 'venue_country'],
    ['phone', 'venue_phone'],
    ['website', 'venue_website'],
  ];
  for (const [key, field] of fields) {
    const value = cell(field);
    if (value !== undefined) Object.assign(result, { [key]: value });
  }
  return result;
}

// Several organizers are a comma list of names (TEC's importer does the same); their e-mail, phone and
// website columns can only belong to one of them, so they are applied to a lone organizer only.
function organizers(cell: Cell, warn: (message: string) => void): OrganizerRecord[] {
  const names = readList(cell('organizer_name') ?? '');
  const details: [keyof OrganizerRecord, CsvField][] = [
    ['id', 'organizer_id'],
    ['email', 'organizer_email'],
    ['phone', 'organizer_phone'],
    ['website', 'organizer_website'],
  ];
  if (names.length !== 1) {
    const given = details.filter(([, field]) => cell(field) !== undefined).map(([, field]) => field);
    if (names.length > 1 && given.length > 0) {
      warn(
        `${given.join(', ')} not applied: they cannot tell which of ${names.length} organizers they belong to`,
      );
    }
    return names.map((name) => ({ name }));
  }
  const organizer: OrganizerRecord = { name: names[0] };
  for (const [key, field] of details) {
    const value = cell(field);
    if (value !== undefined) Object.assign(organizer, { [key]: value });
  }
  return [organizer];
}
