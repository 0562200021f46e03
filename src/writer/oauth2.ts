/**
 * `createTokenSource(options)`: Bearer tokens of the OAuth 2 client-credentials grant (RFC 6749 §4.4) for
 * the HTTP transport — fetched on first use, kept until shortly before they expire, renewed then, and
 * renewed at once when the API refuses the token (`invalidate`, after a 401: the server restarted with a
 * new key, revoked the client, or its clock runs ahead of ours).
 *
 * The client authenticates with HTTP Basic, its id and secret form-encoded first (§2.3.1), which every
 * server must accept; our server's `POST /oauth/token` (contract B.2) also takes them in the body. One
 * fetch at a time: the requests that need a token while it is being fetched wait for the same answer.
 */
import { request } from 'undici';
import { WriteError } from './errors.ts';

export interface OAuth2Options {
  /** The token endpoint, e.g. `https://site.example/oauth/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; absent: the server's default (ours: `read write`). */
  scope?: string;
  /** Per request, for the headers and again for the body; default 30 s. */
  timeoutMs?: number;
  /** Clock, for tests of renewal; default `Date.now`. */
  now?: () => number;
  userAgent?: string;
}

export interface TokenSource {
  /** A token valid for a while yet (fetching or renewing one if needed). */
  token(): Promise<string>;
  /** The API refused `token`: forget it, so that the next `token()` fetches a new one. */
  invalidate(token: string): void;
  /** Tokens fetched so far (for tests and the report). */
  readonly fetched: number;
}

/**
 * A token is renewed this long before its `expires_in` runs out: a request sent just before expiry may
 * arrive just after it. Half the lifetime for short-lived tokens.
 */
const RENEW_BEFORE_MS = 60_000;
/** RFC 6749 §5.1 makes `expires_in` optional; without it a token is kept this long (then on a 401). */
const ASSUMED_LIFETIME_MS = 3_600_000;

export function createTokenSource(options: OAuth2Options): TokenSource {
  const now = options.now ?? Date.now;
  const timeout = options.timeoutMs ?? 30_000;
  const url = new URL(options.tokenUrl);
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let fetched = 0;

  const fetchToken = async (): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (options.scope) form.set('scope', options.scope);
    const basic = `${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`;
    const where = { method: 'POST', path: url.pathname };
    let status: number;
    let text: string;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(basic).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
        },
        body: form.toString(),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new WriteError(`POST ${url.href}: no token: ${(err as Error).message}`, {
        code: 'network',
        status: 0,
        ...where,
        retryable: true,
        cause: err,
      });
    }
    const doc = parse(text);
    if (status !== 200 || typeof doc?.access_token !== 'string') {
      // §5.2: `{error, error_description}`; invalid_client is a wrong id or secret, not worth retrying.
      const code = typeof doc?.error === 'string' ? doc.error : 'bad_response';
      const detail = typeof doc?.error_description === 'string' ? `: ${doc.error_description}` : '';
      throw new WriteError(
        `POST ${url.href}: the token endpoint answered HTTP ${status} ${code}${detail} (check target.auth client_id and client_secret)`,
        { code, status, ...where, retryable: status >= 500 || status === 429 },
      );
    }
    if (typeof doc.token_type === 'string' && doc.token_type.toLowerCase() !== 'bearer') {
      throw new WriteError(`POST ${url.href}: expected a Bearer token, got token_type "${doc.token_type}"`, {
        code: 'unsupported_token_type',
        status,
        ...where,
        retryable: false,
      });
    }
    const lifetime =
      typeof doc.expires_in === 'number' && doc.expires_in > 0 ? doc.expires_in * 1000 : ASSUMED_LIFETIME_MS;
    fetched++;
    current = {
      token: doc.access_token,
      renewAt: now() + lifetime - Math.min(RENEW_BEFORE_MS, lifetime / 2),
    };
    return doc.access_token;
  };

  return {
    get fetched() {
      return fetched;
    },
    token() {
      if (current && now() < current.renewAt) return Promise.resolve(current.token);
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate(token) {
      // Several requests refused with the same token ask once; a newer token is kept.
      if (current?.token === token) current = undefined;
    },
  };
}

/** RFC 6749 §2.3.1: `application/x-www-form-urlencoded` before base64 (a `:` in an id stays unambiguous). */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const doc = JSON.parse(text);
    return doc && typeof doc === 'object' ? doc : undefined;
  } catch {
    return undefined;
  }
}
