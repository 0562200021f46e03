/**
 * Issue 7 item 5 over a real loopback socket: unknown paths give browsers an HTML "Page Not Found"
 * with a link home and API clients the JSON error; inside the API namespace everything stays the
 * JSON 404 `rest_no_route` (contract B.0, T006); a known route asked with a wrong method outside the
 * namespace is a 405 listing the route's methods in `Allow`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorPage, prefersHtml } from '../../src/server/error-pages.ts';
import { type Harness, makeApp, NS } from './harness.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

describe('answers for paths and methods without a route', () => {
  let h: Harness;
  let origin: string;
  let uploads: string;

  beforeAll(async () => {
    uploads = await mkdtemp(join(tmpdir(), 'calsync-errors-'));
    await writeFile(join(uploads, 'a.txt'), 'a');
    // The harness mounts the API under /api, as WordPress does under /wp-json.
    h = await makeApp({ uploadsDir: uploads });
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h.app.close();
    await rm(uploads, { recursive: true, force: true });
  });

  async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
    const res = await request(`${origin}${path}`, { method: method as 'GET', headers });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }

  it('a browser asking for an unknown page gets the HTML "Page Not Found" page with a link home', async () => {
    for (const path of ['/robots.txt', '/docs/{{template}}/x', '/no/such/page?x=1', '/uploads/missing.png']) {
      const res = await get(path, { accept: BROWSER });
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=UTF-8');
      expect(res.body, path).toContain('<title>Page Not Found</title>');
      expect(res.body, path).toMatch(/<a href="\/">[^<]+<\/a>/);
    }
  });

  it('an API client asking for the same paths gets the JSON rest_no_route', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await get('/no/such/page', accept ? { accept } : {});
      expect(res.status, accept).toBe(404);
      expect(res.headers['content-type'], accept).toBe('application/json; charset=UTF-8');
      expect(JSON.parse(res.body)).toEqual({
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      });
    }
  });

  it('inside the API prefix and namespace it is always JSON rest_no_route, browsers included (T006)', async () => {
    for (const [method, path] of [
      ['GET', `${NS}/nope`],
      ['DELETE', `${NS}/events`],
      ['GET', `${NS}/events/abc`],
      ['PUT', NS],
      ['GET', '/api/wp/v2/posts'],
    ]) {
      const res = await get(path, { accept: BROWSER }, method);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(JSON.parse(res.body).code).toBe('rest_no_route');
      expect(res.headers.allow, `${method} ${path}`).toBeUndefined();
    }
  });

  it('a wrong method on a known route outside the namespace is a 405 with Allow', async () => {
    const token = await get('/api/oauth/token');
    expect(token.status).toBe(405);
    expect(token.headers.allow).toBe('POST');
    expect(JSON.parse(token.body)).toMatchObject({ code: 'rest_method_not_allowed', data: { status: 405 } });

    const upload = await get('/uploads/a.txt', { accept: BROWSER }, 'DELETE');
    expect(upload.status).toBe(405);
    expect(upload.headers.allow).toBe('GET, HEAD');
    expect(upload.body).toContain('<title>Method Not Allowed</title>');

    // HEAD is answered like GET: a 405 with no body.
    const head = await get('/api/oauth/token', {}, 'HEAD');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('POST');
    expect(head.body).toBe('');
  });

  it('the right method on the same routes still works', async () => {
    expect((await get('/uploads/a.txt')).body).toBe('a');
    const token = await get('/api/oauth/token', {}, 'POST');
    expect(token.status).toBe(400);
    expect(JSON.parse(token.body).error).toBe('invalid_request');
  });
});

describe('prefersHtml', () => {
  it.each([
    [BROWSER, true],
    ['text/html', true],
    ['application/xhtml+xml', true],
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/html;q=0.9', false],
    ['text/html;q=0, */*', false],
    ['text/html, application/json', true],
  ])('Accept %j → %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('errorPage', () => {
  it('escapes what it writes into the page', () => {
    const page = errorPage(404, 'A <b> & "c"', 'x<script>', '/home"><script>');
    expect(page).toContain('<title>A &lt;b&gt; &amp; &quot;c&quot;</title>');
    expect(page).not.toContain('<script>');
    expect(page).toContain('href="/home&quot;&gt;&lt;script&gt;"');
  });
});
