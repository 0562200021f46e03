/**
 * OAuth2 client credentials over HTTP (contract B.2; checklist T012–T014): the token endpoint's
 * answers and RFC 6749 §5.2 errors, and Bearer JWTs on the API — scopes, expiry, tampering,
 * revoked clients — on a real app and a real SQLite store, plus one round over a loopback socket.
 */
import { decodeJwt, SignJWT } from 'jose';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { createOAuthClient } from '../../../src/server/auth/oauth-clients.ts';
import { BASE, type Harness, makeApp, NOW, NS } from '../harness.ts';

const CHALLENGE = 'Basic realm="calsync", Bearer realm="calsync"';
const TOKEN_URL = '/api/oauth/token';
const JAZZ = { title: 'Jazz Night', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

let h: Harness;
let clock: Date;
beforeEach(async () => {
  clock = NOW;
  h = await makeApp({ now: () => clock });
});
afterEach(async () => {
  await h.app.close();
});

const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});

async function newClient(role: Role = 'editor') {
  const { record, secret } = await createOAuthClient(h.store, h.users[role], 'tests', '2026-11-21 12:00:00');
  return { id: record.client_id, secret };
}

/** `POST /oauth/token` with a form body. */
async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await h.app.inject({
    method: 'POST',
    url: TOKEN_URL,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
  return { status: res.statusCode, json: res.json(), headers: res.headers };
}

async function accessToken(role: Role = 'editor', scope?: string): Promise<string> {
  const c = await newClient(role);
  const res = await token(
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    basic(c.id, c.secret),
  );
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.access_token;
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

function expectInvalidToken(res: Awaited<ReturnType<Harness['call']>>) {
  expect(res.status).toBe(401);
  expect(res.json.code).toBe('invalid_token');
  expect(res.json.data.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe(`${CHALLENGE}, error="invalid_token"`);
}

describe('the token endpoint', () => {
  it('T012 client credentials by Basic get a Bearer token for an hour, never stored by caches', async () => {
    const c = await newClient();
    const res = await token({ grant_type: 'client_credentials' }, basic(c.id, c.secret));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read write',
    });
    const claims = decodeJwt(res.json.access_token);
    const iat = Math.floor(NOW.getTime() / 1000);
    expect(claims).toEqual({
      iss: BASE,
      aud: `${BASE}/calendar/events/v1`,
      sub: String(h.users.editor.id),
      client_id: c.id,
      scope: 'read write',
      iat,
      exp: iat + 3600,
      jti: expect.any(String),
    });
    // Each token has its own id.
    const again = await token({ grant_type: 'client_credentials' }, basic(c.id, c.secret));
    expect(decodeJwt(again.json.access_token).jti).not.toBe(claims.jti);
  });

  it('T013 a grant other than client_credentials is unsupported_grant_type; a wrong secret is invalid_client', async () => {
    const c = await newClient();
    const grant = await token(
      { grant_type: 'password', username: 'editor', password: 'x' },
      basic(c.id, c.secret),
    );
    expect(grant.status).toBe(400);
    expect(grant.json).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
    expect(grant.headers['cache-control']).toBe('no-store');

    const wrong = await token({ grant_type: 'client_credentials' }, basic(c.id, `${c.secret}x`));
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="calsync"');
    expect(wrong.headers['cache-control']).toBe('no-store');

    const unknown = await token({ grant_type: 'client_credentials' }, basic('cs_nobody', c.secret));
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toBe('invalid_client');
    const none = await token({ grant_type: 'client_credentials' });
    expect(none.status).toBe(401);
    expect(none.json.error).toBe('invalid_client');
  });

  it('client credentials in the body work like Basic; both at once is invalid_request', async () => {
    const c = await newClient('author');
    const res = await token({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.json.access_token).sub).toBe(String(h.users.author.id));
    const wrong = await token({ grant_type: 'client_credentials', client_id: c.id, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe('invalid_client');
    const both = await token(
      { grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret },
      basic(c.id, c.secret),
    );
    expect(both.status).toBe(400);
    expect(both.json.error).toBe('invalid_request');
  });

  it('accepts a JSON body too', async () => {
    const c = await newClient();
    const res = await h.app.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().token_type).toBe('Bearer');
    const broken = await h.app.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { 'content-type': 'application/json', ...basic(c.id, c.secret) },
      payload: '{"grant_type":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error).toBe('invalid_request');
  });

  it('scope defaults to read and write, may be narrowed, and an unknown scope is invalid_scope', async () => {
    const c = await newClient();
    const ask = (scope: string) => token({ grant_type: 'client_credentials', scope }, basic(c.id, c.secret));
    expect((await ask('')).json.scope).toBe('read write');
    expect((await ask('read')).json.scope).toBe('read');
    expect((await ask('write  read')).json.scope).toBe('read write');
    const bad = await ask('read admin');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_scope');
  });

  it('a missing grant_type is invalid_request', async () => {
    const c = await newClient();
    const res = await token({ scope: 'read' }, basic(c.id, c.secret));
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('a revoked client gets no token', async () => {
    const c = await newClient();
    await h.store.revokeOAuthClient(c.id);
    const res = await token({ grant_type: 'client_credentials' }, basic(c.id, c.secret));
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('invalid_client');
  });

  it('the OpenAPI document no longer calls the endpoint planned', async () => {
    const doc = await h.call('GET', '/doc');
    expect(doc.json.paths['/oauth/token'].post.description).not.toContain('Planned');
  });
});

describe('Bearer tokens on the API', () => {
  it('a token acts as its client’s user: it reads drafts and writes as that user', async () => {
    const t = await accessToken('author');
    const created = await h.call('POST', '/events', {
      headers: bearer(t),
      body: { ...JAZZ, status: 'draft' },
    });
    expect(created.status).toBe(201);
    expect(created.json.author).toBe(String(h.users.author.id));
    const drafts = await h.call('GET', '/events?status=draft', { headers: bearer(t) });
    expect(drafts.status).toBe(200);
    expect(drafts.json.events.map((e: { id: number }) => e.id)).toEqual([created.json.id]);
    expect(drafts.headers['cache-control']).toBe('no-store');
    // The role still rules: an author may not create tags.
    const tag = await h.call('POST', '/tags', { headers: bearer(t), body: { name: 'x' } });
    expect(tag.status).toBe(403);
    expect(tag.json.code).toBe('rest_forbidden');
  });

  it('T014 an expired or tampered token is invalid_token; a read token writing is insufficient_scope', async () => {
    const t = await accessToken('editor');
    // Expiry: an hour, with 60 s of leeway.
    clock = new Date(NOW.getTime() + (3600 + 59) * 1000);
    expect((await h.call('GET', '/events?status=draft', { headers: bearer(t) })).status).toBe(200);
    clock = new Date(NOW.getTime() + (3600 + 61) * 1000);
    expectInvalidToken(await h.call('GET', '/events', { headers: bearer(t) }));
    clock = NOW;

    // Tampered: a payload naming the administrator under the editor's signature.
    const [head, payload, sig] = t.split('.');
    const claims = { ...decodeJwt(t), sub: String(h.users.administrator.id) };
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    expectInvalidToken(await h.call('GET', '/events', { headers: bearer(forged) }));
    expectInvalidToken(
      // Its first character changed (the last two could already be "AA": the token would then be intact).
      await h.call('GET', '/events', {
        headers: bearer(`${head}.${payload}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`),
      }),
    );
    expectInvalidToken(await h.call('GET', '/events', { headers: bearer('not-a-jwt') }));

    const read = await accessToken('editor', 'read');
    expect((await h.call('GET', '/events?status=draft', { headers: bearer(read) })).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/events'],
      ['PUT', '/events/1'],
      ['PATCH', '/events/1'],
      ['DELETE', '/events/1'],
    ] as const) {
      const res = await h.call(method, path, { headers: bearer(read), body: JAZZ });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.code).toBe('insufficient_scope');
      expect(res.json.data.status).toBe(403);
    }
    expect((await h.call('GET', '/events', { as: 'administrator' })).json.total).toBe(0);
  });

  it('scopes follow the effective method: X-HTTP-Method-Override cannot turn a write token into a reader', async () => {
    const write = await accessToken('editor', 'write');
    const read = await accessToken('editor', 'read');
    const override = (t: string, method: string) => ({ ...bearer(t), 'x-http-method-override': method });
    const drafts = await h.call('POST', '/events?status=draft', { headers: override(write, 'GET') });
    expect(drafts.status).toBe(403);
    expect(drafts.json.code).toBe('insufficient_scope');
    expect(drafts.headers['www-authenticate']).toMatch(/scope="read"/);
    // The read token reads through the override, and cannot write through it either.
    expect((await h.call('POST', '/events?status=draft', { headers: override(read, 'GET') })).status).toBe(
      200,
    );
    const created = await h.call('POST', '/events', { headers: bearer(write), body: JAZZ });
    expect(created.status).toBe(201);
    const del = await h.call('POST', `/events/${created.json.id}`, { headers: override(read, 'DELETE') });
    expect(del.status).toBe(403);
    expect(del.json.code).toBe('insufficient_scope');
  });

  it('a token signed with another key, or for another audience or issuer, is invalid_token', async () => {
    const t = await accessToken('editor');
    const claims = decodeJwt(t);
    const sign = (key: Uint8Array, over: Record<string, unknown> = {}) =>
      new SignJWT({ ...claims, ...over }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expectInvalidToken(
      await h.call('GET', '/events', { headers: bearer(await sign(new Uint8Array(32).fill(7))) }),
    );
    const key = await h.store.signingKey('oauth-hs256', () => {
      throw new Error('the key exists once a token was issued');
    });
    // The real key signs fine: the checks below fail on their claim alone.
    expect((await h.call('GET', '/events', { headers: bearer(await sign(key)) })).status).toBe(200);
    expectInvalidToken(
      await h.call('GET', '/events', { headers: bearer(await sign(key, { aud: 'https://x' })) }),
    );
    expectInvalidToken(
      await h.call('GET', '/events', { headers: bearer(await sign(key, { iss: 'https://x' })) }),
    );
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${t.split('.')[1]}.`;
    expectInvalidToken(await h.call('GET', '/events', { headers: bearer(none) }));
  });

  it('revoking the client stops its tokens at once', async () => {
    const c = await newClient();
    const t = (await token({ grant_type: 'client_credentials' }, basic(c.id, c.secret))).json.access_token;
    expect((await h.call('GET', '/events', { headers: bearer(t) })).status).toBe(200);
    await h.store.revokeOAuthClient(c.id);
    expectInvalidToken(await h.call('GET', '/events', { headers: bearer(t) }));
  });

  it('Basic callers keep every scope, and a Bearer 401 names both schemes', async () => {
    expect((await h.call('POST', '/events', { as: 'editor', body: JAZZ })).status).toBe(201);
    const res = await h.call('GET', '/events', { headers: { authorization: 'Bearer' } });
    expectInvalidToken(res);
  });

  it('tokens survive a restart on the same file: the signing key is stored', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'calsync-oauth-'));
    try {
      const path = join(dir, 'calendar.db');
      const first = await makeApp({ path });
      const { record, secret } = await createOAuthClient(
        first.store,
        first.users.editor,
        'x',
        '2026-11-21 12:00:00',
      );
      const res = await first.app.inject({
        method: 'POST',
        url: TOKEN_URL,
        headers: basic(record.client_id, secret),
        payload: { grant_type: 'client_credentials' },
      });
      const t = res.json().access_token;
      await first.app.close();
      const second = await makeApp({ path });
      try {
        expect((await second.call('GET', '/events?status=draft', { headers: bearer(t) })).status).toBe(200);
      } finally {
        await second.app.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('over a loopback socket', () => {
  it('gets a token with a form POST and creates an event with it', async () => {
    const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const c = await newClient('editor');
    const res = await request(`${origin}${TOKEN_URL}`, {
      method: 'POST',
      headers: { ...basic(c.id, c.secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=read+write',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { access_token } = (await res.body.json()) as { access_token: string };
    const created = await request(`${origin}${NS}/events`, {
      method: 'POST',
      headers: { ...bearer(access_token), 'content-type': 'application/json' },
      body: JSON.stringify(JAZZ),
    });
    expect(created.statusCode).toBe(201);
    expect(((await created.body.json()) as { author: string }).author).toBe(String(h.users.editor.id));
  });
});
