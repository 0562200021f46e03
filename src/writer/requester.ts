/**
 * `createRequester(transport, options)`: sends requests through a p-queue (concurrency and a
 * requests-per-second rate, possibly shared by every pipeline that writes to one host), counts them by
 * method, maps answers with `interpret`, and tries again on retryable failures (retry.ts).
 *
 * Only requests safe to repeat come here for blind retries. A request that is not (an event create) passes
 * `recover`: after a failure that may have been applied (lost answer, timeout, 5xx) and the backoff, the
 * requester calls it before resending, and a value it returns is the result (STYLE.md: "A create whose
 * answer was lost is looked up by slug, never blindly resent"). The backoff comes first so that a server
 * still finishing the first attempt (PHP carries on after the client hangs up) has time to commit it.
 */
import PQueue from 'p-queue';
import { interpret, networkError, type WriteError } from './errors.ts';
import { type RetryOptions, type RetryPolicy, retryDelay, retryPolicy, sleep } from './retry.ts';
import type { Method, Transport, TransportRequest } from './transport.ts';

export interface RequesterOptions {
  /** Requests in flight at once; default 4 (C.20: real TEC hosts cope with ≤ 4). */
  concurrency?: number;
  /** Requests started per second; default unlimited. Fractions allowed (`0.5` = one every 2 s). */
  requestsPerSecond?: number;
  retries?: RetryOptions;
  /** A queue shared with other targets on the same host; `concurrency` and the rate are then its own. */
  queue?: PQueue;
  /** Told before each retry: what failed, which attempt it was, how long until the next (for the logs). */
  onRetry?: (retry: { error: WriteError; attempt: number; delayMs: number }) => void;
}

export interface Requester {
  /** The answer's JSON document, or a WriteError after the last attempt. */
  call(req: TransportRequest, recover?: () => Promise<unknown>): Promise<unknown>;
  readonly requests: Readonly<Record<Method, number>>;
}

export function createQueue(concurrency = 4, requestsPerSecond?: number): PQueue {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`concurrency must be an integer ≥ 1, got ${concurrency}`);
  }
  if (requestsPerSecond === undefined) return new PQueue({ concurrency });
  if (!(requestsPerSecond > 0)) throw new Error(`requestsPerSecond must be > 0, got ${requestsPerSecond}`);
  return new PQueue({ concurrency, ...rateWindow(requestsPerSecond) });
}

/**
 * p-queue's sliding window (`strict`): no more than `intervalCap` starts in any `interval` ms, so a host
 * never sees more than the rate in any second — p-queue's default fixed windows let a window's burst follow
 * the last one's, up to twice the rate across their boundary. A rate that is a multiple of 5 is kept per
 * 200 ms (50/s = at most 10 in any 200 ms, hence 50 in any second), so the requests of a second are spread
 * over it instead of leaving in one burst (what trips a host's per-second limiter); other whole rates per
 * second, fractional ones as one request per 1/r s. Not finer: each slot frees on a timer that fires late,
 * by ~1 ms on an idle machine and ~10 ms on a loaded one — 5% of 200 ms (bench/sync.ts measures it).
 */
function rateWindow(requestsPerSecond: number): { intervalCap: number; interval: number; strict: true } {
  if (Number.isInteger(requestsPerSecond / 5))
    return { intervalCap: requestsPerSecond / 5, interval: 200, strict: true };
  if (Number.isInteger(requestsPerSecond))
    return { intervalCap: requestsPerSecond, interval: 1000, strict: true };
  return { intervalCap: 1, interval: Math.ceil(1000 / requestsPerSecond), strict: true };
}

/** Until when each queue is held by a Retry-After (ms since the epoch). */
const resumeAt = new WeakMap<PQueue, number>();

export function createRequester(transport: Transport, options: RequesterOptions = {}): Requester {
  const queue = options.queue ?? createQueue(options.concurrency, options.requestsPerSecond);
  const policy: RetryPolicy = retryPolicy(options.retries);
  const requests: Record<Method, number> = { GET: 0, POST: 0, PUT: 0, DELETE: 0 };
  // A Retry-After is about the host, not one request: nothing new starts on this queue until it has passed —
  // the queue of every pipeline writing to that host when it is shared, so the time is kept per queue.
  const holdQueue = (ms: number) => {
    const until = Date.now() + ms;
    if (until <= (resumeAt.get(queue) ?? 0)) return;
    resumeAt.set(queue, until);
    queue.pause();
    // A timer counts from the event loop's cached time, which lags Date.now() on a busy loop: it can fire a
    // few ms "early", so it checks and, if need be, waits out the rest (else the queue stayed paused for
    // good, and the run hung). Not unref'd: a request that slept as long may be queued behind it, with
    // nothing else pending.
    const resume = () => {
      const left = (resumeAt.get(queue) ?? 0) - Date.now();
      if (left <= 0) queue.start();
      else setTimeout(resume, left);
    };
    setTimeout(resume, ms);
  };

  const once = async (req: TransportRequest): Promise<unknown> => {
    const res = await queue.add(async () => {
      requests[req.method]++;
      try {
        return await transport.send(req);
      } catch (err) {
        throw networkError(req, err);
      }
    });
    return interpret(req, res);
  };

  return {
    requests,
    async call(req, recover) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(req);
        } catch (e) {
          const err = e as WriteError;
          if (!err.retryable) throw err;
          // Out of attempts, a create that may have landed still gets its look-up (not a resend): failing it
          // would leave an item the sync state does not know, which the next run would create a second time.
          const last = attempt >= policy.attempts;
          const lookUp = recover !== undefined && err.maybeApplied;
          if (last && !lookUp) throw err;
          const delay = retryDelay(policy, attempt, err.retryAfter);
          options.onRetry?.({ error: err, attempt, delayMs: delay });
          if (err.retryAfter !== undefined) holdQueue(delay);
          await sleep(delay);
          if (lookUp) {
            const found = await recover();
            if (found !== undefined) return found;
          }
          if (last) throw err;
        }
      }
    },
  };
}
