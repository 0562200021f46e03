/**
 * `createHttpTransport(options)`: requests to an API root such as `https://site/wp-json` over one undici
 * `Pool` (keep-alive, so a run of thousands of writes reuses a few connections).
 *
 * Auth (contract C.2): an application password as HTTP Basic — WordPress accepts it only over HTTPS unless
 * the site is in `local` mode — a static Bearer token, or OAuth 2 client credentials (our server's
 * `/oauth/token`, B.2; oauth2.ts fetches and renews the token). A 401 to a request sent with an OAuth 2
 * token is sent once more with a fresh token: a 401 means nothing was applied, so even a create may be
 * resent. Each request has a timeout for its headers and one for its body, so a stalled PHP worker becomes
 * a `timeout` the writer may retry.
 */
import { Pool } from 'undici';
import pkg from '../../package.json' with { type: 'json' };
import { createTokenSource, type TokenSource } from './oauth2.ts';
import { flattenHeaders, queryString, type Transport, type TransportRequest } from './transport.ts';

export type HttpAuth =
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; clientSecret: string; scope?: string }
  | { type: 'none' };

export interface HttpTransportOptions {
  /** API root, e.g. `https://site.example/wp-json` (TEC) or `http://127.0.0.1:8080` (ours). */
  url: string;
  auth?: HttpAuth;
  /** Per request, for the headers and again for the body (idle time between chunks); default 30 s. */
  timeoutMs?: number;
  /** Most connections kept open to the host; default 8 (the writer's queue caps concurrency anyway). */
  connections?: number;
}

export const USER_AGENT = `calsync/${pkg.version}`;

export function createHttpTransport(options: HttpTransportOptions): Transport {
  const root = new URL(options.url);
  if (root.protocol !== 'http:' && root.protocol !== 'https:') {
    throw new Error(`API root must be an http(s) URL, got "${options.url}"`);
  }
  const prefix = root.pathname.replace(/\/+$/, '');
  const timeout = options.timeoutMs ?? 30_000;
  const pool = new Pool(root.origin, { connections: options.connections ?? 8 });
  const auth = options.auth ?? { type: 'none' };
  const fixed = authHeader(auth);
  const tokens: TokenSource | undefined =
    auth.type === 'oauth2'
      ? createTokenSource({ ...auth, timeoutMs: timeout, userAgent: USER_AGENT })
      : undefined;
  const label = `${root.origin}${prefix}`;

  const sendOnce = async (req: TransportRequest, authorization: string | null) => {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    const res = await pool.request({
      origin: root.origin,
      path: `${prefix}${req.path}${queryString(req.query)}`,
      method: req.method,
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: flattenHeaders(res.headers), text };
  };

  return {
    label,
    async send(req: TransportRequest) {
      if (!tokens) return sendOnce(req, fixed);
      const token = await tokens.token();
      const res = await sendOnce(req, `Bearer ${token}`);
      if (res.status !== 401) return res;
      // Expired early, revoked, or signed with a key the server has since replaced: one more try, fresh.
      tokens.invalidate(token);
      return sendOnce(req, `Bearer ${await tokens.token()}`);
    },
    async close() {
      await pool.close();
    },
  };
}

function authHeader(auth: HttpAuth): string | null {
  switch (auth.type) {
    case 'basic':
      // WordPress shows application passwords in groups of four with spaces and ignores them on input.
      return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    case 'bearer':
      return `Bearer ${auth.token}`;
    case 'oauth2':
    case 'none':
      return null;
  }
}
