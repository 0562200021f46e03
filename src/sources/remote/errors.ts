/**
 * Errors of a remote source (`source.url`). Each names the URL, the HTTP status when there was one, and a
 * stable code. A fetch that fails never gets as far as the plan, so a broken feed can never cause
 * deletions: the run stops before anything is planned or written, and the next run tries again.
 */

export const SOURCE_ERRORS = {
  badUrl: 'source_bad_url',
  notFound: 'source_not_found',
  http: 'source_http_error',
  notCalendar: 'source_not_calendar',
  truncated: 'source_truncated',
  timeout: 'source_timeout',
  tooLarge: 'source_too_large',
  redirects: 'source_too_many_redirects',
  unreachable: 'source_unreachable',
} as const;

export type SourceErrorCode = (typeof SOURCE_ERRORS)[keyof typeof SOURCE_ERRORS];

export class SourceFetchError extends Error {
  readonly code: SourceErrorCode;
  readonly url: string;
  /** The HTTP status of the answer, when one came. */
  readonly status?: number;

  constructor(code: SourceErrorCode, url: string, message: string, status?: number) {
    super(`GET ${url}: ${message} [${code}]; nothing was planned or written`);
    this.code = code;
    this.url = url;
    this.status = status;
  }
}
