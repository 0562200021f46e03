/**
 * One export: a feed's events from the local store or an API, rendered, and written to files for static
 * publishing. What `npm run export` and `npm run sync` (a pipeline's `feeds:` with a `path`) call.
 *
 * Public: `ExportSource`, `ExportResult`, `exportFeed`, `writeExport`, `openExportSource`.
 *
 * Files are written beside their final name and renamed over it, so a web server publishing the folder
 * never serves half a feed. A CSV export also writes `<name>.venues.csv` and `<name>.organizers.csv`,
 * which TEC's CSV importer reads before the events that name them.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { resolveRenderConfig } from '../render/config.ts';
import { isDatabaseUrl, openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { type ApiFeedOptions, ExportError, loadApiFeed } from './api-feed.ts';
import type { FeedSpec } from './feed-spec.ts';
import { linkedCsv, type RenderOptions, renderFeed } from './render.ts';
import { loadStoreFeed } from './store-feed.ts';

export type ExportSource =
  | { kind: 'store'; store: Store; siteUrl: string; siteTimezone?: string }
  | { kind: 'api'; api: ApiFeedOptions };

export interface ExportResult {
  body: string;
  /** CSV only: the venue and organizer files. */
  venues?: string;
  organizers?: string;
  events: number;
  cancelled: number;
}

/**
 * The local store at `dataFile` (or the PostgreSQL database it names) as a source; an error when there is
 * no such file (opening would create an empty one and export nothing, silently).
 */
export async function openExportSource(
  dataFile: string,
  siteUrl: string,
  siteTimezone?: string,
): Promise<ExportSource> {
  if (!isDatabaseUrl(dataFile) && !existsSync(dataFile)) {
    throw new ExportError(
      'export-no-store',
      `no calendar store at ${dataFile}: import something first (npm run import -- file.ics), or pass --data or --from`,
      { url: dataFile },
    );
  }
  return { kind: 'store', store: await openStore(dataFile), siteUrl, siteTimezone };
}

export async function exportFeed(
  source: ExportSource,
  feed: FeedSpec,
  now: Date,
  opts: RenderOptions = {},
): Promise<ExportResult> {
  let data: Awaited<ReturnType<typeof loadApiFeed>>;
  let host: string;
  let timezone: string | undefined;
  if (source.kind === 'store') {
    const config = resolveRenderConfig({ siteUrl: source.siteUrl, siteTimezone: source.siteTimezone });
    data = await loadStoreFeed(source.store, config, feed, now, feed.format);
    host = config.host;
    timezone = config.siteTimezone;
  } else {
    data = await loadApiFeed(source.api, feed, now);
    host = new URL(source.api.url).hostname;
  }
  const body = renderFeed(feed, data, { host, timezone }, opts);
  const result: ExportResult = { body, events: data.events.length, cancelled: data.cancelled.size };
  if (feed.format === 'csv') Object.assign(result, linkedCsv(data, opts));
  return result;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  await writeFile(temp, text);
  await rename(temp, file);
}

/** Writes the export to `file` (and the CSV's two companions beside it); returns the files written. */
export async function writeExport(result: ExportResult, file: string): Promise<string[]> {
  await writeAtomically(file, result.body);
  const written = [file];
  const stem = file.slice(0, file.length - extname(file).length);
  for (const [part, text] of [
    ['venues', result.venues],
    ['organizers', result.organizers],
  ] as const) {
    if (text === undefined) continue;
    await writeAtomically(`${stem}.${part}.csv`, text);
    written.push(`${stem}.${part}.csv`);
  }
  return written;
}
