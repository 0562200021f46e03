/**
 * Demo mode on the embedded SQLite store: the sample's fresh file copied into the served one (demo.ts).
 * Public: `copyContent(sourceFile, targetFile, owner)`.
 */
import { DatabaseSync } from 'node:sqlite';

/** Tables that are not demo content: who may sign in, and the key their tokens are signed with. */
const KEPT_TABLES = new Set(['users', 'app_passwords', 'oauth_clients', 'signing_keys']);
/** How long a reset waits for the served file's write lock (a long write of the server) before failing. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Replaces every content table of `target` with `source`'s, in one transaction. Content tables are all
 * ordinary tables but `KEPT_TABLES`, so tables added by later migrations are reset too. Triggers fire as
 * the rows move, so: a second clearing pass removes rows the first pass's delete triggers wrote (feed
 * tombstones); term counts, which the `event_terms` insert triggers move, are set to the sample's; the
 * FTS5 index is emptied with its `delete-all` command and refilled from `events_fts_pending`, which the
 * event insert trigger fills (store/search-index.ts). `author` columns point at the target's owner.
 */
export function copyContent(sourceFile: string, targetFile: string, owner: number): void {
  // Foreign keys off: every content table is emptied and refilled whole, in table_list's order, and
  // `foreign_key_check` below proves the result consistent before it commits.
  const db = new DatabaseSync(targetFile, { enableForeignKeyConstraints: false });
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.prepare('ATTACH DATABASE ? AS sample').run(sourceFile);
    const tables = db.prepare('PRAGMA main.table_list').all() as { name: string; type: string }[];
    const content = tables
      .filter((t) => t.type === 'table' && !t.name.startsWith('sqlite_') && !KEPT_TABLES.has(t.name))
      .map((t) => t.name);
    const virtual = tables.filter((t) => t.type === 'virtual').map((t) => t.name);
    db.exec('BEGIN IMMEDIATE');
    try {
      for (let pass = 0; pass < 2; pass++) for (const t of content) db.exec(`DELETE FROM main."${t}"`);
      for (const v of virtual) db.exec(`INSERT INTO main."${v}" ("${v}") VALUES ('delete-all')`);
      for (const t of content) {
        const columns = (db.prepare(`PRAGMA main.table_info("${t}")`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        const values = columns.map((c) => (c === 'author' ? `${owner}` : `"${c}"`));
        const list = columns.map((c) => `"${c}"`).join(', ');
        // OR IGNORE: rows an insert trigger already wrote (the search queue) are not a conflict.
        db.exec(`INSERT OR IGNORE INTO main."${t}" (${list}) SELECT ${values.join(', ')} FROM sample."${t}"`);
      }
      // The `event_terms` insert triggers counted links into whichever terms existed by then (tables go
      // in table_list's order): the sample's counts are the right ones.
      db.exec(
        'UPDATE main.terms SET count = (SELECT s.count FROM sample.terms s WHERE s.id = main.terms.id)',
      );
      const broken = db.prepare('PRAGMA main.foreign_key_check').all();
      if (broken.length) throw new Error(`demo reset: ${broken.length} dangling references, rolled back`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    db.exec('DETACH DATABASE sample');
  } finally {
    db.close();
  }
}
