/**
 * What a request that matches no route gets (issue 7, contract B.0 step 2).
 *
 * Public: `registerNotFound(app)` (the root's not-found handler; @fastify/static's missing files
 * land here too), `errorPage(status, title, text, home)` (the HTML page), `prefersHtml(accept)`.
 *
 * - Inside the API namespace (`{base}/calendar/events/v1/…`): always the JSON 404 `rest_no_route`,
 *   a wrong method included (B.0, T006: WordPress answers so).
 * - Elsewhere below a non-empty API prefix (`/wp-json/…`): JSON too, that area is the API's; a known
 *   route with a wrong method (`GET /oauth/token`) is a 405 with `Allow`.
 * - Everywhere else (the site: `/`, `/docs/`, `/uploads/`, `/feeds/`, …): a known route with a wrong
 *   method is a 405 with `Allow`; an unknown path a 404. Browsers, which ask for `text/html` by name,
 *   get an HTML page with a link home (the seed's "Page Not Found"); API clients (`*\/*`, JSON, no
 *   Accept) the JSON error.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { type ApiError, methodNotAllowed, noRoute } from './errors.ts';
import { escapeHtml } from './pages/html.ts';

// Methods a route of ours can have; HEAD comes with every GET (Fastify's exposeHeadRoutes).
const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A small self-contained page: no script, one inline style (the CSP allows inline styles). */
export function errorPage(status: number, title: string, text: string, home: string): string {
  const t = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem}p.status{color:#666}a{color:#0b57d0}</style>
</head>
<body>
<main>
<h1>${t}</h1>
<p class="status">HTTP ${status}</p>
<p>${escapeHtml(text)}</p>
<p><a href="${escapeHtml(home)}">Go to the home page</a></p>
</main>
</body>
</html>
`;
}

/**
 * Whether `text/html` (or XHTML) is asked for by name and weighed at least as much as JSON. Browsers
 * send `text/html,…,*\/*;q=0.8`; curl, fetch and API clients `*\/*` or `application/json`.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}

type Area = 'namespace' | 'api' | 'site';

function areaOf(path: string, apiPrefix: string): Area {
  const ns = `${apiPrefix}/calendar/events/v1`;
  if (path === ns || path.startsWith(`${ns}/`)) return 'namespace';
  if (apiPrefix && (path === apiPrefix || path.startsWith(`${apiPrefix}/`))) return 'api';
  return 'site';
}

const PAGES: Record<number, { title: string; text: string }> = {
  404: { title: 'Page Not Found', text: 'There is no page at this address.' },
  405: { title: 'Method Not Allowed', text: 'This address exists, but not for this kind of request.' },
};

export function registerNotFound(app: FastifyInstance): void {
  const home = `${new URL(app.config.siteUrl).pathname.replace(/\/+$/, '')}/`;

  function answer(req: FastifyRequest, reply: FastifyReply, err: ApiError, html: boolean): FastifyReply {
    reply.code(err.status).headers(err.headers);
    if (html) {
      const page = PAGES[err.status];
      return reply.type('text/html; charset=UTF-8').send(errorPage(err.status, page.title, page.text, home));
    }
    req.log.debug({ code: err.code }, 'no route');
    return reply.type('application/json; charset=UTF-8').send(err.toJSON());
  }

  app.setNotFoundHandler(async (req, reply) => {
    // Duplicate slashes are ignored by the router (app.ts), so here too.
    const path = req.url.split('?', 1)[0].replace(/\/{2,}/g, '/');
    const area = areaOf(path, app.config.apiPrefix);
    if (area === 'namespace') return answer(req, reply, noRoute(), false);
    const allow = METHODS.filter((method) => app.findRoute({ method, url: req.url }) !== null);
    const html = area === 'site' && prefersHtml(req.headers.accept);
    // A route of this method that called "not found" (a missing static file) is a plain 404.
    if (allow.length > 0 && !allow.includes(req.method as HTTPMethods))
      return answer(req, reply, methodNotAllowed(req.method, path, allow), html);
    return answer(req, reply, noRoute(), html);
  });
}
