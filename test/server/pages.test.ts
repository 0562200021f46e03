/**
 * The landing page, the docs page, the Postman collection and their static files (issue 7, items 1
 * and 2), on a real app over a real SQLite store. The browser side (rendering, "Try it out", CSP) is in
 * test/browser/pages.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { landingPage } from '../../src/server/pages/landing.ts';
import { BASE, type Harness, makeApp, NOW } from './harness.ts';

const API = '/api/calendar/events/v1/';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'GET', url, headers });

/** `href`s of the page's links, by their `id`. */
function linksById(body: string): Record<string, string> {
  return Object.fromEntries(
    [...body.matchAll(/<a href="([^"]*)" id="([^"]*)"/g)].map(([, href, id]) => [id, href]),
  );
}

describe('the landing page', () => {
  it('is HTML that names the API root, the four data formats and both kinds of authentication', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    for (const text of ['JSON', 'XML', 'iCalendar', 'CSV', 'application/xml', 'text/calendar', 'text/csv'])
      expect(res.body).toContain(text);
    expect(res.body).toContain('application password');
    expect(res.body).toContain('grant_type=client_credentials');
    expect(res.body).toContain(`${BASE}/oauth/token`);
    expect(res.body).toContain('authorization: Bearer $ACCESS_TOKEN');
    expect(res.body).not.toContain('<script');
  });

  it('links the API root, the docs, the OpenAPI document, the Postman collection and the feed', async () => {
    const links = linksById((await get('/')).body);
    expect(links).toEqual({
      'api-root': API,
      docs: '/docs/',
      openapi: `${API}doc`,
      postman: '/docs/postman.json',
      feed: '/feeds/all.ics',
    });
    for (const href of Object.values(links)) {
      expect((await get(href)).statusCode, href).toBe(200);
    }
  });

  it('shows no demo banner outside demo mode', async () => {
    expect((await get('/')).body).not.toContain('demo-banner');
  });

  it('escapes what it interpolates, so a configured URL cannot inject markup', () => {
    const evil = 'https://cal.example.org/"><script>alert(1)</script>/';
    const body = landingPage({
      apiPath: evil,
      apiUrl: evil,
      tokenPath: evil,
      tokenUrl: evil,
      openApiPath: evil,
      now: NOW,
    });
    expect(body).not.toContain('<script>');
    expect(body).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('demo mode banner', () => {
  it('counts down to the next reset on the landing and docs pages', async () => {
    const demo = await makeApp({ demo: { nextReset: () => new Date('2026-11-22T00:00:00Z') } });
    try {
      for (const url of ['/', '/docs/']) {
        const body = (await demo.app.inject({ url })).body;
        expect(body, url).toContain('every day at 00:00 UTC');
        // The harness clock says 2026-11-21 12:00 UTC.
        expect(body, url).toContain('Next reset in 12 h 0 min');
        expect(body, url).toContain('<time datetime="2026-11-22T00:00:00.000Z">2026-11-22 00:00 UTC</time>');
      }
    } finally {
      await demo.app.close();
    }
  });
});

describe('the docs page', () => {
  it('loads Swagger UI and its initializer from this server, with no inline script', async () => {
    const res = await get('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    const scripts = [...res.body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attrs]) => attrs.match(/src="([^"?]*)/)?.[1])).toEqual([
      '/docs/vendor/swagger-ui-bundle.js',
      '/docs/assets/docs.js',
    ]);
    for (const [, , inline] of scripts) expect(inline).toBe('');
    expect(res.body).toContain(`data-openapi="${API}doc"`);
    expect(res.body).toContain(`data-api="${API}"`);
    expect(res.body).toContain('data-token="/api/oauth/token"');
    expect(res.body).not.toMatch(/(src|href)="https?:/);
  });

  it('answers /docs with a redirect to /docs/, so relative links resolve below it', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });

  it.each([
    ['/docs/vendor/swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
    ['/docs/vendor/swagger-ui.css', 'text/css; charset=utf-8'],
    ['/docs/assets/docs.js', 'application/javascript; charset=utf-8'],
    ['/docs/assets/site.css', 'text/css; charset=utf-8'],
  ])(
    'serves %s with ETag, Last-Modified and Accept-Ranges, 304 when unchanged, 206 for a range',
    async (url, type) => {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers.etag).toEqual(expect.any(String));
      expect(new Date(String(res.headers['last-modified'])).getTime()).toBeGreaterThan(0);
      expect(res.headers['accept-ranges']).toBe('bytes');
      const again = await get(url, { 'if-none-match': String(res.headers.etag) });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      const part = await get(url, { range: 'bytes=0-9' });
      expect(part.statusCode).toBe(206);
      expect(part.body).toBe(res.body.slice(0, 10));
    },
  );

  it('serves none of swagger-ui-dist but the files the page loads (not its Petstore initializer)', async () => {
    for (const url of [
      '/docs/vendor/swagger-initializer.js',
      '/docs/vendor/index.html',
      '/docs/vendor/package.json',
    ]) {
      const res = await get(url, { accept: 'application/json' });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('petstore');
    }
  });
});

describe('the Postman collection', () => {
  it('has one request per OpenAPI operation, in a folder per tag, against the API root', async () => {
    const doc = (await h.call('GET', '/doc')).json;
    const res = await get('/docs/postman.json');
    expect(res.statusCode).toBe(200);
    const collection = res.json();
    expect(collection.info.schema).toBe(
      'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    );
    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((k) => k !== 'servers' && k !== 'parameters'),
    );
    const requests = collection.item.flatMap((folder: { item: unknown[] }) => folder.item);
    expect(requests).toHaveLength(operations.length);
    expect(collection.item.map((f: { name: string }) => f.name)).toEqual(
      doc.tags.map((t: { name: string }) => t.name),
    );
    const variables = Object.fromEntries(
      collection.variable.map((v: { key: string; value: string }) => [v.key, v.value]),
    );
    expect(variables.baseUrl).toBe(`${BASE}/calendar/events/v1`);
    expect(variables.siteUrl).toBe(BASE);
  });

  it('turns path parameters into variables and lists query parameters disabled', async () => {
    const collection = (await get('/docs/postman.json')).json();
    const requests = collection.item.flatMap((f: { item: unknown[] }) => f.item);
    // biome-ignore lint/suspicious/noExplicitAny: a walk over the collection
    const byName = (name: string): any => requests.find((r: { name: string }) => r.name === name);
    const one = requests.find(
      (r: { request: { method: string; url: { raw: string } } }) =>
        r.request.method === 'GET' && r.request.url.raw === '{{baseUrl}}/events/:id',
    );
    expect(one.request.url.variable.map((v: { key: string }) => v.key)).toEqual(['id']);
    const list = requests.find(
      (r: { request: { method: string; url: { raw: string } } }) =>
        r.request.method === 'GET' && r.request.url.raw === '{{baseUrl}}/events',
    );
    expect(list.request.url.query.find((q: { key: string }) => q.key === 'per_page')).toMatchObject({
      disabled: true,
    });
    const create = requests.find(
      (r: { request: { method: string; url: { raw: string } } }) =>
        r.request.method === 'POST' && r.request.url.raw === '{{baseUrl}}/events',
    );
    expect(JSON.parse(create.request.body.raw)).toEqual({ title: '', start_date: '', end_date: '' });
    expect(byName('Get an access token').request).toMatchObject({
      method: 'POST',
      url: { raw: '{{siteUrl}}/oauth/token' },
      auth: { type: 'basic' },
      body: { mode: 'urlencoded', urlencoded: [{ key: 'grant_type', value: 'client_credentials' }] },
    });
  });

  it('stores the token it gets and sends it as the Bearer token of every other request', async () => {
    const collection = (await get('/docs/postman.json')).json();
    expect(collection.auth).toEqual({
      type: 'bearer',
      bearer: [{ key: 'token', value: '{{accessToken}}', type: 'string' }],
    });
    const token = collection.item
      .flatMap((f: { item: unknown[] }) => f.item)
      .find((r: { name: string }) => r.name === 'Get an access token');
    expect(token.event[0].script.exec.join('\n')).toContain('pm.collectionVariables.set("accessToken"');
  });
});
