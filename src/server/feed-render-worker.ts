/**
 * The thread of `FeedRenderer` (feed-render.ts): a read-only connection to the server's file, and one
 * rendered feed per `{ id, job }` message, its bytes transferred back, not copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from '../store/sqlite.ts';
import { type FeedJob, type PlainConfig, renderStoreFeed } from './feed-render.ts';
import { VeventCache } from './feed-vevents.ts';

const { path, cfg } = workerData as { path: string; cfg: PlainConfig };
// 8 MiB of page cache, not the server's 64: each render reads the feed's rows once, in order, and those
// it reads again (a warm render of a 10,000-event feed) come from the store's memo of records, not from
// pages. The first feed of 100,000 events: ~60 MB less at its peak; warm 10,000-event renders as fast.
const store = openSqliteStore(path, { readOnly: true, pages: { cacheKiB: 8_192, mmapBytes: 0 } });
const vevents = new VeventCache();

parentPort!.on('message', async ({ id, job }: { id: number; job: FeedJob }) => {
  try {
    const feed = await renderStoreFeed(store, cfg, job, vevents);
    // Exactly its bytes, so that the transfer moves no more than the feed: an .ics feed has an ArrayBuffer
    // of its own (icalBytes), a small CSV one may be a slice of Buffer's shared pool, and is copied.
    const own = feed.body.byteOffset === 0 && feed.body.length === feed.body.buffer.byteLength;
    const body = new Uint8Array(
      own
        ? feed.body.buffer
        : feed.body.buffer.slice(feed.body.byteOffset, feed.body.byteOffset + feed.body.length),
    );
    parentPort!.postMessage({ id, feed: { ...feed, body } }, [body.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ id, error: (err as Error).message });
  }
});
