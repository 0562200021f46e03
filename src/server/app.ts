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

/** A part as @fastify/multipart attaches it with `attachFieldsToBody: true`. */
interface MultipartPart {
  type: 'field' | 'file';
  value?: unknown;
  valueTruncated?: boolean;
  _buf?: Buffer;
}

const tooLarge = () => new ApiError(413, 'rest_request_too_large', 'Request body is too large.');

/**
 * Multipart parts → the nested object a form body with the same fields gives (B.0:
 * `venue[venue]=Pier 7`); files stay buffers under their name. The plugin pipes the raw
 * request past Fastify's `bodyLimit` and silently truncates a field longer than `fieldSize`,
 * so the limit is enforced here: a truncated field or a larger total is a 413.
 */
function multipartBody(body: Record<string, MultipartPart | MultipartPart[]>, limit: number) {
  const pairs = new URLSearchParams();
  const files: Record<string, Buffer | Buffer[]> = {};
  let size = 0;
  for (const [key, entry] of Object.entries(body)) {
    const parts = Array.isArray(entry) ? entry : [entry];
    for (const part of parts) {
      if (part.valueTruncated) throw tooLarge();
      if (part.type === 'file') {
        const buf = part._buf ?? Buffer.alloc(0);
        size += buf.length;
        files[key] = Array.isArray(entry) ? [...((files[key] as Buffer[]) ?? []), buf] : buf;
      } else {
        const value = String(part.value ?? '');
        size += Buffer.byteLength(value);
        pairs.append(key, value);
      }
      if (size > limit) throw tooLarge();
    }
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
  await app.register(multipart, {
    attachFieldsToBody: true,
    limits: { fileSize: config.bodyLimit, fieldSize: config.bodyLimit },
  });
  // Registered after the plugin, so this runs after its own preValidation has read the parts.
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart() && req.body && typeof req.body === 'object') {
      req.body = multipartBody(req.body as Record<string, MultipartPart>, config.bodyLimit);
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
