/**
 * The per-host limits of src/writer/host-queues.ts, shared by every worker through PostgreSQL
 * (rate-limiter-flexible's RateLimiterPostgres): a host's requests per second, and a `Retry-After` it
 * answers, which then holds every worker's requests to that host, not only the one that got it.
 *
 * The rate is kept as one request per (1 s + 50 ms)/r: the limiter's window starts at the request it lets
 * through and holds one point, so requests are spaced at least that far apart across all workers — hence
 * never more than r in any second at the host, the way there varying by up to a margin (fixed windows of r
 * points could let 2r through across a window boundary).
 * A grant is timed by the database's clock at the moment the row is locked (`DbClockLimiter`), not by
 * the worker's clock when it built the query: a query that waited for a pooled connection or for a busy
 * PostgreSQL once carried a `now` hundreds of ms old, and several such granted back to back let a host see
 * 15 requests in a second at a limit of 10 (test/queue/cluster.slow.test.ts, load ~8 on 2 cores). Waits
 * (`msBeforeNext`) are still reckoned on the worker's clock: workers on several machines need NTP.
 *
 * The concurrency limit stays per worker process (the local p-queue this returns): N workers may have
 * N × concurrency requests in flight to one host.
 */
import PQueue from 'p-queue';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { parseRetryAfter } from '../writer/retry.ts';
import type { TransportResponse } from '../writer/transport.ts';

const TABLE = 'calsync_host_limits';
const DEFAULT_CONCURRENCY = 4;
/** Longest pause a `Retry-After` may impose on every worker, as the requester caps it (retry.ts). */
const RETRY_AFTER_CAP_MS = 120_000;

export interface HostRate {
  host: string;
  concurrency?: number;
  requestsPerSecond?: number;
}

/** The table rate-limiter-flexible expects, created once under a lock (workers start together). */
export async function createLimitsTable(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('${TABLE}'))`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

/**
 * How much a request's way from its grant to the host may vary (the worker's event loop, the connection,
 * the host's own reading of it), by default: a few ms on an idle loopback, tens under load. Measured on
 * the host, requests granted exactly 1/r apart were seen 11 in one second at r = 10 (test/queue). On a
 * machine so loaded that a process waits hundreds of ms for a core (a shared 2-core box at load 9–13),
 * a worker or the host releases such a backlog at once and the host sees more than r in a second: the
 * worker's `--rate-margin` raises this (test/queue/cluster.slow.test.ts).
 */
export const DEFAULT_MARGIN_MS = 50;

/**
 * Milliseconds between two grants at `rate` per second: r requests spaced this far apart span more than
 * a second plus the jitter, so the host never sees r + 1 in one second. Whole ms, rounded up, and only
 * values the limiter's `duration` (seconds) turns back into whole ms — its expiry is a bigint column.
 */
export function spacingMs(rate: number, marginMs = DEFAULT_MARGIN_MS): number {
  if (!(rate > 0)) throw new Error(`requests_per_second must be > 0, got ${rate}`);
  let ms = Math.ceil((1000 + marginMs) / rate);
  while ((ms / 1000) * 1000 !== ms) ms++;
  return ms;
}

export class SharedHostLimits {
  readonly #pool: Pool;
  readonly #marginMs: number;
  readonly #queues = new Map<string, PQueue>();
  readonly #rates = new Map<number, RateLimiterPostgres>();
  /** A host paused by a `Retry-After`: its key is blocked until then. */
  readonly #pauses: RateLimiterPostgres;

  /** `marginMs`: how much a request's way from its grant to the host may vary (DEFAULT_MARGIN_MS). */
  constructor(pool: Pool, marginMs = DEFAULT_MARGIN_MS) {
    this.#pool = pool;
    this.#marginMs = marginMs;
    this.#pauses = this.#limiter('pause', 1, 1);
  }

  /** The queue a pipeline writing to `rate.host` sends through in this process (its first rate wins). */
  queueFor(rate: HostRate): PQueue {
    let queue = this.#queues.get(rate.host);
    if (!queue) {
      queue = new GatedQueue(rate.concurrency ?? DEFAULT_CONCURRENCY, {
        before: () => this.#acquire(rate.host, rate.requestsPerSecond),
        after: (res) => this.#observe(rate.host, res),
      });
      this.#queues.set(rate.host, queue);
    }
    return queue;
  }

  #limiter(prefix: string, points: number, seconds: number): RateLimiterPostgres {
    return new DbClockLimiter({
      storeClient: this.#pool,
      tableName: TABLE,
      tableCreated: true,
      keyPrefix: prefix,
      points,
      duration: seconds,
    });
  }

  #rateLimiter(rate: number): RateLimiterPostgres {
    const ms = spacingMs(rate, this.#marginMs);
    let limiter = this.#rates.get(ms);
    if (!limiter) {
      limiter = this.#limiter('rate', 1, ms / 1000);
      this.#rates.set(ms, limiter);
    }
    return limiter;
  }

  /** Waits out a pause of the host, then for its next slot at `rate`. */
  async #acquire(host: string, rate: number | undefined): Promise<void> {
    for (;;) {
      const paused = await this.#pauses.get(host);
      if (paused && paused.consumedPoints > 1 && paused.msBeforeNext > 0) {
        await sleep(paused.msBeforeNext);
        continue;
      }
      if (rate === undefined) return;
      try {
        await this.#rateLimiter(rate).consume(host);
        return;
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        await sleep(Math.max(1, err.msBeforeNext));
      }
    }
  }

  /** A 429 or 503 with `Retry-After`: the host is paused for every worker (the requester retries). */
  async #observe(host: string, res: unknown): Promise<void> {
    const answer = res as TransportResponse | undefined;
    if (!answer || (answer.status !== 429 && answer.status !== 503)) return;
    const header = answer.headers?.['retry-after'];
    const ms = header === undefined ? null : parseRetryAfter(header);
    if (ms === null || ms <= 0) return;
    await this.#pauses.block(host, Math.ceil(Math.min(ms, RETRY_AFTER_CAP_MS) / 1000));
  }
}

/**
 * RateLimiterPostgres with its window reckoned on PostgreSQL's clock when the statement holds the row:
 * rate-limiter-flexible 11.4 sends the worker's `Date.now()` taken before it even has a connection
 * (`_upsert`, which this replaces with the same statement on `clock_timestamp()`; its results are read as
 * before). Revisit when upgrading the library.
 */
class DbClockLimiter extends RateLimiterPostgres {
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    const self = this as unknown as {
      tableCreated: boolean;
      _getTableIdentifier(): string;
      _query(q: { name: string; text: string; values: unknown[] }): Promise<unknown>;
    };
    if (!self.tableCreated) return Promise.reject(new Error('Table is not created yet'));
    const table = self._getTableIdentifier();
    const now = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
    const fresh = `CASE WHEN $3::bigint > 0 THEN ${now} + $3::bigint END`;
    const expired = `(${table}.expire <= ${now} OR ${forceExpire ? 'true' : 'false'})`;
    return self._query({
      name: forceExpire ? 'calsync-upsert-force' : 'calsync-upsert',
      text: `INSERT INTO ${table} VALUES ($1, $2, ${fresh})
             ON CONFLICT (key) DO UPDATE SET
               points = CASE WHEN ${expired} THEN $2 ELSE ${table}.points + ($2) END,
               expire = CASE WHEN ${expired} THEN ${fresh} ELSE ${table}.expire END
             RETURNING points, expire`,
      values: [key, points, msDuration],
    });
  }
}

/** A p-queue whose every task waits for `before` and reports its result to `after`. */
class GatedQueue extends PQueue {
  readonly #gate: { before: () => Promise<void>; after: (result: unknown) => Promise<void> };

  constructor(
    concurrency: number,
    gate: { before: () => Promise<void>; after: (result: unknown) => Promise<void> },
  ) {
    super({ concurrency });
    this.#gate = gate;
  }

  // biome-ignore lint/suspicious/noExplicitAny: p-queue's overloads of add(), passed through unchanged
  override add(task: any, options?: any): any {
    return super.add(async (o: unknown) => {
      await this.#gate.before();
      const result = await task(o);
      await this.#gate.after(result);
      return result;
    }, options);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
