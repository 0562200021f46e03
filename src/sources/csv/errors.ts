// Problems the CSV source reports: one stable code each (tests assert codes, not wording), with the file,
// the 1-based line the row starts on and the field (canonical CsvField) they concern. An `error` drops the
// row (or, for a missing column, the file) and the rest is read; a `warning` keeps it (spec/pipeline.md,
// "CSV": a bad row is reported with its line number and reason and does not stop the others).
// CsvOptionsError is the one thing readCsv throws: a bad option is the caller's mistake, not the file's.

export const CSV_PROBLEMS = {
  /** The title or start-date column is not in the header: nothing can be read (one error for the file). */
  missingColumn: 'csv_missing_column',
  /** A header the `columns` option maps a field to is not in the file. */
  mappedColumnAbsent: 'csv_mapped_column_absent',
  /** Headers that match no field: ignored. */
  unknownColumn: 'csv_unknown_column',
  /** Rows with more cells than the header (one warning for the file; fewer cells read as empty). */
  columnCount: 'csv_column_count',
  /** The first row is an event, not a header: read as one, columns judged from its content. */
  noHeader: 'csv_no_header',
  /** An RRULE cell that could not be expanded: the row is one event. */
  badRrule: 'csv_bad_rrule',
  /** csv-parse could not read a row at all (a quote never closed swallows the rest of the file). */
  badRow: 'csv_bad_row',
  missingTitle: 'csv_missing_title',
  missingStart: 'csv_missing_start',
  badDate: 'csv_bad_date',
  /** `03/04/2027` is 3 April or 4 March, and no date of the file settles it: `--date-format` decides. */
  ambiguousDate: 'csv_ambiguous_date',
  badTime: 'csv_bad_time',
  badTimezone: 'csv_bad_timezone',
  endBeforeStart: 'csv_end_before_start',
  /** A currency code cell that is not three letters (ISO 4217): not kept. */
  badCurrencyCode: 'csv_bad_currency_code',
  /** A yes/no cell with another value: read as empty. */
  badBoolean: 'csv_bad_boolean',
  /** Organizer e-mail/phone/website next to several organizer names: they are not applied. */
  organizerDetails: 'csv_organizer_details_ignored',
  /** A second row with the same id (or the same title and start). */
  duplicateKey: 'csv_duplicate_key',
  /** Bytes that are not UTF-8 in a file read as UTF-8: replaced by U+FFFD. */
  invalidUtf8: 'csv_invalid_utf8',
} as const;

export { type ProblemAt, problem } from '../problem.ts';

/** An invalid option (unknown date format, zone or field): thrown before any byte is read. */
export class CsvOptionsError extends Error {
  readonly code = 'csv_bad_option';
  readonly option: string;

  constructor(option: string, message: string) {
    super(`CSV option ${option}: ${message}`);
    this.name = 'CsvOptionsError';
    this.option = option;
  }
}
