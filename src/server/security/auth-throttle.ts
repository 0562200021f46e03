/**
 * Failed-authentication throttling per client address (issue 7): after `maxFailures` failed
 * authentications from one address within `windowMs`, every further request from it that carries
 * credentials is answered 429 with `Retry-After` until the window ends — a correct password
 * included, or guessing would simply go on. Public reads without credentials are never blocked.
 *
 * Public: `AuthThrottleOptions` (config.ts holds the defaults), `FailureCounter` (the counting, with
 * an injectable clock; `reserve`/`settle` for checks that take time, see credential-gate.ts),
 * `clientKey(ip)`, `registerAuthThrottle(app, counter, …)` (root hooks: before authentication, so
 * that a blocked address does not even cost a password hash).
 *
 * A failure is a wrong event password or any 401 answered to a request that carried credentials: a
 * bad Basic application password, a bad or expired Bearer token, an unknown scheme, a bad OAuth client secret (the token
 * endpoint's requests always carry them, in the header or the body). A success neither counts nor
 * resets the count: otherwise one valid account would let its owner guess another's password for
 * ever. Not @fastify/rate-limit: it counts requests, not failures, and has no way to leave the
 * successful ones out.
 *
 * Memory: at most `maxClients` addresses are remembered; the least recently failing is forgotten
 * first. IPv6 clients are counted per /64, the block one host usually holds.
 *
 * Several servers on one database (`shareFailures`): each failure is also told to the others, which
 * count it as their own, so guessing does not get N times the attempts behind N servers. Checks still
 * running are counted per server only: parallel guesses spread over N servers may have up to N ×
 * `maxFailures` checked before every server has heard of the failures (milliseconds).
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Notices } from '../../store/notices.ts';
import { tooManyFailures } from '../errors.ts';

export interface AuthThrottleOptions {
  /** Failed authentications allowed per address within the window. */
  maxFailures: number;
  /** The window, counted from an address's first failure, ms. */
  windowMs: number;
  /** Addresses remembered at once. */
  maxClients: number;
}

interface Window {
  start: number;
  failures: number;
  /** Checks running now (`reserve`d, not yet `settle`d): each may still turn out a failure. */
  pending: number;
}

/** One reserved attempt, handed back to `settle`. */
export interface Reservation {
  readonly key: string;
  readonly window: Window;
}

export class FailureCounter {
  readonly #options: AuthThrottleOptions;
  readonly #now: () => Date;
  // Insertion order is recency order: a failure re-inserts its key.
  readonly #windows = new Map<string, Window>();
  #told: ((key: string) => void) | undefined;

  constructor(options: AuthThrottleOptions, now: () => Date = () => new Date()) {
    this.#options = options;
    this.#now = now;
  }

  get size(): number {
    return this.#windows.size;
  }

  /**
   * Milliseconds until `key` may authenticate again; 0 when it may now. Checks still running count:
   * while they could use up the attempts, more are refused (at least 1 s, when they might not).
   */
  blockedFor(key: string): number {
    const now = this.#now().getTime();
    const w = this.#current(key, now);
    if (!w || w.failures + w.pending < this.#options.maxFailures) return 0;
    return w.failures >= this.#options.maxFailures ? w.start + this.#options.windowMs - now : 1_000;
  }

  /**
   * Reserves one of the key's attempts for a check about to run, so that checks running at once
   * cannot together exceed the limit (counting answers let 600 parallel guesses have 344 checked).
   * Returns the reservation, or the wait in ms when every attempt is used or reserved.
   */
  reserve(key: string): Reservation | number {
    const now = this.#now().getTime();
    const w = this.#current(key, now) ?? { start: now, failures: 0, pending: 0 };
    const wait = this.blockedFor(key);
    if (wait > 0) return wait;
    w.pending++;
    this.#touch(key, w);
    return { key, window: w };
  }

  /** The reserved check is over: a failure counts, a success gives its attempt back. */
  settle(reservation: Reservation, failed: boolean): void {
    reservation.window.pending--;
    if (failed) this.recordFailure(reservation.key);
  }

  /** Counts a failure of `key`; `elsewhere` when another server counted it first (shareFailures). */
  recordFailure(key: string, elsewhere = false): void {
    const now = this.#now().getTime();
    const w = this.#current(key, now) ?? { start: now, failures: 0, pending: 0 };
    w.failures++;
    this.#touch(key, w);
    if (!elsewhere) this.#told?.(key);
  }

  /** Calls `tell` with the key of each failure counted here (not of those counted elsewhere). */
  tellFailures(tell: (key: string) => void): void {
    this.#told = tell;
  }

  #touch(key: string, w: Window): void {
    this.#windows.delete(key);
    this.#windows.set(key, w);
    for (const oldest of this.#windows.keys()) {
      if (this.#windows.size <= this.#options.maxClients) break;
      this.#windows.delete(oldest);
    }
  }

  /** The key's window if it is still open; an ended one is forgotten. */
  #current(key: string, now: number): Window | undefined {
    const w = this.#windows.get(key);
    if (w && now - w.start >= this.#options.windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return w;
  }
}

const FAILURES_CHANNEL = 'calsync_auth_failures';

/** Counts the failures of every server on the database of `notices` in `counter`, and tells them its own. */
export async function shareFailures(counter: FailureCounter, notices: Notices): Promise<void> {
  await notices.subscribe(FAILURES_CHANNEL, (key) => counter.recordFailure(key, true));
  counter.tellFailures((key) => notices.publish(FAILURES_CHANNEL, key));
}

/** The counting key of an address: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Credentials a request presents: an Authorization header, or any request to the token endpoint. */
function carriesCredentials(req: FastifyRequest): boolean {
  if (req.headers.authorization !== undefined) return true;
  return (req.routeOptions.config as { clientAuth?: boolean } | undefined)?.clientAuth === true;
}

/**
 * The root hooks: an address already blocked is answered 429 before anything else; a 401 answered
 * to credentials that were not checked through the gate (a bad Bearer token, an unknown scheme)
 * counts as a failure. Checks through `CredentialGate` count themselves, before they run.
 */
export function registerAuthThrottle(
  app: FastifyInstance,
  counter: FailureCounter,
  checkedByGate: (req: FastifyRequest) => boolean,
): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!carriesCredentials(req)) return;
    const wait = counter.blockedFor(clientKey(req.ip));
    if (wait <= 0) return;
    // Sent from here, not thrown: the token endpoint's own error handler would reshape a thrown error.
    const err = tooManyFailures(Math.ceil(wait / 1000));
    reply.code(err.status).headers(err.headers).type('application/json; charset=UTF-8');
    return reply.send(err.toJSON());
  });
  // onSend, not onResponse: counted before the client can read the 401 and try again.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode === 401 && carriesCredentials(req) && !checkedByGate(req)) {
      counter.recordFailure(clientKey(req.ip));
    }
    done(null, payload);
  });
}
