/**
 * The writer: the API client through which the import pipeline writes (`Target`, target.ts), over HTTP to
 * our server or a real The Events Calendar site, or in-process to the embedded server through a transport
 * of src/embedded/local-target.ts.
 */

export { createTarget, type TargetOptions } from './api-target.ts';
export { capabilitiesFor } from './capabilities.ts';
export { WriteError } from './errors.ts';
export {
  createHttpTransport,
  type HttpAuth,
  type HttpTransportOptions,
  USER_AGENT,
} from './http-transport.ts';
export { createTokenSource, type OAuth2Options, type TokenSource } from './oauth2.ts';
export { createQueue, type RequesterOptions } from './requester.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retry.ts';
export type { Remote, RemovalMode, Target, TargetCapabilities } from './target.ts';
export type { Method, Transport, TransportRequest, TransportResponse } from './transport.ts';
