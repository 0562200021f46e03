/**
 * The requester's hold after a `Retry-After` (src/writer/requester.ts), with a scripted transport: the queue
 * must start again even when its timer fires "early" by Date.now() — a timer counts from the event loop's
 * cached time, which lags the wall clock after a long turn of the loop (seen as a hung run under load).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequester } from '../../src/writer/requester.ts';
import type { Transport, TransportResponse } from '../../src/writer/transport.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Answers the scripted responses in order, then 200 `{}`. */
function scripted(answers: TransportResponse[]): Transport & { sent: number } {
  const t = {
    label: 'scripted',
    sent: 0,
    async send() {
      t.sent++;
      return answers.shift() ?? { status: 200, headers: {}, text: '{"ok":true}' };
    },
    async close() {},
  };
  return t;
}

const tooMany: TransportResponse = {
  status: 429,
  headers: { 'retry-after': '1' },
  text: '{"code":"rest_too_many_requests","message":"Slow down.","data":{"status":429}}',
};

describe('the Retry-After hold', () => {
  it('starts the queue again when its timer fires before Date.now() says the time has come', async () => {
    const realNow = Date.now.bind(Date);
    let skew = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    const transport = scripted([tooMany]);
    const requester = createRequester(transport, { retries: { attempts: 3, baseMs: 1, capMs: 2 } });
    const first = requester.call({ method: 'GET', path: '/x' });
    // Once the 429 has come back and set the hold, the wall clock runs 30 ms behind the timers.
    await vi.waitFor(() => expect(transport.sent).toBe(1));
    await new Promise((r) => setTimeout(r, 20));
    skew = -30;
    const second = requester.call({ method: 'GET', path: '/y' });
    await expect(Promise.all([first, second])).resolves.toEqual([{ ok: true }, { ok: true }]);
    expect(transport.sent).toBe(3);
  });
});
