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
  // A whole rate is N per 1 s window; a fractional one is spread out as 1 per 1/r s.
  const rate = Number.isInteger(requestsPerSecond)
    ? { intervalCap: requestsPerSecond, interval: 1000 }
    : { intervalCap: 1, interval: Math.ceil(1000 / requestsPerSecond) };
  return new PQueue({ concurrency, ...rate });
}

export function createRequester(transport: Transport, options: RequesterOptions = {}): Requester {
  const queue = options.queue ?? createQueue(options.concurrency, options.requestsPerSecond);
  const policy: RetryPolicy = retryPolicy(options.retries);
  const requests: Record<Method, number> = { GET: 0, POST: 0, PUT: 0, DELETE: 0 };
  // A Retry-After is about the host, not one request: nothing new starts on this queue until it has passed.
  let resumeAt = 0;
  const holdQueue = (ms: number) => {
    const until = Date.now() + ms;
    if (until <= resumeAt) return;
    resumeAt = until;
    queue.pause();
    // Not unref'd: a request that slept just as long may be queued behind it, with nothing else pending.
    setTimeout(() => {
      if (Date.now() >= resumeAt) queue.start();
    }, ms);
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
