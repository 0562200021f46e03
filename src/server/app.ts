/**
 * `buildApp(options)` builds the calendar/events/v1 server as a Fastify instance; `serve`
 * (src/cli/serve.ts) listens, and the local import target calls the same app in-process.
 *
 * Root-level concerns live here: security headers, socket limits and the failed-authentication
 * throttle (./security), authentication, the error handler and the not-found/405 answers
 * (error-pages.ts), the contract's common headers (A.9) and the route registry that the namespace
 * index (B.3) and the OpenAPI document (B.4) are generated from. Resources are plugins in ./routes.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { defaultFeeds, type FeedSpec } from '../export/feed-spec.ts';
import type { Caller } from '../model/capabilities.ts';
import { storageFault } from '../store/errors.ts';
import type { Notices } from '../store/notices.ts';
import type { Store } from '../store/store.ts';
import type { SchemeHandler } from './auth/authenticate.ts';
import { parseNested, registerBodyParsers } from './body.ts';
import type { Config, ServerOptions } from './config.ts';
import { type ApiCore, apiCore } from './core.ts';
import { registerNotFound } from './error-pages.ts';
import { serverAnsweringEarly } from './listener.ts';
import { type DemoSchedule, pagesPlugin } from './pages/index.ts';
import { type EarlyAnswer, registerKeptAnswers, registerResponseCache } from './response-cache.ts';
import { feedRoutes } from './routes/feeds.ts';
import { registerRoutes } from './routes/index.ts';
import { oauthRoutes } from './routes/oauth.ts';
import type { RouteEntry, RouteSpec } from './routes/spec.ts';
import {
  type CredentialGate,
  registerAuthThrottle,
  registerBrowserDefences,
  registerSecurityHeaders,
  serverOptions,
  shareFailures,
} from './security/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
    routeSpecs: RouteSpec[];
    /** The routes of `defineRoute` (routes/spec.ts). */
    routeEntries: RouteEntry[];
    /** Password checks: throttled per address, bounded overall (security/credential-gate.ts). */
    credentials: CredentialGate;
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface AppOptions extends ServerOptions {
  store: Store;
  logger?: FastifyServerOptions['logger'];
  /** Extra authentication schemes by lower-case name (`basic` and `bearer` are built in). */
  schemes?: Record<string, SchemeHandler>;
  /** Demo mode (src/embedded/demo.ts): the landing and docs pages show when the data is next reset. */
  demo?: DemoSchedule;
  /** Feeds served at /feeds/<name>.ics (src/export/feed-spec.ts); default one, `all`. */
  feeds?: readonly FeedSpec[];
  /** Notices of the other servers on the same database (several processes on one PostgreSQL). */
  notices?: Notices;
}

/**
 * `core` is what decides answers besides the routes (core.ts); give the in-process caller's
 * (in-process-api.ts) to have both admit and answer alike, with one password gate and throttle.
 */
export async function buildApp(
  options: AppOptions,
  core: ApiCore = apiCore(options),
): Promise<FastifyInstance> {
  const { config } = core;
  // Set once the response cache is registered below; the server takes no request before then.
  let earlyAnswer: EarlyAnswer = () => false;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: config.bodyLimit,
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      querystringParser: parseNested,
    },
    return503OnClosing: true,
    // req.ip (the throttle's key, the logs) from X-Forwarded-For only for the proxies configured.
    trustProxy: config.trustProxy,
    ...serverOptions(config.limits),
    serverFactory: serverAnsweringEarly(() => earlyAnswer),
  });
  app.decorate('store', options.store);
  app.decorate('config', config);
  app.decorate('routeSpecs', [] as RouteSpec[]);
  app.decorate('routeEntries', [] as RouteEntry[]);
  app.decorateRequest('caller', null);

  // Kept answers to anonymous GETs, before all other hooks: they hold the headers those would set.
  earlyAnswer = registerKeptAnswers(app, options.store, config.responseCache, core.publishDue);
  // First of the other onRequest hooks: answers made by the hooks after it carry the headers too.
  await registerSecurityHeaders(app);
  await registerBodyParsers(app, config.bodyLimit);
  registerBrowserDefences(app, [new URL(config.siteUrl).origin, new URL(config.apiBase).origin]);

  const { counter, credentials, admit, publishDue, commonHeaders, errorAnswer, tokens } = core;
  app.decorate('credentials', credentials);
  // Before authentication: a blocked address does not cost a password hash.
  if (counter) registerAuthThrottle(app, counter, (req) => credentials.checked(req));
  if (counter && options.notices) await shareFailures(counter, options.notices);
  app.addHook('onRequest', async (req) => {
    // The token endpoint's Basic header names an OAuth client, not a user (RFC 6749 §2.3.1).
    const clientAuth = (req.routeOptions.config as { clientAuth?: boolean } | undefined)?.clientAuth;
    if (clientAuth) await publishDue();
    else await admit(req);
  });
  // A callback hook, not an async one: it runs on every response and has nothing to wait for.
  app.addHook('onSend', (req, reply, payload, done) => {
    commonHeaders(
      reply,
      req.caller,
      (req.routeOptions.config as { allow?: () => string } | undefined)?.allow,
    );
    done(null, payload);
  });
  // After authentication (the caller is part of the key) and after the headers above (they are kept).
  registerResponseCache(app, options.store, config.responseCache);
  // gzip/br for every answer (its onSend runs after the cache's, so kept answers stay uncompressed).
  await app.register(fastifyCompress, { encodings: ['br', 'gzip'], threshold: 1024 });

  registerNotFound(app);
  app.setErrorHandler(async (err, req, reply) => {
    const answer = errorAnswer(err, req.log);
    reply.headers(answer.headers).code(answer.status);
    return answer.body;
  });

  await app.register(registerRoutes, { prefix: `${config.apiPrefix}/calendar/events/v1` });
  await app.register(oauthRoutes, { prefix: config.apiPrefix, tokens });
  await app.register(pagesPlugin, { demo: options.demo });
  await app.register(feedRoutes, { feeds: options.feeds ?? defaultFeeds() });
  if (config.uploadsDir) {
    // Sideloaded images (B.6.2) are public files, like WordPress's wp-content/uploads. On a read-only
    // mount the folder cannot be made (Node says ENOENT or EROFS): there are no images to serve then.
    const made = await mkdir(config.uploadsDir, { recursive: true }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (storageFault(err) || err.code === 'ENOENT') return existsSync(config.uploadsDir!);
        throw err;
      },
    );
    if (made)
      await app.register(fastifyStatic, {
        root: config.uploadsDir,
        prefix: '/uploads/',
        index: false,
        // Shown by the sites that read the API (security/headers.ts sets same-origin for the rest).
        setHeaders: (reply) => reply.header('cross-origin-resource-policy', 'cross-origin'),
      });
  }
  app.addHook('onClose', async () => options.store.close());
  return app;
}
