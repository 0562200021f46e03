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
import { availableParallelism } from 'node:os';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { defaultFeeds, type FeedSpec } from '../export/feed-spec.ts';
import type { Caller } from '../model/capabilities.ts';
import { formatUtcNow } from '../model/datetime.ts';
import { storageFault } from '../store/errors.ts';
import type { Notices } from '../store/notices.ts';
import type { Store } from '../store/store.ts';
import { AppPasswordVerifier } from './auth/app-passwords.ts';
import { authenticate, basicScheme, bearerScheme, type SchemeHandler } from './auth/authenticate.ts';
import { TokenService } from './auth/tokens.ts';
import { parseNested, registerBodyParsers, tooLarge } from './body.ts';
import { type Config, resolveConfig, type ServerOptions } from './config.ts';
import { registerNotFound } from './error-pages.ts';
import { ApiError, storageError } from './errors.ts';
import {
  type InProcessAnswer,
  type InProcessCaller,
  type InProcessDeps,
  inProcessCaller,
} from './in-process.ts';
import { type DemoSchedule, pagesPlugin } from './pages/index.ts';
import type { ApiRequest } from './request.ts';
import { registerKeptAnswers, registerResponseCache } from './response-cache.ts';
import { feedRoutes } from './routes/feeds.ts';
import { registerRoutes } from './routes/index.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { effectiveMethod, type RouteEntry, type RouteSpec } from './routes/spec.ts';
import {
  CredentialGate,
  FailureCounter,
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
    /** The routes of `defineRoute`, for the in-process caller. */
    routeEntries: RouteEntry[];
    /** Write requests handled without HTTP (in-process.ts); `null` for those to send through `inject`. */
    inProcess: InProcessCaller;
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

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const config = resolveConfig(options);
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
  });
  app.decorate('store', options.store);
  app.decorate('config', config);
  app.decorate('routeSpecs', [] as RouteSpec[]);
  app.decorate('routeEntries', [] as RouteEntry[]);
  app.decorateRequest('caller', null);

  // Scheduled posts whose date has come are published before anything reads them (B.1). On a full
  // or read-only disk they wait: reads must go on.
  const publishDue = async () => {
    try {
      await options.store.publishDue(formatUtcNow(config.now()));
    } catch (err) {
      if (!storageFault(err)) throw err;
    }
  };
  // Kept answers to anonymous GETs, before all other hooks: they hold the headers those would set.
  registerKeptAnswers(app, options.store, config.responseCache, publishDue);
  // First of the other onRequest hooks: answers made by the hooks after it carry the headers too.
  await registerSecurityHeaders(app);
  await registerBodyParsers(app, config.bodyLimit);
  registerBrowserDefences(app, [new URL(config.siteUrl).origin, new URL(config.apiBase).origin]);

  const verifier = new AppPasswordVerifier(options.store);
  const tokens = new TokenService(options.store, config.apiBase, config.now);
  const schemes = {
    basic: basicScheme(verifier),
    bearer: bearerScheme(tokens, options.store),
    ...options.schemes,
  };
  const counter = config.authThrottle && new FailureCounter(config.authThrottle, config.now);
  // One hash per core at a time: guesses queue for a core instead of taking the event loop's share.
  const credentials = new CredentialGate(counter, { concurrency: availableParallelism(), maxWaiting: 256 });
  app.decorate('credentials', credentials);
  // Before authentication: a blocked address does not cost a password hash.
  if (counter) registerAuthThrottle(app, counter, (req) => credentials.checked(req));
  if (counter && options.notices) await shareFailures(counter, options.notices);
  /** Who the caller is, then scheduled publishing: the first steps of every request (in-process.ts too). */
  const admit = async (req: ApiRequest) => {
    req.caller = await authenticate(
      req.headers.authorization,
      schemes,
      effectiveMethod(req),
      credentials.forRequest(req),
    );
    await publishDue();
  };
  app.addHook('onRequest', async (req) => {
    // The token endpoint's Basic header names an OAuth client, not a user (RFC 6749 §2.3.1).
    const clientAuth = (req.routeOptions.config as { clientAuth?: boolean } | undefined)?.clientAuth;
    if (clientAuth) await publishDue();
    else await admit(req);
  });

  const apiLink = `<${config.apiBase}/>; rel="https://api.w.org/"`;
  // A callback hook, not an async one: it runs on every response and has nothing to wait for.
  const commonHeaders: InProcessDeps['commonHeaders'] = (reply, caller, allow) => {
    reply.header('link', apiLink);
    reply.header('vary', 'Accept, Origin');
    reply.header('access-control-expose-headers', 'X-TEC-Total, X-TEC-TotalPages, Link');
    if (allow) reply.header('allow', allow());
    if (caller) reply.header('cache-control', 'no-store');
  };
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
  app.decorate(
    'inProcess',
    inProcessCaller({
      app,
      routes: app.routeEntries,
      admit,
      errorAnswer,
      commonHeaders,
      bodyLimit: config.bodyLimit,
      schemes: new Set(Object.keys(options.schemes ?? {}).map((name) => name.toLowerCase())),
    }),
  );
  app.addHook('onClose', async () => options.store.close());
  return app;
}

/** The error handler's answer: the catalogue's status, headers and `{code, message, data}` (A.8). */
function errorAnswer(err: unknown, log: FastifyBaseLogger): InProcessAnswer {
  const apiError = toApiError(err);
  if (apiError.status >= 500) log.error({ err }, 'request failed');
  return {
    status: apiError.status,
    headers: { ...apiError.headers, 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(apiError.toJSON()),
  };
}

/** Maps Fastify's own errors and storage faults onto the catalogue; anything unknown is a 500. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const fault = storageFault(err);
  if (fault) return storageError(fault);
  const e = err as { code?: string; statusCode?: number; message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return tooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'rest_unsupported_media_type', e.message ?? 'Unsupported media type.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.');
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, 'rest_bad_request', e.message ?? 'Bad request.');
  }
  return new ApiError(500, 'rest_internal_error', 'The server could not complete the request.');
}
