/**
 * Feed rendering off the event loop (issue 15). Rendering the `all` feed of a 10,000-event store takes
 * 0.2–0.3 s idle and seconds under load; on the event loop that stalled every other request, and with
 * writes mixed in every write made the next feed request render again (the mixed benchmark: 17
 * requests/s, 3.7 s stalls). So a file-backed store's feeds are rendered by a worker thread with its own
 * read-only connection to the file (WAL: it reads while the server writes): it loads, renders, and
 * hashes the ETag; the server only sends bytes. An in-memory store (tests) has nothing a thread could
 * open, and renders inline.
 *
 * A thread that has rendered nothing for `idleMs` (5 minutes) is ended, and the next render starts a new
 * one. An idle thread's garbage is never collected (V8 collects when it allocates, and it no longer does),
 * and its kept VEVENTs stay: after the first feed of 100,000 events the server stayed at ~990 MB, and is
 * at ~345 MB once the thread has ended. The price is a whole render (not only the events a write changed)
 * for the first feed after a quiet spell, while the kept feed is served.
 *
 * Public: `FeedRenderer` (`render(job)`, `close()`), `FeedJob`, `RenderedFeed`.
 */
import { Worker } from 'node:worker_threads';
import type { FeedSpec } from '../export/feed-spec.ts';
import { icalBytes } from '../export/ical.ts';
import { icalOptions, renderFeed } from '../export/render.ts';
import { feedRecordPages, later, loadStoreFeed } from '../export/store-feed.ts';
import type { Store } from '../store/store.ts';
import type { Config } from './config.ts';
import { VeventCache } from './feed-vevents.ts';
import { strongEtag } from './response-cache.ts';

export interface FeedJob {
  spec: FeedSpec;
  outlook: boolean;
  /** The feed's own URL, for its SOURCE line. */
  source: string;
  /** The clock reading the feed's window is measured from, ms. */
  nowMs: number;
}

export interface RenderedFeed {
  body: Buffer;
  etag: string;
  /** Newest change among its events, ms; null for an empty feed. */
  lastModifiedMs: number | null;
}

/** How long the render thread waits for its next job before it ends (see the header). */
const IDLE_MS = 5 * 60_000;

/** The config without its clock (a function cannot cross to a thread): the job brings the time. */
export type PlainConfig = Omit<Config, 'now'>;

/**
 * One feed rendered from `store` (the thread runs this too). An .ics feed is read a page of records at a
 * time and renders only the events whose records changed since `vevents` last saw them (feed-vevents.ts);
 * a CSV feed is rendered whole.
 */
export async function renderStoreFeed(
  store: Store,
  cfg: PlainConfig,
  job: FeedJob,
  vevents: VeventCache,
): Promise<RenderedFeed> {
  const now = new Date(job.nowMs);
  const config = { ...cfg, now: () => now } as Config;
  const site = { host: cfg.host, timezone: cfg.siteTimezone, source: job.source };
  let body: Buffer;
  let lastModified: Date | null;
  if (job.spec.format === 'ics') {
    // A page of records at a time: only the VEVENTs are held for the whole feed.
    const pass = vevents.pass(config, cfg.host);
    lastModified = null;
    for await (const page of feedRecordPages(store, job.spec, now, 'ics')) {
      pass.add(page);
      lastModified = later(lastModified, page.lastModified);
    }
    body = icalBytes(pass.end(), icalOptions(job.spec, site, { outlook: job.outlook }));
  } else {
    const data = await loadStoreFeed(store, config, job.spec, now, 'csv');
    body = Buffer.from(renderFeed(job.spec, data, site, { outlook: job.outlook }));
    lastModified = data.lastModified;
  }
  return { body, etag: strongEtag(body), lastModifiedMs: lastModified?.getTime() ?? null };
}

export class FeedRenderer {
  readonly #store: Store;
  readonly #cfg: PlainConfig;
  readonly #path: string | null;
  #worker: Worker | undefined;
  /** For inline renders; the thread keeps its own. */
  readonly #vevents = new VeventCache();
  #failed = false;
  #nextId = 0;
  readonly #idleMs: number;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly #pending = new Map<number, { resolve: (r: RenderedFeed) => void; reject: (e: Error) => void }>();

  constructor(store: Store, cfg: Config, options: { idleMs?: number } = {}) {
    this.#store = store;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    const { now: _clock, ...plain } = cfg;
    this.#cfg = plain;
    const path = (store as { path?: string }).path;
    this.#path = path && path !== ':memory:' ? path : null;
  }

  /** Whether renders run on the thread (else inline, on the event loop). */
  get offLoop(): boolean {
    return this.#path !== null && !this.#failed;
  }

  /** Whether the render thread is running now (it starts with a render and ends when idle). */
  get threadRunning(): boolean {
    return this.#worker !== undefined;
  }

  render(job: FeedJob): Promise<RenderedFeed> {
    if (!this.#path || this.#failed) {
      return renderStoreFeed(this.#store, this.#cfg, job, this.#vevents);
    }
    const id = this.#nextId++;
    clearTimeout(this.#idleTimer);
    return new Promise<RenderedFeed>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#thread().postMessage({ id, job });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./feed-render-worker.ts', import.meta.url), {
      workerData: { path: this.#path, cfg: this.#cfg },
    });
    worker.unref();
    worker.on('message', (m: { id: number; feed?: RenderedFeed; error?: string }) => {
      const waiting = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) this.#endWhenIdle(worker);
      if (!waiting) return;
      // A view of the transferred bytes: Buffer.from(typedArray) would copy them one by one (~50 ms).
      if (m.feed) {
        const body = m.feed.body;
        waiting.resolve({ ...m.feed, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) });
      } else waiting.reject(new Error(m.error ?? 'feed render failed'));
    });
    // A thread that cannot start or dies: its jobs fail, and later feeds render inline.
    const fail = (err: Error) => {
      this.#failed = true;
      this.#worker = undefined;
      for (const w of this.#pending.values()) w.reject(err);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.#worker === worker) fail(new Error(`the feed render thread exited with code ${code}`));
    });
    this.#worker = worker;
    return worker;
  }

  /** Ends `worker` once it has had no job for `idleMs` (its exit is then no failure: it is not #worker). */
  #endWhenIdle(worker: Worker): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}
