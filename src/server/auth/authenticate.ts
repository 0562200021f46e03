/**
 * Request authentication (contract B.2, D7): HTTP Basic with an application password.
 * Schemes are a table so that Bearer JWT (the OAuth2 issue) plugs in without touching
 * routes. Bad credentials are a 401 on every route, GET included; no header = anonymous.
 */
import { ApiError, WWW_AUTHENTICATE } from '../errors.ts';
import type { AppPasswordVerifier } from './app-passwords.ts';
import type { Caller } from './capabilities.ts';

export type SchemeHandler = (credentials: string) => Promise<Caller>;

const unauthorized = (code: string, message: string, extra?: string) =>
  new ApiError(
    401,
    code,
    message,
    {},
    { 'www-authenticate': extra ? `${WWW_AUTHENTICATE}, ${extra}` : WWW_AUTHENTICATE },
  );

export function basicScheme(verifier: AppPasswordVerifier): SchemeHandler {
  return async (credentials) => {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon > 0 ? await verifier.verify(decoded.slice(0, colon), decoded.slice(colon + 1)) : null;
    if (!user) {
      throw unauthorized('incorrect_password', 'The provided password is an invalid application password.');
    }
    return user;
  };
}

export async function authenticate(
  header: string | undefined,
  schemes: Readonly<Record<string, SchemeHandler>>,
): Promise<Caller> {
  if (!header) return null;
  const space = header.indexOf(' ');
  const scheme = (space > 0 ? header.slice(0, space) : header).toLowerCase();
  const handler = schemes[scheme];
  if (!handler) throw unauthorized('rest_forbidden', 'Sorry, you are not allowed to do that.');
  return handler(header.slice(space + 1).trim());
}
