/**
 * When to try a request again: exponential backoff with full jitter (a uniform delay between 0 and
 * min(cap, base·2^attempt), AWS Architecture Blog "Exponential Backoff And Jitter", 2015), overridden by the
 * server's `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) up to a cap, so that a site that
 * asks for an hour does not stall a nightly run for an hour.
 */

export interface RetryOptions {
  /** Attempts in all, the first included; default 6. */
  attempts?: number;
  /** Backoff base in ms; default 200. Tests use a few ms. */
  baseMs?: number;
  /** Longest backoff in ms; default 30,000. */
  capMs?: number;
  /** Longest wait a `Retry-After` may ask for, ms; default 120,000. */
  retryAfterCapMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  attempts: 6,
  baseMs: 200,
  capMs: 30_000,
  retryAfterCapMs: 120_000,
});

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const p = { ...DEFAULT_RETRY, ...options };
  if (!Number.isInteger(p.attempts) || p.attempts < 1) {
    throw new Error(`retries.attempts must be an integer ≥ 1, got ${p.attempts}`);
  }
  return Object.freeze(p);
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (`attempt` = failed attempts so far, from 1): the
 * `Retry-After` value when there is a valid one, else full-jitter backoff.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfter?: string,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const asked = retryAfter === undefined ? null : parseRetryAfter(retryAfter, now);
  if (asked !== null) return Math.min(asked, policy.retryAfterCapMs);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** `Retry-After` in ms from `now`: `"120"` or `"Wed, 21 Oct 2026 07:28:00 GMT"`; null when unreadable. */
export function parseRetryAfter(value: string, now: number = Date.now()): number | null {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP-date has a weekday and "GMT"; Date.parse alone would also take "1" or "2026".
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
