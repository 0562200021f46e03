/**
 * Records read by id, kept between the writes that could change them (issue 17: a fresh list page of 50
 * events spent ~40 % of its time reading its events, venues and organizers again from SQLite and
 * turning the rows into records, though a calendar's rows rarely change between two pages).
 *
 * Public: `RowMemo` (`read`). Its owner says which tables the records are read from and when they are
 * still good: `unchanged` (none of the tables changed since) for venues and organizers, `insertsOnly`
 * (nothing but inserts of other events changed them: an event's row, links and terms' kinds stay as they
 * were) for events. Change numbers come from the connection's `TableChanges`, so the memo is as exact as
 * the response cache: this connection's writes mark the tables they, their triggers and foreign keys
 * write, and another process's commit (`dataVersion`) marks every table.
 *
 * Nothing is kept or served inside a transaction (its rows may be rolled back, and a ROLLBACK marks no
 * table). Records are frozen, being shared by every request that reads them. When it holds `max`
 * records it starts over; a read of more than `max` records, at once or in pages, is not kept and
 * pushes nothing out.
 */
import type { Connection } from './connection.ts';

export type Freshness = 'unchanged' | 'insertsOnly';

export class RowMemo<R extends { id: number }> {
  readonly #db: Connection;
  readonly #tables: readonly string[];
  readonly #freshness: Freshness;
  readonly #max: number;
  readonly #records = new Map<number, R>();
  /** The change number the records were read at or after, with no change to their tables since. */
  #at = -1;

  constructor(db: Connection, tables: readonly string[], freshness: Freshness, max = 50_000) {
    this.#db = db;
    this.#tables = tables;
    this.#freshness = freshness;
    this.#max = max;
  }

  /**
   * The records of `ids` that exist, from here or from `load` (given the ids not kept). `looked`: the
   * caller has just looked for other processes' commits (`dataVersion`) in this synchronous call.
   * `partOf`: `ids` are a page of a read of that many records (a feed of 100,000 events read 2,000 at a
   * time), kept only when that whole read would be.
   */
  read(ids: readonly number[], load: (ids: number[]) => R[], looked = false, partOf = 0): Map<number, R> {
    const found = new Map<number, R>();
    const db = this.#db;
    if (db.db.isTransaction) {
      for (const r of load([...ids])) found.set(r.id, r);
      return found;
    }
    if (!looked) db.dataVersion();
    const changes = db.tables;
    const good =
      this.#freshness === 'unchanged'
        ? !changes.changedSince(this.#tables, this.#at)
        : changes.insertsOnlyAfter(this.#tables, this.#at);
    if (!good) {
      this.#records.clear();
      this.#at = changes.now();
    }
    const missing: number[] = [];
    for (const id of ids) {
      const r = this.#records.get(id);
      if (r === undefined) missing.push(id);
      else found.set(id, r);
    }
    if (missing.length < ids.length) changes.readTables(this.#tables);
    if (missing.length === 0) return found;
    const loaded = load(missing);
    // More than `max` at once, or in pages (a feed of 100,000 events), is not kept at all, and pushes
    // nothing out: kept whole it would stay past the bound for as long as those tables do not change, and
    // in pages each page would push out the one before, for no read to find.
    const keep = Math.max(ids.length, partOf) <= this.#max;
    if (keep && this.#records.size + loaded.length > this.#max) this.#records.clear();
    for (const r of loaded) {
      freeze(r);
      if (keep) this.#records.set(r.id, r);
      found.set(r.id, r);
    }
    return found;
  }
}

/** The record and its arrays (an event's links). */
function freeze(r: object): void {
  for (const v of Object.values(r)) if (Array.isArray(v)) Object.freeze(v);
  Object.freeze(r);
}
