/**
 * Defences against a browser being used against its own user (issue 15):
 *
 * - No `Basic` challenge to browsers. A 401 naming `Basic` makes a browser ask for a login and then
 *   send it, unasked, with every later request to the site — including the ones another site's page
 *   makes it send. Requests with `Sec-Fetch-Mode` (every current browser sends it, scripts cannot
 *   remove it) get the challenge without `Basic`; other clients keep contract B.2's full header.
 * - Cross-site form writes are refused. A page elsewhere can make a browser POST a form (URL-encoded,
 *   multipart or text/plain bodies need no CORS preflight) with the credentials the browser holds. An
 *   unsafe method with such a body and an `Origin` (or `Sec-Fetch-Site: cross-site`) that is not the
 *   site's, the API's or the request's own host is a 403 `rest_cross_origin_write`; clients that send no `Origin` (scripts,
 *   curl, the importer) are not affected, and JSON bodies from other origins need a preflight, which
 *   this server does not grant.
 *
 * Public: `registerBrowserDefences(app, ownOrigins)`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The content types an HTML form can send (the CORS "simple" ones). */
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

const crossOriginWrite = (origin: string) =>
  new ApiError(
    403,
    'rest_cross_origin_write',
    `Form writes from another site (${origin}) are refused; send JSON, or call from the site itself.`,
  );

function foreignOrigin(req: FastifyRequest, own: ReadonlySet<string>): string | null {
  if (SAFE.has(req.method) || !FORM_TYPES.test(req.headers['content-type'] ?? '')) return null;
  const origin = req.headers.origin;
  // The site's configured origins, and the one the request itself was sent to (the docs page posts its
  // OAuth form to the host it was loaded from, whatever the configured site URL says).
  const self = `${req.protocol}://${req.headers.host ?? ''}`.toLowerCase();
  if (
    origin !== undefined &&
    origin !== 'null' &&
    (own.has(origin.toLowerCase()) || origin.toLowerCase() === self)
  ) {
    return null;
  }
  if (origin !== undefined) return origin;
  return req.headers['sec-fetch-site'] === 'cross-site' ? 'another site' : null;
}

/** `Basic realm=…` dropped from a challenge; undefined when nothing else is left. */
export function withoutBasic(challenge: string): string | undefined {
  const rest = challenge
    .split(/,\s*(?=[A-Za-z][\w-]*\s+\w+=)/)
    .filter((part) => !/^basic\b/i.test(part.trim()));
  return rest.length > 0 ? rest.join(', ') : undefined;
}

export function registerBrowserDefences(app: FastifyInstance, ownOrigins: readonly string[]): void {
  const own = new Set(ownOrigins.map((o) => o.toLowerCase()));
  app.addHook('onRequest', async (req) => {
    const origin = foreignOrigin(req, own);
    if (origin !== null) throw crossOriginWrite(origin);
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const challenge = reply.getHeader('www-authenticate');
    if (typeof challenge === 'string' && req.headers['sec-fetch-mode'] !== undefined) {
      const kept = withoutBasic(challenge);
      if (kept === undefined) reply.removeHeader('www-authenticate');
      else reply.header('www-authenticate', kept);
    }
    done(null, payload);
  });
}
