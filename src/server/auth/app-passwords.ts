/**
 * Application passwords (contract B.2): 24 random alphanumerics, shown once, stored only as
 * an argon2id hash. Verifying argon2 costs ~13 ms, so successful checks are remembered for a
 * short while by a SHA-256 digest of the credentials; the app-password row is still looked up
 * on every request, so a revoked password stops working at once.
 */
import { createHash, randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Store, UserRecord } from '../store/store.ts';

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

export async function createAppPassword(store: Store, user: UserRecord, name: string, now: string) {
  const password = generateAppPassword();
  const record = store.insertAppPassword({
    user_id: user.id,
    name,
    hash: await hash(password),
    created_utc: now,
  });
  return { password, record };
}

export class AppPasswordVerifier {
  readonly #store: Store;
  readonly #cache = new Map<string, { userId: number; appPasswordId: number; until: number }>();

  constructor(store: Store) {
    this.#store = store;
  }

  /** The user the credentials belong to, or null. */
  async verify(login: string, rawPassword: string): Promise<UserRecord | null> {
    const password = rawPassword.replace(/\s+/g, '');
    const digest = createHash('sha256').update(`${login}\0${password}`).digest('base64');
    const hit = this.#cache.get(digest);
    if (hit && hit.until > Date.now()) {
      // One query instead of listing the user's passwords and reading the user (~35 µs a request).
      const user = this.#store.appPasswordUser(hit.appPasswordId);
      if (user?.id === hit.userId) return user;
      this.#cache.delete(digest);
    }
    const user = this.#store.findUser(login);
    if (!user || !/^[A-Za-z0-9]{24}$/.test(password)) return null;
    for (const ap of this.#store.appPasswords(user.id)) {
      if (await verify(ap.hash, password)) {
        this.#store.touchAppPassword(ap.id, new Date().toISOString().slice(0, 19).replace('T', ' '));
        if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
        this.#cache.set(digest, { userId: user.id, appPasswordId: ap.id, until: Date.now() + CACHE_TTL_MS });
        return user;
      }
    }
    return null;
  }
}
