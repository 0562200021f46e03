/**
 * `apiCore(options)`: what decides a request's answer before and after its route's handler, without
 * Fastify — the settings, who the caller is (`admit`: the scheme table, the password gate, then scheduled
 * publishing), the error handler's answer (`errorAnswer`) and the headers every answer carries
 * (`commonHeaders`). `buildApp` (app.ts) runs them from its hooks; the in-process caller
 * (in-process.ts) runs the same functions, of the same core when both serve one local target, so a
 * request is admitted and answered by one code path whichever way it came.
 */
import { availableParallelism } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../model/capabilities.ts';
import { formatUtcNow } from '../model/datetime.ts';
import { storageFault } from '../store/errors.ts';
import type { Store } from '../store/store.ts';
import { AppPasswordVerifier } from './auth/app-passwords.ts';
import { authenticate, basicScheme, bearerScheme, type SchemeHandler } from './auth/authenticate.ts';
import { TokenService } from './auth/tokens.ts';
import { tooLarge } from './body.ts';
import { type Config, resolveConfig, type ServerOptions } from './config.ts';
import { ApiError, storageError } from './errors.ts';
import type { ApiRequest } from './request.ts';
import { effectiveMethod } from './routes/spec.ts';
import { FailureCounter } from './security/auth-throttle.ts';
import { CredentialGate } from './security/credential-gate.ts';

export interface CoreOptions extends ServerOptions {
  store: Store;
  /** Extra authentication schemes by lower-case name (`basic` and `bearer` are built in). */
  schemes?: Record<string, SchemeHandler>;
}

/** An answer as the error handler makes it, or as the in-process caller returns one. */
export interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface ApiCore {
  store: Store;
  config: Config;
  tokens: TokenService;
  /** The failed-authentication throttle's count, when the throttle is on. */
  counter: FailureCounter | null;
  /** Password checks: throttled per address, bounded overall (security/credential-gate.ts). */
  credentials: CredentialGate;
  /** Lower-case names of the extra schemes of `options.schemes` (`local`), which exist only in-process. */
  extraSchemes: ReadonlySet<string>;
  /** Who the caller is (`req.caller`), then scheduled publishing: the first steps of every request. */
  admit(req: ApiRequest): Promise<void>;
  /** Publishes the scheduled posts whose date has come; waits on a full or read-only disk. */
  publishDue(): Promise<void>;
  /** The error handler's answer: the catalogue's status, headers and `{code, message, data}` (A.8). */
  errorAnswer(err: unknown, log: Pick<FastifyBaseLogger, 'error'>): Answer;
  /** The headers every answer carries (A.9). */
  commonHeaders(
    reply: { header(name: string, value: string): unknown },
    caller: Caller | undefined,
    allow: (() => string) | undefined,
  ): void;
}

export function apiCore(options: CoreOptions): ApiCore {
  const { store } = options;
  const config = resolveConfig(options);
  const verifier = new AppPasswordVerifier(store);
  const tokens = new TokenService(store, config.apiBase, config.now);
  const schemes = {
    basic: basicScheme(verifier),
    bearer: bearerScheme(tokens, store),
    ...options.schemes,
  };
  const counter = config.authThrottle ? new FailureCounter(config.authThrottle, config.now) : null;
  // One hash per core at a time: guesses queue for a core instead of taking the event loop's share.
  const credentials = new CredentialGate(counter, { concurrency: availableParallelism(), maxWaiting: 256 });
  // Scheduled posts whose date has come are published before anything reads them (B.1). On a full
  // or read-only disk they wait: reads must go on.
  const publishDue = async () => {
    try {
      await store.publishDue(formatUtcNow(config.now()));
    } catch (err) {
      if (!storageFault(err)) throw err;
    }
  };
  const apiLink = `<${config.apiBase}/>; rel="https://api.w.org/"`;
  return {
    store,
    config,
    tokens,
    counter,
    credentials,
    extraSchemes: new Set(Object.keys(options.schemes ?? {}).map((name) => name.toLowerCase())),
    async admit(req) {
      req.caller = await authenticate(
        req.headers.authorization,
        schemes,
        effectiveMethod(req),
        credentials.forRequest(req),
      );
      await publishDue();
    },
    publishDue,
    errorAnswer,
    commonHeaders(reply, caller, allow) {
      reply.header('link', apiLink);
      reply.header('vary', 'Accept, Origin');
      reply.header('access-control-expose-headers', 'X-TEC-Total, X-TEC-TotalPages, Link');
      if (allow) reply.header('allow', allow());
      if (caller) reply.header('cache-control', 'no-store');
    },
  };
}

function errorAnswer(err: unknown, log: Pick<FastifyBaseLogger, 'error'>): Answer {
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
