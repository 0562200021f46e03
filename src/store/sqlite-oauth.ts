/**
 * OAuth clients and the token signing key (B.2 client credentials) in SQLite. Public: `SqliteOAuth`,
 * used by sqlite.ts only.
 */
import type { Connection } from './connection.ts';
import type { OAuthClientRecord } from './store.ts';

export const CLIENT =
  'SELECT id, client_id, secret_hash, user_id, name, created_utc, revoked FROM oauth_clients';

export type ClientRow = Omit<OAuthClientRecord, 'revoked'> & { revoked: number };

export const clientRecord = (r: ClientRow): OAuthClientRecord => ({
  id: r.id,
  client_id: r.client_id,
  secret_hash: r.secret_hash,
  user_id: r.user_id,
  name: r.name,
  created_utc: r.created_utc,
  revoked: r.revoked === 1,
});

export class SqliteOAuth {
  readonly #db: Connection;

  constructor(db: Connection) {
    this.#db = db;
  }

  insert(rec: Omit<OAuthClientRecord, 'id' | 'revoked'>): OAuthClientRecord {
    const { id } = this.#db.run(
      'INSERT INTO oauth_clients (client_id, secret_hash, user_id, name, created_utc) VALUES (?, ?, ?, ?, ?)',
      [rec.client_id, rec.secret_hash, rec.user_id, rec.name, rec.created_utc],
    );
    return { ...rec, id, revoked: false };
  }

  find(clientId: string): OAuthClientRecord | undefined {
    const row = this.#db.get<ClientRow>(`${CLIENT} WHERE client_id = ?`, [clientId]);
    return row && clientRecord(row);
  }

  list(): OAuthClientRecord[] {
    return this.#db.all<ClientRow>(`${CLIENT} ORDER BY id`).map(clientRecord);
  }

  revoke(clientId: string): boolean {
    return this.#db.run('UPDATE oauth_clients SET revoked = 1 WHERE client_id = ?', [clientId]).changes > 0;
  }

  signingKey(name: string, generate: () => Uint8Array): Uint8Array {
    const read = () =>
      this.#db.get<{ key: Uint8Array }>('SELECT key FROM signing_keys WHERE name = ?', [name]);
    const found = read();
    if (found) return new Uint8Array(found.key);
    // OR IGNORE: two processes starting at once on one file both end up with the first one's key.
    // Upkeep: no answer of any query shows the key, so cached responses stay good.
    return this.#db.upkeep(() => {
      const key = generate();
      this.#db.db.prepare('INSERT OR IGNORE INTO signing_keys (name, key) VALUES (?, ?)').run(name, key);
      return new Uint8Array(read()!.key);
    });
  }
}
