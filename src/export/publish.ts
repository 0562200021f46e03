/**
 * Static feed files after a sync: each `feeds:` entry of a pipeline file that has a `path` is exported
 * from the pipeline's target and written there, so a nightly job can publish the folder as it is.
 *
 * Public: `FeedPublication`, `publishFeeds`.
 */
import type { HttpAuth } from '../writer/http-transport.ts';
import { type ExportSource, exportFeed, openExportSource, writeExport } from './export.ts';
import type { FeedSpec } from './feed-spec.ts';

/** Where a pipeline's feeds are read from: its target. */
export interface FeedPublication {
  feeds: readonly FeedSpec[];
  /** The local store's file, or a remote API. */
  from: { data: string } | { url: string; namespace: string; auth?: HttpAuth };
}

/** Writes every feed with a `path`; returns the files written. A failure stops at that feed. */
export async function publishFeeds(p: FeedPublication, now: Date): Promise<string[]> {
  const withPath = p.feeds.filter((f) => f.path !== undefined);
  if (withPath.length === 0) return [];
  const source: ExportSource =
    'data' in p.from
      ? await openExportSource(p.from.data, 'http://127.0.0.1:8080')
      : { kind: 'api', api: { url: p.from.url, namespace: p.from.namespace, auth: p.from.auth } };
  const written: string[] = [];
  try {
    for (const feed of withPath) {
      written.push(...(await writeExport(await exportFeed(source, feed, now), feed.path as string)));
    }
  } finally {
    if (source.kind === 'store') await source.store.close();
  }
  return written;
}
