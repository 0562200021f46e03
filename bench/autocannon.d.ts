/**
 * The part of autocannon 9's programmatic API the benchmarks use (it ships no types). Options and
 * results as documented in node_modules/autocannon/README.md ("API", "Results").
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Request extends RequestSpec {
    /** Called before each request; returns the request to send (a falsy value restarts the list). */
    setupRequest?: (req: RequestSpec, context: Record<string, unknown>) => RequestSpec;
  }

  interface Options extends RequestSpec {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds; ignored when `amount` is set. */
    duration?: number;
    amount?: number;
    maxOverallRequests?: number;
    /** Seconds before a request counts as timed out; default 10. */
    timeout?: number;
    requests?: Request[];
  }

  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }

  interface Result {
    latency: Histogram;
    requests: Histogram & { total: number };
    /** Seconds, to 10 ms. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
  export type { Instance, Options, Request, RequestSpec, Result };
}
