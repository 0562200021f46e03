/**
 * The human side of the server (issue 7): the landing page `/`, the API reference `/docs/` (Swagger UI),
 * the public event pages `/event/<slug>/` and `/events/` (event.ts),
 * the Postman collection `/docs/postman.json`, and their static files — our own under /docs/assets/,
 * Swagger UI's under /docs/vendor/, both by @fastify/static (ETag, Last-Modified, Accept-Ranges, 304s
 * and ranges are its defaults). Nothing comes from a CDN: the Content-Security-Policy allows 'self' only.
 *
 * Public: `pagesPlugin` and its options, `DemoSchedule` (what the banner needs of demo mode).
 *
 * The pages are rendered per request (the banner counts down to the next demo reset) and sent with
 * `no-cache`, so a browser revalidates instead of showing yesterday's banner.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { loadRelated, renderEvent } from '../../render/event.ts';
import { permalink } from '../../render/post.ts';
import type { OrganizerRecord } from '../../store/store.ts';
import { buildOpenApi } from '../openapi/index.ts';
import { docsPage } from './docs.ts';
import { type EventWire, eventPage, eventsPage, type ListedEvent } from './event.ts';
import type { PageContext } from './html.ts';
import { landingPage } from './landing.ts';
import { organizerPage, venuePage } from './linked.ts';
import { toPostman } from './postman.ts';

/** Demo mode as the pages see it: when the data is next reset. */
export interface DemoSchedule {
  nextReset(): Date;
}

export interface PagesOptions {
  demo?: DemoSchedule;
}

const NAMESPACE = 'calendar/events/v1';
/** How many upcoming events `/events/` lists. */
const UPCOMING = 200;
/** What anyone may read. */
const PUBLIC = { statuses: ['publish' as const], ownStatuses: [], ownerId: null };
const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'static');
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_VERSION = (
  JSON.parse(readFileSync(join(SWAGGER_DIR, 'package.json'), 'utf8')) as { version: string }
).version;
/**
 * The swagger-ui-dist files the docs page loads (and their source maps, for browser devtools). Not its
 * index.html and swagger-initializer.js: they point at the Petstore example on the Internet.
 */
const SWAGGER_FILES = /^\/(swagger-ui-bundle\.js|swagger-ui\.css|favicon-(16x16|32x32)\.png)(\.map)?$/;

export async function pagesPlugin(app: FastifyInstance, options: PagesOptions): Promise<void> {
  const cfg = app.config;
  const apiPath = `${cfg.apiPrefix}/${NAMESPACE}/`;
  const context = (): PageContext => ({
    apiPath,
    apiUrl: `${cfg.apiBase}/${NAMESPACE}/`,
    tokenPath: `${cfg.apiPrefix}/oauth/token`,
    tokenUrl: `${cfg.apiBase}/oauth/token`,
    openApiPath: `${apiPath}doc`,
    demoNextReset: options.demo?.nextReset(),
    now: cfg.now(),
  });
  const sendHtml = (reply: FastifyReply, body: string) =>
    reply.type('text/html; charset=UTF-8').header('cache-control', 'no-cache').send(body);

  app.get('/', async (_req, reply) => sendHtml(reply, landingPage(context())));
  app.get('/docs/', async (req, reply) => {
    // `ignoreTrailingSlash` routes /docs here too; the page's relative links want the slash.
    if (!req.url.split('?')[0].endsWith('/')) return reply.redirect('/docs/', 301);
    return sendHtml(reply, docsPage(context(), SWAGGER_VERSION));
  });

  // Public event pages: the `url` of every event in the API and the feeds (render/post.ts `permalink`).
  const feedLinks = () => {
    const feed = `${cfg.siteUrl}/feeds/all.ics`;
    return { feed, webcal: feed.replace(/^https?:/, 'webcal:') };
  };
  app.get<{ Params: { slug: string } }>('/event/:slug/', async (req, reply) => {
    if (!req.url.split('?')[0].endsWith('/'))
      return reply.redirect(`/event/${encodeURIComponent(req.params.slug)}/`, 301);
    const found = await app.store.findBySlug('event', req.params.slug);
    // What anyone may read: published, not password-protected (the API's rule for anonymous readers).
    if (found?.kind !== 'event' || found.status !== 'publish' || found.password) return reply.callNotFound();
    const wire = renderEvent(found, await loadRelated(app.store, [found], null), cfg, {
      single: true,
    }) as unknown as EventWire;
    const ics = `${apiPath}events/${found.id}?ical=1`;
    return sendHtml(reply, eventPage(context(), wire, { ics, ...feedLinks() }));
  });
  /** Upcoming published events (of a venue or an organizer), as the lists show them. */
  const upcoming = async (
    filter: { venueIds?: number[]; organizerIds?: number[] } = {},
  ): Promise<ListedEvent[]> => {
    const now = cfg.now().toISOString().slice(0, 19).replace('T', ' ');
    const { items } = await app.store.listEvents({
      offset: 0,
      limit: UPCOMING,
      endsAfter: now,
      visibility: PUBLIC,
      ...filter,
    });
    const rel = await loadRelated(app.store, items, null);
    return items
      .filter((e) => !e.hide_from_listings)
      .map((e) => ({
        // A path: the page links within the origin it was loaded from.
        url: new URL(permalink(e, cfg)).pathname,
        title: e.title,
        utc_start_date: e.start_utc,
        utc_end_date: e.end_utc,
        all_day: e.all_day,
        timezone: e.timezone,
        venue: e.venue_id ? (rel.linked.get(e.venue_id) as { venue?: string } | undefined)?.venue : undefined,
      }));
  };
  app.get('/events/', async (req, reply) => {
    if (!req.url.split('?')[0].endsWith('/')) return reply.redirect('/events/', 301);
    return sendHtml(reply, eventsPage(context(), await upcoming(), feedLinks()));
  });
  // The venues' and organizers' `url` (render/linked.ts): their address or contact and upcoming events.
  for (const kind of ['venue', 'organizer'] as const) {
    app.get<{ Params: { slug: string } }>(`/${kind}/:slug/`, async (req, reply) => {
      if (!req.url.split('?')[0].endsWith('/'))
        return reply.redirect(`/${kind}/${encodeURIComponent(req.params.slug)}/`, 301);
      const found = await app.store.findBySlug(kind, req.params.slug);
      if (!found || found.kind !== kind || found.status !== 'publish') return reply.callNotFound();
      const html =
        found.kind === 'venue'
          ? venuePage(context(), found, await upcoming({ venueIds: [found.id] }))
          : organizerPage(context(), found as OrganizerRecord, await upcoming({ organizerIds: [found.id] }));
      return sendHtml(reply, html);
    });
  }

  let postman: string | undefined;
  app.get('/docs/postman.json', async (_req, reply) => {
    // Built once, like the OpenAPI document itself (routes/root.ts): routes do not change at run time.
    postman ??= JSON.stringify(
      toPostman(
        buildOpenApi(app.routeSpecs, cfg, {
          tokenRoute: app.hasRoute({ method: 'POST', url: `${cfg.apiPrefix}/oauth/token` }),
        }),
      ),
      null,
      2,
    );
    return reply
      .type('application/json; charset=UTF-8')
      .header('content-disposition', 'attachment; filename="calsync.postman_collection.json"')
      .send(postman);
  });

  // decorateReply: false — the uploads folder (app.ts) may already have decorated `reply.sendFile`.
  await app.register(fastifyStatic, {
    root: STATIC_DIR,
    prefix: '/docs/assets/',
    index: false,
    decorateReply: false,
  });
  await app.register(fastifyStatic, {
    root: SWAGGER_DIR,
    prefix: '/docs/vendor/',
    index: false,
    decorateReply: false,
    allowedPath: (path) => SWAGGER_FILES.test(path),
  });
}
