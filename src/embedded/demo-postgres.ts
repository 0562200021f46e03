/**
 * Demo mode on a PostgreSQL store (issue 16 step 4): the sample, imported into a fresh SQLite file as on
 * the embedded store (demo.ts), copied into the database in ONE transaction, once per due time whatever
 * the number of servers on the database.
 *
 * Public: `loadIntoPostgres(store, sampleDb, reset, events)`, `demoDone(store, reset)`, `DemoDue`, `DemoLoad`.
 *
 * - Once: the copy runs in `PostgresStore.rewrite`, which holds the store's write lock (an advisory lock
 *   every writer of every process takes), and first reads `calsync_demo_resets` (postgres-schema.ts): a
 *   reset due at 00:00 UTC that another server already recorded is skipped. Servers whose timers fire
 *   together queue on the lock; the first copies and records, the others read its record and do nothing.
 * - On start (`rule: 'start'`) a server loads the sample unless a reset of the current UTC day with the
 *   same sample file (its SHA-256) is recorded and the database holds events: a server starting beside
 *   running ones keeps what they serve (the visitors' writes of the day included), while a changed
 *   `--sample` or an emptied database is loaded at once.
 * - A database holding content that no demo reset loaded is refused, never replaced: `--demo` with a
 *   CALSYNC_DATABASE_URL meant for `npm run import` would otherwise empty that calendar every night.
 * - Content: every table of the store's schema but the kept ones (users, application passwords, OAuth
 *   clients, signing keys) and calsync's bookkeeping (`calsync_*`: migrations, sync state, host limits,
 *   these resets), read from the catalogue, so tables of later migrations are reset too. Each is emptied
 *   (children before parents: the foreign keys are enforced) and refilled with the sample's rows of the
 *   columns both have, one INSERT per table (`unnest` of one text array per column, each cast to its
 *   column's type: integer 0/1 to a boolean, text to a timestamp in UTC or to JSON, blob to bytea).
 *   Generated columns are computed, not copied; `author` columns point at the served store's owner.
 * - What triggers do as rows move is undone as on SQLite: a second clearing pass removes the tombstones
 *   the event deletions wrote; term counts are set to the sample's; every serial or identity sequence is
 *   moved past the highest id (never back: ids are not reused, as with SQLite's AUTOINCREMENT). pg_trgm's
 *   search index is kept by PostgreSQL inside the transaction.
 * - Readers of every server see the old data until the COMMIT; the notice of a commit that wrote goes out
 *   with it, so the other servers drop their kept answers (store/notices.ts).
 */
import { DatabaseSync } from 'node:sqlite';
import type { PoolClient } from 'pg';
import { formatUtcNow as utc } from '../model/datetime.ts';
import type { PostgresStore } from '../store/postgres.ts';

/** Tables that are not demo content: who may sign in, and the key their tokens are signed with. */
const KEPT_TABLES = new Set(['users', 'app_passwords', 'oauth_clients', 'signing_keys']);
/** calsync's bookkeeping beside the content: schema versions, sync state, host limits, demo resets. */
const BOOKKEEPING = /^calsync_/;

export interface DemoDue {
  /**
   * 'due': the daily reset due at `due`; 'start': a server starting in the UTC day that began at `due`;
   * 'now': asked for (`DemoReset.reset()`), done whatever is recorded.
   */
  rule: 'due' | 'start' | 'now';
  /** A 00:00 UTC. */
  due: Date;
  /** SHA-256 (hex) of the sample file. */
  sample: string;
  /** The served store's `calsync` administrator: `author` of the content. */
  owner: number;
  /** The clock's now, recorded as the time of the reset. */
  now: Date;
}

/** Whether the reset was done here, or was already done by another server (its record). */
export type DemoLoad = { loaded: true } | { loaded: false; resetUtc: string; events: number; due: string };

interface Column {
  name: string;
  /** As PostgreSQL spells it in a cast (`format_type`). */
  type: string;
  generated: boolean;
  /** The serial or identity sequence that fills it, or null. */
  sequence: string | null;
}

/**
 * Copies the content of the SQLite file `sampleDb` into `store`'s database for `reset`, unless that reset
 * was already done (see the header); `events` is what the sample imported, recorded for the others.
 */
export async function loadIntoPostgres(
  store: PostgresStore,
  sampleDb: string,
  reset: DemoDue,
  events: number,
): Promise<DemoLoad> {
  return store.rewrite<DemoLoad>(async (client) => {
    const done = await doneAlready(client, reset);
    if (done) return { wrote: false, result: { loaded: false, ...done } };
    await copyContent(client, sampleDb, reset.owner);
    await client.query(
      `INSERT INTO calsync_demo_resets (due_utc, sample, reset_utc, events) VALUES ($1, $2, $3, $4)
        ON CONFLICT (due_utc) DO UPDATE SET sample = excluded.sample, reset_utc = excluded.reset_utc,
          events = excluded.events`,
      [utc(reset.due), reset.sample, utc(reset.now), events],
    );
    // A year of days is plenty to tell what happened; the table stays small.
    await client.query('DELETE FROM calsync_demo_resets WHERE due_utc < $1', [
      utc(new Date(reset.due.getTime() - 366 * 86_400_000)),
    ]);
    return { wrote: true, result: { loaded: true } };
  });
}

/**
 * Whether `reset` needs no copy: the record that says so, else undefined. Asked before the import (a
 * server need not import what another already loaded) and again under the lock, which decides.
 */
export async function demoDone(
  store: PostgresStore,
  reset: DemoDue,
): Promise<{ resetUtc: string; events: number; due: string } | undefined> {
  return store.rewrite(async (client) => ({ wrote: false, result: await doneAlready(client, reset) }));
}

async function doneAlready(
  client: PoolClient,
  reset: DemoDue,
): Promise<{ resetUtc: string; events: number; due: string } | undefined> {
  if (reset.rule === 'now') return undefined;
  const { rows } = await client.query<{ due_utc: string; sample: string; reset_utc: string; events: number }>(
    'SELECT due_utc, sample, reset_utc, events FROM calsync_demo_resets WHERE due_utc >= $1 ORDER BY due_utc DESC LIMIT 1',
    [utc(reset.due)],
  );
  const last = rows[0];
  if (reset.rule === 'start') {
    const content = await client.query<{ events: boolean; any: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events) AS events, EXISTS (SELECT 1 FROM posts) OR EXISTS (SELECT 1 FROM terms) AS any`,
    );
    const { events, any } = content.rows[0];
    if (any && !(await client.query('SELECT 1 FROM calsync_demo_resets LIMIT 1')).rowCount) {
      throw new Error(
        'the database holds calendar content that demo mode did not load, and --demo would replace it with ' +
          'the sample every day: serve the demo from a database of its own (createdb calsync_demo), or empty this one',
      );
    }
    if (!last || last.sample !== reset.sample || !events) return undefined;
  } else if (!last) {
    return undefined;
  }
  return { resetUtc: last.reset_utc, events: last.events, due: last.due_utc };
}

/** Empties the content tables of the database and fills them with the SQLite file's. */
async function copyContent(client: PoolClient, sampleDb: string, owner: number): Promise<void> {
  // Text becomes a timestamp as the UTC time it is (the store's date-times are UTC).
  await client.query("SET LOCAL TimeZone = 'UTC'");
  const tables = await contentTables(client);
  const order = parentsFirst(tables, await foreignKeys(client, tables));
  for (let pass = 0; pass < 2; pass++) {
    for (const t of [...order].reverse()) await client.query(`DELETE FROM ${ident(t)}`);
  }
  const db = new DatabaseSync(sampleDb, { readOnly: true });
  try {
    const inSample = new Set(
      (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    for (const t of order) {
      if (!inSample.has(t)) continue;
      const sampleColumns = new Set(
        (db.prepare(`PRAGMA table_info(${ident(t)})`).all() as { name: string }[]).map((c) => c.name),
      );
      const columns = tables.get(t)!.filter((c) => !c.generated && sampleColumns.has(c.name));
      if (columns.length === 0) continue;
      const rows = db.prepare(`SELECT ${columns.map((c) => ident(c.name)).join(', ')} FROM ${ident(t)}`);
      rows.setReturnArrays(true);
      const values = columns.map(() => [] as (string | null)[]);
      for (const row of rows.all() as unknown as unknown[][]) {
        for (let i = 0; i < columns.length; i++) {
          values[i].push(columns[i].name === 'author' ? String(owner) : asText(row[i]));
        }
      }
      if (values[0].length === 0) continue;
      const list = columns.map((c) => ident(c.name)).join(', ');
      const casts = columns.map((c, i) => `u.c${i}::${c.type}`).join(', ');
      const arrays = columns.map((_, i) => `$${i + 1}::text[]`).join(', ');
      const aliases = columns.map((_, i) => `c${i}`).join(', ');
      // DO NOTHING: rows an insert trigger already wrote are not a conflict (as SQLite's OR IGNORE).
      await client.query(
        `INSERT INTO ${ident(t)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${casts} ` +
          `FROM unnest(${arrays}) AS u (${aliases}) ON CONFLICT DO NOTHING`,
        values,
      );
    }
    // The event_terms insert trigger counted the links into the terms: the sample's counts are the right ones.
    if (inSample.has('terms') && tables.get('terms')?.some((c) => c.name === 'count')) {
      const counts = db.prepare('SELECT id, count FROM terms').all() as { id: number; count: number }[];
      await client.query(
        'UPDATE terms t SET count = u.count FROM unnest($1::int[], $2::int[]) AS u (id, count) WHERE t.id = u.id',
        [counts.map((c) => c.id), counts.map((c) => c.count)],
      );
    }
  } finally {
    db.close();
  }
  for (const [t, columns] of tables) {
    for (const c of columns) {
      if (!c.sequence) continue;
      // Past the highest id now, never back below what was handed out (ids are not reused).
      await client.query(
        `SELECT setval($1::regclass, m) FROM (SELECT greatest((SELECT max(${ident(c.name)}) FROM ${ident(t)}),
           coalesce(pg_sequence_last_value($1::regclass), 0)) AS m) s WHERE m > 0`,
        [c.sequence],
      );
    }
  }
}

/** The content tables of the current schema and their columns, in column order. */
async function contentTables(client: PoolClient): Promise<Map<string, Column[]>> {
  const { rows } = await client.query<Column & { table: string }>(
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
        a.attgenerated <> '' AS generated,
        pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS sequence
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname, a.attnum`,
  );
  const tables = new Map<string, Column[]>();
  for (const { table, ...column } of rows) {
    if (KEPT_TABLES.has(table) || BOOKKEEPING.test(table)) continue;
    const list = tables.get(table) ?? [];
    list.push(column);
    tables.set(table, list);
  }
  return tables;
}

/** Foreign keys between content tables: child → parents. */
async function foreignKeys(
  client: PoolClient,
  tables: Map<string, Column[]>,
): Promise<Map<string, string[]>> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema()`,
  );
  const parents = new Map<string, string[]>();
  for (const { child, parent } of rows) {
    if (child === parent || !tables.has(child) || !tables.has(parent)) continue;
    parents.set(child, [...(parents.get(child) ?? []), parent]);
  }
  return parents;
}

/** The tables ordered so that every table comes after the tables its foreign keys point at. */
function parentsFirst(tables: Map<string, Column[]>, parents: Map<string, string[]>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (t: string) => {
    if (order.includes(t) || visiting.has(t)) return; // a cycle of keys: left in name order
    visiting.add(t);
    for (const p of parents.get(t) ?? []) visit(p);
    visiting.delete(t);
    order.push(t);
  };
  for (const t of [...tables.keys()].sort()) visit(t);
  return order;
}

/** A SQLite value as the text PostgreSQL casts to the column's type (bytea in its hex form). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return String(value);
}

/** A name as an SQL identifier, quoted (both PostgreSQL and SQLite read it so). */
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
