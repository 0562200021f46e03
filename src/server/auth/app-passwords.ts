/**
 * Application passwords (contract B.2): 24 random alphanumerics, shown once, stored only as
 * an argon2id hash. Verifying argon2 costs ~13 ms, so successful checks are remembered for a
 * short while by a SHA-256 digest of the credentials; the app-password row is still looked up
 * on every request, so a revoked password stops working at once.
 *
 * Every check that is not a remembered success is one attempt of the client (`CredentialCheck`,
 * security/credential-gate.ts) and costs at least one hash: an unknown login, a user without
 * application passwords or a password of the wrong shape is compared with a decoy hash, so the
 * answer takes as long as a wrong password of a real user (it was 7–11 ms against 67–85 ms).
 */
import { createHash, randomInt } from 'node:crypto';
import { storageFault } from '../../store/errors.ts';
import type { IdentityStore, UserRecord } from '../../store/store.ts';
import type { CredentialCheck } from '../security/credential-gate.ts';
import { argon2 } from './argon2.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX = 10_000;

function generateAppPassword(): string {
  let s = '';
  for (let i = 0; i < 24; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** WordPress shows them in groups of four: `abcd efgh …`; spaces are ignored on input. */
export const formatAppPassword = (p: string) => p.replace(/(.{4})(?=.)/g, '$1 ');

export async function createAppPassword(store: IdentityStore, user: UserRecord, name: string, now: string) {
  const password = generateAppPassword();
  const passwordHash = await (await argon2()).hash(password);
  const record = await store.insertAppPassword({
    user_id: user.id,
    name,
    hash: passwordHash,
    created_utc: now,
  });
  return { password, record };
}

/** A hash of a password nobody has, compared when there is nothing real to compare with. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => {
  decoy ??= argon2().then(({ hash }) => hash(generateAppPassword()));
  return decoy;
};

export class AppPasswordVerifier {
  readonly #store: IdentityStore;
  readonly #cache = new Map<string, { userId: number; appPasswordId: number; until: number }>();
  readonly #checking = new Map<string, Promise<UserRecord | null>>();

  constructor(store: IdentityStore) {
    this.#store = store;
  }

  /** The user the credentials belong to, or null; `attempt` runs the hash comparisons. */
  async verify(
    login: string,
    rawPassword: string,
    attempt: CredentialCheck = (check) => check(),
  ): Promise<UserRecord | null> {
    const password = rawPassword.replace(/\s+/g, '');
    const digest = createHash('sha256').update(`${login}\0${password}`).digest('base64');
    const hit = this.#cache.get(digest);
    if (hit && hit.until > Date.now()) {
      // One query instead of listing the user's passwords and reading the user (~35 µs a request).
      const user = await this.#store.appPasswordUser(hit.appPasswordId);
      if (user?.id === hit.userId) return user;
      this.#cache.delete(digest);
    }
    // The same credentials arriving together (a client opening several connections at once) share one
    // check: one attempt, one hash, instead of filling the address's throttle with its own good password.
    const running = this.#checking.get(digest);
    if (running) return running;
    const check = this.#check(login, password, digest, attempt).finally(() => this.#checking.delete(digest));
    this.#checking.set(digest, check);
    return check;
  }

  async #check(
    login: string,
    password: string,
    digest: string,
    attempt: CredentialCheck,
  ): Promise<UserRecord | null> {
    let found: { user: UserRecord; appPasswordId: number } | undefined;
    const ok = await attempt(async () => {
      const user = await this.#store.findUser(login);
      const candidates =
        user && /^[A-Za-z0-9]{24}$/.test(password) ? await this.#store.appPasswords(user.id) : [];
      if (candidates.length === 0) {
        await (await argon2()).verify(await decoyHash(), password || 'x');
        return false;
      }
      for (const ap of candidates) {
        if (await (await argon2()).verify(ap.hash, password)) {
          found = { user: user!, appPasswordId: ap.id };
          return true;
        }
      }
      return false;
    });
    if (!ok || !found) return null;
    try {
      await this.#store.touchAppPassword(
        found.appPasswordId,
        new Date().toISOString().slice(0, 19).replace('T', ' '),
      );
    } catch (err) {
      // "Last used" is bookkeeping: a full or read-only disk must not turn a good login away.
      if (!storageFault(err)) throw err;
    }
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
    this.#cache.set(digest, {
      userId: found.user.id,
      appPasswordId: found.appPasswordId,
      until: Date.now() + CACHE_TTL_MS,
    });
    return found.user;
  }
}
