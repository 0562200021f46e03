/**
 * Issue 7 item 6 over a real loopback socket: every kind of answer — API JSON, the HTML 404, a
 * static file, errors from a route, from authentication, from the router and from Node's parser —
 * carries the security headers, and none names the server's software or version (the seed's service
 * sends `Server` and `X-Powered-By` with versions and no security headers).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP_DIRECTIVES } from '../../src/server/security/headers.ts';
import { type Harness, makeApp, NS } from './harness.ts';

/** The CSP of the brief, directive by directive (order and spacing do not change its meaning). */
const EXPECTED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

const directives = (csp: string) =>
  csp
    .split(';')
    .map((d) => d.trim().replace(/\s+/g, ' '))
    .filter(Boolean);

type Headers = Record<string, string | string[] | undefined>;

function expectSecurityHeaders(headers: Headers, what: string): void {
  expect(directives(String(headers['content-security-policy'])), what).toEqual(EXPECTED_CSP);
  expect(headers['x-frame-options'], what).toBe('DENY');
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(['no-referrer', 'strict-origin-when-cross-origin'], what).toContain(headers['referrer-policy']);
  expectNoLeaks(headers, what);
}

function expectNoLeaks(headers: Headers, what: string): void {
  expect(headers['x-powered-by'], what).toBeUndefined();
  expect(headers.server, what).toBeUndefined();
  // Plain http: RFC 6797 §8.1, and a proxy terminating TLS is the one to send it.
  expect(headers['strict-transport-security'], what).toBeUndefined();
  const all = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  expect(all, what).not.toMatch(/node|fastify|v\d+\.\d+\.\d+/i);
}

/** A raw HTTP/1.1 exchange, for requests undici refuses to send (oversized headers). */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (c) => (got += c));
    socket.on('close', () => resolve(got));
    socket.on('error', (err) => (got ? resolve(got) : reject(err)));
    socket.write(text);
  });
}

function parseRaw(response: string): { status: number; headers: Headers; body: string } {
  const [head, body = ''] = response.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Headers = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('security headers over a loopback socket', () => {
  let h: Harness;
  let origin: string;
  let port: number;
  let uploads: string;

  beforeAll(async () => {
    uploads = await mkdtemp(join(tmpdir(), 'calsync-headers-'));
    await writeFile(join(uploads, 'poster.txt'), 'a poster');
    h = await makeApp({ uploadsDir: uploads, limits: { maxHeaderBytes: 4096 } });
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(origin).port);
  });
  afterAll(async () => {
    await h.app.close();
    await rm(uploads, { recursive: true, force: true });
  });

  it('the exported directives are the policy sent', () => {
    expect(Object.entries(CSP_DIRECTIVES).map(([k, v]) => `${k} ${v.join(' ')}`)).toEqual(EXPECTED_CSP);
  });

  it('an API list answer has them, with the contract headers (Link, Vary, CORS expose) intact', async () => {
    const res = await request(`${origin}${NS}/events`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expectSecurityHeaders(res.headers, 'GET /events');
    expect(res.headers.link).toBe('<https://cal.example.org/api/>; rel="https://api.w.org/"');
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.headers['access-control-expose-headers']).toBe('X-TEC-Total, X-TEC-TotalPages, Link');
    expect(res.headers.allow).toBe('GET, POST');
    // Keep-alive with the stated timeout (5 s, config.ts DEFAULT_LIMITS).
    expect(res.headers['keep-alive']).toBe('timeout=5');
    await res.body.dump();
  });

  it('an authenticated write answer has them', async () => {
    const res = await request(`${origin}${NS}/events`, {
      method: 'POST',
      headers: { ...h.auth('editor'), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hdr', start_date: '2027-03-01 19:00', end_date: '2027-03-01 20:00' }),
    });
    expect(res.statusCode).toBe(201);
    expectSecurityHeaders(res.headers, 'POST /events');
    expect(res.headers['cache-control']).toBe('no-store');
    await res.body.dump();
  });

  it('the landing page, the docs page and their static assets have them', async () => {
    for (const path of ['/', '/docs/', '/docs/assets/site.css', '/docs/vendor/swagger-ui-bundle.js']) {
      const res = await request(`${origin}${path}`, { headers: { accept: 'text/html,*/*;q=0.8' } });
      expect(res.statusCode, path).toBe(200);
      expectSecurityHeaders(res.headers, path);
      await res.body.dump();
    }
  });

  it('the HTML 404 page and the JSON 404 have them', async () => {
    for (const accept of ['text/html,application/xhtml+xml,*/*;q=0.8', '*/*']) {
      const res = await request(`${origin}/no/such/page`, { headers: { accept } });
      expect(res.statusCode).toBe(404);
      expectSecurityHeaders(res.headers, `404 ${accept}`);
      await res.body.dump();
    }
  });

  it('a static file has them, and may be embedded by other sites (CORP cross-origin)', async () => {
    const res = await request(`${origin}/uploads/poster.txt`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('a poster');
    expectSecurityHeaders(res.headers, 'static');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    // Everything else stays same-origin.
    const api = await request(`${origin}${NS}/events`);
    expect(api.headers['cross-origin-resource-policy']).toBe('same-origin');
    await api.body.dump();
  });

  it('errors have them: 401 from authentication, 404 and 400 from routes, 405, 413, bad URL', async () => {
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      ['GET', `${NS}/events`, { authorization: 'Basic Ym9iOm5vcGU=' }, undefined, 401],
      ['GET', `${NS}/events/999999`, {}, undefined, 404],
      ['GET', `${NS}/events?page=0`, {}, undefined, 400],
      ['GET', '/api/oauth/token', {}, undefined, 405],
      [
        'POST',
        '/api/oauth/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'grant_type=x',
        400,
      ],
      [
        'POST',
        `${NS}/events`,
        { ...h.auth('editor'), 'content-type': 'application/json' },
        JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
        413,
      ],
      ['GET', '/%E0%A4%A', {}, undefined, 400],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const res = await request(`${origin}${path}`, { method: method as 'GET', headers, body });
      expect(res.statusCode, `${method} ${path}`).toBe(status);
      expectSecurityHeaders(res.headers, `${method} ${path}`);
      await res.body.dump();
    }
  });

  it("errors written by Node's parser (431 oversized headers) have them too", async () => {
    const raw = await rawExchange(
      port,
      `GET ${NS}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(8192)}\r\n\r\n`,
    );
    const res = parseRaw(raw);
    expect(res.status).toBe(431);
    expectSecurityHeaders(res.headers, '431');
    expect(JSON.parse(res.body)).toEqual({
      code: 'rest_headers_too_large',
      message: expect.any(String),
      data: { status: 431 },
    });
  });
});
