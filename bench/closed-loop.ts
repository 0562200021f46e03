/**
 * A closed-loop load generator over undici: `connections` keep-alive connections, each sending its
 * requests in turn, the next when the last was answered to its last byte, for `seconds`. Latency per
 * request name, status codes, timeouts, and this process's CPU per request (the generator shares the
 * machine with the server: what it costs is what the server could not have).
 *
 * Not autocannon here: its HTTP parser (http-parser-js) spends ~25 ms of CPU on each 0.7 MB gzipped feed,
 * so on 2 cores the generator, not the server, set the pace (the same bytes from a bare Node server: 62
 * feeds/s with autocannon on one connection, 833/s with undici on 50).
 */
import { Client } from 'undici';

export interface LoopRequest {
  /** Latencies are reported by this name. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: () => string;
}

export interface LoopFigures {
  requests: number;
  /** 2xx answers per second. */
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  timeouts: number;
  errors: number;
  non2xx: number;
  status_codes: Record<string, number>;
  client_cpu_ms_per_request: number;
  by_request: Record<string, { requests: number; p50_ms: number; p99_ms: number }>;
}

export async function closedLoop(o: {
  origin: string;
  connections: number;
  seconds: number;
  requests: LoopRequest[];
}): Promise<LoopFigures> {
  const byName = new Map<string, number[]>(o.requests.map((r) => [r.name, []]));
  const statusCodes: Record<string, number> = {};
  let timeouts = 0;
  let errors = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const end = started + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.connections }, async () => {
      const client = new Client(o.origin, { pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
      try {
        for (let n = 0; performance.now() < end; n++) {
          const r = o.requests[n % o.requests.length];
          const t = performance.now();
          try {
            const res = await client.request({
              method: r.method,
              path: r.path,
              headers: r.headers,
              body: r.body?.(),
            });
            for await (const _ of res.body) {
              // read to the end: the latency is that of the whole answer
            }
            byName.get(r.name)!.push(performance.now() - t);
            statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
          } catch (err) {
            if (((err as { code?: string }).code ?? '').endsWith('TIMEOUT')) timeouts++;
            else errors++;
          }
        }
      } finally {
        await client.destroy();
      }
    }),
  );
  const duration = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const all = Float64Array.from([...byName.values()].flat()).sort();
  const ok = Object.entries(statusCodes).reduce((n, [c, count]) => (c.startsWith('2') ? n + count : n), 0);
  return {
    requests: all.length,
    requests_per_s: Math.round(ok / duration),
    p50_ms: round2(percentile(all, 0.5)),
    p99_ms: round2(percentile(all, 0.99)),
    max_ms: round2(all.at(-1) ?? 0),
    timeouts,
    errors,
    non2xx: all.length - ok,
    status_codes: statusCodes,
    client_cpu_ms_per_request: round2((cpu.user + cpu.system) / 1000 / Math.max(1, all.length)),
    by_request: Object.fromEntries(
      [...byName].map(([name, ms]) => {
        const a = Float64Array.from(ms).sort();
        return [
          name,
          { requests: a.length, p50_ms: round2(percentile(a, 0.5)), p99_ms: round2(percentile(a, 0.99)) },
        ];
      }),
    ),
  };
}

/** Nearest rank. */
const percentile = (sorted: Float64Array, q: number) =>
  sorted.length ? sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] : 0;

const round2 = (x: number) => Math.round(x * 100) / 100;
