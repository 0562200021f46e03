/**
 * The in-process caller (src/server/in-process.ts), the local import target's write path, answers exactly
 * as the app does over HTTP: the same requests sent to identical stores — one through `inProcessApi`'s
 * caller, built without Fastify, one through the app (`app.inject`) — give the same status, body and headers, for
 * creates, updates and deletes and for the rules the server enforces (validation with its code and
 * field, permissions, slug uniqueness, term names, unknown ids, broken JSON).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../src/model/index.ts';
import { buildApp } from '../../src/server/app.ts';
import {
  type InProcessApi,
  type InProcessCaller,
  type InProcessRequest,
  inProcessApi,
  isJsonData,
} from '../../src/server/in-process.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { BASE, type Harness, makeApp, NOW, NS, SITE } from './harness.ts';

/** `Local <login>`: the caller is that user, as the local target's scheme makes its own user the caller. */
const localSchemes = (store: Store) => ({
  local: async (login: string) => (await store.findUser(login)) ?? null,
});

/** As makeApp builds its app (harness.ts). */
const options = (store: Store) => ({
  siteUrl: SITE,
  apiBase: BASE,
  now: () => NOW,
  authThrottle: false as const,
  store,
  schemes: localSchemes(store),
});

async function localApp(): Promise<Harness> {
  const store: Store = openSqliteStore(':memory:');
  return makeApp({ store, schemes: localSchemes(store) });
}

const EVENT = { title: 'Concert', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

/** Headers a client could act on; the security headers of HTTP answers are not part of the in-process answer. */
const COMPARED = [
  'content-type',
  'location',
  'allow',
  'www-authenticate',
  'link',
  'cache-control',
  'retry-after',
  'x-tec-total',
  'x-tec-totalpages',
];

function request(
  method: InProcessRequest['method'],
  path: string,
  opts: { as?: Role; body?: unknown; payload?: string } = {},
): InProcessRequest {
  const headers: Record<string, string> = {};
  if (opts.as) headers.authorization = `Local ${opts.as}`;
  const payload = opts.payload ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return { method, url: `${NS}${path}`, headers, payload };
}

/** The store and users of `direct`; its app is not asked: the caller is built over its store alone. */
let direct: Harness;
let http: Harness;
let api: InProcessApi;
let inProcess: InProcessCaller;
beforeEach(async () => {
  [direct, http] = await Promise.all([localApp(), localApp()]);
  api = await inProcessApi(options(direct.store));
  inProcess = api.call;
});
afterEach(async () => {
  await Promise.all([direct.app.close(), http.app.close()]);
});

/** Sends `req` both ways; expects the same answer and returns it (body parsed). */
async function both(req: InProcessRequest) {
  const a = await inProcess(req);
  expect(a, `${req.method} ${req.url} taken in-process`).not.toBeNull();
  const b = await http.app.inject({
    method: req.method,
    url: req.url,
    headers: req.headers,
    payload: req.payload,
  });
  const pick = (h: Record<string, unknown>) =>
    Object.fromEntries(
      COMPARED.filter((k) => h[k] !== undefined).map((k) => [k, String(h[k]).toLowerCase()]),
    );
  expect({ status: a!.status, body: a!.body.toString(), headers: pick(a!.headers) }).toEqual({
    status: b.statusCode,
    body: b.body,
    headers: pick(b.headers),
  });
  // A document answer (taken by the local target instead of its text) reads as the text parses.
  if (a!.json !== undefined) expect(a!.json).toStrictEqual(JSON.parse(b.body));
  return { status: a!.status, json: JSON.parse(a!.body.toString()), document: a!.json !== undefined };
}

describe('the in-process caller answers as the server over HTTP', () => {
  it('creates, updates and deletes events, venues, organizers and terms alike', async () => {
    const venue = await both(
      request('POST', '/venues', { as: 'administrator', body: { venue: 'Pier 7', city: 'Oslo' } }),
    );
    expect(venue.status).toBe(201);
    const organizer = await both(request('POST', '/organizers', { as: 'editor', body: { organizer: 'Jo' } }));
    const category = await both(
      request('POST', '/categories', { as: 'administrator', body: { name: 'Music' } }),
    );
    const event = await both(
      request('POST', '/events', {
        as: 'administrator',
        body: {
          ...EVENT,
          description: '<p>Live</p><script>x()</script>',
          venue: venue.json.id,
          organizer: [organizer.json.id],
          categories: [category.json.id],
          tags: ['jazz', 'outdoor'],
          cost: '10-20',
        },
      }),
    );
    expect(event.status).toBe(201);
    expect(event.document).toBe(true);
    const id = event.json.id;
    expect(
      (await both(request('POST', `/events/${id}`, { as: 'editor', body: { title: 'Renamed' } }))).json.title,
    ).toBe('Renamed');
    await both(request('PUT', `/events/by-slug/concert`, { as: 'administrator', body: { featured: true } }));
    await both(request('DELETE', `/events/${id}`, { as: 'administrator' }));
    expect((await both(request('DELETE', `/events/${id}`, { as: 'administrator' }))).json.code).toBe(
      'event-is-in-trash',
    );
    await both(request('DELETE', `/venues/${venue.json.id}?force=true`, { as: 'administrator' }));
  });

  it('reads lists, items and errors alike, with queries, by any caller', async () => {
    const venue = await both(request('POST', '/venues', { as: 'administrator', body: { venue: 'Pier 7' } }));
    for (const [title, status] of [
      ['Concert', 'publish'],
      ['Draft night', 'draft'],
      ['Jazz & more', 'publish'],
    ])
      await both(
        request('POST', '/events', {
          as: 'administrator',
          body: { ...EVENT, title, status, venue: venue.json.id, categories: ['Music'], tags: ['jazz'] },
        }),
      );
    const reads = [
      '/events',
      '/events?per_page=1&page=2',
      '/events?status=draft',
      '/events?search=jazz',
      '/events?start_date=2027-01-01&end_date=2027-12-31&categories=music',
      '/events/by-slug/concert',
      '/events/99999',
      '/venues?per_page=50&page=1',
      '/organizers',
      '/categories?hide_empty=false',
      '/tags?search=ja',
      '/events?per_page=abc',
    ];
    for (const path of reads) {
      await both(request('GET', path, { as: 'administrator' }));
      await both(request('GET', path));
    }
  });

  it('validation errors carry the same code and field', async () => {
    const missing = await both(
      request('POST', '/events', { as: 'administrator', body: { title: 'No dates' } }),
    );
    expect(missing.status).toBe(400);
    expect(missing.json.code).toBe('rest_missing_callback_param');
    const invalid = await both(
      request('POST', '/events', { as: 'administrator', body: { ...EVENT, start_date: 'tomorrow-ish' } }),
    );
    expect(invalid.json.code).toBe('rest_invalid_param');
    expect(Object.keys(invalid.json.data.params)).toContain('start_date');
    const venue = await both(
      request('POST', '/events', { as: 'administrator', body: { ...EVENT, venue: 99999 } }),
    );
    expect(venue.json.data.params).toHaveProperty('venue');
    const json = await both(
      request('POST', '/events', { as: 'administrator', payload: '{"title": "broken' }),
    );
    expect(json.json.code).toBe('rest_invalid_json');
  });

  it('permissions: anonymous, subscriber, contributor setting another author, editing a missing id', async () => {
    expect((await both(request('POST', '/events', { body: EVENT }))).status).toBe(401);
    expect((await both(request('POST', '/events', { as: 'subscriber', body: EVENT }))).status).toBe(403);
    const admin = await direct.store.findUser('administrator');
    const other = await both(
      request('POST', '/events', { as: 'contributor', body: { ...EVENT, author: admin!.id } }),
    );
    expect(other.status).toBe(403);
    expect((await both(request('POST', '/events/424242', { as: 'administrator', body: EVENT }))).status).toBe(
      404,
    );
    expect((await both(request('POST', '/tags', { as: 'author', body: { name: 'new' } }))).status).toBe(403);
  });

  it('slugs stay unique and term names are create-or-find', async () => {
    const slugs: string[] = [];
    for (let i = 0; i < 3; i++)
      slugs.push(
        (await both(request('POST', '/events', { as: 'administrator', body: { ...EVENT, slug: 'gig' } })))
          .json.slug,
      );
    expect(slugs).toEqual(['gig', 'gig-2', 'gig-3']);
    await both(request('POST', '/tags', { as: 'administrator', body: { name: 'Jazz' } }));
    const again = await both(request('POST', '/tags', { as: 'administrator', body: { name: 'Jazz' } }));
    expect(again.json.code).toBe('term_exists');
  });
});

describe('what the in-process caller leaves to Fastify', () => {
  it('network credentials, other headers and unknown paths are not taken', async () => {
    expect(
      await inProcess({
        ...request('POST', '/events', { body: EVENT }),
        headers: { ...direct.auth('administrator'), 'content-type': 'application/json' },
      }),
    ).toBeNull();
    expect(
      await inProcess({
        ...request('POST', '/events', { as: 'administrator', body: EVENT }),
        headers: {
          authorization: 'Local administrator',
          'content-type': 'application/json',
          origin: 'https://evil.example',
        },
      }),
    ).toBeNull();
    expect(await inProcess(request('POST', '/nowhere', { as: 'administrator', body: EVENT }))).toBeNull();
  });
});

describe("the app built over the caller's core, as the local target builds it for what the caller leaves", () => {
  it('shares its password gate and settings and reads what the caller wrote', async () => {
    const created = await both(request('POST', '/events', { as: 'administrator', body: EVENT }));
    const app = await buildApp(options(direct.store), api.core);
    try {
      expect(app.credentials).toBe(api.core.credentials);
      expect(app.config).toBe(api.core.config);
      const res = await app.inject({
        method: 'GET',
        url: `${NS}/events/${created.json.id}`,
        headers: { authorization: 'Local administrator' },
      });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ id: created.json.id, title: 'Concert' });
      // The same route declares the same Allow on both ways.
      expect(res.headers.allow).toBe(
        (await inProcess(request('DELETE', `/events/${created.json.id}`, { as: 'administrator' })))!.headers
          .allow,
      );
    } finally {
      // Not app.close(): it closes the store, which the harness's app closes after the test.
      await app.close().catch(() => undefined);
    }
  });
});

describe('isJsonData: what a document answer may be, to read as its text parses', () => {
  it('takes plain JSON data and refuses what JSON.stringify would change', () => {
    expect(isJsonData({ a: [1, 'x', true, null, { b: -1.5 }], c: {} })).toBe(true);
    class Item {
      id = 1;
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const refused = [
      { a: undefined },
      new Array(2),
      { n: Number.NaN },
      { n: -0 },
      { n: Number.POSITIVE_INFINITY },
      { d: new Date(0) },
      new Item(),
      { f: () => 1 },
      { big: 1n },
      cycle,
    ];
    for (const [i, value] of refused.entries()) expect(isJsonData(value), `refused[${i}]`).toBe(false);
  });
});
