/**
 * The HTTP target against a site that behaves like The Events Calendar 6.2.6 (test/helpers/tec-site.ts: our
 * real server behind a loopback fixture reproducing contract part C): the same Target contract as against
 * our own server, and, first, proof that the fixture really does what real sites do — otherwise the
 * contract passing against it would prove nothing.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpTransport, createTarget, type Target } from '../../src/writer/index.ts';
import { startTecSite, TEC_NAMESPACE, type TecSite } from '../helpers/tec-site.ts';
import { targetContract } from './contract.ts';
import { bodyOf, type LoopbackServer, startServer, tempDir } from './setup.ts';

const FAST = { attempts: 3, baseMs: 5, capMs: 20 };

async function build() {
  const tmp = await tempDir();
  const server = await startServer(join(tmp.dir, 'calendar.db'));
  const site = await startTecSite(server.url);
  const transport = createHttpTransport({
    url: site.url,
    auth: { type: 'basic', username: server.username, password: server.password },
  });
  const target = createTarget(transport, {
    namespace: TEC_NAMESPACE,
    label: site.url,
    concurrency: 4,
    retries: FAST,
  });
  return { tmp, server, site, target };
}

targetContract('the HTTP target on a TEC-like site', async () => {
  const { tmp, server, site, target } = await build();
  return {
    target,
    async dispose() {
      await target.close();
      await site.close();
      await server.close();
      await tmp.remove();
    },
  };
});

describe('the TEC-like site fixture reproduces contract part C', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: LoopbackServer;
  let site: TecSite;
  let target: Target;
  /** Raw requests to the site, as a client that knows nothing of part C would send them. */
  let raw: (
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; doc: Record<string, unknown> }>;

  beforeEach(async () => {
    ({ tmp, server, site, target } = await build());
    const auth = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
    raw = async (method, path, body) => {
      const res = await fetch(`${site.url}/${TEC_NAMESPACE}${path}`, {
        method,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, doc: (await res.json()) as Record<string, unknown> };
    };
  });
  afterEach(async () => {
    await target.close();
    await site.close();
    await server.close();
    await tmp.remove();
  });

  it('an event update that leaves out fields resets them and unlinks the organizers (C.4)', async () => {
    const organizer = await target.create('organizer', bodyOf('organizer', 1));
    const event = await target.create(
      'event',
      bodyOf('event', 1, { organizer: [organizer.id], featured: true }),
    );
    const { status, doc } = await raw('POST', `/events/${event.id}`, { title: 'Renamed' });
    expect(status).toBe(200);
    expect(doc).toMatchObject({ title: 'Renamed', timezone: 'UTC', featured: false, organizer: [] });
    // C.5: a website equal to the permalink means unset.
    expect(doc.website).toBe(doc.url);
  });

  it('unknown ids and slugs answer 400 rest_invalid_param, not 404 (C.15)', async () => {
    for (const path of ['/events/999999', '/venues/999999', '/organizers/by-slug/nobody']) {
      const { status, doc } = await raw('GET', path);
      expect(status, path).toBe(400);
      expect(doc.code).toBe('rest_invalid_param');
    }
  });

  it('creating a venue with an existing name overwrites that venue (C.10)', async () => {
    const first = await target.create('venue', bodyOf('venue', 1));
    const { status, doc } = await raw('POST', '/venues', { venue: 'venue 1', city: 'Shelbyville' });
    expect(status).toBe(201);
    expect(doc.id).toBe(first.id);
    expect(doc.city).toBe('Shelbyville');
  });

  it('venue show_map as a JSON boolean is refused (C.9), and DELETE with force only trashes (C.16)', async () => {
    expect((await raw('POST', '/venues', { venue: 'Boolean Hall', show_map: true })).status).toBe(400);
    const event = await target.create('event', bodyOf('event', 2));
    const deleted = await raw('DELETE', `/events/${event.id}?force=true`);
    expect(deleted.doc.status).toBe('trash');
    expect((await raw('DELETE', `/events/${event.id}?force=true`)).status).toBe(410);
  });

  it('lists give at most 50 a page, 404 past the end, and only upcoming events without dates (C.12, C.13)', async () => {
    for (let i = 0; i < 52; i++) {
      await target.create('event', {
        ...bodyOf('event', i),
        // Two in the past: outside the default window.
        ...(i < 2 ? { start_date: '2001-01-01 10:00:00', end_date: '2001-01-01 11:00:00' } : {}),
      });
    }
    const page = await raw('GET', '/events?per_page=100');
    expect(page.doc.events).toHaveLength(50);
    expect(page.doc.total).toBe(50);
    const past = await raw('GET', '/events?per_page=50&page=3');
    expect(past).toMatchObject({ status: 404, doc: { code: 'event-archive-page-not-found' } });
    // The writer's list passes an explicit wide window and sees all 52.
    let n = 0;
    for await (const _ of target.list('event')) n++;
    expect(n).toBe(52);
  });
});
