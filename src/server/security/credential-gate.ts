/**
 * Every costly credential check (an argon2 comparison of an application password or an OAuth client
 * secret) and every event password comparison runs through one `CredentialGate` (issue 15):
 *
 * - it is an attempt of the client's address before it runs: the throttle's slot is reserved first
 *   (`FailureCounter.reserve`), so guesses sent in parallel cannot all be checked before the first
 *   failure is counted — 600 at once get at most `maxFailures` checks, the rest 429;
 * - at most `concurrency` hashes run at once over all clients (argon2 takes a thread-pool thread and
 *   a core for ~15–80 ms), and at most `maxWaiting` wait; beyond that the answer is 503 with
 *   `Retry-After`, so a burst of guesses cannot starve the requests that need no hash.
 *
 * Public: `CredentialGate` (`forRequest(req)` is the `CredentialCheck` a scheme handler is given),
 * `CredentialCheck`.
 */
import { timingSafeEqual } from 'node:crypto';
import PQueue from 'p-queue';
import { ApiError, tooManyFailures } from '../errors.ts';
import { clientKey, type FailureCounter, type Reservation } from './auth-throttle.ts';

/** Runs `check` (true: the credentials are right) as one attempt of the request's client. */
export type CredentialCheck = (check: () => Promise<boolean>) => Promise<boolean>;

export interface GateOptions {
  /** Hash comparisons running at once, over all clients. */
  concurrency: number;
  /** Comparisons waiting for their turn before new ones are refused with 503. */
  maxWaiting: number;
}

const busy = () =>
  new ApiError(
    503,
    'rest_auth_busy',
    'Too many password checks are waiting; try again in a second.',
    { retry_after: 1 },
    { 'retry-after': '1' },
  );

export class CredentialGate {
  readonly #counter: FailureCounter | null;
  readonly #queue: PQueue;
  readonly #maxWaiting: number;
  /** Requests whose credentials went through `attempt`: counted here, not by the throttle's 401 hook. */
  readonly #checked = new WeakSet<object>();

  constructor(counter: FailureCounter | null, options: GateOptions) {
    this.#counter = counter;
    this.#queue = new PQueue({ concurrency: options.concurrency });
    this.#maxWaiting = options.maxWaiting;
  }

  /** Hash comparisons running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.#queue.pending, waiting: this.#queue.size };
  }

  /** The attempts of one request, keyed by its client's address. */
  forRequest(req: { ip: string }): CredentialCheck {
    return (check) => {
      this.#checked.add(req);
      return this.attempt(clientKey(req.ip), check);
    };
  }

  /** Whether the request's credentials were checked (and so counted) here. */
  checked(req: object): boolean {
    return this.#checked.has(req);
  }

  /** Runs a costly `check` as one attempt of `key`: throws 429 when the key has none left, 503 when busy. */
  async attempt(key: string, check: () => Promise<boolean>): Promise<boolean> {
    const reservation = this.#reserve(key);
    if (this.#queue.size >= this.#maxWaiting) {
      if (reservation) this.#counter!.settle(reservation, false);
      throw busy();
    }
    let failed = false;
    try {
      const ok = (await this.#queue.add(check)) === true;
      failed = !ok;
      return ok;
    } finally {
      // A check that threw (a broken stored hash) is the server's fault, not a guess.
      if (reservation) this.#counter!.settle(reservation, failed);
    }
  }

  /**
   * An event password (`?password=`) against the passwords of the protected events a request shows:
   * which of them it unlocks. Compared in constant time; a request that unlocks none counts one failure
   * (one, not one per event: a list that also shows events of other passwords is no guess at those).
   */
  unlocks(req: { ip: string }, given: string, expected: ReadonlySet<string>): Set<string> {
    const reservation = this.#reserve(clientKey(req.ip));
    const a = Buffer.from(given);
    const matched = new Set<string>();
    for (const password of expected) {
      const b = Buffer.from(password);
      if (a.length === b.length && timingSafeEqual(a, b)) matched.add(password);
    }
    if (reservation) this.#counter!.settle(reservation, matched.size === 0);
    return matched;
  }

  #reserve(key: string): Reservation | null {
    if (!this.#counter) return null;
    const reservation = this.#counter.reserve(key);
    if (typeof reservation === 'number') throw tooManyFailures(Math.ceil(reservation / 1000));
    return reservation;
  }
}
