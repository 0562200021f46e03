/** Server settings with their defaults, resolved once at start-up and frozen. */
import {
  type RenderConfig,
  type RenderConfigOptions,
  resolveRenderConfig,
  trimSlash,
} from '../render/config.ts';
import type { AuthThrottleOptions } from './security/auth-throttle.ts';
import { checkLimits, type SocketLimits } from './security/limits.ts';

/**
 * Socket limits (security/limits.ts): a request head must arrive within 10 s (slowloris), a whole
 * request within 30 s (1 MiB at ~35 KB/s), a silent socket is closed after 60 s, an idle keep-alive
 * connection after 5 s (announced as `Keep-Alive: timeout=5`), headers up to 16 KiB (Node's default,
 * stated). Raise `requestTimeoutMs` for clients on slow links sending large bodies.
 */
export const DEFAULT_LIMITS: Readonly<SocketLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
});

/**
 * Failed-authentication throttle (security/auth-throttle.ts): 10 failures per address in 10 minutes,
 * then 429 until the 10 minutes are over (at most 1,440 guesses a day per address); 10,000 addresses
 * remembered (~1 MB).
 */
export const DEFAULT_AUTH_THROTTLE: Readonly<AuthThrottleOptions> = Object.freeze({
  maxFailures: 10,
  windowMs: 10 * 60_000,
  maxClients: 10_000,
});

export interface ServerOptions extends RenderConfigOptions {
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** Folder for sideloaded images; default none (image URLs are then rejected). */
  uploadsDir?: string;
  /** Largest image accepted by URL, bytes; default 10 MiB (B.6.2). */
  imageMaxBytes?: number;
  /**
   * Fetch image URLs on loopback and private networks too; default false, so that callers cannot
   * use the server to probe the network it sits in (SSRF).
   */
  allowPrivateImageHosts?: boolean;
  /** Clock, for tests of the default list window. */
  now?: () => Date;
  /**
   * Bounds of the kept GET answers (response-cache.ts); default 2,000 entries and 64 MiB (a page of
   * 50 events is ~200 KB). `maxEntries: 0` turns it off.
   */
  responseCache?: { maxEntries: number; maxBytes: number };
  /** Socket limits and timeouts; each defaults to `DEFAULT_LIMITS`. */
  limits?: Partial<SocketLimits>;
  /** Failed-authentication throttle per client address; defaults `DEFAULT_AUTH_THROTTLE`; `false` turns it off. */
  authThrottle?: Partial<AuthThrottleOptions> | false;
  /**
   * Which peers may name the client in `X-Forwarded-For` (Fastify's `trustProxy`): `true` any, or the
   * proxies' addresses/CIDRs (a comma-separated string or a list; also proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`). Default false: the client is the socket's peer, so a forged header
   * cannot dodge the failed-authentication throttle — but behind a reverse proxy every client is then the
   * proxy's one address. No hop count: Fastify 5 ignores it, since it cannot check the peer itself.
   */
  trustProxy?: TrustProxy;
}

/** The forms of Fastify's `trustProxy` a server configuration can state (no function: it is data). */
export type TrustProxy = boolean | string | string[];

export interface Config extends RenderConfig {
  /** Path of `apiBase`, without trailing slash ('' at the root). */
  apiPrefix: string;
  bodyLimit: number;
  uploadsDir: string | null;
  imageMaxBytes: number;
  allowPrivateImageHosts: boolean;
  defaultPerPage: number;
  maxPerPage: number;
  now: () => Date;
  responseCache: { maxEntries: number; maxBytes: number };
  limits: SocketLimits;
  authThrottle: AuthThrottleOptions | null;
  trustProxy: TrustProxy;
}

export function resolveConfig(o: ServerOptions): Readonly<Config> {
  const render = resolveRenderConfig(o);
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  checkLimits(limits);
  const authThrottle = o.authThrottle === false ? null : { ...DEFAULT_AUTH_THROTTLE, ...o.authThrottle };
  if (authThrottle) {
    for (const [name, value] of Object.entries(authThrottle)) {
      if (!Number.isInteger(value) || value <= 0) {
        throw new Error(`authThrottle.${name}: expected a positive integer, got ${value}`);
      }
    }
  }
  return Object.freeze({
    ...render,
    apiPrefix: trimSlash(new URL(render.apiBase).pathname),
    bodyLimit: o.bodyLimit ?? 1024 * 1024,
    uploadsDir: o.uploadsDir ?? null,
    imageMaxBytes: o.imageMaxBytes ?? 10 * 1024 * 1024,
    allowPrivateImageHosts: o.allowPrivateImageHosts ?? false,
    defaultPerPage: 10,
    maxPerPage: 50,
    now: o.now ?? (() => new Date()),
    responseCache: o.responseCache ?? { maxEntries: 2_000, maxBytes: 64 * 1024 * 1024 },
    limits: Object.freeze(limits),
    authThrottle: authThrottle && Object.freeze(authThrottle),
    trustProxy: o.trustProxy ?? false,
  });
}
