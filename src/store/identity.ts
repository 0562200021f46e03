/** The identity area of the store: users, application passwords, OAuth clients, signing keys (B.2). */
import type { Role } from '../model/index.ts';

export interface UserRecord {
  id: number;
  login: string;
  email: string;
  role: Role;
  display_name: string;
}

export interface AppPasswordRecord {
  id: number;
  user_id: number;
  name: string;
  /** argon2id hash; the password itself is shown once and never stored. */
  hash: string;
  created_utc: string;
  last_used_utc: string | null;
}

/** An OAuth client (B.2 client credentials), bound to one user. */
export interface OAuthClientRecord {
  id: number;
  /** Public, random; what the client sends as its `client_id`. */
  client_id: string;
  /** argon2id hash; the secret itself is shown once and never stored. */
  secret_hash: string;
  user_id: number;
  name: string;
  created_utc: string;
  revoked: boolean;
}

export interface IdentityStore {
  // Users and application passwords (B.2).
  insertUser(rec: Omit<UserRecord, 'id'>): Promise<UserRecord>;
  getUser(id: number): Promise<UserRecord | undefined>;
  /** By login or e-mail, case-insensitive. */
  findUser(loginOrEmail: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  insertAppPassword(rec: Omit<AppPasswordRecord, 'id' | 'last_used_utc'>): Promise<AppPasswordRecord>;
  appPasswords(userId: number): Promise<AppPasswordRecord[]>;
  /** The user an application password belongs to, while both exist (a revoked password has none). */
  appPasswordUser(id: number): Promise<UserRecord | undefined>;
  deleteAppPassword(id: number): Promise<void>;
  touchAppPassword(id: number, at: string): Promise<void>;

  // OAuth clients and the token signing key (B.2).
  insertOAuthClient(rec: Omit<OAuthClientRecord, 'id' | 'revoked'>): Promise<OAuthClientRecord>;
  findOAuthClient(clientId: string): Promise<OAuthClientRecord | undefined>;
  /** Every client, revoked ones included, by id. */
  listOAuthClients(): Promise<OAuthClientRecord[]>;
  /** Marks the client revoked; false if there is no such client. Revoked clients stay listed. */
  revokeOAuthClient(clientId: string): Promise<boolean>;
  /** The secret key named `name`, created from `generate` on first use and the same ever after. */
  signingKey(name: string, generate: () => Uint8Array): Promise<Uint8Array>;
}
