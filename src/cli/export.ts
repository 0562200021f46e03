/**
 * `npm run export -- [--format ics|csv] [--out file|-] [--from API-URL --namespace NS] [filters]`:
 * events out as an iCalendar feed or CSV, from the local store (default) or any calendar API.
 */
import { extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ExportError } from '../export/api-feed.ts';
import { type ExportSource, exportFeed, openExportSource, writeExport } from '../export/export.ts';
import { FEED_DEFAULTS, feedSpec } from '../export/feed-spec.ts';
import { normalizeTimezone } from '../model/timezone.ts';
import { DEFAULT_DATA, DEFAULT_NAMESPACE } from '../pipeline/defaults.ts';
import { isDatabaseUrl, storeName } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { authFromEnv } from './target.ts';

const HELP = `Usage: npm run export -- [options]

Writes published events as an iCalendar (.ics) feed or as CSV in the column names of The Events
Calendar's CSV importer, from the local store (default) or any calendar API.

Options:
  --format <ics|csv>     output format (default: from --out's extension, else ics)
  --out <file|->         file to write (default -, standard output); a CSV file gets
                         <name>.venues.csv and <name>.organizers.csv beside it
  --from <url>           read from this API root instead of the local store,
                         e.g. https://site.example/wp-json
  --namespace <ns>       API namespace (default ${DEFAULT_NAMESPACE}; tribe/events/v1 for WordPress)
  --data <file|url>      the local store (default ${DEFAULT_DATA}), or a PostgreSQL database postgres://…
                         (default CALSYNC_DATABASE_URL when set)
  --site <url>           the public site URL the served feeds use, for the same UIDs
                         (default http://127.0.0.1:8080)
  --category <slug>      only events in this category or its sub-categories (repeatable)
  --tag <slug>           only events with this tag (repeatable)
  --venue <name|id>      only events at this venue (repeatable; ids only with --from)
  --organizer <name|id>  only events by this organizer (repeatable; ids only with --from)
  --featured             only featured events
  --past-days <n>        events that ended up to n days ago (default ${FEED_DEFAULTS.pastDays})
  --future-days <n>      events that start within n days (default: no limit)
  --timezone <zone>      the site's zone, for X-WR-TIMEZONE (default UTC, as npm run serve)
  --title <text>         the calendar's name (default the site's host name)
  --outlook              leave out X-WR-CALNAME (Outlook then keeps its subscription's own name)
  --keep-formulas        CSV: write cells starting with = + - @ as they are (default: a leading '
                         stops spreadsheets running them as formulas; calsync's import strips it)
  -h, --help             show this help

Environment, for --from: CALSYNC_USER and CALSYNC_APP_PASSWORD (an application password), or
CALSYNC_TOKEN (a Bearer token); none reads what anyone may read.

Exit codes: 0 written, 1 the source failed, 2 usage or configuration error.

Examples:
  npm run export -- --format ics --out events.ics
  npm run export -- --out concerts.csv --category concerts --future-days 90
  npm run export -- --from https://site.example/wp-json --namespace tribe/events/v1 --out site.ics`;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      format: { type: 'string' },
      'keep-formulas': { type: 'boolean', default: false },
      out: { type: 'string', default: '-' },
      from: { type: 'string' },
      namespace: { type: 'string', default: DEFAULT_NAMESPACE },
      data: { type: 'string' },
      site: { type: 'string', default: 'http://127.0.0.1:8080' },
      category: { type: 'string', multiple: true },
      tag: { type: 'string', multiple: true },
      venue: { type: 'string', multiple: true },
      organizer: { type: 'string', multiple: true },
      featured: { type: 'boolean' },
      'past-days': { type: 'string' },
      'future-days': { type: 'string' },
      title: { type: 'string' },
      timezone: { type: 'string' },
      outlook: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function usage(io: CliIO, message: string): number {
  io.stderr.write(`export: ${message}\n\n${HELP}\n`);
  return 2;
}

function days(value: string | undefined, name: string): number | undefined | Error {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0
    ? n
    : new Error(`${name}: expected a whole number of days ≥ 0, got "${value}"`);
}

async function run(io: CliIO): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(io.argv));
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  // The run's clock (tests and reproducible exports): CALSYNC_NOW, as for import and sync.
  const now = io.env.CALSYNC_NOW ? new Date(io.env.CALSYNC_NOW) : new Date();
  if (Number.isNaN(now.getTime()))
    return usage(io, `CALSYNC_NOW: expected an ISO date-time, got "${io.env.CALSYNC_NOW}"`);
  const out = values.out as string;
  const format = values.format ?? (extname(out).toLowerCase() === '.csv' ? 'csv' : 'ics');
  if (format !== 'ics' && format !== 'csv')
    return usage(io, `--format: expected ics or csv, got "${format}"`);
  const pastDays = days(values['past-days'], '--past-days') ?? FEED_DEFAULTS.pastDays;
  const futureDays = days(values['future-days'], '--future-days');
  if (pastDays instanceof Error) return usage(io, pastDays.message);
  if (values.timezone !== undefined && normalizeTimezone(values.timezone) === null)
    return usage(io, `--timezone: "${values.timezone}" is not a time zone (e.g. Europe/Berlin)`);
  if (futureDays instanceof Error) return usage(io, futureDays.message);

  const feed = feedSpec({
    name: 'all', // the served default feed's name: same title, same UIDs
    format,
    title: values.title,
    categories: values.category,
    tags: values.tag,
    venues: values.venue,
    organizers: values.organizer,
    featured: values.featured ? true : undefined,
    pastDays,
    futureDays,
  });

  const data = (values.data as string | undefined) ?? io.env.CALSYNC_DATABASE_URL ?? DEFAULT_DATA;
  let source: ExportSource;
  try {
    if (values.from) {
      new URL(values.from); // a usage error, not a network one
      source = {
        kind: 'api',
        api: { url: values.from, namespace: values.namespace as string, auth: authFromEnv(io.env) },
      };
    } else {
      source = await openExportSource(
        isDatabaseUrl(data) ? data : resolve(data),
        values.site as string,
        values.timezone,
      );
    }
  } catch (err) {
    if (err instanceof ExportError) return usage(io, err.message);
    // A store that cannot be opened (a database not reachable, say) is not a usage error.
    if (!values.from) {
      io.stderr.write(`export: ${(err as Error).message}\n`);
      return 1;
    }
    return usage(io, `--from: "${values.from}" is not a URL`);
  }

  if (source.kind === 'store') {
    const unknown = await unknownFilter(source.store, values);
    if (unknown) {
      await source.store.close();
      io.stderr.write(`export: ${unknown} in ${storeName(data)}; nothing written\n`);
      return 2;
    }
  }
  try {
    const result = await exportFeed(source, feed, now, {
      outlook: values.outlook,
      formulas: values['keep-formulas'] ? 'keep' : 'escape',
    });
    if (out === '-') {
      io.stdout.write(result.body);
      return 0;
    }
    const files = await writeExport(result, resolve(out));
    const cancelled = result.cancelled ? ` (${result.cancelled} cancelled)` : '';
    io.stderr.write(`export: ${result.events} events${cancelled} → ${files.join(', ')}\n`);
    return 0;
  } catch (err) {
    const e = err as ExportError;
    io.stderr.write(`export: ${e.code ? `${e.code}: ` : ''}${e.message}\n`);
    return 1;
  } finally {
    if (source.kind === 'store') await source.store.close();
  }
}

/**
 * The first filter that names nothing in the store (`--category nosuch`): a typo must not pass for an
 * empty calendar. Names and slugs as the served feeds take them; venues and organizers also by id.
 */
async function unknownFilter(
  store: Store,
  values: { category?: string[]; tag?: string[]; venue?: string[]; organizer?: string[] },
): Promise<string | undefined> {
  const term = async (kind: 'categories' | 'tags', name: string) =>
    (await store.findTermBySlug(kind, name)) ?? (await store.findTermByName(kind, name));
  for (const name of values.category ?? [])
    if (!(await term('categories', name))) return `--category ${name}: no category with that slug or name`;
  for (const name of values.tag ?? [])
    if (!(await term('tags', name))) return `--tag ${name}: no tag with that slug or name`;
  for (const kind of ['venue', 'organizer'] as const)
    for (const name of values[kind] ?? []) {
      const found =
        (/^\d+$/.test(name) ? await store.getLinked(kind, Number(name)) : undefined) ??
        (await store.findBySlug(kind, name)) ??
        (await store.findLinkedByName(kind, name));
      if (!found) return `--${kind} ${name}: no ${kind} with that name, slug or id`;
    }
  return undefined;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
