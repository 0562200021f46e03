/** When the writer tries again: full-jitter backoff, and Retry-After as seconds or an HTTP date, capped. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, retryPolicy } from '../../src/writer/retry.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates (RFC 9110 §10.2.3)', () => {
    expect(parseRetryAfter('1', NOW)).toBe(1000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('ignores values that are neither', () => {
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter('-5', NOW)).toBeNull();
    expect(parseRetryAfter('2026-11-21T12:00:30Z', NOW)).toBeNull();
  });

  it('wins over the backoff but is capped, so a site asking for an hour does not stall a run', () => {
    expect(retryDelay(DEFAULT_RETRY, 1, '3', NOW, () => 0.5)).toBe(3000);
    expect(retryDelay(DEFAULT_RETRY, 1, '3600', NOW)).toBe(120_000);
    expect(retryDelay(DEFAULT_RETRY, 1, 'garbage', NOW, () => 0.5)).toBe(100);
  });
});

describe('backoff', () => {
  it('is full jitter below a ceiling that doubles per attempt up to the cap', () => {
    const policy = retryPolicy({ baseMs: 200, capMs: 1000 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(policy, n, undefined, NOW, () => 0.999))).toEqual([
      199, 399, 799, 999, 999,
    ]);
    expect(retryDelay(policy, 3, undefined, NOW, () => 0)).toBe(0);
  });

  it('refuses an attempt count below one', () => {
    expect(() => retryPolicy({ attempts: 0 })).toThrow(/attempts/);
  });
});
