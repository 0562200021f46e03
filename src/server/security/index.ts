/** The server's hardening (issue 7): security headers, socket limits, failed-authentication throttling. */
export {
  type AuthThrottleOptions,
  clientKey,
  FailureCounter,
  registerAuthThrottle,
  shareFailures,
} from './auth-throttle.ts';
export { registerBrowserDefences, withoutBasic } from './browsers.ts';
export { type CredentialCheck, CredentialGate } from './credential-gate.ts';
export {
  CSP_DIRECTIVES,
  contentSecurityPolicy,
  RAW_SECURITY_HEADERS,
  registerSecurityHeaders,
} from './headers.ts';
export { checkLimits, type SocketLimits, serverOptions } from './limits.ts';
