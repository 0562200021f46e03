// The CSV source: bytes in, EventRecords out, streamed. Public: CsvOptions, readCsv.
//
// Stages: toUtf8 (encoding) → withDelimiter (header line) → csv-parse's stream API → header mapping →
// readRow per record. Only the records are kept, never the file's text, so a 100 MB file costs what its
// events cost. Every row problem is reported with the line the row starts on, and the rest is read.
//
// Line numbers: csv-parse's `info.lines` at a record is the line it ends on, but it counts a CR LF inside a
// quoted field as two lines (it counts each CR and each LF it sees while quoting). So the first line of a
// record is its end line, less the line breaks inside its cells, less the surplus CR LF pairs met so far.

import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { normalizeTimezone } from '../../model/timezone.ts';
import type { EventRecord, SourceProblem, SourceResult } from '../record.ts';
import { CSV_FIELDS, type CsvField, resolveColumns } from './columns.ts';
import { DATE_FORMATS, type DateOrder, dateOrder } from './dates.ts';
import { toUtf8 } from './decode.ts';
import { withDelimiter } from './delimiter.ts';
import { CSV_PROBLEMS, CsvOptionsError, problem } from './errors.ts';
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
  /** Default 'auto': the most frequent of `,` `;` tab in the header line. */
  delimiter?: 'auto' | ',' | ';' | '\t';
  /** Default 'auto': UTF-8 (with or without BOM), else Windows-1252 (see decode.ts). */
  encoding?: 'auto' | 'utf-8' | 'windows-1252';
  /** Zone for rows without a timezone value (IANA or `UTC±H`); without it their times are floating. */
  defaultZone?: string;
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
      'bytes that are not UTF-8 were replaced by U+FFFD; set encoding: windows-1252 if the file is ANSI';
    problems.push(problem('warning', CSV_PROBLEMS.invalidUtf8, message, { file }));
  });
  const { delimiter, chunks } = await withDelimiter(bytes, options.delimiter ?? 'auto');

  let context: RowContext | undefined; // set by the header row
  let width = 0;
  let missing = false;
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
      context = header(cells, line);
      width = cells.length;
      return;
    }
    if (missing || cells.every((text) => text.trim() === '')) return; // `;;;;` lines Excel leaves below data
    if (
      cells.length !== width &&
      !(cells.length > width && cells.slice(width).every((text) => text === ''))
    ) {
      const message = `row dropped: expected ${width} cells as in the header, got ${cells.length}`;
      problems.push(problem('error', CSV_PROBLEMS.columnCount, message, { file, line }));
      return;
    }
    const row = readRow(cells, line, context);
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
    records.push(row.record);
  };

  const header = (cells: string[], line: number): RowContext => {
    const resolved = resolveColumns(cells, mapping);
    const found = cells.map((text) => JSON.stringify(text)).join(', ');
    const absentRequired = (['title', 'start_date'] as const).filter(
      (field) => resolved.columns[field] === undefined,
    );
    if (absentRequired.length > 0) {
      missing = true;
      const message = `no ${absentRequired.join(' or ')} column (delimiter ${JSON.stringify(delimiter)}); headers found: ${found}; map them with columns`;
      problems.push(
        problem('error', CSV_PROBLEMS.missingColumn, message, { file, line, field: absentRequired[0] }),
      );
    }
    for (const field of resolved.absent) {
      const message = `columns.${field}: header ${JSON.stringify(mapping[field])} is not in the file; headers found: ${found}`;
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
