/**
 * One load phase: autocannon over keep-alive connections, each request drawn from `next()`, with
 * its own latency record. autocannon's histogram keeps whole milliseconds; the `response` event
 * carries the hrtime duration, so p50/p99 here are to the microsecond (nearest rank).
 */
import autocannon, { type Result } from 'autocannon';

export interface Phase {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  connections: number;
  /** Seconds to run; `amount` wins when set. */
  seconds?: number;
  /** Exactly this many requests. */
  amount?: number;
  /** Stop after this many requests even if `seconds` is not over. */
  max?: number;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  next: () => { path: string; body?: string };
}

export interface Figures {
  requests: number;
  /** 2xx responses per second. */
  per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  duration_s: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
}

export async function load(phase: Phase): Promise<Figures> {
  const latencies: number[] = [];
  // autocannon rejects `duration: undefined`, so absent options are left out rather than undefined.
  const instance = autocannon({
    url: phase.origin,
    connections: phase.connections,
    ...(phase.seconds !== undefined && { duration: phase.seconds }),
    ...(phase.amount !== undefined && { amount: phase.amount }),
    ...(phase.max !== undefined && { maxOverallRequests: phase.max }),
    requests: [
      {
        method: phase.method,
        headers: phase.headers,
        setupRequest: (req) => ({ ...req, ...phase.next() }),
      },
    ],
  });
  instance.on('response', (_client, _status, _bytes, ms) => {
    latencies.push(ms);
  });
  return figures(await instance, latencies);
}

function figures(r: Result, latencies: number[]): Figures {
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  const ok = Object.entries(codes).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    per_s: round(ok / r.duration, 0),
    p50_ms: round(percentile(sorted, 0.5), 2),
    p99_ms: round(percentile(sorted, 0.99), 2),
    max_ms: round(sorted.at(-1) ?? 0, 2),
    duration_s: r.duration,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    status_codes: codes,
  };
}

/** Nearest rank: the smallest value with at least `q` of the values at or below it. */
function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
