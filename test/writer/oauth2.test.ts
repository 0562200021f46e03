/**
 * The writer with OAuth 2 client credentials against our real server's `POST /oauth/token` (contract B.2)
 * on a loopback port: one token for many requests, renewed before it expires, fetched again once when the
 * API refuses it, and a wrong secret that fails clearly without hammering the token endpoint.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpTransport, createTarget, createTokenSource, type Target } from '../../src/writer/index.ts';
import { addOAuthClient, bodyOf, type LoopbackServer, startServer, tempDir } from './setup.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let server: LoopbackServer;
/** The server's clock: tests move it forward to expire the tokens it issued. */
let serverNow: number;
/** Requests that reached the token endpoint, and the statuses the API answered the others with. */
let tokenRequests: number;
let statuses: number[];

beforeEach(async () => {
  tmp = await tempDir();
  serverNow = Date.now();
  server = await startServer(join(tmp.dir, 'calendar.db'), { now: () => new Date(serverNow) });
  tokenRequests = 0;
  statuses = [];
  server.app.server.on('request', (req, res) => {
    res.on('finish', () => {
      if (req.url?.startsWith('/oauth/token')) tokenRequests++;
      else statuses.push(res.statusCode);
    });
  });
});
afterEach(async () => {
  await server.close();
  await tmp.remove();
});

function oauthTarget(clientId: string, clientSecret: string, scope?: string): Target {
  const transport = createHttpTransport({
    url: server.url,
    auth: { type: 'oauth2', tokenUrl: `${server.url}/oauth/token`, clientId, clientSecret, scope },
  });
  return createTarget(transport, {
    namespace: 'calendar/events/v1',
    label: server.url,
    concurrency: 4,
    retries: { attempts: 3, baseMs: 5, capMs: 20 },
  });
}

describe('a target with OAuth 2 client credentials', () => {
  it('fetches one token and writes with it, even with requests in flight together', async () => {
    const { clientId, secret } = await addOAuthClient(server);
    const target = oauthTarget(clientId, secret);
    try {
      const tags = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => target.create('tag', bodyOf('tag', n))));
      expect(new Set(tags.map((t) => t.id)).size).toBe(6);
      const event = await target.create('event', { ...bodyOf('event', 1), status: 'draft' });
      // A draft is readable only with credentials: the token is sent on reads too.
      expect((await target.get('event', event.id))?.status).toBe('draft');
      expect(tokenRequests).toBe(1);
      expect(statuses.every((s) => s < 300)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('fetches a fresh token and resends once when the API answers 401 to the one it holds', async () => {
    const { clientId, secret } = await addOAuthClient(server);
    const target = oauthTarget(clientId, secret);
    try {
      await target.create('tag', bodyOf('tag', 1));
      // Two hours later on the server: the token (an hour's) is expired, our side does not know it yet.
      serverNow += 2 * 3_600_000;
      const created = await target.create('event', bodyOf('event', 1));
      expect(created.slug).toBe('event-1');
      expect(tokenRequests).toBe(2);
      expect(statuses).toEqual([201, 401, 201]);
      // The resent create made one event, not two.
      const ids: number[] = [];
      for await (const e of target.list('event')) ids.push(e.id);
      expect(ids).toEqual([created.id]);
    } finally {
      await target.close();
    }
  });

  it('a wrong client secret fails with invalid_client and status 401, after one token request', async () => {
    const { clientId } = await addOAuthClient(server);
    const target = oauthTarget(clientId, 'not the secret');
    try {
      const err = await target.create('tag', bodyOf('tag', 1)).catch((e) => e);
      expect(err).toMatchObject({
        name: 'WriteError',
        code: 'invalid_client',
        status: 401,
        retryable: false,
      });
      expect(err.message).toContain('client_secret');
      expect(tokenRequests).toBe(1);
      expect(statuses).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('a read-only token that writes is refused with 403 insufficient_scope, not retried', async () => {
    const { clientId, secret } = await addOAuthClient(server);
    const target = oauthTarget(clientId, secret, 'read');
    try {
      await expect(target.create('tag', bodyOf('tag', 1))).rejects.toMatchObject({
        code: 'insufficient_scope',
        status: 403,
      });
      expect(statuses).toEqual([403]);
    } finally {
      await target.close();
    }
  });
});

describe('a target with a static Bearer token', () => {
  it('writes with it, and once it has expired fails with 401 invalid_token without retrying', async () => {
    const { clientId, secret } = await addOAuthClient(server);
    const token = await createTokenSource({
      tokenUrl: `${server.url}/oauth/token`,
      clientId,
      clientSecret: secret,
    }).token();
    const target = createTarget(createHttpTransport({ url: server.url, auth: { type: 'bearer', token } }), {
      namespace: 'calendar/events/v1',
      label: server.url,
      retries: { attempts: 3, baseMs: 5, capMs: 20 },
    });
    try {
      expect((await target.create('tag', bodyOf('tag', 1))).slug).toBe('tag-1');
      serverNow += 2 * 3_600_000;
      await expect(target.create('tag', bodyOf('tag', 2))).rejects.toMatchObject({
        code: 'invalid_token',
        status: 401,
      });
      expect(statuses).toEqual([201, 401]);
    } finally {
      await target.close();
    }
  });
});

describe('the token source', () => {
  it('keeps a token until a minute before it expires, then renews it', async () => {
    const { clientId, secret } = await addOAuthClient(server);
    let clock = 1_000_000;
    const tokens = createTokenSource({
      tokenUrl: `${server.url}/oauth/token`,
      clientId,
      clientSecret: secret,
      now: () => clock,
    });
    const first = await tokens.token();
    clock += 58 * 60_000; // 58 minutes into an hour's token
    expect(await tokens.token()).toBe(first);
    expect(tokens.fetched).toBe(1);
    clock += 60_000; // 59 minutes: within the last minute
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(tokens.fetched).toBe(2);
    // Refusing an old token does not throw away the newer one.
    tokens.invalidate(first);
    expect(await tokens.token()).toBe(second);
    expect(tokens.fetched).toBe(2);
  });

  it('an unreachable token endpoint is a retryable network error', async () => {
    const url = server.url;
    const tokens = createTokenSource({ tokenUrl: `${url}/oauth/token`, clientId: 'x', clientSecret: 'y' });
    await server.close();
    await expect(tokens.token()).rejects.toMatchObject({ code: 'network', status: 0, retryable: true });
    server = await startServer(join(tmp.dir, 'another.db')); // for afterEach
  });
});
