/**
 * The writer under failures between it and the server: a real loopback proxy (test/helpers/faulty-proxy.ts)
 * in front of our real server answers 500, 503 and 429, resets connections, stalls, or forwards a write and
 * then loses its answer. Whatever happens, each create and update ends with exactly one item (STYLE.md: "A
 * create whose answer was lost is looked up by slug, never blindly resent").
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/model/kind.ts';
import { createHttpTransport, createTarget, type Target } from '../../src/writer/index.ts';
import { type FaultyProxy, startFaultyProxy } from '../helpers/faulty-proxy.ts';
import { bodyOf, type LoopbackServer, startServer, tempDir } from './setup.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let server: LoopbackServer;
let proxy: FaultyProxy;
/** Writes through the proxy. */
let target: Target;
/** Reads straight from the server, to count what really exists. */
let direct: Target;

function targetAt(url: string, timeoutMs = 30_000, onRetry?: () => void): Target {
  const transport = createHttpTransport({
    url,
    timeoutMs,
    auth: { type: 'basic', username: server.username, password: server.password },
  });
  return createTarget(transport, {
    namespace: 'calendar/events/v1',
    label: url,
    concurrency: 2,
    retries: { attempts: 6, baseMs: 5, capMs: 40 },
    onRetry,
  });
}

beforeEach(async () => {
  tmp = await tempDir();
  server = await startServer(join(tmp.dir, 'calendar.db'));
  proxy = await startFaultyProxy(server.url);
  target = targetAt(proxy.url);
  direct = targetAt(server.url);
});
afterEach(async () => {
  await target.close();
  await direct.close();
  await proxy.close();
  await server.close();
  await tmp.remove();
});

async function all(kind: Kind) {
  const items = [];
  for await (const r of direct.list(kind)) items.push(r);
  return items;
}

const CREATE = {
  event: /\/events$/,
  venue: /\/venues$/,
  organizer: /\/organizers$/,
  category: /\/categories$/,
  tag: /\/tags$/,
};

describe('an event create whose answer is lost', () => {
  for (const fault of ['lose-answer', '500', 'reset'] as const) {
    it(`ends with exactly one event after "${fault}"`, async () => {
      proxy.fail({ fault, method: 'POST', path: CREATE.event });
      const created = await target.create('event', bodyOf('event', 1));
      expect(created.slug).toBe('event-1');
      const events = await all('event');
      expect(events.map((e) => e.id)).toEqual([created.id]);
    });
  }

  it('is looked up by slug, not resent, when the first attempt created it', async () => {
    proxy.fail({ fault: 'lose-answer', method: 'POST', path: CREATE.event });
    await target.create('event', bodyOf('event', 2));
    const posts = proxy.log.filter((l) => l.method === 'POST');
    expect(posts.map((p) => p.fate)).toEqual(['lose-answer']);
    expect(proxy.log.some((l) => l.method === 'GET' && l.url.includes('/events/by-slug/event-2'))).toBe(true);
  });

  it('ends with one event when the answer never comes and the client times out', async () => {
    await target.close();
    target = targetAt(proxy.url, 300);
    proxy.fail({ fault: 'stall', method: 'POST', path: CREATE.event });
    const created = await target.create('event', bodyOf('event', 3));
    expect((await all('event')).map((e) => e.id)).toEqual([created.id]);
  });

  it('without a slug, is not resent and fails as unconfirmed', async () => {
    proxy.fail({ fault: 'lose-answer', method: 'POST', path: CREATE.event });
    const { slug: _, ...noSlug } = bodyOf('event', 4);
    await expect(target.create('event', noSlug)).rejects.toMatchObject({
      code: 'unconfirmed_create',
      retryable: false,
    });
    expect(proxy.log.filter((l) => l.method === 'POST')).toHaveLength(1);
    expect(await all('event')).toHaveLength(1);
  });
});

describe('creates that are safe to resend', () => {
  for (const kind of ['venue', 'organizer', 'category', 'tag'] as const) {
    it(`a ${kind} create whose answer was lost is resent and still makes one ${kind}`, async () => {
      proxy.fail({ fault: 'lose-answer', method: 'POST', path: CREATE[kind] });
      const created = await target.create(kind, bodyOf(kind, 1));
      const items = await all(kind);
      expect(items.map((i) => i.id)).toEqual([created.id]);
      expect(proxy.log.filter((l) => l.method === 'POST').map((l) => l.fate)).toEqual([
        'lose-answer',
        'forwarded',
      ]);
    });
  }
});

describe('updates and reads', () => {
  it('an update whose answer was lost is resent and leaves one item with the new value', async () => {
    const created = await direct.create('event', bodyOf('event', 1));
    proxy.fail({ fault: 'lose-answer', method: 'POST', path: /\/events\/\d+$/ });
    proxy.fail({ fault: '503', method: 'POST', path: /\/events\/\d+$/ });
    const updated = await target.update('event', created.id, { ...bodyOf('event', 1), title: 'Renamed' });
    expect(updated.id).toBe(created.id);
    const events = await all('event');
    expect(events.map((e) => [e.id, e.body.title])).toEqual([[created.id, 'Renamed']]);
  });

  it('a GET that meets 503, 500 and a reset is retried until it succeeds', async () => {
    const created = await direct.create('venue', bodyOf('venue', 1));
    for (const fault of ['503', '500', 'reset'] as const) proxy.fail({ fault, method: 'GET' });
    expect((await target.get('venue', created.id))?.id).toBe(created.id);
    expect(target.requests.GET).toBe(4);
  });

  it('a delete whose answer was lost counts as done', async () => {
    const created = await direct.create('organizer', bodyOf('organizer', 1));
    proxy.fail({ fault: 'lose-answer', method: 'DELETE' });
    await target.remove('organizer', created.id, 'delete');
    expect(await direct.get('organizer', created.id)).toBeNull();
  });
});

describe('what the server asks and refuses', () => {
  it('waits as long as Retry-After says before trying again', async () => {
    proxy.fail({ fault: '429', method: 'POST' });
    await target.create('tag', bodyOf('tag', 1));
    const [first, second] = proxy.log.filter((l) => l.method === 'POST');
    expect(first.fate).toBe('429');
    expect(second.fate).toBe('forwarded');
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it('holds back every other request until Retry-After has passed, not only the one that got it', async () => {
    proxy.fail({ fault: '429', method: 'POST' });
    let answered!: () => void;
    const came = new Promise<void>((resolve) => (answered = resolve));
    const writer = targetAt(proxy.url, 30_000, () => answered());
    try {
      const first = writer.create('tag', bodyOf('tag', 2));
      await came; // the 429 has come back, and the writer is waiting out its Retry-After
      await Promise.all([first, writer.create('tag', bodyOf('tag', 3))]);
    } finally {
      await writer.close();
    }
    const posts = proxy.log.filter((l) => l.method === 'POST');
    expect(posts[0].fate).toBe('429');
    for (const later of posts.slice(1)) expect(later.at - posts[0].at).toBeGreaterThanOrEqual(950);
  });

  it('a 400 is not retried and surfaces its code and status', async () => {
    const err = await target
      .create('event', { ...bodyOf('event', 1), start_date: 'tomorrow 9am' })
      .catch((e) => e);
    expect(err).toMatchObject({
      name: 'WriteError',
      code: 'rest_invalid_param',
      status: 400,
      retryable: false,
    });
    expect(err.message).toContain('POST /calendar/events/v1/events');
    expect(err.message).toContain('400');
    expect(err.data?.params).toHaveProperty('start_date');
    expect(proxy.log.filter((l) => l.method === 'POST')).toHaveLength(1);
  });

  it('tells onRetry (the run log) what failed and how long it waits before each retry', async () => {
    const retries: { code: string; status: number; attempt: number; delayMs: number }[] = [];
    const logged = createTarget(
      createHttpTransport({
        url: proxy.url,
        auth: { type: 'basic', username: server.username, password: server.password },
      }),
      {
        namespace: 'calendar/events/v1',
        label: proxy.url,
        retries: { attempts: 4, baseMs: 5, capMs: 10 },
        onRetry: ({ error, attempt, delayMs }) =>
          retries.push({ code: error.code, status: error.status, attempt, delayMs }),
      },
    );
    try {
      proxy.fail({ fault: '502', method: 'POST' });
      proxy.fail({ fault: '429', method: 'POST' });
      await logged.create('tag', bodyOf('tag', 9));
      expect(retries).toEqual([
        { code: 'bad_response', status: 502, attempt: 1, delayMs: expect.any(Number) },
        { code: 'rest_too_many_requests', status: 429, attempt: 2, delayMs: 1000 },
      ]);
    } finally {
      await logged.close();
    }
  });

  it('gives up after the attempt limit with the last error', async () => {
    proxy.fail({ fault: '503', method: 'GET', times: 100 });
    await expect(target.get('event', 1)).rejects.toMatchObject({
      code: 'bad_response',
      status: 503,
      retryable: true,
    });
    expect(proxy.log).toHaveLength(6);
  });
});
