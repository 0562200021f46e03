/**
 * `openLocalTarget({ dataFile })`: the embedded target — our own server in-process over the SQLite file
 * that `npm run serve` serves, called without a socket or port: reads and writes through the in-process caller
 * (src/server/in-process.ts: the route handlers with the app's own authentication, body parsing and error
 * answers, without HTTP's costs and without building the Fastify app), anything else through `app.inject`
 * of the app, built (and loaded: Fastify and its plugins) on the first such request, over the same core: a
 * run's requests never need it. STYLE.md: "The local import target uses the same app in-process", so imports obey exactly the
 * API's rules.
 *
 * It authenticates with an extra scheme, `Local calsync`, that exists only on this in-process app; the
 * app that `serve` exposes to the network never has it. The caller is an administrator named `calsync`,
 * created in the store on first use (like `npm run users -- add calsync --role administrator`).
 */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../server/app.ts';
import { storageError } from '../server/errors.ts';
import { type InProcessApi, inProcessApi } from '../server/in-process.ts';
import { describeFault, storageFault } from '../store/errors.ts';
import { SqliteStore } from '../store/sqlite.ts';
import type { Store, UserRecord } from '../store/store.ts';
import { createTarget } from '../writer/api-target.ts';
import type { RequesterOptions } from '../writer/requester.ts';
import type { Target } from '../writer/target.ts';
import {
  flattenHeaders,
  queryString,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from '../writer/transport.ts';

export const LOCAL_USER = 'calsync';
/** Requests in flight, and so writes per commit; past ~50 a larger group saves little and holds the lock longer. */
const LOCAL_CONCURRENCY = 64;
const NAMESPACE = 'calendar/events/v1';
/**
 * The store's page memory during an import (sqlite.ts's `pages`): a 4 MiB page cache and no mmap, whose
 * pages stayed in the import's RSS as the store grew (issue 17; with mmap, 100,000 VEVENTs peaked at 443
 * MB instead of 302 MB). The cache fills to its size as the store grows, so its size is what an import's
 * peak RSS grows by from a small file to a large one. What an event write reads again is the leaves of the
 * events' indexes (slug, start, end, venue: ~15 MB at 50,000 VEVENTs); a page not in the cache is read
 * from the file (the OS's page cache), ~1 µs of system CPU.
 *
 * 4 MiB against 16 MiB, runs alternated (2026-12-02): 50,000 VEVENTs peaked at 160–177 MB (median 160)
 * against 166–181 MB (median 177), for 157,000 → 301,000 read calls and +0.3 s of system CPU of ~32 s;
 * 100,000 at 166–176 against 180–182 MB, +0.9 s of system CPU of ~64 s; 10,000 at 148–160 against
 * 155–167 MB. 2 MiB took 100,000 VEVENTs to 160 MB for +2.3 s. It could not be this small while the import
 * indexed events for search itself (FTS5's segment merges read old segments: 2.3 million page reads at
 * 50,000 VEVENTs with 16 MiB); the import leaves that to the server (`indexSearch: false`).
 */
const IMPORT_PAGES = { cacheKiB: 4_096, mmapBytes: 0 };
/**
 * WAL checkpoints during an import run in the commit that takes the WAL past 8,000 pages (32 MiB), not on
 * the server's checkpoint thread: the thread is a second V8 isolate (~19 MB, 10,000 VEVENTs peaked at
 * 215–225 MB with it, 171–173 MB without and the Node flags of package.json), and an import has no
 * other requests to keep answering while a checkpoint syncs. 8,000 rather than SQLite's 1,000 pages:
 * fewer syncs, and pages written again between checkpoints are copied once (50,000 VEVENTs took 30–33 s
 * with 1,000, 28–29 s with 8,000, 25–26 s with the thread, one load).
 */
const IMPORT_CHECKPOINT_PAGES = 8_000;

export interface LocalTargetOptions extends Omit<RequesterOptions, 'queue'> {
  /** SQLite file of the server (`npm run serve -- --data`); created if missing. */
  dataFile: string;
  /** Public site URL for permalinks; default `http://127.0.0.1:8080`, as `npm run serve`. */
  siteUrl?: string;
  /** Public API root; default the site URL (routes then live at `/calendar/events/v1/…`). */
  apiBase?: string;
  /** Site time zone; default UTC, as `npm run serve`. */
  siteTimezone?: string;
}

export async function openLocalTarget(options: LocalTargetOptions): Promise<Target> {
  const dataFile = resolve(options.dataFile);
  // Events are queued for the search index as they are written, and indexed by the server that serves the
  // file (on its next search or event write: store/search-index.ts), not here: indexing as it wrote cost
  // the import 6–14 % of its CPU at 50,000–100,000 VEVENTs, and the page cache above, and still left the
  // server part of it (38 % of the events of 50,000 VEVENTs were queued at the end, 87 % of 10,000).
  const store = SqliteStore.open(dataFile, {
    pages: IMPORT_PAGES,
    indexSearch: false,
    checkpointEveryPages: IMPORT_CHECKPOINT_PAGES,
  });
  let transport: Transport;
  let instance: string;
  try {
    instance = await store.instance();
    transport = await localTransport(store, options, `local ${options.dataFile}`);
  } catch (err) {
    await store.close();
    throw err;
  }
  // In-process requests share one event loop and one SQLite file: what concurrency buys here is the size
  // of a group commit (GroupCommit below), not parallel work.
  return createTarget(transport, {
    ...options,
    concurrency: options.concurrency ?? LOCAL_CONCURRENCY,
    namespace: NAMESPACE,
    label: transport.label,
    instance,
  });
}

async function localTransport(store: Store, options: LocalTargetOptions, label: string): Promise<Transport> {
  const user = await localUser(store);
  const appOptions: AppOptions = {
    store,
    siteUrl: options.siteUrl,
    apiBase: options.apiBase,
    siteTimezone: options.siteTimezone,
    // Response caching pays off for many readers; the writer reads each item about once.
    responseCache: { maxEntries: 0, maxBytes: 0 },
    // Nor does keeping rendered events: an import renders each once, and would keep them all. Their
    // venues, organizers and terms are in thousands of answers, and their JSON is kept (~1 KB each).
    renderCacheBytes: 4_000_000,
    renderCacheEvents: false,
    schemes: { local: async () => user },
  };
  const api = await inProcessApi(appOptions);
  const prefix = api.core.config.apiPrefix;
  // What the caller does not take goes through the app, built when first needed (a run's requests never do).
  let app: Promise<FastifyInstance> | undefined;
  const appFor = () =>
    (app ??= import('../server/app.ts').then(({ buildApp }) => buildApp(appOptions, api.core)));
  const group = new GroupCommit(store);
  return {
    label,
    async send(req) {
      try {
        await group.enter();
        let answer: TransportResponse;
        try {
          answer = await inject(api, appFor, prefix, req);
        } finally {
          // Answered only once durable: the caller records a write in its sync state when it gets the
          // answer. A request that failed still leaves the group, so that the others are committed.
          await group.leave();
        }
        return answer;
      } catch (err) {
        // A group commit the disk refused is the server's storage answer (507/503 naming the file, issue
        // 15), not a network failure to retry.
        const fault = storageFault(err);
        if (!fault) throw err;
        const e = storageError(fault);
        const body = { ...e.toJSON(), message: describeFault(fault, options.dataFile, err) };
        return {
          status: e.status,
          headers: { 'content-type': 'application/json' },
          text: JSON.stringify(body),
        };
      }
    },
    // The app closes the store (its onClose hook); without one, the store is closed here.
    close: async () => (app ? (await app).close() : store.close()),
  };
}

const JSON_HEADERS = { authorization: `Local ${LOCAL_USER}`, 'content-type': 'application/json' };
const BARE_HEADERS = { authorization: `Local ${LOCAL_USER}` };

/**
 * One request through the app, as a function of its own so that only the answer waits for the group's
 * commit, not light-my-request's response with its buffers.
 */
async function inject(
  api: InProcessApi,
  app: () => Promise<FastifyInstance>,
  prefix: string,
  req: TransportRequest,
): Promise<TransportResponse> {
  const url = `${prefix}${req.path}${queryString(req.query)}`;
  const headers = req.body === undefined ? BARE_HEADERS : JSON_HEADERS;
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  // Writes go to the route's handler directly (src/server/in-process.ts: the same checks and answer,
  // without HTTP's costs); what it does not take, through Fastify. light-my-request copies the headers.
  const direct = await api.call({ method: req.method, url, headers, payload });
  if (direct) {
    const { status, headers, json } = direct;
    // A document answer goes on as it is; its text is made only if read (an error message, say).
    if (json === undefined) return { status, headers, text: direct.body.toString() };
    return {
      status,
      headers,
      json,
      get text() {
        return direct.body.toString();
      },
    };
  }
  const res = await (await app()).inject({ method: req.method, url, headers, payload });
  return { status: res.statusCode, headers: flattenHeaders(res.headers), text: res.body };
}

/**
 * Group commit: the requests in flight together share one SQLite transaction, committed when the last of
 * them has been handled, and each is answered after that commit. One COMMIT per group instead of one per
 * request is most of the cost of a small write; the group is as large as the writer's concurrency, and a
 * request that fails still undoes only its own changes (savepoints). Other processes on the same file
 * wait for the write lock at most one group long.
 */
class GroupCommit {
  readonly #store: Store;
  #inFlight = 0;
  /** The group's BEGIN, while a group is open; a request enters once it has settled. */
  #began: Promise<void> | undefined;
  /** The last group's COMMIT: the next group begins after it. */
  #committed: Promise<void> = Promise.resolve();
  #waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * Joins the open group, or opens one; rejects when it could not be opened, and the request, which
   * then fails, is not in it.
   */
  async enter(): Promise<void> {
    this.#inFlight++;
    if (!this.#began) {
      const began = this.#committed.then(
        () => this.#store.beginGroup(),
        () => this.#store.beginGroup(),
      );
      this.#began = began;
      // A failed BEGIN opens nothing: the next request tries again.
      began.catch(() => {
        if (this.#began === began) this.#began = undefined;
      });
    }
    try {
      await this.#began;
    } catch (err) {
      this.#inFlight--;
      throw err;
    }
  }

  leave(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    if (--this.#inFlight === 0) this.#commit();
    return done;
  }

  #commit(): void {
    const waiting = this.#waiting;
    const began = this.#began;
    this.#waiting = [];
    this.#began = undefined;
    const committed = (began ?? Promise.reject(new Error('no group was opened'))).then(() =>
      this.#store.commitGroup(),
    );
    this.#committed = committed;
    committed.then(
      () => {
        for (const w of waiting) w.resolve();
      },
      (err) => {
        for (const w of waiting) w.reject(err);
      },
    );
  }
}

/** The administrator the local target writes as; created on first use. */
async function localUser(store: Store): Promise<UserRecord> {
  const found = await store.findUser(LOCAL_USER);
  if (found) {
    if (found.role !== 'administrator') {
      throw new Error(
        `user "${LOCAL_USER}" exists with role ${found.role}; the local target needs it to be an administrator`,
      );
    }
    return found;
  }
  return store.insertUser({ login: LOCAL_USER, email: '', role: 'administrator', display_name: 'calsync' });
}
