/**
 * Kept GET answers (src/server/response-cache.ts): a kept answer is served only while the stored
 * data is unchanged — by this server or by another process on the same file — and never to
 * another caller, in another representation or on another site-local day.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/server/response-cache.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { eventRecord } from './fixtures.ts';
import { makeApp, NOW, NS } from './harness.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const event = (title: string) => ({
  title,
  start_date: '2026-12-01 19:00',
  end_date: '2026-12-01 21:00',
  status: 'publish',
});
const titles = (json: { events: { title: string }[] }) => json.events.map((e) => e.title);

describe('response cache', () => {
  it('a list read, then a create, then the same list shows the new event', async () => {
    const h = await makeApp();
    await h.created('/events', event('First'));
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['First']);
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['First']);
    await h.created('/events', event('Second'));
    const again = await h.call('GET', '/events');
    expect(titles(again.json)).toEqual(['First', 'Second']);
    expect(again.headers['x-tec-total']).toBe('2');
    await h.app.close();
  });

  it('a write by another process on the same file is seen by the next read', async () => {
    const path = join(root, 'shared.db');
    const h = await makeApp({ path });
    const other = openSqliteStore(path);
    await h.created('/events', event('Ours'));
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['Ours']);
    const single = await h.call('GET', '/events/by-slug/ours');
    expect(single.json.title).toBe('Ours');
    await other.updateEvent({ ...(await other.getEvent(single.json.id))!, title: 'Renamed elsewhere' });
    await other.insertEvent(
      eventRecord({
        title: 'Theirs',
        start_local: '2026-12-02 10:00:00',
        end_local: '2026-12-02 11:00:00',
        start_utc: '2026-12-02 10:00:00',
        end_utc: '2026-12-02 11:00:00',
      }),
    );
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['Renamed elsewhere', 'Theirs']);
    expect((await h.call('GET', '/events/by-slug/ours')).json.title).toBe('Renamed elsewhere');
    await other.close();
    await h.app.close();
  });

  it('answers are kept per caller and per representation; HEAD shares them without a body', async () => {
    const h = await makeApp();
    await h.created('/events', event('Public'));
    await h.created('/events', { ...event('Draft'), status: 'draft' });
    const anonymous = await h.call('GET', '/events');
    const admin = await h.call('GET', '/events?status=publish,draft', { as: 'administrator' });
    expect(titles(anonymous.json)).toEqual(['Public']);
    expect(titles(admin.json).sort()).toEqual(['Draft', 'Public']);
    // The same URL for anonymous: their status filter is not allowed to see drafts.
    const denied = await h.call('GET', '/events?status=publish,draft');
    expect(denied.status).not.toBe(200);
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['Public']);
    const xml = await h.call('GET', '/events', { headers: { accept: 'application/xml' } });
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    const json = await h.call('GET', '/events');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    const head = await h.call('HEAD', '/events');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-tec-total']).toBe('1');
    expect(head.headers.allow).toBe(json.headers.allow);
    expect(head.headers['content-length']).toBe(json.headers['content-length']);
    await h.app.close();
  });

  it('sends kept answers in the coding asked for, the same bytes as the identity answer, and varies on it', async () => {
    const h = await makeApp();
    for (let i = 0; i < 5; i++) await h.created('/events', event(`Concert number ${i}`));
    const url = `${NS}/events`;
    const get = (headers: Record<string, string>) => h.app.inject({ method: 'GET', url, headers });
    const identity = await get({});
    expect(identity.rawPayload.length).toBeGreaterThan(1024);
    expect(identity.headers['content-encoding']).toBeUndefined();
    const decode = { gzip: gunzipSync, br: brotliDecompressSync };
    for (const coding of ['gzip', 'br'] as const) {
      // The first is made on the way out of the handler, the second comes from the cache.
      for (const _ of [1, 2]) {
        const res = await get({ 'accept-encoding': `${coding}, identity;q=0.5` });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding']).toBe(coding);
        expect(res.headers.vary).toMatch(/Accept-Encoding/i);
        expect(res.headers.etag).toBe(identity.headers.etag);
        expect(res.headers['x-tec-total']).toBe('5');
        expect(decode[coding](res.rawPayload).equals(identity.rawPayload)).toBe(true);
      }
    }
    const notModified = await get({
      'accept-encoding': 'gzip',
      'if-none-match': String(identity.headers.etag),
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    // A write: the next answer is made again, and compressed again.
    await h.created('/events', event('Late addition'));
    const after = await get({ 'accept-encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(after.rawPayload).toString()).events).toHaveLength(6);
    // Small answers are sent as they are.
    const small = await h.app.inject({
      method: 'GET',
      url: `${NS}/categories`,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    await h.app.close();
  });

  it('the default window follows the site-local date', async () => {
    let now = NOW;
    const h = await makeApp({ now: () => now });
    await h.created('/events', {
      ...event('Soon'),
      start_date: '2026-11-22 10:00',
      end_date: '2026-11-22 11:00',
    });
    expect(titles((await h.call('GET', '/events')).json)).toEqual(['Soon']);
    // Two days later the event ended before the window's start (yesterday).
    now = new Date('2026-11-24T12:00:00Z');
    expect(titles((await h.call('GET', '/events')).json)).toEqual([]);
    await h.app.close();
  });

  it('keeps within its bounds, dropping the least recently used first', async () => {
    const cache = new ResponseCache({ maxEntries: 2, maxBytes: 400 });
    const entry = (n: number, tables = ['events']) => ({
      status: 200,
      headers: {},
      body: Buffer.alloc(n),
      since: 1,
      tables,
      coded: {},
      ready: {},
    });
    const fresh = async () => false;
    expect(await cache.get('a', fresh)).toBeUndefined();
    cache.set('a', entry(10));
    cache.set('b', entry(10));
    expect(await cache.get('a', fresh)).toBeDefined();
    cache.set('c', entry(10));
    expect(await cache.get('b', fresh)).toBeUndefined();
    expect(await cache.get('a', fresh)).toBeDefined();
    cache.set('big', entry(101));
    expect(await cache.get('big', fresh)).toBeUndefined();
    cache.set('d', entry(100));
    cache.set('e', entry(100, ['venues']));
    expect(cache.size).toBe(2);
    // A stale entry is dropped when looked up; the others stay.
    expect(await cache.get('e', async (e) => e.tables.includes('venues'))).toBeUndefined();
    expect(await cache.get('d', async (e) => e.tables.includes('venues'))).toBeDefined();
    expect(cache.size).toBe(1);
  });
});

describe('response cache, by what changed', () => {
  const venueEvent = (title: string, venue: string) => ({
    ...event(title),
    venue: { venue, city: 'Bremen' },
    categories: ['Music'],
  });

  it('an event create keeps the kept venue and organizer lists; the event and term lists are made again', async () => {
    const h = await makeApp();
    await h.created('/events', venueEvent('First', 'Town Hall'));
    const lists = ['/venues', '/organizers', '/categories', '/tags'];
    const first = await Promise.all(lists.map((path) => h.call('GET', path)));
    for (const res of first) expect(res.status).toBe(200);
    await h.call('GET', '/events');
    await h.created('/events', venueEvent('Second', 'Town Hall'));
    const hits = h.app.responseCache.hits;
    const again = await Promise.all(lists.map((path) => h.call('GET', path)));
    // Categories show their counts, which the create moved: the term lists (one table, tags too) are
    // made again; the venue and organizer lists are kept.
    expect(again[2].json.categories[0].count).toBe(2);
    expect(again.map((res) => res.body)).toEqual([
      first[0].body,
      first[1].body,
      again[2].body,
      first[3].body,
    ]);
    expect(h.app.responseCache.hits - hits).toBe(2);
    const events = await h.call('GET', '/events');
    expect(titles(events.json)).toEqual(['First', 'Second']);
    expect(h.app.responseCache.hits - hits).toBe(2);
    await h.app.close();
  });

  it('a create that adds a venue, and a rename of a venue or category, show in the lists at once', async () => {
    const h = await makeApp();
    const first = await h.created('/events', venueEvent('First', 'Town Hall'));
    const venues = async () =>
      (await h.call('GET', '/venues')).json.venues.map((v: { venue: string }) => v.venue);
    expect(await venues()).toEqual(['Town Hall']);
    await h.created('/events', venueEvent('Second', 'Old Mill'));
    expect((await venues()).sort()).toEqual(['Old Mill', 'Town Hall']);

    expect((await h.call('GET', '/events')).json.events[0].venue.venue).toBe('Town Hall');
    const renamed = await h.call('POST', `/venues/${first.venue.id}`, {
      as: 'administrator',
      body: { venue: 'New Hall' },
    });
    expect(renamed.status).toBe(200);
    expect((await h.call('GET', '/events')).json.events[0].venue.venue).toBe('New Hall');
    expect((await venues()).sort()).toEqual(['New Hall', 'Old Mill']);

    const category = first.categories[0].id;
    expect((await h.call('GET', '/events')).json.events[0].categories[0].name).toBe('Music');
    await h.call('POST', `/categories/${category}`, { as: 'administrator', body: { name: 'Jazz' } });
    expect((await h.call('GET', '/events')).json.events[0].categories[0].name).toBe('Jazz');
    await h.app.close();
  });

  it('over a loopback socket too: a venue list kept across event creates, fresh after a venue is added', async () => {
    const h = await makeApp();
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    // biome-ignore lint/suspicious/noExplicitAny: tests read deep into response documents.
    const get = async (path: string): Promise<any> =>
      (await fetch(`${origin}/api/calendar/events/v1${path}`)).json();
    const post = (body: unknown) =>
      fetch(`${origin}/api/calendar/events/v1/events`, {
        method: 'POST',
        headers: { ...h.auth('administrator'), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post(venueEvent('First', 'Town Hall'))).status).toBe(201);
    await get('/venues');
    const hits = h.app.responseCache.hits;
    await Promise.all([post(venueEvent('Second', 'Town Hall')), get('/events'), get('/venues')]);
    expect((await get('/venues')).venues).toHaveLength(1);
    expect(h.app.responseCache.hits - hits).toBeGreaterThanOrEqual(2);
    expect((await post(venueEvent('Third', 'Old Mill'))).status).toBe(201);
    expect((await get('/venues')).venues).toHaveLength(2);
    await h.app.close();
  });

  it('a kept anonymous answer over a socket carries the same headers as the answer that was kept', async () => {
    const h = await makeApp();
    await h.created('/events', event('First'));
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const read = async () => {
      const res = await fetch(`${origin}/api/calendar/events/v1/events`, {
        headers: { 'accept-encoding': 'identity' },
      });
      const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
      return { headers, body: await res.text() };
    };
    const first = await read();
    const hits = h.app.responseCache.hits;
    const kept = await read();
    expect(h.app.responseCache.hits).toBe(hits + 1);
    expect(kept).toEqual(first);
    expect(kept.headers['x-content-type-options']).toBe('nosniff');
    await h.app.close();
  });

  it('over a socket, a kept answer is sent before routing: the same bytes, never stale, 304s and callers left to the routes', async () => {
    const h = await makeApp();
    for (let i = 0; i < 3; i++) await h.created('/events', event(`Event ${i}`));
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const read = async (headers: Record<string, string> = {}) => {
      const res = await request(`${origin}${NS}/events`, { headers });
      const { date: _date, ...rest } = res.headers;
      return { status: res.statusCode, headers: rest, body: await res.body.text() };
    };
    const cache = h.app.responseCache;
    const made = await read(); // by the handler, and kept
    const hooked = await read(); // by the first hook, which marks the URL as routed to a kept answer
    expect(cache.earlyHits).toBe(0);
    const early = await read();
    expect(cache.earlyHits).toBe(1);
    expect(early).toEqual(hooked);
    expect(early).toEqual(made);

    // A write: the next read goes to the routes and shows it.
    await h.created('/events', event('Later'));
    const after = await read();
    expect(titles(JSON.parse(after.body))).toContain('Later');
    expect(cache.earlyHits).toBe(1);
    expect(await read()).toEqual(after);
    expect(cache.earlyHits).toBe(2);
    // A conditional GET is answered 304 by the hook, a caller by the routes.
    expect((await read({ 'if-none-match': String(after.headers.etag) })).status).toBe(304);
    const admin = await read(h.auth('administrator'));
    expect(admin.status).toBe(200);
    expect(cache.earlyHits).toBe(2);
    await h.app.close();
  });

  it('requests logged at info go through Fastify, which logs each one', async () => {
    const lines: string[] = [];
    const h = await makeApp({
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    await h.created('/events', event('Logged'));
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    for (let i = 0; i < 4; i++) expect((await request(`${origin}${NS}/events`)).statusCode).toBe(200);
    expect(h.app.responseCache.earlyHits).toBe(0);
    expect(
      lines.filter((line) => line.includes('request completed') && line.includes('"statusCode":200')),
    ).toHaveLength(4);
    await h.app.close();
  });

  it('kept coded answers over a socket: the same headers and bytes each time, in each coding', async () => {
    const h = await makeApp();
    for (let i = 0; i < 12; i++) await h.created('/events', event(`Event ${i} ${'x'.repeat(200)}`));
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const read = async (coding: string) => {
      // undici's request leaves the body as sent (fetch would decode it).
      const res = await request(`${origin}/api/calendar/events/v1/events?per_page=12`, {
        headers: { 'accept-encoding': coding },
      });
      const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => name !== 'date'));
      return { status: res.statusCode, headers, body: Buffer.from(await res.body.arrayBuffer()) };
    };
    const identity = await read('identity');
    for (const coding of ['gzip', 'br']) {
      // The first is coded on the way out; the later ones are sent as kept.
      const answers = [await read(coding), await read(coding), await read(coding)];
      expect(answers[0].headers['content-encoding']).toBe(coding);
      const plain = coding === 'gzip' ? gunzipSync(answers[0].body) : brotliDecompressSync(answers[0].body);
      expect(plain).toEqual(identity.body);
      for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
      const { 'content-encoding': _c, 'content-length': _l, ...rest } = answers[0].headers;
      const { 'content-length': _il, ...identityRest } = identity.headers;
      expect(rest).toEqual(identityRest);
    }
    expect(await read('identity')).toEqual(identity);
    await h.app.close();
  });
});
