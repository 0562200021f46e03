/**
 * The search index catching up in the background. Event writes only queue the event id in
 * `events_fts_pending` (a trigger; an FTS5 commit costs more than the event write itself, see
 * migrations.ts); `SearchIndexQueue` indexes the queue a bounded batch at a time from an unref'd timer,
 * between requests. Searches never wait for it: list-sql.ts matches queued events with LIKE instead of
 * the index, so answers are the same whether the queue is full or empty — which is why the indexing
 * writes go through `Connection.upkeep` and leave cached answers in place.
 *
 * Before this, the first search after a burst of writes indexed the whole queue on the request path
 * (~400 ms for 10,000 events).
 */
import type { Connection } from './connection.ts';

/**
 * Events indexed per transaction. FTS5 writes a segment per commit and now and then merges segments
 * within one; measured on 10,000 events (2 cores): batches of 100 take ~1.5 ms (p50), ≤ ~20 ms with a
 * merge, and ~430 ms in all; 1,000 take ~30 ms each; one batch of all takes ~330 ms.
 */
const BATCH = 100;
/**
 * Indexing starts once writes pause this long, so a burst of writes is not slowed by it (indexing
 * costs ~45 µs an event, ~5% of a create)...
 */
const QUIET_MS = 500;
/**
 * ...or once this many events wait, or the oldest has waited this long. Until then searches match
 * the queued events with LIKE: ~20 ms for 10,000 of them, against ~1 ms indexed.
 */
const MAX_QUEUED = 10_000;
const MAX_WAIT_MS = 30_000;
/** After a failure (another process holding the write lock past the busy timeout), try again later. */
const RETRY_MS = 2_000;

const TAKE =
  'SELECT json_group_array(id) AS ids FROM (SELECT id FROM events_fts_pending ORDER BY id LIMIT ?)';
const FORGET = 'DELETE FROM events_fts WHERE rowid IN (SELECT value FROM json_each(?))';
const INDEX =
  'INSERT INTO events_fts (rowid, title, description, excerpt) ' +
  'SELECT e.id, e.title, e.description, e.excerpt FROM events e WHERE e.id IN (SELECT value FROM json_each(?))';
const DONE = 'DELETE FROM events_fts_pending WHERE id IN (SELECT value FROM json_each(?))';

export class SearchIndexQueue {
  readonly #db: Connection;
  /**
   * False: the queue is only ever indexed by `drain`, never in the background — a connection that leaves
   * it to the server of the file (the local import target, src/embedded/local-target.ts).
   */
  readonly #background: boolean;
  #timer: NodeJS.Timeout | undefined;
  /** Writes seen since the queue was last empty, and when the first of them came. */
  #queued = 0;
  #since = 0;
  #draining = false;
  #closed = false;

  constructor(db: Connection, background = true) {
    this.#db = db;
    this.#background = background;
  }

  /** An event was queued (by a write of this connection, or seen waiting by a search): index it in time. */
  schedule(): void {
    if (!this.#background || this.#closed || this.#draining) return;
    const now = Date.now();
    if (this.#queued++ === 0) this.#since = now;
    const due = this.#queued >= MAX_QUEUED || now - this.#since >= MAX_WAIT_MS;
    if (this.#timer && !due) {
      this.#timer.refresh(); // the quiet period starts again
      return;
    }
    this.#arm(due ? 0 : QUIET_MS);
  }

  /** Schedules indexing if the queue holds anything, e.g. events written by another process. */
  scheduleIfPending(): void {
    if (!this.#background || this.#timer || this.#closed || this.#draining) return;
    if (this.#db.get('SELECT 1 FROM events_fts_pending LIMIT 1') !== undefined) this.schedule();
  }

  /** Indexes up to `limit` queued events in one transaction; returns whether the queue is now empty. */
  indexBatch(limit = BATCH): boolean {
    return this.#db.upkeep(() => {
      const ids = this.#db.get<{ ids: string }>(TAKE, [limit])!.ids;
      if (ids === '[]') return true;
      // Contentless with row deletes (migrations.ts): an event indexed before is forgotten first.
      this.#db.run(FORGET, [ids]);
      this.#db.run(INDEX, [ids]);
      this.#db.run(DONE, [ids]);
      return (JSON.parse(ids) as number[]).length < limit;
    });
  }

  /** Indexes the whole queue now (tests, and tools that want the index complete). */
  drain(): void {
    while (!this.indexBatch()) {}
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref();
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#closed || !this.#db.db.isOpen) return;
    if (this.#db.held) {
      // A transaction awaiting something else holds the connection: this batch would become part of it.
      this.#arm(QUIET_MS);
      return;
    }
    this.#draining = true;
    let empty: boolean;
    try {
      empty = this.indexBatch();
    } catch {
      // A timer has no caller to report to; the queue stays, and searches stay right without the index.
      this.#arm(RETRY_MS);
      return;
    }
    if (!empty) {
      // One batch per turn of the event loop, so requests run in between.
      this.#arm(0);
      return;
    }
    this.#draining = false;
    this.#queued = 0;
  }
}
