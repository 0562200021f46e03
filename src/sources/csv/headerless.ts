// A file without a header row. Public: looksLikeData, columnsByContent, positionalHeader.
//
// A first row none of whose cells names a column, and one of whose cells is a date, is an event: taking it
// as the header would lose it and read the rest under names like "12.04.2025". Its columns are then read
// from that row's content: the first date is the start date and the second the end date, the first time
// (or range of times) the start time and the second the end time, the first text the title and the second
// the venue. With `--no-header` the same, and `--columns title=3,start_date=1` names columns by position.

import { readTimeRange } from './clock.ts';
import type { ColumnMap, CsvField } from './columns.ts';
import { readDate } from './dates.ts';

const isDate = (cell: string) => {
  const read = readDate(cell, 'dmy');
  return read.ok || read.ambiguous === true;
};
const isTime = (cell: string) => readTimeRange(cell).ok;

/** Whether a first row is data rather than names: one of its cells is a date. */
export function looksLikeData(cells: readonly string[]): boolean {
  return cells.some((cell) => cell.trim() !== '' && isDate(cell.trim()));
}

/** `1`, `2`, … : the names the columns of a header-less file go by in a `columns` mapping. */
export function positionalHeader(width: number): string[] {
  return Array.from({ length: width }, (_, at) => String(at + 1));
}

/** Which cell holds which field, judged from the content of one row. */
export function columnsByContent(cells: readonly string[]): ColumnMap {
  const columns: ColumnMap = {};
  const next = (fields: CsvField[], at: number) => {
    const field = fields.find((f) => columns[f] === undefined);
    if (field !== undefined) columns[field] = at;
  };
  cells.forEach((raw, at) => {
    const cell = raw.trim();
    if (cell === '') return;
    if (isTime(cell)) next(['start_time', 'end_time'], at);
    else if (isDate(cell)) next(['start_date', 'end_date'], at);
    else if (/^https?:\/\//i.test(cell)) next(['url'], at);
    else if (/\p{L}/u.test(cell)) next(['title', 'venue_name'], at);
  });
  return columns;
}
