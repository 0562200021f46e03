/**
 * `hostQueues(targets)`: one request queue per remote host, shared by every pipeline of a run that writes
 * to it (`npm run sync -- pipelines/*.yaml`). A host's rate limit is a property of the host — a shared
 * WordPress behind one PHP pool, a 429 rate limiter per client IP — not of a pipeline: three pipelines each
 * allowed 2 requests/s would otherwise send 6 together. A queue shared this way is also where a
 * `Retry-After` from that host holds every pipeline (requester.ts).
 *
 * When pipelines of one host ask for different rates, the strictest wins: the lowest concurrency and the
 * lowest requests per second that any of them names (a limit is set because the host needs it).
 */
import type PQueue from 'p-queue';
import { createQueue } from './requester.ts';

export interface HostRate {
  /** `site.example`, `127.0.0.1:8080`: the URL's host with its port. */
  host: string;
  concurrency?: number;
  requestsPerSecond?: number;
}

/** Requests in flight to one remote host when no pipeline says (contract C.20: ≤ 4 on real TEC hosts). */
const DEFAULT_CONCURRENCY = 4;

export function hostQueues(rates: readonly HostRate[]): Map<string, PQueue> {
  const strictest = new Map<string, { concurrency?: number; requestsPerSecond?: number }>();
  for (const r of rates) {
    const s = strictest.get(r.host) ?? {};
    strictest.set(r.host, {
      concurrency: min(s.concurrency, r.concurrency),
      requestsPerSecond: min(s.requestsPerSecond, r.requestsPerSecond),
    });
  }
  const queues = new Map<string, PQueue>();
  for (const [host, s] of strictest) {
    queues.set(host, createQueue(s.concurrency ?? DEFAULT_CONCURRENCY, s.requestsPerSecond));
  }
  return queues;
}

const min = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);
