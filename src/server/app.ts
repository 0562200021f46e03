/**
 * `buildApp(options)` builds the calendar/events/v1 server as a Fastify instance; `serve`
 * (src/cli/serve.ts) listens, and the local import target calls the same app in-process.
 *
 * Root-level concerns live here: body parsers, authentication, the error handler, the
 * contract's common headers (A.9) and the route registry that the namespace index (B.3)
 * and the OpenAPI document (B.4) are generated from. Resources are plugins in ./routes.
 */
import { mkdir } from 'node:fs/promises';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import qs from 'qs';
import { AppPasswordVerifier } from './auth/app-passwords.ts';
import { authenticate, basicScheme, type SchemeHandler } from './auth/authenticate.ts';
import type { Caller } from './auth/capabilities.ts';
import { type Config, resolveConfig, type ServerOptions } from './config.ts';
import { ApiError, noRoute } from './errors.ts';
import { registerRoutes } from './routes/index.ts';
import type { RouteSpec } from './routes/spec.ts';
import type { Store } from './store/store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
    routeSpecs: RouteSpec[];
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface AppOptions extends ServerOptions {
  store: Store;
  logger?: FastifyServerOptions['logger'];
  /** Extra authentication schemes by lower-case name (`bearer` comes with OAuth2). */
  schemes?: Record<string, SchemeHandler>;
}

/** qs turns `status[]=a&venue[venue]=Pier 7` into arrays and objects (B.0). */
const parseNested = (s: string) => qs.parse(s, { arrayLimit: 1000, depth: 5, parameterLimit: 5000 });

/**
 * B.0 checks permissions (step 3), the target (4, 5) and only then the body (6): anonymous
 * `POST /events` with broken JSON is a 401, not a 400. So a bad JSON body is not a parse
 * error; it is a body that throws `rest_invalid_json` when a handler reads its parameters,
 * which handlers do after their permission and target checks.
 */
function unparsableBody(): object {
  const fail = () => {
    throw new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.');
  };
  return new Proxy({}, { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail });
}

/** Multipart fields → the nested object a form body with the same fields gives; files stay as they are. */
function nestFields(body: Record<string, unknown>): Record<string, unknown> {
  const pairs = new URLSearchParams();
  const files: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.every((v) => typeof v === 'string')) for (const v of values) pairs.append(key, v);
    else files[key] = value;
  }
  return { ...parseNested(pairs.toString()), ...files };
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
  });
  app.decorate('store', options.store);
  app.decorate('config', config);
  app.decorate('routeSpecs', [] as RouteSpec[]);
  app.decorateRequest('caller', null);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, unparsableBody());
    }
  });
  await app.register(formbody, { parser: parseNested });
  await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: config.bodyLimit } });
  // @fastify/multipart attaches fields by their literal names (`venue[venue]`); nest them like
  // form bodies (B.0). Registered after the plugin, so this runs after its own preValidation.
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart() && req.body && typeof req.body === 'object') {
      req.body = nestFields(req.body as Record<string, unknown>);
    }
  });

  const verifier = new AppPasswordVerifier(options.store);
  const schemes = { basic: basicScheme(verifier), ...options.schemes };
  app.addHook('onRequest', async (req) => {
    req.caller = await authenticate(req.headers.authorization, schemes);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('link', `<${config.apiBase}/>; rel="https://api.w.org/"`);
    reply.header('vary', 'Accept, Origin');
    reply.header('access-control-expose-headers', 'X-TEC-Total, X-TEC-TotalPages, Link');
    const allow = (req.routeOptions.config as { allow?: () => string } | undefined)?.allow;
    if (allow) reply.header('allow', allow());
    if (req.caller) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setNotFoundHandler(async () => {
    throw noRoute();
  });
  app.setErrorHandler(async (err, req, reply) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) req.log.error({ err }, 'request failed');
    reply.headers(apiError.headers).code(apiError.status).type('application/json; charset=UTF-8');
    return apiError.toJSON();
  });

  await app.register(registerRoutes, { prefix: `${config.apiPrefix}/calendar/events/v1` });
  if (config.uploadsDir) {
    // Sideloaded images (B.6.2) are public files, like WordPress's wp-content/uploads.
    await mkdir(config.uploadsDir, { recursive: true });
    await app.register(fastifyStatic, { root: config.uploadsDir, prefix: '/uploads/', index: false });
  }
  app.addHook('onClose', async () => options.store.close());
  return app;
}

/** Maps Fastify's own errors onto the catalogue; anything unknown is a 500. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'rest_request_too_large', e.message ?? 'Request body is too large.');
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
