/**
 * The writer's errors: `WriteError` (a stable `code`, the HTTP `status`, whether a retry may help, the API's
 * `data`) and the one function that turns a transport answer into a parsed document or a WriteError
 * (STYLE.md, Errors: "One function maps HTTP responses to errors").
 *
 * Codes are the API's own (`rest_invalid_param`, `term_exists`, `event-not-found`…, contract A.8) or ours:
 * `network` (connection refused/reset/closed), `timeout` (no headers or body in time), `bad_response` (an
 * answer that is not the API's JSON: an HTML error page of a proxy or security plugin, a truncated body).
 */
import type { TransportRequest, TransportResponse } from './transport.ts';

/** 429 and the 5xx a proxy or an overloaded PHP pool answers with: the same request may succeed later. */
const RETRYABLE_STATUS: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export const isRetryableStatus = (status: number) => RETRYABLE_STATUS.has(status);

export interface WriteErrorFields {
  code: string;
  /** HTTP status; 0 when no answer came (network, timeout). */
  status: number;
  method: string;
  path: string;
  retryable: boolean;
  /** The API error's `data` (`status`, `params`, `term_id`…), when the answer had one. */
  data?: Record<string, unknown>;
  /** Seconds or HTTP date of a `Retry-After` header, as sent. */
  retryAfter?: string;
  /**
   * The request may have reached the server: a create whose answer was lost may have happened. False only
   * when the connection was never made (ECONNREFUSED, DNS) or the server answered.
   */
  maybeApplied?: boolean;
  cause?: unknown;
}

export class WriteError extends Error {
  override readonly name = 'WriteError';
  readonly code: string;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly retryable: boolean;
  readonly data?: Record<string, unknown>;
  readonly retryAfter?: string;
  readonly maybeApplied: boolean;

  constructor(message: string, f: WriteErrorFields) {
    super(message, f.cause === undefined ? undefined : { cause: f.cause });
    this.code = f.code;
    this.status = f.status;
    this.method = f.method;
    this.path = f.path;
    this.retryable = f.retryable;
    this.data = f.data;
    this.retryAfter = f.retryAfter;
    this.maybeApplied = f.maybeApplied ?? false;
  }
}

const where = (req: TransportRequest) => `${req.method} ${req.path}`;

/** A 2xx answer's JSON document, or the WriteError the answer stands for. */
export function interpret(req: TransportRequest, res: TransportResponse): unknown {
  let doc: unknown = res.json;
  let parsed = true;
  if (doc === undefined) {
    try {
      doc = JSON.parse(res.text);
    } catch {
      parsed = false;
    }
  }
  const retryable = isRetryableStatus(res.status);
  const retryAfter = res.headers['retry-after'];
  if (res.status >= 200 && res.status < 300) {
    if (parsed) return doc;
    throw new WriteError(
      `${where(req)}: HTTP ${res.status} with a body that is not JSON: ${excerpt(res.text)}`,
      {
        code: 'bad_response',
        status: res.status,
        method: req.method,
        path: req.path,
        retryable: false,
      },
    );
  }
  const api = parsed ? apiError(doc) : null;
  if (!api) {
    throw new WriteError(`${where(req)}: HTTP ${res.status} without an API error: ${excerpt(res.text)}`, {
      code: 'bad_response',
      status: res.status,
      method: req.method,
      path: req.path,
      retryable,
      retryAfter,
      maybeApplied: res.status >= 500,
    });
  }
  throw new WriteError(`${where(req)}: HTTP ${res.status} ${api.code}: ${api.message}`, {
    code: api.code,
    status: res.status,
    method: req.method,
    path: req.path,
    retryable,
    data: api.data,
    retryAfter,
    maybeApplied: res.status >= 500,
  });
}

/** Node and undici error codes of a connection that failed, was reset or timed out. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** A thrown transport failure as a WriteError; every network failure is worth another try. */
export function networkError(req: TransportRequest, err: unknown): WriteError {
  if (err instanceof WriteError) return err;
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const errCode = e.code ?? e.cause?.code ?? '';
  const timeout = TIMEOUT_CODES.has(errCode) || (err as Error)?.name === 'TimeoutError';
  return new WriteError(
    `${where(req)}: ${timeout ? 'no answer in time' : 'connection failed'} (${errCode || 'error'}: ${e.message ?? String(err)})`,
    {
      code: timeout ? 'timeout' : 'network',
      status: 0,
      method: req.method,
      path: req.path,
      retryable: true,
      maybeApplied: !NOT_SENT_CODES.has(errCode),
      cause: err,
    },
  );
}

/** `{code, message, data}` of a WordPress REST error document (A.8), or null when it is not one. */
function apiError(doc: unknown): { code: string; message: string; data?: Record<string, unknown> } | null {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return null;
  const { code, message, data } = doc as Record<string, unknown>;
  if (typeof code !== 'string') return null;
  return {
    code,
    message: typeof message === 'string' ? message : '',
    data: data && typeof data === 'object' ? (data as Record<string, unknown>) : undefined,
  };
}

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat || '(empty)';
};
