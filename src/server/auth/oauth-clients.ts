/**
 * OAuth clients (contract B.2, RFC 6749 §2.3): a random public `client_id` and a secret shown once,
 * stored only as an argon2id hash like application passwords; each client acts as one user.
 * Public: `createOAuthClient`, `verifyClient`.
 */
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { OAuthClientRecord, Store, UserRecord } from '../store/store.ts';

/** base64url: no `:` (the Basic separator) and nothing that form-encoding changes. */
const random = (bytes: number) => randomBytes(bytes).toString('base64url');

/** A hash of a secret nobody has, verified when the client is unknown so both answers take as long. */
let decoy: Promise<string> | undefined;

export async function createOAuthClient(store: Store, user: UserRecord, name: string, now: string) {
  const secret = random(32);
  const record = store.insertOAuthClient({
    client_id: `cs_${random(15)}`,
    secret_hash: await hash(secret),
    user_id: user.id,
    name,
    created_utc: now,
  });
  return { secret, record };
}

/** The client these credentials belong to, if it exists, is not revoked and the secret matches. */
export async function verifyClient(
  store: Store,
  clientId: string,
  secret: string,
): Promise<OAuthClientRecord | null> {
  const client = store.findOAuthClient(clientId);
  if (!client || client.revoked) {
    decoy ??= hash(random(32));
    await verify(await decoy, secret || 'x');
    return null;
  }
  return (await verify(client.secret_hash, secret)) ? client : null;
}
