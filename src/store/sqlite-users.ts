/** Users and their application passwords (B.2) in SQLite. */
import type { Connection } from './connection.ts';
import { appPasswordRecord, userRecord } from './rows.ts';
import type { AppPasswordRecord, UserRecord } from './store.ts';

export const USER = 'SELECT id, login, email, role, display_name FROM users';
export const APP_PASSWORD = 'SELECT id, user_id, name, hash, created_utc, last_used_utc FROM app_passwords';

export class SqliteUsers {
  readonly #db: Connection;

  constructor(db: Connection) {
    this.#db = db;
  }

  insert(rec: Omit<UserRecord, 'id'>): UserRecord {
    const { id } = this.#db.run('INSERT INTO users (login, email, role, display_name) VALUES (?, ?, ?, ?)', [
      rec.login,
      rec.email,
      rec.role,
      rec.display_name,
    ]);
    return userRecord({ ...rec, id });
  }

  get(id: number): UserRecord | undefined {
    const row = this.#db.get<UserRecord>(`${USER} WHERE id = ?`, [id]);
    return row && userRecord(row);
  }

  /** Login first, then e-mail; ASCII case-insensitive, as WordPress logins and addresses are. */
  find(loginOrEmail: string): UserRecord | undefined {
    const row = this.#db.get<UserRecord>(
      `${USER} WHERE login = ?1 COLLATE NOCASE OR email = ?1 COLLATE NOCASE
       ORDER BY login = ?1 COLLATE NOCASE DESC, id LIMIT 1`,
      [loginOrEmail],
    );
    return row && userRecord(row);
  }

  list(): UserRecord[] {
    return this.#db.all<UserRecord>(`${USER} ORDER BY id`).map(userRecord);
  }

  insertAppPassword(rec: Omit<AppPasswordRecord, 'id' | 'last_used_utc'>): AppPasswordRecord {
    const { id } = this.#db.run(
      'INSERT INTO app_passwords (user_id, name, hash, created_utc) VALUES (?, ?, ?, ?)',
      [rec.user_id, rec.name, rec.hash, rec.created_utc],
    );
    return appPasswordRecord({ ...rec, id, last_used_utc: null });
  }

  appPasswords(userId: number): AppPasswordRecord[] {
    return this.#db
      .all<AppPasswordRecord>(`${APP_PASSWORD} WHERE user_id = ? ORDER BY id`, [userId])
      .map(appPasswordRecord);
  }

  /** The user of application password `id`, if both still exist: one query, on every request. */
  appPasswordUser(id: number): UserRecord | undefined {
    const row = this.#db.get<UserRecord>(
      'SELECT u.id, u.login, u.email, u.role, u.display_name FROM app_passwords ap ' +
        'JOIN users u ON u.id = ap.user_id WHERE ap.id = ?',
      [id],
    );
    return row && userRecord(row);
  }

  deleteAppPassword(id: number): void {
    this.#db.run('DELETE FROM app_passwords WHERE id = ?', [id]);
  }

  touchAppPassword(id: number, at: string): void {
    // Bookkeeping, not data any answer shows: it must not empty the response cache.
    this.#db.upkeep(() => this.#db.run('UPDATE app_passwords SET last_used_utc = ? WHERE id = ?', [at, id]));
  }
}
