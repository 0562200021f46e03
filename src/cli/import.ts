/**
 * `npm run import -- <file.ics|file.csv> [options]`: a one-off import with no pipeline file. It is a
 * pipeline named after the file (`import-<file-name>`), so running it again updates what changed and
 * writes nothing when nothing did.
 */
import { hash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { slugify } from '../model/slug.ts';
import { normalizeTimezone } from '../model/timezone.ts';
import {
  DEFAULT_DATA,
  DEFAULT_MAX_DELETE_RATIO,
  DEFAULT_NAMESPACE,
  DEFAULT_WINDOW,
} from '../pipeline/defaults.ts';
import type { RunSpec, SourceSpec } from '../pipeline/run.ts';
import { type EarlierImport, earlierImport, IMPORT_PREFIX, otherImports } from './earlier-import.ts';
import { execute } from './execute.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { checkReportPath, makeLogger } from './output.ts';
import { authFromEnv, chooseTarget } from './target.ts';

const HELP = `Usage: npm run import -- <file.ics|file.csv|URL> [options]

Imports the events of an iCalendar or CSV file (or an http, https or webcal URL: .csv URLs are read as
CSV, anything else as iCalendar), with their venues, organizers, categories and tags, into
the embedded server's store (default) or a calendar API. Run it again after the file changed: only the
changes are written.

Options:
  --target <url>         local (default: ${DEFAULT_DATA}, what \`npm run serve\` serves) or an API root,
                         e.g. https://site.example/wp-json
  --namespace <ns>       API namespace (default ${DEFAULT_NAMESPACE}; tribe/events/v1 for WordPress)
  --data <file>          the local target's SQLite file (default ${DEFAULT_DATA})
  --name <name>          the import's name, which owns its events (default import-<file name>; a file
                         or feed that shares most of its events with an earlier import, such as a
                         download saved as "club (1).ics", takes that import's name and updates its events)
  --timezone <zone>      zone of floating times and all-day events (default the file's X-WR-TIMEZONE, else UTC)
  --status <status>      status of imported events: publish (default), draft, pending, private
  --category <name>      add this category to every event (repeatable)
  --format <csv|ics>     read the file as CSV or iCalendar whatever its extension (.txt, .tsv, none)
  --date-format <fmt>    CSV: how to read 03/04/2027 when no date of the file over 12 settles it:
                         DD/MM/YYYY or MM/DD/YYYY
  --columns <map>        CSV: which header holds which field, e.g. title=Subject,start_date=Beginn
                         (fields: title, start_date, start_time, end_date, end_time, timezone,
                         all_day, description, venue_name, organizer_name, cost, url, categories,
                         tags, rrule…; with --no-header the columns' numbers: title=3,start_date=1)
  --delimiter <d>        CSV: , ; tab or | (default: found from the first line)
  --encoding <enc>       CSV: utf-8, windows-1252, utf-16le, utf-16be (default: by BOM, else UTF-8,
                         else Windows-1252)
  --no-header            CSV: the first row is an event, not column names (default: detected)
  --kind <kind>          CSV: events, venues or organizers (default: by the header; TEC's and our
                         x.venues.csv / x.organizers.csv name theirs)
  --deletions <policy>   events that left the file: keep (default), draft, trash, delete
  --force-delete         allow deleting more than 25% of the imported events
  --dry-run              print the plan, with the field changes of updates; write nothing
  --report <file>        also write the run report as JSON (- for standard output, as --json)
  --json                 print the run report as JSON on standard output instead of the table
  --concurrency <n>      requests in flight (default 64 local, where they share a commit; 4 remote)
  --rps <n>              requests per second at most (default unlimited)
  --quiet                print only failures and the one-line summary
  --debug                every log line with its fields, and stacks of errors
  --version              print calsync's version
  -h, --help             show this help

Environment, for an API target: CALSYNC_USER and CALSYNC_APP_PASSWORD (an application password), or
CALSYNC_TOKEN (a Bearer token); CALSYNC_STATE_DIR, where its sync state lives (default data/sync).

Exit codes: 0 everything written, 1 some items failed, 2 usage or configuration error.

Examples:
  npm run import -- samples/community-calendar.ics
  npm run import -- webcal://calendar.example.org/club.ics
  npm run import -- samples/community-calendar.csv --timezone Europe/London --dry-run
  npm run import -- outlook.csv --columns title=Betreff,start_date="Beginnt am" --date-format DD/MM/YYYY
  npm run import -- fixtures.txt --format csv --no-header --delimiter '|'
  CALSYNC_USER=editor CALSYNC_APP_PASSWORD='abcd efgh ijkl mnop qrst uvwx' \\
    npm run import -- club.ics --target https://site.example/wp-json --namespace tribe/events/v1`;

const TYPES: Record<string, 'ics' | 'csv'> = { '.ics': 'ics', '.ical': 'ics', '.ifb': 'ics', '.csv': 'csv' };
const STATUSES = ['publish', 'draft', 'pending', 'private'] as const;
const DELETIONS = ['keep', 'draft', 'trash', 'delete'] as const;

async function run(io: CliIO): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(io.argv));
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) return usage(io, 'expected exactly one .ics or .csv file, or a URL');
  const file = positionals[0];
  const url = /^(https?|webcal):\/\//i.test(file) ? file : undefined;
  if (values.format !== undefined && values.format !== 'csv' && values.format !== 'ics')
    return usage(io, `--format: expected csv or ics, got "${values.format}"`);
  const type =
    (values.format as 'csv' | 'ics' | undefined) ?? (url ? urlType(url) : TYPES[extname(file).toLowerCase()]);
  if (!type) return usage(io, `${file}: expected a .ics or .csv file (or say which with --format csv|ics)`);
  const csv = await csvOptions(values);
  if (typeof csv === 'string') return usage(io, csv);
  if (type === 'ics' && Object.keys(csv).length > 0)
    return usage(io, `${Object.keys(csv).map(flagOf).join(', ')}: only for CSV files`);
  const timezone = values.timezone === undefined ? undefined : normalizeTimezone(values.timezone);
  if (timezone === null)
    return usage(io, `--timezone: "${values.timezone}" is not a time zone (e.g. Europe/Berlin)`);
  const status = values.status as (typeof STATUSES)[number];
  if (!STATUSES.includes(status)) return usage(io, `--status: expected one of ${STATUSES.join(', ')}`);
  const deletions = values.deletions as (typeof DELETIONS)[number];
  if (!DELETIONS.includes(deletions))
    return usage(io, `--deletions: expected one of ${DELETIONS.join(', ')}`);
  const concurrency = optionalNumber(values.concurrency);
  const rps = optionalNumber(values.rps);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1))
    return usage(io, `--concurrency: expected a whole number ≥ 1, got "${values.concurrency}"`);
  if (rps !== undefined && !(rps > 0)) return usage(io, `--rps: expected a number > 0, got "${values.rps}"`);
  const json = values.json || values.report === '-';
  const reportProblem = values.report === '-' ? undefined : checkReportPath(values.report);
  if (reportProblem) return usage(io, reportProblem);

  let target: ReturnType<typeof chooseTarget>;
  try {
    target = chooseTarget({
      url: values.target,
      data: values.data,
      namespace: values.namespace,
      auth: authFromEnv(io.env),
      concurrency,
      requestsPerSecond: rps,
    });
  } catch (err) {
    return usage(io, `--target: ${(err as Error).message}`);
  }
  if (values.name !== undefined && !/^[a-z0-9][a-z0-9-]{0,79}$/.test(values.name))
    return usage(io, `--name: expected lower-case letters, digits and dashes, got "${values.name}"`);
  const spec: RunSpec = {
    name: values.name ?? importName(url ? url.replace(/^\w+:\/\//, '') : basename(file)),
    source: url ? { type, url, ...csv } : { type, path: resolve(file), ...csv },
    mapping: {
      timezone,
      status,
      categories: values.category,
      tags: [],
      featured: false,
      show_map: true,
      show_map_link: true,
    },
    window: { pastDays: DEFAULT_WINDOW.past_days, futureDays: DEFAULT_WINDOW.future_days },
    policies: { update: 'overwrite', delete: deletions, maxDeleteRatio: DEFAULT_MAX_DELETE_RATIO },
    stateFile: target.stateFile,
    targetLabel: target.label,
  };
  const logger = makeLogger(io, { quiet: values.quiet });
  if (values.name === undefined) {
    const earlier = await earlierImport(spec, new Date(io.env.CALSYNC_NOW ?? Date.now()), values['dry-run']);
    if (earlier) logger.warn(`${file}: ${earlierNotice(earlier, values['dry-run'])}`);
    if (earlier?.same) spec.name = earlier.name;
    // What another import of a file holds stays its own (asked for by name, a separate copy is made).
    spec.leaveTo = otherImports(spec);
  }
  const result = await execute(spec, target, io, logger, {
    dryRun: values['dry-run'],
    forceDelete: values['force-delete'],
    quiet: values.quiet,
    json,
    reportFile: values.report,
    credentials: { from: 'env', env: io.env },
  });
  const report = result.report
    ? { ...result.report, ...(values['dry-run'] && result.plan ? { plan: result.plan } : {}) }
    : { pipeline: spec.name, outcome: 'failed', error: result.error };
  if (json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (values.report && values.report !== '-' && result.report) {
    await writeFile(values.report, `${JSON.stringify(result.report, null, 2)}\n`);
  }
  return result.code;
}

/**
 * `import-<file name or address>`, cut to 50 characters. A longer one ends in a hash of all of it: two feeds
 * of one Outlook account share their address's first 50 characters, and would otherwise be one pipeline.
 */
export function importName(source: string): string {
  const slug = slugify(source) || 'file';
  const short =
    slug.length <= 50
      ? slug
      : `${slug.slice(0, 41).replace(/-+$/, '')}-${hash('sha256', source, 'hex').slice(0, 8)}`;
  return `${IMPORT_PREFIX}${short}`;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: { type: 'string', default: 'local' },
      namespace: { type: 'string', default: DEFAULT_NAMESPACE },
      data: { type: 'string', default: DEFAULT_DATA },
      name: { type: 'string' },
      timezone: { type: 'string' },
      status: { type: 'string', default: 'publish' },
      category: { type: 'string', multiple: true, default: [] },
      format: { type: 'string' },
      'date-format': { type: 'string' },
      columns: { type: 'string', multiple: true },
      delimiter: { type: 'string' },
      encoding: { type: 'string' },
      'no-header': { type: 'boolean' },
      kind: { type: 'string' },
      deletions: { type: 'string', default: 'keep' },
      'force-delete': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      report: { type: 'string' },
      json: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      rps: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

type CsvFlags = Pick<SourceSpec, 'dateFormat' | 'columns' | 'delimiter' | 'encoding' | 'header' | 'kind'>;

const FLAGS: Record<keyof CsvFlags, string> = {
  dateFormat: '--date-format',
  columns: '--columns',
  delimiter: '--delimiter',
  encoding: '--encoding',
  header: '--no-header',
  kind: '--kind',
};
const flagOf = (key: string) => FLAGS[key as keyof CsvFlags];

const DELIMITER_NAMES: Record<string, NonNullable<CsvFlags['delimiter']>> = {
  ',': ',',
  comma: ',',
  ';': ';',
  semicolon: ';',
  tab: '\t',
  '\t': '\t',
  '\\t': '\t',
  '|': '|',
  pipe: '|',
  auto: 'auto',
};
const ENCODING_NAMES: Record<string, NonNullable<CsvFlags['encoding']>> = {
  auto: 'auto',
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  ansi: 'windows-1252',
  latin1: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  'utf-16le': 'utf-16le',
  'utf-16': 'utf-16le',
  utf16: 'utf-16le',
  'utf-16be': 'utf-16be',
};

/**
 * The CSV flags given, as source options, or what is wrong with one of them. The CSV reader's lists are
 * loaded only when a flag needs them (an .ics import loads no CSV module: issue 17).
 */
async function csvOptions(values: ReturnType<typeof parse>['values']): Promise<CsvFlags | string> {
  const options: CsvFlags = {};
  if (values['date-format'] !== undefined) {
    const { DATE_FORMATS } = await import('../sources/csv/dates.ts');
    if (!DATE_FORMATS.includes(values['date-format']))
      return `--date-format: expected one of ${DATE_FORMATS.join(', ')}, got "${values['date-format']}"`;
    options.dateFormat = values['date-format'];
  }
  if (values.delimiter !== undefined) {
    const delimiter = DELIMITER_NAMES[values.delimiter.toLowerCase()];
    if (!delimiter) return `--delimiter: expected , ; tab or |, got "${values.delimiter}"`;
    options.delimiter = delimiter;
  }
  if (values.encoding !== undefined) {
    const encoding = ENCODING_NAMES[values.encoding.toLowerCase()];
    if (!encoding)
      return `--encoding: expected utf-8, windows-1252, utf-16le or utf-16be, got "${values.encoding}"`;
    options.encoding = encoding;
  }
  if (values['no-header']) options.header = false;
  if (values.kind !== undefined) {
    if (!['events', 'venues', 'organizers'].includes(values.kind))
      return `--kind: expected events, venues or organizers, got "${values.kind}"`;
    options.kind = values.kind as CsvFlags['kind'];
  }
  if (values.columns !== undefined) {
    const { CSV_FIELDS } = await import('../sources/csv/columns.ts');
    const columns: Record<string, string> = {};
    // `title=Subject,start_date=Start Date`: a comma starts a new pair only before `field=`, so a header
    // may itself hold a comma.
    for (const pair of values.columns.flatMap((text) => text.split(/,(?=\s*[a-z_]+\s*=)/))) {
      const m = /^\s*([a-z_]+)\s*=(.*)$/.exec(pair);
      if (!m || m[2].trim() === '')
        return `--columns: expected field=header pairs separated by commas, e.g. title=Subject,start_date=Start; got "${pair}"`;
      if (!(CSV_FIELDS as readonly string[]).includes(m[1]))
        return `--columns: unknown field "${m[1]}"; expected one of ${CSV_FIELDS.join(', ')}`;
      columns[m[1]] = m[2].trim();
    }
    options.columns = columns;
  }
  return options;
}

/** A URL's format by its path's extension: feeds often have none (`/calendar?ical=1`), and are iCalendar. */
function urlType(url: string): 'ics' | 'csv' {
  const path = new URL(url.replace(/^webcal:/i, 'https:')).pathname;
  return extname(path).toLowerCase() === '.csv' ? 'csv' : 'ics';
}

function optionalNumber(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function usage(io: CliIO, message: string): number {
  io.stderr.write(`import: ${message}\n\n${HELP}\n`);
  return 2;
}

function earlierNotice({ name, same, shared }: EarlierImport, dryRun: boolean): string {
  const is = dryRun ? 'would be' : 'is';
  if (!shared) return `imported before as "${name}" (the same calendar): that import ${is} updated`;
  const counted = `${shared.found} of its ${shared.of} events were imported before as "${name}" (which holds ${shared.holds} events not yet past)`;
  return same
    ? `${counted}: the same calendar, so that import ${is} updated (--name <name> imports a separate copy)`
    : `${counted}: too few to be the same calendar, so the file ${is} imported on its own (--name ${name} updates that import instead)`;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
