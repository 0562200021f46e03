/**
 * Which tables changed, for caches that should outlive writes to tables they never read (issue 15: an
 * event create dropped every kept answer, the venue lists too). `Connection` tells it every SQL text it
 * runs; a write marks the tables it writes — its own, those its triggers write (read from the schema,
 * transitively) and those whose foreign keys point at them (cascades) — with the next change number.
 * A text that is not a plain INSERT/UPDATE/DELETE/REPLACE on one named table (DDL, say), and a commit of
 * another connection, marks every table.
 *
 * Reads are told to the collector of the request running (`collect`, an AsyncLocalStorage, so a
 * request's awaits keep it and requests running at the same time do not share it) and of remembered
 * values being computed (`collectWhile`): every table named in the text of a statement is added.
 *
 * What the schema holds (tables, triggers, foreign keys) comes from the database: `sqliteSchema` reads
 * SQLite's catalogue; the PostgreSQL store reads its own once when it opens (postgres-schema.ts).
 *
 * Public: `TableChanges` (`wrote`, `read`, `readTables`, `changedEverything`, `now`, `changedSince`,
 * `insertsOnlySince`, `insertsOnlyAfter`,
 * `collect`, `collectWhile`), `SchemaFacts`, `sqliteSchema`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseSync } from 'node:sqlite';

/** What writes cause, as the database's catalogue tells it; names lower-cased. */
export interface SchemaFacts {
  tables: string[];
  /** Each trigger's table, the row operations that fire it, and the SQL it runs (its body). */
  triggers: { table: string; events: readonly Op[]; body: string }[];
  /** Each foreign key's child and parent table: its actions write the child when the parent changes. */
  foreignKeys: { child: string; parent: string }[];
}

/** SQLite's catalogue (sqlite_master, PRAGMA foreign_key_list) as `SchemaFacts`. */
export function sqliteSchema(db: DatabaseSync): SchemaFacts {
  const rows = db
    .prepare(
      "SELECT type, lower(name) AS name, lower(tbl_name) AS tbl, sql FROM sqlite_master WHERE type IN ('table', 'trigger')",
    )
    .all() as { type: string; name: string; tbl: string; sql: string | null }[];
  const facts: SchemaFacts = { tables: [], triggers: [], foreignKeys: [] };
  for (const r of rows) {
    if (r.type === 'trigger') {
      const sql = r.sql ?? '';
      const at = sql.search(/\bBEGIN\b/i);
      const head = at < 0 ? sql : sql.slice(0, at);
      const event = /\b(INSERT|UPDATE|DELETE)\b/i.exec(head)?.[1].toLowerCase() as Op | undefined;
      facts.triggers.push({ table: r.tbl, events: event ? [event] : OPS, body: sql.slice(Math.max(0, at)) });
    } else {
      facts.tables.push(r.name);
      const keys = db.prepare(`PRAGMA foreign_key_list("${r.name.replaceAll('"', '""')}")`).all() as {
        table: string;
      }[];
      for (const k of keys) facts.foreignKeys.push({ child: r.name, parent: k.table.toLowerCase() });
    }
  }
  return facts;
}

/** Statements that change no table's rows. */
const NO_CHANGE = /^\s*(?:BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|ANALYZE|SELECT|EXPLAIN)\b/i;
const WRITE =
  /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+["`[]?(\w+)/i;
const WRITES_IN_BODY =
  /\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+["`[]?(\w+)/gi;
/** Texts kept parsed; past this many (id lists make many shapes) the memo starts over. */
const MAX_TEXTS = 2_000;
const EVERYTHING: readonly string[] = ['*'];
/** Event inserts remembered (each statement of one counts). */
const MAX_INSERTS = 20_000;

export class TableChanges {
  /** The schema now (read again after DDL). */
  readonly #facts: () => SchemaFacts;
  #now = 0;
  /** When anything at all last changed (DDL, another connection's commit). */
  #everythingAt = 0;
  readonly #changedAt = new Map<string, number>();
  /** Per table: its last change that was not part of an event insert (`asEventInsert`). */
  readonly #otherAt = new Map<string, number>();
  /** The event inserts, in order: lists of ids are patched with them instead of read again. */
  #inserts: { at: number; id: number }[] = [];
  /** Inserts before this change number are no longer in `#inserts`. */
  #insertsFrom = 0;
  /** The event whose insert is running. */
  #inserting: number | null = null;
  readonly #writes = new Map<string, readonly string[]>();
  readonly #reads = new Map<string, readonly string[]>();
  /** The schema's tables, and what writes cause (triggers, foreign keys): built when first needed. */
  #fanOut: { tables: Set<string>; writes: Map<string, string[]> } | undefined;
  /** The collector of the request running (carried along its async calls), and of remembered values being computed. */
  readonly #request = new AsyncLocalStorage<Set<string>>();
  readonly #computing: Set<string>[] = [];

  constructor(facts: () => SchemaFacts) {
    this.#facts = facts;
  }

  /** The latest change number: a cache entry made after this reading is good while `changedSince` is false. */
  now(): number {
    return this.#now;
  }

  /** Whether any of `tables` changed after change number `since`. */
  changedSince(tables: Iterable<string>, since: number): boolean {
    if (this.#everythingAt > since) return true;
    for (const t of tables) if ((this.#changedAt.get(t) ?? 0) > since) return true;
    return false;
  }

  /** `sql` was run as a write (or may have been). */
  wrote(sql: string): void {
    let tables = this.#writes.get(sql);
    if (!tables) {
      tables = this.#written(sql);
      if (this.#writes.size >= MAX_TEXTS) this.#writes.clear();
      this.#writes.set(sql, tables);
    }
    if (tables.length === 0) return;
    const at = ++this.#now;
    if (tables === EVERYTHING) {
      this.#everythingAt = at;
      // The schema may have changed: what was parsed against it is parsed again.
      this.#fanOut = undefined;
      this.#writes.clear();
      this.#reads.clear();
      return;
    }
    for (const t of tables) this.#changedAt.set(t, at);
    if (this.#inserting === null) {
      for (const t of tables) this.#otherAt.set(t, at);
      return;
    }
    this.#inserts.push({ at, id: this.#inserting });
    if (this.#inserts.length > MAX_INSERTS) {
      this.#insertsFrom = this.#inserts[MAX_INSERTS / 2].at;
      this.#inserts = this.#inserts.slice(MAX_INSERTS / 2);
    }
  }

  /** Runs `fn`, the writes of inserting event `id`: they change other answers only by adding that event. */
  asEventInsert<T>(id: number, fn: () => T): T {
    const outer = this.#inserting;
    this.#inserting = id;
    try {
      return fn();
    } finally {
      this.#inserting = outer;
    }
  }

  /**
   * The events inserted after change number `since` when inserting them is all that changed `tables`
   * since then (an answer read from those tables is then good but for those events); null otherwise.
   */
  insertsOnlySince(tables: Iterable<string>, since: number): number[] | null {
    if (this.#everythingAt > since || since < this.#insertsFrom) return null;
    for (const t of tables) if ((this.#otherAt.get(t) ?? 0) > since) return null;
    const ids = new Set<number>();
    for (let i = this.#inserts.length - 1; i >= 0 && this.#inserts[i].at > since; i--)
      ids.add(this.#inserts[i].id);
    return [...ids];
  }

  /**
   * Whether nothing but event inserts (`asEventInsert`) changed `tables` after change number `since`:
   * the rows that were there then are as they were (the boolean of `insertsOnlySince`, without the ids).
   */
  insertsOnlyAfter(tables: Iterable<string>, since: number): boolean {
    if (this.#everythingAt > since) return false;
    for (const t of tables) if ((this.#otherAt.get(t) ?? 0) > since) return false;
    return true;
  }

  /** Another connection committed: any table may have changed. */
  changedEverything(): void {
    this.#everythingAt = ++this.#now;
  }

  /** `sql` was run as a read: its tables go to the collectors of what is running. */
  read(sql: string): void {
    const request = this.#request.getStore();
    if (!request && this.#computing.length === 0) return;
    let tables = this.#reads.get(sql);
    if (!tables) {
      tables = this.#named(sql);
      if (this.#reads.size >= MAX_TEXTS) this.#reads.clear();
      this.#reads.set(sql, tables);
    }
    this.readTables(tables);
  }

  /** Tables read without a statement now (a remembered result): told to the collectors. */
  readTables(tables: Iterable<string>): void {
    const request = this.#request.getStore();
    for (const t of tables) {
      request?.add(t);
      for (const c of this.#computing) c.add(t);
    }
  }

  /** Runs `fn`, and every async call it makes, with the tables they read added to `into`. */
  collect<T>(into: Set<string>, fn: () => T): T {
    return this.#request.run(into, fn);
  }

  /** Runs the synchronous `fn` with the tables it reads added to `into` (a value to remember). */
  collectWhile<T>(into: Set<string>, fn: () => T): T {
    this.#computing.push(into);
    try {
      return fn();
    } finally {
      this.#computing.pop();
    }
  }

  #written(sql: string): readonly string[] {
    if (NO_CHANGE.test(sql)) return [];
    const m = WRITE.exec(sql);
    if (!m) return EVERYTHING;
    const tables = new Set<string>();
    for (const op of opsOf(m[0], sql)) for (const t of this.#fanOutOf(op, m[1].toLowerCase())) tables.add(t);
    return [...tables];
  }

  /** Every known table whose name appears in the text as a word. */
  #named(sql: string): readonly string[] {
    const known = this.#schema().tables;
    const found = new Set<string>();
    for (const word of sql.toLowerCase().match(/\w+/g) ?? []) if (known.has(word)) found.add(word);
    return [...found];
  }

  /** The tables an `op` on `table` writes: itself, what its triggers and foreign keys write, transitively. */
  #fanOutOf(op: Op, table: string): readonly string[] {
    const { writes } = this.#schema();
    const seen = new Set<string>([`${op} ${table}`]);
    const tables = new Set<string>([table]);
    const queue = [`${op} ${table}`];
    while (queue.length > 0) {
      for (const next of writes.get(queue.pop()!) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        tables.add(next.slice(next.indexOf(' ') + 1));
        queue.push(next);
      }
    }
    return [...tables];
  }

  /** The schema's tables, and per `op table` the `op table`s it causes directly (triggers, foreign keys). */
  #schema(): { tables: Set<string>; writes: Map<string, string[]> } {
    if (this.#fanOut) return this.#fanOut;
    const writes = new Map<string, string[]>();
    const add = (from: string, to: string) => {
      const list = writes.get(from) ?? [];
      writes.set(from, list);
      list.push(to);
    };
    const facts = this.#facts();
    for (const trigger of facts.triggers) {
      for (const m of trigger.body.matchAll(WRITES_IN_BODY)) {
        for (const op of opsOf(m[0], trigger.body))
          for (const o of trigger.events) add(`${o} ${trigger.table}`, `${op} ${m[1].toLowerCase()}`);
      }
    }
    // A foreign key's actions (CASCADE, SET NULL) write the child when its parent row is updated or
    // deleted; an insert of a parent changes no child.
    for (const { child, parent } of facts.foreignKeys) {
      for (const o of ['update', 'delete'] as const) {
        add(`${o} ${parent}`, `update ${child}`);
        add(`${o} ${parent}`, `delete ${child}`);
      }
    }
    const tables = new Set(facts.tables);
    this.#fanOut = { tables, writes };
    return this.#fanOut;
  }
}

export type Op = 'insert' | 'update' | 'delete';
const OPS: readonly Op[] = ['insert', 'update', 'delete'];

/** The row operations a write statement can make: an upsert updates, a REPLACE deletes too. */
function opsOf(verb: string, sql: string): Op[] {
  const v = verb.trimStart().slice(0, 7).toUpperCase();
  if (v.startsWith('UPDATE')) return ['update'];
  if (v.startsWith('DELETE')) return ['delete'];
  const ops: Op[] = ['insert'];
  if (/\bREPLACE\b/i.test(verb)) ops.push('delete');
  if (/\bDO\s+UPDATE\b/i.test(sql)) ops.push('update');
  return ops;
}
