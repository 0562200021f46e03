/**
 * The sync state's schema: stepwise migrations on SQLite's `user_version` (STYLE.md: the state DB carries
 * a schema version; test upgrading an old file). A file from a newer calsync is refused, not damaged.
 * Public: migrate, SCHEMA_VERSION.
 */
import type { DatabaseSync } from 'node:sqlite';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE items (
     pipeline TEXT NOT NULL,
     kind TEXT NOT NULL,
     key TEXT NOT NULL,
     remote_id INTEGER NOT NULL,
     slug TEXT NOT NULL,
     hash TEXT NOT NULL,
     written TEXT NOT NULL,
     remote_modified TEXT,
     updated_utc TEXT NOT NULL,
     PRIMARY KEY (pipeline, kind, key)
   ) WITHOUT ROWID;
   CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     pipeline TEXT NOT NULL,
     started_utc TEXT NOT NULL,
     finished_utc TEXT,
     outcome TEXT,
     report TEXT
   );`,
  // 2: per-field hashes of the remote item after our write (preserve-local-edits), source validators.
  `ALTER TABLE items ADD COLUMN remote_fields TEXT;
   CREATE TABLE sources (
     pipeline TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     etag TEXT,
     last_modified TEXT,
     fingerprint TEXT NOT NULL,
     updated_utc TEXT NOT NULL
   );`,
  // 3: items as a rowid table with a unique index on the key. As WITHOUT ROWID, a row (about 1.1 KB:
  // the written body and the field hashes) was larger than an index b-tree keeps on its page (~1 KB of
  // 4 KB), so nearly every row took a page of its own plus an overflow page: 4.4 KB per item on disk and
  // in the WAL, most of what an upsert cost. A rowid table keeps three rows to a page.
  `CREATE TABLE items_v3 (
     pipeline TEXT NOT NULL,
     kind TEXT NOT NULL,
     key TEXT NOT NULL,
     remote_id INTEGER NOT NULL,
     slug TEXT NOT NULL,
     hash TEXT NOT NULL,
     written TEXT NOT NULL,
     remote_modified TEXT,
     updated_utc TEXT NOT NULL,
     remote_fields TEXT
   );
   INSERT INTO items_v3 (pipeline, kind, key, remote_id, slug, hash, written, remote_modified, updated_utc,
     remote_fields)
     SELECT pipeline, kind, key, remote_id, slug, hash, written, remote_modified, updated_utc, remote_fields
     FROM items ORDER BY pipeline, kind, key;
   DROP TABLE items;
   ALTER TABLE items_v3 RENAME TO items;
   CREATE UNIQUE INDEX items_key ON items (pipeline, kind, key);`,
  // 4: which store the ids are in (Target.instance, sync-state.ts `bind`).
  `CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Stepwise migrations on `user_version`; a file from a newer calsync is refused rather than damaged. */
export function migrate(db: DatabaseSync): void {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > MIGRATIONS.length) {
    throw new Error(
      `sync state has schema version ${version}, newer than this calsync knows (${MIGRATIONS.length}); upgrade calsync`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    // IMMEDIATE, and the version read again inside: two workers opening a new state file at once must not
    // both run a step (the second would meet "table already exists").
    db.exec('BEGIN IMMEDIATE');
    const { user_version: now } = db.prepare('PRAGMA user_version').get() as { user_version: number };
    if (now === v) {
      db.exec(MIGRATIONS[v]);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    }
    db.exec('COMMIT');
  }
}
