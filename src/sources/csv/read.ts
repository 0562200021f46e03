// The CSV source: bytes in, EventRecords out, streamed. Public: CsvOptions, readCsv.
//
// Stages: toUtf8 (encoding) → withDelimiter (header line) → csv-parse's stream API → header mapping →
// readRow per record. Only the records are kept, never the file's text, so a 100 MB file costs what its
// events cost. Every row problem is reported with the line the row starts on, and the rest is read.
//
// Tolerance, as TEC's importer has it: a row with fewer cells than the header reads the missing ones as
// empty; cells beyond the header are not read, and reported once for the file, not per row. A first row
// that is an event rather than names is detected (headerless.ts). Day-first or month-first short dates
// (`03/04/2027`) are settled for the whole file by the first value that can only be read one way
// (`19/11/2014`): rows with an unsettled date wait for it (held in memory only until then).
// Every problem a flag can fix names the flag (`--date-format`, `--columns`, `--delimiter`, `--encoding`,
// `--no-header`), with the pipeline file's key beside it.
//
// Line numbers: csv-parse's `info.lines` at a record is the line it ends on, but it counts a CR LF inside a
// quoted field as two lines (it counts each CR and each LF it sees while quoting). So the first line of a
// record is its end line, less the line breaks inside its cells, less the surplus CR LF pairs met so far.

import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { normalizeTimezone } from '../../model/timezone.ts';
import type { EventRecord, SourceProblem, SourceResult, Window } from '../record.ts';
import { CSV_FIELDS, type CsvField, resolveColumns } from './columns.ts';
import { DATE_FORMATS, type DateOrder, dateOrder, orderHint, readDate } from './dates.ts';
import { type Encoding, toUtf8 } from './decode.ts';
import { type Delimiter, withDelimiter } from './delimiter.ts';
import { CSV_PROBLEMS, CsvOptionsError, problem } from './errors.ts';
import { columnsByContent, looksLikeData, positionalHeader } from './headerless.ts';
import { expandRow } from './recurrence.ts';
import { type RowContext, readRow } from './row.ts';

export interface CsvOptions {
  /** Named in every problem and record origin. */
  file: string;
  /** Canonical field → header in the file (explicit column mapping); wins over the aliases. */
  columns?: Partial<Record<CsvField, string>>;
  /**
   * For dates with slashes or dots: 'YYYY-MM-DD' (default: ISO and year-first only) | 'DD/MM/YYYY' |
   * 'MM/DD/YYYY' | 'DD.MM.YYYY' | 'YYYY/MM/DD'. DD/MM and DD.MM read either separator the same way.
   */
  dateFormat?: string;
  /** Default 'auto': the most frequent of `,` `;` tab `|` in the header line. */
  delimiter?: 'auto' | Delimiter;
  /** Default 'auto': UTF-16 by its BOM, UTF-8 (with or without BOM), else Windows-1252 (see decode.ts). */
  encoding?: Encoding;
  /** Zone for rows without a timezone value (IANA or `UTC±H`); without it their times are floating. */
  defaultZone?: string;
  /**
   * `false`: the first row is an event; columns are named `1`, `2`… in `columns`, else judged from the
   * content. Default: detected (a first row that names no title or start column but holds a date).
   */
  header?: boolean;
  /** Where an RRULE column's series are expanded; without it a row with a rule is one event. */
  window?: Window;
}

interface Parsed {
  record: string[];
  info: { lines: number };
}

/** Reads a CSV file; throws only CsvOptionsError (bad options) and errors of `input` itself. */
export async function readCsv(
  input: AsyncIterable<Uint8Array> | Uint8Array,
  options: CsvOptions,
): Promise<SourceResult> {
  const { file } = options;
  const order = checkedOrder(options.dateFormat);
  const defaultZone = checkedZone(options.defaultZone);
  const mapping = options.columns ?? {};
  for (const field of Object.keys(mapping)) {
    if (!(CSV_FIELDS as readonly string[]).includes(field)) {
      throw new CsvOptionsError(
        `columns.${field}`,
        `unknown field; expected one of ${CSV_FIELDS.join(', ')}`,
      );
    }
  }

  const problems: SourceProblem[] = [];
  const records: EventRecord[] = [];
  const bytes = toUtf8(chunksOf(input), options.encoding ?? 'auto', () => {
    const message =
      'bytes that are not UTF-8 were replaced by U+FFFD; pass --encoding windows-1252 if the file is ANSI (encoding: in a pipeline file)';
    problems.push(problem('warning', CSV_PROBLEMS.invalidUtf8, message, { file }));
  });
  const { delimiter, chunks } = await withDelimiter(bytes, options.delimiter ?? 'auto');

  let context: RowContext | undefined; // set by the header row
  let width = 0;
  let missing = false;
  // `Start Time,End Time` and no date column (Apple Numbers writes a date-and-time column so): the first
  // row tells whether those cells hold dates; till then, the error the header would have given.
  let timesMayBeDates: SourceProblem | undefined;
  const fixedOrder = order !== undefined; // YYYY-MM-DD (the pipeline default) says nothing of short dates
  let held: { cells: string[]; line: number }[] | undefined; // rows waiting for the file's date order
  let longRows = 0; // rows with cells beyond the header
  let firstLongRow = 0;
  let rules = 0; // rows with an RRULE not expanded for want of a window
  let lastLine = 0; // the line the last record read ends on
  let surplus = 0; // CR LF pairs inside quoted cells so far, counted twice by csv-parse
  const keys = new Map<string, number>();
  const skipped: string[] = [];
  const parser = parse({
    delimiter,
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: true, // `5" vinyl` in an unquoted cell is text, as Excel reads it
    skip_empty_lines: true,
    skip_records_with_error: true,
    // The records before a skipped one may still wait in the stream when csv-parse skips it: hold the error
    // until they are read. With relax_* set, the one error left is a quote never closed, which swallows the
    // rest of the file, so it always comes last.
    on_skip: (error) => {
      skipped.push(
        error?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted cell opened here is never closed'
          : `${error?.message}`,
      );
      return undefined;
    },
  });

  const onRecord = ({ record: cells, info }: Parsed) => {
    let breaks = 0;
    for (const text of cells) {
      if (text.includes('\n') || text.includes('\r')) {
        breaks += (text.match(/\r\n?|\n/g) ?? []).length;
        surplus += (text.match(/\r\n/g) ?? []).length;
      }
    }
    lastLine = info.lines - surplus;
    const line = lastLine - breaks;
    if (context === undefined) {
      const resolved = resolveColumns(cells, mapping);
      const named = resolved.columns.title !== undefined || resolved.columns.start_date !== undefined;
      if (options.header === false || (options.header === undefined && !named && looksLikeData(cells))) {
        context = headerless(cells, line);
        width = cells.length;
      } else {
        context = header(cells, line);
        width = cells.length;
        return;
      }
    }
    if (missing || cells.every((text) => text.trim() === '')) return; // `;;;;` lines Excel leaves below data
    if (timesMayBeDates !== undefined) {
      const error = timesMayBeDates;
      timesMayBeDates = undefined;
      if (!timesAreDates(cells, context)) {
        problems.push(error);
        missing = true;
        return;
      }
    }
    if (cells.length > width && cells.slice(width).some((text) => text.trim() !== '')) {
      if (longRows++ === 0) firstLongRow = line;
    }
    if (!fixedOrder && context.order === undefined) {
      const hint = hintOf(cells, context);
      if (hint !== undefined) {
        context.order = hint;
        const waiting = held ?? [];
        held = undefined;
        for (const row of waiting) take(row.cells, row.line);
      } else if (held !== undefined || unsettled(cells, context)) {
        held ??= [];
        held.push({ cells, line });
        return;
      }
    }
    take(cells, line);
  };

  const take = (cells: string[], line: number) => {
    const row = readRow(cells, line, context as RowContext);
    problems.push(...row.problems);
    if (row.record === undefined) return;
    const first = keys.get(row.record.key);
    if (first !== undefined) {
      const byId = row.record.uid !== undefined;
      const message = `row dropped: same ${byId ? 'id' : 'title and start'} as line ${first}`;
      problems.push(
        problem('error', CSV_PROBLEMS.duplicateKey, message, { file, line, field: byId ? 'id' : 'title' }),
      );
      return;
    }
    keys.set(row.record.key, line);
    const at = context?.columns.rrule;
    const rule = at === undefined ? '' : (cells[at] ?? '').trim();
    if (rule === '') {
      records.push(row.record);
    } else if (options.window === undefined) {
      rules++;
      records.push(row.record);
    } else {
      const expanded = expandRow(row.record, rule, options.window);
      if (expanded.problem) {
        const message = `${expanded.problem}; read as a single event`;
        problems.push(problem('warning', CSV_PROBLEMS.badRrule, message, { file, line, field: 'rrule' }));
      }
      records.push(...expanded.records);
    }
  };

  const headerless = (cells: string[], line: number): RowContext => {
    const named = Object.keys(mapping).length > 0;
    const columns = named
      ? resolveColumns(positionalHeader(cells.length), mapping).columns
      : columnsByContent(cells);
    const missingFields = (['title', 'start_date'] as const).filter((field) => columns[field] === undefined);
    const listed = Object.entries(columns)
      .map(([field, at]) => `${field}=${(at as number) + 1}`)
      .join(',');
    if (missingFields.length > 0) {
      missing = true;
      const message = `no header row, and no ${missingFields.join(' or ')} column found in the first row; pass --columns title=<n>,start_date=<n> with the column numbers (columns: in a pipeline file)`;
      problems.push(
        problem('error', CSV_PROBLEMS.missingColumn, message, { file, line, field: missingFields[0] }),
      );
    } else if (options.header === undefined) {
      const message = `the first row is an event, not a header: read as one, with columns ${listed} (pass --no-header --columns … to choose them)`;
      problems.push(problem('warning', CSV_PROBLEMS.noHeader, message, { file, line }));
    }
    return { file, columns, order, defaultZone };
  };

  const header = (cells: string[], line: number): RowContext => {
    const resolved = resolveColumns(cells, mapping);
    const found = cells.map((text) => JSON.stringify(text)).join(', ');
    const absentRequired = (['title', 'start_date'] as const).filter(
      (field) => resolved.columns[field] === undefined,
    );
    if (absentRequired.length > 0) {
      const message = `no ${absentRequired.join(' or ')} column; headers found (split at ${JSON.stringify(delimiter)}): ${found}; ${missingHint(cells, delimiter)}`;
      const error = problem('error', CSV_PROBLEMS.missingColumn, message, {
        file,
        line,
        field: absentRequired[0],
      });
      const { columns } = resolved;
      if (absentRequired.join() === 'start_date' && columns.start_time !== undefined && !mapping.start_time) {
        timesMayBeDates = error;
      } else {
        missing = true;
        problems.push(error);
      }
    }
    for (const field of resolved.absent) {
      const message = `--columns ${field}=${mapping[field]}: that header is not in the file; headers found: ${found}`;
      problems.push(problem('warning', CSV_PROBLEMS.mappedColumnAbsent, message, { file, line, field }));
    }
    if (resolved.unknown.length > 0 && !missing) {
      const message = `ignored headers that match no field: ${resolved.unknown.map((h) => JSON.stringify(h)).join(', ')}`;
      problems.push(problem('warning', CSV_PROBLEMS.unknownColumn, message, { file, line }));
    }
    return { file, columns: resolved.columns, order, defaultZone };
  };

  // A Writable sink rather than `for await`: an async iterator pays a promise per record.
  const sink = new Writable({
    objectMode: true,
    write(row: Parsed, _encoding, done) {
      try {
        onRecord(row);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  await pipeline(Readable.from(chunks), parser, sink);
  // Short dates no value settled: read them unsettled, which reports each as ambiguous with the flag.
  for (const row of held ?? []) take(row.cells, row.line);
  if (timesMayBeDates !== undefined) problems.push(timesMayBeDates); // no row came to say
  if (longRows > 0) {
    const message = `${longRows} ${longRows === 1 ? 'row has' : 'rows have'} more cells than the header's ${width} (first at line ${firstLongRow}): the cells beyond it were not read`;
    problems.push(problem('warning', CSV_PROBLEMS.columnCount, message, { file, line: firstLongRow }));
  }
  if (rules > 0) {
    const message = `${rules} rows have an RRULE, read as single events: no recurrence window was given`;
    problems.push(problem('warning', CSV_PROBLEMS.badRrule, message, { file }));
  }
  if (context === undefined) {
    const message = 'the file is empty: expected a header line naming the columns';
    problems.push(problem('error', CSV_PROBLEMS.missingColumn, message, { file, line: 1 }));
  }
  for (const reason of skipped) {
    problems.push(
      problem('error', CSV_PROBLEMS.badRow, `row dropped: ${reason}`, { file, line: lastLine + 1 }),
    );
  }
  return { records, problems, calendar: {} };
}

async function* chunksOf(input: AsyncIterable<Uint8Array> | Uint8Array): AsyncGenerator<Uint8Array> {
  if (input instanceof Uint8Array) yield input;
  else yield* input;
}

function checkedOrder(format: string | undefined): DateOrder {
  if (format === undefined) return undefined;
  const order = dateOrder(format);
  if (order === null) {
    throw new CsvOptionsError(
      'dateFormat',
      `expected one of ${DATE_FORMATS.join(', ')}, got ${JSON.stringify(format)}`,
    );
  }
  return order;
}

function checkedZone(zone: string | undefined): string | undefined {
  if (zone === undefined) return undefined;
  const name = normalizeTimezone(zone);
  if (name === null) throw new CsvOptionsError('defaultZone', `${JSON.stringify(zone)} is no time zone`);
  return name;
}

/**
 * With no date column, whether the start time column holds dates (`25.12.2026 18:00`,
 * `Dec 25, 2026 at 6:00 PM`): then it and the end time column are read as the start and end date columns,
 * each cell a date with its time.
 */
function timesAreDates(cells: readonly string[], context: RowContext): boolean {
  const { columns } = context;
  const read = readDate(cells[columns.start_time as number] ?? '', undefined);
  if (!read.ok && read.ambiguous !== true) return false;
  context.columns = { ...columns, start_date: columns.start_time, start_time: undefined };
  if (columns.end_date === undefined && columns.end_time !== undefined) {
    context.columns = { ...context.columns, end_date: columns.end_time, end_time: undefined };
  }
  return true;
}

const DATE_FIELDS = ['start_date', 'end_date'] as const;

/** The order one of the row's date cells settles for the file (orderHint), if any. */
function hintOf(cells: readonly string[], context: RowContext): DateOrder {
  for (const field of DATE_FIELDS) {
    const at = context.columns[field];
    const hint = at === undefined ? undefined : orderHint(cells[at] ?? '');
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/** Whether one of the row's dates can be read either way while the file's order is unknown. */
function unsettled(cells: readonly string[], context: RowContext): boolean {
  return DATE_FIELDS.some((field) => {
    const at = context.columns[field];
    const cell = at === undefined ? '' : (cells[at] ?? '').trim();
    if (cell === '') return false;
    const read = readDate(cell, undefined);
    return !read.ok && read.ambiguous === true;
  });
}

/** What to pass when the title or start column is not found: the flag that most likely fixes it. */
function missingHint(cells: readonly string[], delimiter: string): string {
  const other = [',', ';', '\t', '|'].find((d) => d !== delimiter && cells.some((cell) => cell.includes(d)));
  if (cells.length <= 2 && other !== undefined) {
    return `pass --delimiter ${JSON.stringify(other)} (delimiter: in a pipeline file)`;
  }
  return 'pass --columns title=<header>,start_date=<header> to name them (columns: in a pipeline file), or --no-header if the first row is an event';
}
