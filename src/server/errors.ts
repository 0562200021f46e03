import type { Kind } from '../model/kind.ts';
import type { StorageFault } from '../store/errors.ts';

/**
 * The server's error catalogue (contract A.8, B.0, B.9): every failure is an `ApiError`
 * with a stable code, an HTTP status and WordPress's `data` payload. One handler in app.ts
 * renders them; routes only throw.
 */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    data: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.data = data;
    this.headers = headers;
  }

  toJSON() {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }
}

const LABEL: Record<Kind, string> = {
  event: 'Event',
  venue: 'Venue',
  organizer: 'Organizer',
  category: 'Category',
  tag: 'Tag',
};

export const noRoute = () =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

/**
 * A known path asked with a method it does not have, outside the namespace (RFC 9110 §15.5.6: the
 * answer lists the methods in `Allow`). Inside it B.0 keeps WordPress's 404 `rest_no_route`.
 */
export const methodNotAllowed = (method: string, path: string, allow: readonly string[]) =>
  new ApiError(
    405,
    'rest_method_not_allowed',
    `${path} does not accept ${method}; it accepts ${allow.join(', ')}.`,
    { allow },
    { allow: allow.join(', ') },
  );

/** Every 401 names the schemes a client can use (B.2). */
export const WWW_AUTHENTICATE = 'Basic realm="calsync", Bearer realm="calsync"';

/** An address out of authentication attempts (security/auth-throttle.ts). */
export const tooManyFailures = (retryAfterS: number) =>
  new ApiError(
    429,
    'rest_too_many_failed_logins',
    `Too many failed authentications from this address; try again in ${retryAfterS} s.`,
    { retry_after: retryAfterS },
    { 'retry-after': String(retryAfterS) },
  );

export const forbidden = (anonymous: boolean, params?: string[]) =>
  new ApiError(
    anonymous ? 401 : 403,
    'rest_forbidden',
    'Sorry, you are not allowed to do that.',
    params ? { params } : {},
    anonymous ? { 'www-authenticate': WWW_AUTHENTICATE } : {},
  );

export const notFoundById = (kind: Kind, id: number | string) =>
  new ApiError(404, `${kind}-not-found`, `${LABEL[kind]} with ID ${id} does not exist.`);

export const notFoundBySlug = (kind: Kind, slug: string) =>
  new ApiError(404, `${kind}-not-found`, `No ${kind} found with slug "${slug}".`);

export const notAccessible = (kind: 'event' | 'venue' | 'organizer') =>
  new ApiError(403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`);

export const inTrash = (kind: 'event' | 'venue' | 'organizer') =>
  new ApiError(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`);

export const archivePageNotFound = (kind: 'event' | 'venue' | 'organizer') =>
  new ApiError(404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`);

export const missingParams = (params: string[]) =>
  new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${params.join(', ')}`, { params });

export interface ParamProblem {
  param: string;
  message: string;
  /** `rest_invalid_type` etc.; absent when there is no detail (A.8). */
  code?: string;
}

export function invalidParams(problems: ParamProblem[]): ApiError {
  const params: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const p of problems) {
    params[p.param] = p.message;
    if (p.code) details[p.param] = { code: p.code, message: p.message, data: { param: p.param } };
  }
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
    params,
    details: Object.keys(details).length ? details : [],
  });
}

export const invalidParam = (param: string, message = 'Invalid parameter.') =>
  invalidParams([{ param, message }]);

/**
 * A write the storage refused (issue 15): a full disk is 507 Insufficient Storage, a read-only or
 * failing one 503 with `Retry-After`. Reads go on; nothing of the refused write was kept.
 */
export function storageError(fault: StorageFault): ApiError {
  switch (fault) {
    case 'full':
      return new ApiError(
        507,
        'rest_storage_full',
        "The server's disk is full: the change was not saved. Reading still works.",
      );
    case 'read-only':
      return new ApiError(
        503,
        'rest_storage_read_only',
        "The server's data is read-only just now: the change was not saved. Reading still works.",
        { retry_after: 60 },
        { 'retry-after': '60' },
      );
    case 'busy':
      return new ApiError(
        503,
        'rest_storage_busy',
        'The data file is locked by another process; try again in a second.',
        { retry_after: 1 },
        { 'retry-after': '1' },
      );
    default:
      return new ApiError(
        503,
        'rest_storage_error',
        'The server could not read or write its data file; try again later.',
        { retry_after: 30 },
        { 'retry-after': '30' },
      );
  }
}
