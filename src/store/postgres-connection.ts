/**
 * The PostgreSQL store's connection: a `pg` pool, transactions on one pooled client, and a change number.
 *
 * - Queries are written with `?` placeholders, as the SQLite store's and the shared list builders'
 *   (list-sql.ts); `numbered` turns them into `$1, $2, …` once per text.
 * - Transactions keep the SQLite store's contract (store.ts), through the same `Transactions`
 *   (transactions.ts): they run one after another in this process, in the order asked; a call made
 *   inside one (its async context) runs on its client, nested ones as savepoints; a call from outside
 *   waits until it ends. Across processes the outermost transaction takes an advisory lock
 *   (`pg_advisory_xact_lock`) first, so writers are serialised as SQLite's BEGIN IMMEDIATE serialises
 *   them, and reads of other processes never wait (MVCC).
 * - Reads outside a transaction go to the pool, several at once.
 * - The data version (`version`) moves with every write of this process and at the end of every
 *   transaction, committed or not; the change numbers by table (`tables`, table-changes.ts) move with
 *   the writes as the SQLite store's do, from the schema's catalogue (postgres-schema.ts). Another
 *   process's commit is heard of through `committed`/`changedElsewhere` (the store's `shareChanges`,
 *   LISTEN/NOTIFY) and moves both, as another connection's commit does in SQLite.
 */
import type pg from 'pg';
import { type SchemaFacts, TableChanges } from './table-changes.ts';
import { type TransactionRunner, Transactions } from './transactions.ts';

export type PgParam = string | number | null | Uint8Array | readonly number[] | readonly string[];

/** Any constant of ours ('cals' + 1 in ASCII), distinct from the migrations' lock. */
const WRITE_LOCK = 0x63616c74;
/** Texts kept numbered; past this many (id lists make many shapes) the memo starts over. */
const MAX_TEXTS = 2_000;

export class PgConnection implements TransactionRunner {
  readonly pool: pg.Pool;
  readonly transactions: Transactions;
  /** Which tables changed when, and which a request read (the response cache), as in the SQLite store. */
  readonly tables: TableChanges;
  held = false;
  #client: pg.PoolClient | undefined;
  #depth = 0;
  #version = 0;
  #closed = false;
  /** Whether the open transaction wrote (its commit is then told to `committed`). */
  #wrote = false;
  /** Called after each commit that wrote (a write outside a transaction commits on its own). */
  committed: (() => void) | undefined;
  readonly #texts = new Map<string, string>();

  constructor(pool: pg.Pool, schema: SchemaFacts) {
    this.pool = pool;
    this.transactions = new Transactions(this);
    this.tables = new TableChanges(() => schema);
  }

  /** Moves with every write of this process and the end of every transaction (see above). */
  get version(): number {
    return this.#version;
  }

  /** Another process committed writes: everything read before may be stale. */
  changedElsewhere(): void {
    this.#version++;
    this.tables.changedEverything();
  }

  /** Rows as objects. */
  async all<R>(sql: string, params: readonly PgParam[] = []): Promise<R[]> {
    this.tables.read(sql);
    return (await this.#query(sql, params, false)).rows as R[];
  }

  async get<R>(sql: string, params: readonly PgParam[] = []): Promise<R | undefined> {
    return (await this.all<R>(sql, params))[0];
  }

  /** Rows as arrays in select-list order (rows.ts tuples). */
  async tuples<R extends unknown[]>(sql: string, params: readonly PgParam[] = []): Promise<R[]> {
    this.tables.read(sql);
    return (await this.#query(sql, params, true)).rows as unknown as R[];
  }

  /**
   * Runs a write: the changed rows and the rows it returns (`RETURNING`). `upkeep`: bookkeeping no
   * answer shows (the last use of a password), which must not empty caches.
   */
  async run<R = unknown>(
    sql: string,
    params: readonly PgParam[] = [],
    upkeep = false,
  ): Promise<{ changes: number; rows: R[] }> {
    if (!upkeep) {
      this.#version++;
      this.tables.wrote(sql);
    }
    const r = await this.#query(sql, params, false);
    if (!upkeep) {
      if (this.transactions.inside) this.#wrote = true;
      else this.committed?.();
    }
    return { changes: r.rowCount ?? 0, rows: r.rows as R[] };
  }

  async #query(sql: string, params: readonly PgParam[], arrays: boolean): Promise<pg.QueryResult> {
    let text = this.#texts.get(sql);
    if (text === undefined) {
      if (this.#texts.size >= MAX_TEXTS) this.#texts.clear();
      text = numbered(sql);
      this.#texts.set(sql, text);
    }
    const query = { text, values: params as unknown[], rowMode: arrays ? 'array' : undefined };
    if (this.transactions.inside) return this.#client!.query(query);
    if (this.transactions.busy) await this.transactions.idle();
    return this.pool.query(query);
  }

  /** Called by `Transactions`, one at a time: a transaction on a pooled client, or a savepoint in it. */
  async transactionAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#depth > 0) return this.#savepoint(fn);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    this.#client = client;
    this.#depth = 1;
    this.#wrote = false;
    let broken: Error | undefined;
    try {
      const result = await fn();
      await client.query('COMMIT');
      if (this.#wrote) this.committed?.();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      this.#depth = 0;
      this.#client = undefined;
      this.#version++;
      // A client whose ROLLBACK failed (its connection lost) is not given to anyone else.
      client.release(broken);
    }
  }

  /**
   * `fn` in a transaction of its own on a client of its own, outside the order of `transactions`: it
   * holds the write lock (every process's writers wait for it, as they wait for each other), while reads,
   * of this process and of the others, go on and see the data as it was until its COMMIT. For a rewrite
   * of the whole content (the demo reset) that must not stop this process's readers. `fn` says whether
   * it wrote: `beforeCommit` then runs in the transaction (the notice to the other processes), and
   * after the COMMIT this process treats everything as changed, as after another process's commit.
   */
  async apart<T>(
    fn: (client: pg.PoolClient) => Promise<{ wrote: boolean; result: T }>,
    beforeCommit?: (client: pg.PoolClient) => Promise<void>,
  ): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let wrote = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      const done = await fn(client);
      wrote = done.wrote;
      if (wrote) await beforeCommit?.(client);
      await client.query('COMMIT');
      return done.result;
    } catch (error) {
      wrote = false;
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.release(broken);
      if (wrote) this.changedElsewhere();
    }
  }

  async #savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const client = this.#client!;
    const name = `s${this.#depth++}`;
    await client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await client.query(`RELEASE ${name}`);
      return result;
    } catch (error) {
      await client.query(`ROLLBACK TO ${name}`);
      await client.query(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#depth--;
    }
  }

  /** Once a transaction of another caller has ended; a second call does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.transactions.idle();
    await this.pool.end();
  }
}

/** `?` placeholders (outside quoted literals and identifiers) as PostgreSQL's `$1, $2, …`. */
export function numbered(sql: string): string {
  let n = 0;
  let quote = '';
  let out = '';
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}
