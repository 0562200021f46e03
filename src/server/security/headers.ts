/**
 * Security headers on every response (issue 7; the seed's service sends none and names its server
 * and runtime versions): helmet's middleware at the root, so API answers, pages, static files, 404s and
 * every error rendered by Fastify carry them.
 *
 * Public: `CSP_DIRECTIVES` (the one place the Content-Security-Policy is written; the docs page's
 * Swagger UI is built to work under it), `contentSecurityPolicy()` (its header value),
 * `registerSecurityHeaders(app)` (register before any other `onRequest` hook: a hook that answers
 * early — authentication, the throttle, the response cache — answers with the headers already set),
 * `RAW_SECURITY_HEADERS` (for the answers Node's HTTP parser makes us write by hand, limits.ts).
 *
 * Choices beyond helmet's defaults:
 * - `X-Frame-Options: DENY` with `frame-ancestors 'none'`: nothing of ours is meant to be framed.
 * - No `Strict-Transport-Security`: the server speaks plain http; RFC 6797 §8.1 has browsers ignore
 *   the header over http anyway, and a TLS-terminating proxy is the one that knows it should send it.
 * - `Referrer-Policy: no-referrer` (helmet's default): the pages link only to themselves and the API.
 * - `Cross-Origin-Resource-Policy: same-origin` (helmet's default), except for `/uploads/` (app.ts):
 *   event images are meant to be shown by the sites that read the API.
 * Fastify and Node send no `X-Powered-By` and no `Server`; helmet removes an `X-Powered-By` anyway.
 */
import type { FastifyInstance } from 'fastify';

/** The Content-Security-Policy: same-origin everything, no plugins, no framing, inline styles only. */
export const CSP_DIRECTIVES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  // Swagger UI sets style attributes from its scripts; CSP cannot allow those by hash or nonce.
  'style-src': ["'self'", "'unsafe-inline'"],
  // Swagger UI draws its icons as data: URIs.
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
});

/** The header value, directives in the order above (`default-src 'self'; script-src …`). */
export function contentSecurityPolicy(): string {
  return Object.entries(CSP_DIRECTIVES)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

/** The essential headers for answers written on the raw socket (408, 431, 400 from Node's parser). */
export const RAW_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': contentSecurityPolicy(),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

/**
 * helmet's middleware, built once. @fastify/helmet 13 builds it again on every request (parsing each CSP
 * directive each time: ~8 % of the server's CPU on kept pages); the headers are the same.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  // Loaded here, by the app: the in-process caller (in-process.ts), which sets no security headers, reads
  // this file's constants through limits.ts and config.ts without loading helmet (issue 17).
  const { default: helmet } = await import('helmet');
  const directives = Object.fromEntries(Object.entries(CSP_DIRECTIVES).map(([k, v]) => [k, [...v]]));
  const headers = helmet({
    // Without `useDefaults: false` helmet adds its own directives (upgrade-insecure-requests, …).
    contentSecurityPolicy: { useDefaults: false, directives },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.addHook('onRequest', (req, reply, done) => {
    headers(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
