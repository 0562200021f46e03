/**
 * OAuth clients (contract B.2, RFC 6749 §2.3): a random public `client_id` and a secret shown once,
 * stored only as an argon2id hash like application passwords; each client acts as one user.
 * Public: `createOAuthClient`, `verifyClient`.
 */
import { randomBytes } from 'node:crypto';
import type { IdentityStore, OAuthClientRecord, UserRecord } from '../../store/store.ts';
import type { CredentialCheck } from '../security/credential-gate.ts';
import { decoyHash } from './app-passwords.ts';
import { argon2 } from './argon2.ts';

/** base64url: no `:` (the Basic separator) and nothing that form-encoding changes. */
const random = (bytes: number) => randomBytes(bytes).toString('base64url');

export async function createOAuthClient(store: IdentityStore, user: UserRecord, name: string, now: string) {
  const secret = random(32);
  const secretHash = await (await argon2()).hash(secret);
  const record = await store.insertOAuthClient({
    client_id: `cs_${random(15)}`,
    secret_hash: secretHash,
    user_id: user.id,
    name,
    created_utc: now,
  });
  return { secret, record };
}

/**
 * The client these credentials belong to, if it exists, is not revoked and the secret matches. An
 * unknown or revoked client is compared with a decoy hash, so both answers take as long; `attempt`
 * runs the comparison as one throttled attempt (security/credential-gate.ts).
 */
export async function verifyClient(
  store: IdentityStore,
  clientId: string,
  secret: string,
  attempt: CredentialCheck = (check) => check(),
): Promise<OAuthClientRecord | null> {
  const client = await store.findOAuthClient(clientId);
  const ok = await attempt(async () => {
    if (!client || client.revoked) {
      await (await argon2()).verify(await decoyHash(), secret || 'x');
      return false;
    }
    return (await argon2()).verify(client.secret_hash, secret || 'x');
  });
  return ok && client ? client : null;
}
