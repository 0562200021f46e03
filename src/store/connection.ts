/**
 * One SQLite connection with a prepared-statement cache, a data version, remembered COUNTs and
 * nestable transactions. Every query of the store goes through `all`/`get`/`tuples`/`run`/`count`, so
 * each distinct SQL text is prepared once and every write moves the data version.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { StoreError } from './errors.ts';
import { sqliteSchema, TableChanges } from './table-changes.ts';

export type Param = string | number | null;
export type Params = readonly Param[] | Readonly<Record<string, Param>>;

/**
 * Statements built from variable-length id lists have many shapes; past this many cached texts the
 * cache starts over instead of growing without bound.
 */
const MAX_CACHED_STATEMENTS = 500;
/**
 * Bounds of what `remember` keeps: entries, and their summed sizes (an id list of n ids has size n, so
 * 1,000,000 is about 8 MB of numbers). The oldest entries go first.
 */
const MAX_REMEMBERED = 500;
const MAX_REMEMBERED_SIZE = 1_000_000;
/** Rows `getInTransaction` keeps at most; past it, it starts over. */
const MAX_KEPT_ROWS = 10_000;

export class Connection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #tupleStatements = new Map<string, StatementSync>();
  #depth = 0;
  /**
   * Why SQLite rolled back the open transaction on its own (SQLITE_FULL, an I/O error), when it did so
   * under a savepoint: the writes of the whole transaction — a group's other requests too — are gone.
   */
  #lost: unknown;
  /** Calls of `run`: any write of this connection goes through it. */
  #runs = 0;
  /** `#runs` and SQLite's `data_version` when `dataVersion()` last looked, and its answer then. */
  #seenRuns = 0;
  #seenDataVersion = -1;
  /** When `data_version` was last read (performance.now()). */
  #lookedAt = -Infinity;
  /** `lookThisTurn` looked in this turn of the event loop. */
  #lookedThisTurn = false;
  #version = 0;
  readonly #remembered = new Map<string, { value: unknown; size: number; tables: Set<string> }>();
  #rememberedSize = 0;
  #rememberedVersion = -1;
  /** Called after each commit of this connection (WAL checkpoints, checkpointer.ts). */
  onCommit: (() => void) | undefined;
  /** Which tables changed when, and which a request read (the response cache). */
  readonly tables: TableChanges;
  /** Open `upkeep` calls: their writes change no answer, and mark no table. */
  #upkeeps = 0;
  /** An async transaction holds the connection (transactions.ts): background upkeep must not join it. */
  held = false;
  /** Rows read in the open transaction (`getInTransaction`), with the change number they were read at. */
  readonly #kept = new Map<string, { row: unknown; at: number }>();
  /** Outermost transactions begun (BEGIN IMMEDIATE), and the last one `getInTransaction` checked. */
  #transactions = 0;
  #keptChecked = -1;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.tables = new TableChanges(() => sqliteSchema(db));
  }

  statement(sql: string, tuples = false): StatementSync {
    const cache = tuples ? this.#tupleStatements : this.#statements;
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.clear();
      stmt = this.db.prepare(sql);
      stmt.setReturnArrays(tuples);
      cache.set(sql, stmt);
    }
    return stmt;
  }

  /** Rows as arrays in select-list order: node:sqlite builds them at about half the cost of objects. */
  tuples<R extends unknown[]>(sql: string, params: readonly Param[] = []): R[] {
    this.tables.read(sql);
    return this.statement(sql, true).all(...params) as unknown as R[];
  }

  all<R>(sql: string, params: Params = []): R[] {
    this.tables.read(sql);
    const stmt = this.statement(sql);
    return (Array.isArray(params) ? stmt.all(...params) : stmt.all(params as Record<string, Param>)) as R[];
  }

  get<R>(sql: string, params: Params = []): R | undefined {
    this.tables.read(sql);
    const stmt = this.statement(sql);
    return (Array.isArray(params) ? stmt.get(...params) : stmt.get(params as Record<string, Param>)) as
      | R
      | undefined;
  }

  /**
   * `get(sql, params)`, kept across this connection's transactions while `table` is not written: an event
   * import reads the same few hundred venues and organizers for each of its thousands of events. Used
   * only inside a transaction, which first asks SQLite whether another connection committed since the
   * last one (`dataVersion`: one PRAGMA per transaction; if so, every table counts as changed); within
   * it no other commit can change what this one sees (a write transaction holds the lock, a read one
   * its snapshot). This connection's writes mark the tables they change (TableChanges, triggers and
   * cascades included), and any rollback drops everything kept. Outside a transaction it is `get`.
   */
  getInTransaction<R>(key: string, table: string, sql: string, params: readonly Param[]): R | undefined {
    if (!this.db.isTransaction) return this.get<R>(sql, params);
    if (this.#keptChecked !== this.#transactions) {
      this.#keptChecked = this.#transactions;
      this.dataVersion();
    }
    const hit = this.#kept.get(key);
    if (hit && !this.tables.changedSince([table], hit.at)) {
      this.tables.read(sql);
      return hit.row as R | undefined;
    }
    const at = this.tables.now();
    const row = this.get<R>(sql, params);
    if (this.#kept.size >= MAX_KEPT_ROWS) this.#kept.clear();
    this.#kept.set(key, { row, at });
    return row;
  }

  /** Runs a write; returns the number of changed rows and the last inserted rowid. */
  run(sql: string, params: Params = []): { changes: number; id: number } {
    this.#runs++;
    if (this.#upkeeps === 0) this.tables.wrote(sql);
    const stmt = this.statement(sql);
    const r = Array.isArray(params) ? stmt.run(...params) : stmt.run(params as Record<string, Param>);
    // Outside a transaction once run: a COMMIT, or a statement committed on its own.
    if (this.onCommit && !this.db.isTransaction) this.onCommit();
    return { changes: Number(r.changes), id: Number(r.lastInsertRowid) };
  }

  /**
   * A number that moves whenever the database may have changed since the last call: a write of this
   * connection (any `run`, rollbacks included) or a commit of another one (`PRAGMA data_version`,
   * which SQLite moves only for other connections' commits). Equal answers mean nothing changed in
   * between, so anything computed from the data under one answer is still good (`remember`, the
   * server's response cache). Costs one PRAGMA: ~4 µs alone, ~13 µs measured in the server.
   */
  dataVersion(maxAgeMs = 0, shareTurn = true): number {
    // A caller that may see another process's commit a little late skips the PRAGMA (~12 µs: it takes
    // SQLite's read lock) when it was read less than `maxAgeMs` ago, as does any read outside a
    // transaction in a turn that `lookThisTurn` looked in (unless `shareTurn` is false: a request not read
    // from a socket); this connection's writes always count.
    const now = performance.now();
    if (
      this.#runs === this.#seenRuns &&
      (now - this.#lookedAt < maxAgeMs || (shareTurn && this.#lookedThisTurn && !this.db.isTransaction))
    )
      return this.#version;
    this.#lookedAt = now;
    const dataVersion = this.get<{ data_version: number }>('PRAGMA data_version')!.data_version;
    if (this.#runs !== this.#seenRuns || dataVersion !== this.#seenDataVersion) {
      if (dataVersion !== this.#seenDataVersion) this.tables.changedEverything();
      this.#seenRuns = this.#runs;
      this.#seenDataVersion = dataVersion;
      this.#version++;
    }
    return this.#version;
  }

  /**
   * `dataVersion()` for the requests a server read from sockets: another process's commits are looked
   * for once per turn of the event loop, and that look also serves the reads outside a transaction for
   * the rest of the turn (the row memo's, kept lists': three PRAGMAs of a list page). The requests read
   * in one turn were all there when its first look was taken (libuv polls them before it runs their
   * callbacks), so an answer as of that look is as of a moment after each of them arrived, as a look of
   * its own would be. A transaction always looks (its kept rows must be as of its snapshot).
   */
  lookThisTurn(): number {
    const version = this.dataVersion();
    if (!this.#lookedThisTurn) {
      this.#lookedThisTurn = true;
      setImmediate(() => {
        this.#lookedThisTurn = false;
      });
    }
    return version;
  }

  /**
   * `compute()`'s value for `key`, remembered until the data version moves (`dataVersion`). Lists use
   * it for their totals and ordered ids, so paging through a list, or asking the same page again,
   * reads it once. `size` weighs the value against MAX_REMEMBERED_SIZE; `maxAgeMs` is passed to
   * `dataVersion`.
   */
  remember<T>(key: string, compute: () => T, size: (value: T) => number = () => 1, maxAgeMs = 0): T {
    const version = this.dataVersion(maxAgeMs);
    if (version !== this.#rememberedVersion) {
      this.#remembered.clear();
      this.#rememberedSize = 0;
      this.#rememberedVersion = version;
    }
    const hit = this.#remembered.get(key);
    if (hit) {
      this.tables.readTables(hit.tables);
      return hit.value as T;
    }
    // The tables it reads, told again to whoever collects reads when the value is taken from here.
    const tables = new Set<string>();
    const value = this.tables.collectWhile(tables, compute);
    const weight = size(value);
    this.#remembered.set(key, { value, size: weight, tables });
    this.#rememberedSize += weight;
    for (const [oldKey, old] of this.#remembered) {
      if (this.#remembered.size <= MAX_REMEMBERED && this.#rememberedSize <= MAX_REMEMBERED_SIZE) break;
      this.#remembered.delete(oldKey);
      this.#rememberedSize -= old.size;
    }
    return value;
  }

  /**
   * Runs `fn` in a transaction whose writes do not move `dataVersion`: for upkeep that changes no
   * answer of any query (the search index catching up, search-index.ts), so remembered lists and
   * cached responses stay good. Other connections still see a commit; they only recompute.
   */
  upkeep<T>(fn: () => T): T {
    const before = this.#runs;
    this.#upkeeps++;
    try {
      return this.transaction(fn);
    } finally {
      this.#upkeeps--;
      // Writes made before the upkeep and not yet seen must still move the version.
      if (this.#seenRuns === before) this.#seenRuns = this.#runs;
    }
  }

  /** The `n` of a `SELECT count(*) AS n …`, remembered (`remember`). */
  count(sql: string, params: readonly Param[]): number {
    return this.remember(
      `count ${JSON.stringify(params)} ${sql}`,
      () => this.get<{ n: number }>(sql, params)!.n,
    );
  }

  /**
   * Runs `fn` in a transaction: BEGIN IMMEDIATE at the outermost level (takes the write lock up
   * front, so a WAL reader never fails to upgrade mid-way), a SAVEPOINT inside, so a nested call
   * that throws undoes only its own writes when its caller catches.
   */
  transaction<T>(fn: () => T): T {
    const depth = this.#enter();
    let result: T;
    try {
      result = fn();
      if (isThenable(result)) {
        throw new StoreError(
          'store-async-transaction',
          'transaction(fn): fn returned a promise; expected a synchronous function (its awaits would run after COMMIT)',
        );
      }
    } catch (error) {
      this.#undo(depth, error);
      throw error;
    }
    this.#finish(depth);
    return result;
  }

  /**
   * `transaction` for an async `fn`, whose awaits run inside the transaction. The caller makes sure that
   * nothing else uses the connection until it settles (transactions.ts): the depth is the connection's.
   */
  async transactionAsync<T>(fn: () => Promise<T>): Promise<T> {
    const depth = this.#enter();
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      this.#undo(depth, error);
      throw error;
    }
    this.#finish(depth);
    return result;
  }

  /** Whether a transaction (or a group) is open. */
  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  /** BEGIN IMMEDIATE or a SAVEPOINT; returns the depth it was opened at. */
  #enter(): number {
    const depth = this.#depth;
    // Under a transaction SQLite rolled back, a SAVEPOINT would begin a new one outside the group.
    if (depth > 0 && !this.db.isTransaction) throw this.#lostError();
    if (depth === 0) {
      this.#lost = undefined;
      this.#transactions++;
    }
    this.run(depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT s${depth}`);
    this.#depth = depth + 1;
    return depth;
  }

  #undo(depth: number, cause: unknown): void {
    this.#depth = depth;
    this.#kept.clear();
    if (!this.db.isTransaction) {
      // SQLite rolled the whole transaction back itself: there is no savepoint left to return to.
      if (depth > 0) this.#lost ??= cause;
    } else if (depth === 0) {
      this.run('ROLLBACK');
    } else {
      this.run(`ROLLBACK TO s${depth}`);
      this.run(`RELEASE s${depth}`);
    }
  }

  #finish(depth: number): void {
    this.#depth = depth;
    if (depth > 0) {
      this.run(`RELEASE s${depth}`);
      return;
    }
    // A caller that caught a failure SQLite answered by rolling everything back: nothing to commit.
    if (!this.db.isTransaction) {
      this.#kept.clear();
      throw this.#lostError();
    }
    try {
      this.run('COMMIT');
    } catch (error) {
      this.#kept.clear();
      if (this.db.isTransaction) this.run('ROLLBACK');
      throw error;
    }
  }

  /**
   * Group commit for a bulk writer in this process (the local import target): opens a transaction that
   * spans many `transaction` calls, which nest inside it as savepoints — a failing request still undoes
   * only its own writes — until `commitGroup` commits them all with one COMMIT.
   */
  beginGroup(): void {
    if (this.#depth !== 0) throw new StoreError('store-group-misuse', 'beginGroup: a transaction is open');
    this.run('BEGIN IMMEDIATE');
    this.#depth = 1;
    this.#lost = undefined;
    this.#transactions++;
  }

  commitGroup(): void {
    if (this.#depth !== 1) throw new StoreError('store-group-misuse', 'commitGroup: no group is open');
    this.#depth = 0;
    if (!this.db.isTransaction) {
      this.#kept.clear();
      throw this.#lostError();
    }
    try {
      this.run('COMMIT');
    } catch (error) {
      this.#kept.clear();
      if (this.db.isTransaction) this.run('ROLLBACK');
      throw error;
    }
  }

  /** The cause of a transaction SQLite rolled back on its own, told once to each caller that meets it. */
  #lostError(): unknown {
    const cause = this.#lost;
    if (this.#depth === 0) this.#lost = undefined;
    return cause ?? new StoreError('store-group-misuse', 'the open transaction was rolled back');
  }

  close(): void {
    this.#kept.clear();
    this.#statements.clear();
    this.#tupleStatements.clear();
    if (this.db.isOpen) this.db.close();
  }
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A `?, ?, ?` list for an `IN (…)` of `n` values. */
export function placeholders(n: number): string {
  return n === 1 ? '?' : Array.from({ length: n }, () => '?').join(', ');
}
