// The CSV source (spec/pipeline.md "CSV"): readCsv streams a CSV file — TEC importer keys, TEC's labels or
// spreadsheet headers, `,` `;` or tab, UTF-8 or Windows-1252 — into EventRecords, reporting bad rows by line.

export type { CsvField } from './columns.ts';
export { CSV_FIELDS } from './columns.ts';
export { DATE_FORMATS } from './dates.ts';
export { CSV_PROBLEMS, CsvOptionsError } from './errors.ts';
export type { CsvOptions } from './read.ts';
export { readCsv } from './read.ts';
