/**
 * Request authentication (contract B.2, D7): HTTP Basic with an application password, and
 * Bearer JWTs from the client-credentials grant. Schemes are a table, so routes never see
 * them. Bad credentials are a 401 on every route, GET included; no header = anonymous.
 */

import type { Caller } from '../../model/capabilities.ts';
import type { Store } from '../../store/store.ts';
import { ApiError, WWW_AUTHENTICATE } from '../errors.ts';
import type { CredentialCheck } from '../security/credential-gate.ts';
import type { AppPasswordVerifier } from './app-passwords.ts';
import type { Scope, TokenService } from './tokens.ts';

/**
 * `method` is the request's effective one, for schemes whose credentials are limited to reading (OAuth
 * scopes); `attempt` runs a costly comparison as one throttled attempt (security/credential-gate.ts).
 */
export type SchemeHandler = (
  credentials: string,
  method: string,
  attempt: CredentialCheck,
) => Promise<Caller>;

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const unauthorized = (code: string, message: string, extra?: string) =>
  new ApiError(
    401,
    code,
    message,
    {},
    { 'www-authenticate': extra ? `${WWW_AUTHENTICATE}, ${extra}` : WWW_AUTHENTICATE },
  );

export function basicScheme(verifier: AppPasswordVerifier): SchemeHandler {
  return async (credentials, _method, attempt) => {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user =
      colon > 0 ? await verifier.verify(decoded.slice(0, colon), decoded.slice(colon + 1), attempt) : null;
    if (!user) {
      throw unauthorized('incorrect_password', 'The provided password is an invalid application password.');
    }
    return user;
  };
}

/**
 * Bearer JWT (B.2): the caller is the client's user while the token verifies, the client is not
 * revoked and the user exists. A token lacking the scope a method needs is a 403
 * `insufficient_scope` (RFC 6750 §3.1); Basic callers are never limited.
 */
export function bearerScheme(tokens: TokenService, store: Store): SchemeHandler {
  return async (credentials, method) => {
    const claims = await tokens.verify(credentials);
    const client = claims && (await store.findOAuthClient(claims.clientId));
    const user =
      client && !client.revoked && client.user_id === claims.userId && (await store.getUser(claims.userId));
    if (!claims || !user) {
      throw unauthorized(
        'invalid_token',
        'The access token is invalid, expired or revoked.',
        'error="invalid_token"',
      );
    }
    const needed: Scope = WRITES.has(method) ? 'write' : 'read';
    if (!claims.scopes.includes(needed)) {
      throw new ApiError(
        403,
        'insufficient_scope',
        `The access token does not have the "${needed}" scope.`,
        {},
        { 'www-authenticate': `Bearer realm="calsync", error="insufficient_scope", scope="${needed}"` },
      );
    }
    return user;
  };
}

export async function authenticate(
  header: string | undefined,
  schemes: Readonly<Record<string, SchemeHandler>>,
  method: string,
  attempt: CredentialCheck,
): Promise<Caller> {
  if (!header) return null;
  const space = header.indexOf(' ');
  const scheme = (space > 0 ? header.slice(0, space) : header).toLowerCase();
  const handler = schemes[scheme];
  if (!handler) throw unauthorized('rest_forbidden', 'Sorry, you are not allowed to do that.');
  return handler(header.slice(space + 1).trim(), method, attempt);
}
