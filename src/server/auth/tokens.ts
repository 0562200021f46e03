/**
 * Bearer access tokens (contract B.2): HS256 JWTs with the claims `iss`, `aud`, `sub`, `client_id`,
 * `scope`, `iat`, `exp`, `jti`. The key is 32 random bytes kept in the store, so tokens outlive a
 * restart and every process serving one file agrees on it. Public: `Scope`, `SCOPES`, `TokenService`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IdentityStore, OAuthClientRecord } from '../../store/store.ts';

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

/** Seconds a token lives (B.2 `expires_in`). */
export const TOKEN_LIFETIME = 3600;
/** Clock skew allowed between the server and whoever checks `exp` (B.2). */
const LEEWAY = 60;
const KEY_NAME = 'oauth-hs256';

export interface TokenClaims {
  userId: number;
  clientId: string;
  scopes: Scope[];
}

/** jose (~3 MB, 46 modules), loaded by the first token issued or checked: most runs see none. */
const jose = () => import('jose');

export class TokenService {
  readonly #store: IdentityStore;
  readonly #issuer: string;
  readonly #audience: string;
  readonly #now: () => Date;
  #key: Promise<Uint8Array> | undefined;

  constructor(store: IdentityStore, apiBase: string, now: () => Date) {
    this.#store = store;
    this.#issuer = apiBase;
    this.#audience = `${apiBase}/calendar/events/v1`;
    this.#now = now;
  }

  /** Asked lazily: a server that never sees a token never writes a key. */
  #signingKey(): Promise<Uint8Array> {
    if (!this.#key) {
      const key = this.#store.signingKey(KEY_NAME, () => randomBytes(32));
      this.#key = key;
      // A failed read (a full disk) is asked again next time, not kept.
      key.catch(() => {
        if (this.#key === key) this.#key = undefined;
      });
    }
    return this.#key;
  }

  async issue(client: OAuthClientRecord, scopes: readonly Scope[]): Promise<string> {
    const iat = Math.floor(this.#now().getTime() / 1000);
    const { SignJWT } = await jose();
    return new SignJWT({ client_id: client.client_id, scope: scopes.join(' ') })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.#issuer)
      .setAudience(this.#audience)
      .setSubject(String(client.user_id))
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_LIFETIME)
      .setJti(randomUUID())
      .sign(await this.#signingKey());
  }

  /** The token's claims, or null for a bad signature, issuer, audience, shape or an expired token. */
  async verify(token: string): Promise<TokenClaims | null> {
    try {
      const { jwtVerify } = await jose();
      const { payload } = await jwtVerify(token, await this.#signingKey(), {
        algorithms: ['HS256'],
        issuer: this.#issuer,
        audience: this.#audience,
        clockTolerance: LEEWAY,
        currentDate: this.#now(),
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      const userId = Number(payload.sub);
      const scopes = String(payload.scope ?? '').split(' ');
      if (!Number.isInteger(userId) || typeof payload.client_id !== 'string') return null;
      if (!scopes.every((s): s is Scope => SCOPES.includes(s as Scope))) return null;
      return { userId, clientId: payload.client_id, scopes };
    } catch {
      return null;
    }
  }
}
