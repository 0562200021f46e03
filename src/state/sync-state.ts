/**
 * The sync state: per target, one SQLite file that remembers, for every item a pipeline wrote, its
 * source key → remote id and slug, the body we last wrote (for change detection and field diffs), the
 * remote `modified` we saw and a hash per field of the item as the target showed it after our write (so
 * that fields edited on the site since are found: the `preserve-local-edits` policy). The target API cannot
 * be searched by our keys, so this is what makes a re-run idempotent. Per pipeline it also keeps the
 * source's HTTP validators (ETag, Last-Modified) of the last successful run, for conditional GETs, and the
 * runs (`runs`), for recovery after a crash and for `npm run state -- show`.
 *
 * Every write is recorded as its answer arrives and committed before the event loop turns (spec/pipeline.md:
 * "State is committed after each successful write"): the answers that arrive together — a group commit
 * of the local target, a burst of HTTP answers — share one commit, which is most of what a record costs.
 * A kill at any moment loses at most the records of the answers of that one turn. The `runs` table tells
 * the next run that this happened (`interrupted`), and that run looks its event creates up by slug before
 * sending them, so nothing is created twice.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Kind } from '../model/kind.ts';
import { migrate } from './migrations.ts';

/** Where a written event body keeps its links of each kind (pipeline/desired.ts `Refs`). */
export const REF_OF: Record<Exclude<Kind, 'event'>, string> = {
  venue: 'venue',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};

/** What the state knows of one item. */
export interface StateItem {
  kind: Kind;
  key: string;
  remoteId: number;
  slug: string;
  /** Hash of the canonical body last written (pipeline/desired.ts). */
  hash: string;
  /** The canonical body last written, for field-level diffs. */
  written: Record<string, unknown>;
  remoteModified: string | null;
  /**
   * Field → hash of that field as the target showed it right after our last write (pipeline/local-edits.ts).
   * Absent for items written by calsync before schema version 2.
   */
  remoteFields?: Record<string, string>;
}

/** A remote source's validators, kept from the last successful run (RFC 9110 8.8, 13.1). */
export interface SourceCache {
  url: string;
  etag?: string;
  lastModified?: string;
  /** What else the short-cut depends on (definition, window): a 304 counts only if this is unchanged. */
  fingerprint: string;
}

/** One run as `runs` has it, for `npm run state -- show`. */
export interface RunRow {
  id: string;
  startedUtc: string;
  finishedUtc: string | null;
  outcome: string | null;
  report: unknown;
}

export class SyncState {
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #remove: StatementSync;
  #turn: NodeJS.Immediate | undefined;
  /** Why the last deferred commit failed (a full disk, say): thrown by the next explicit commit. */
  #turnFailure: unknown;
  /** Why SQLite rolled this turn's transaction back on its own (`#inTurnWrite`). */
  #turnLost: unknown;

  constructor(file: string) {
    this.file = file;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.#db = new DatabaseSync(file);
    // WAL + NORMAL: each commit is one append to the log, durable across a killed process (not across a
    // power cut, which would lose the last commits — then the next run settles them by slug).
    // The busy timeout first: switching a new file to WAL waits for another process opening it too (workers).
    this.#db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    migrate(this.#db);
    this.#upsert = this.#db.prepare(
      `INSERT INTO items (pipeline, kind, key, remote_id, slug, hash, written, remote_modified, remote_fields,
         updated_utc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (pipeline, kind, key) DO UPDATE SET remote_id = excluded.remote_id, slug = excluded.slug,
         hash = excluded.hash, written = excluded.written, remote_modified = excluded.remote_modified,
         remote_fields = excluded.remote_fields, updated_utc = excluded.updated_utc`,
    );
    this.#remove = this.#db.prepare('DELETE FROM items WHERE pipeline = ? AND kind = ? AND key = ?');
  }

  /** Every item of a pipeline. */
  items(pipeline: string): StateItem[] {
    this.#commit();
    const rows = this.#db
      .prepare(`SELECT ${ITEM_COLUMNS} FROM items WHERE pipeline = ? ORDER BY kind, key`)
      .all(pipeline) as unknown as ItemRow[];
    return rows.map(itemOf);
  }

  /**
   * The `limit` items written last, of any pipeline, or those of `of` (one pipeline's of one kind):
   * pipeline/bind-state.ts asks the target for them.
   */
  recentItems(limit: number, of?: { pipeline: string; kind: Kind }): StateItem[] {
    this.#commit();
    const rows = (of === undefined
      ? this.#db.prepare(`SELECT ${ITEM_COLUMNS} FROM items ORDER BY updated_utc DESC LIMIT ?`).all(limit)
      : this.#db
          .prepare(
            `SELECT ${ITEM_COLUMNS} FROM items WHERE pipeline = ? AND kind = ? ORDER BY updated_utc DESC LIMIT ?`,
          )
          .all(of.pipeline, of.kind, limit)) as unknown as ItemRow[];
    return rows.map(itemOf);
  }

  /**
   * What the state knows of these items (a batch of a run read in batches: pipeline/stream.ts), by
   * `kind\nkey`; each is also marked as seen by this run (`unseenEvents`).
   */
  itemsOf(pipeline: string, ids: readonly { kind: Kind; key: string }[]): Map<string, StateItem> {
    this.#seenTable();
    const found = new Map<string, StateItem>();
    if (ids.length === 0) return found;
    // The batch as one JSON list of [kind, key]: two statements per batch instead of two per item.
    const list = JSON.stringify(ids.map(({ kind, key }) => [kind, key]));
    const own = !this.#turn;
    if (own) this.#db.exec('BEGIN');
    try {
      this.#db
        .prepare(
          'INSERT OR IGNORE INTO temp.seen (kind, key) SELECT value ->> 0, value ->> 1 FROM json_each(?)',
        )
        .run(list);
      const rows = this.#db
        .prepare(
          `SELECT i.kind, i.key, i.remote_id, i.slug, i.hash, i.written, i.remote_modified, i.remote_fields
           FROM json_each(?) j CROSS JOIN items i
           WHERE i.pipeline = ? AND i.kind = j.value ->> 0 AND i.key = j.value ->> 1`,
        )
        .all(list, pipeline) as unknown as ItemRow[];
      const byKey = new Map(rows.map((row) => [`${row.kind}\n${row.key}`, row]));
      // In the order asked, as one look-up per item answered.
      for (const { kind, key } of ids) {
        const id = `${kind}\n${key}`;
        const row = byKey.get(id);
        if (row && !found.has(id)) found.set(id, itemOf(row));
      }
    } finally {
      if (own) this.#db.exec('COMMIT');
    }
    return found;
  }

  /** The pipeline's events that no `itemsOf` of this connection asked for: what left the source. */
  unseenEvents(pipeline: string): StateItem[] {
    this.#commit();
    this.#seenTable();
    const rows = this.#db
      .prepare(
        `SELECT ${ITEM_COLUMNS} FROM items i
         WHERE pipeline = ? AND kind = 'event'
           AND NOT EXISTS (SELECT 1 FROM temp.seen s WHERE s.kind = i.kind AND s.key = i.key)
         ORDER BY kind, key`,
      )
      .all(pipeline) as unknown as ItemRow[];
    return rows.map(itemOf);
  }

  linking(pipeline: string, link: { kind: Exclude<Kind, 'event'>; keys: readonly string[] }): StateItem[] {
    this.#commit();
    // json_each of a venue's one key yields that key; of the other links' lists, each of their keys.
    const rows = this.#db
      .prepare(
        `SELECT ${ITEM_COLUMNS} FROM items WHERE pipeline = ? AND kind = 'event'
           AND EXISTS (SELECT 1 FROM json_each(written, ?) r WHERE r.value IN (SELECT value FROM json_each(?)))
         ORDER BY key`,
      )
      .all(pipeline, `$.refs.${REF_OF[link.kind]}`, JSON.stringify(link.keys)) as unknown as ItemRow[];
    return rows.map(itemOf);
  }

  /** The keys this run has seen, in memory (`temp`): gone with the connection. */
  #seenTable(): void {
    this.#db.exec(
      'CREATE TEMP TABLE IF NOT EXISTS seen (kind TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID',
    );
  }

  /** Records an item as written; committed before the event loop turns (`#inTurn`). */
  put(pipeline: string, item: StateItem, now = new Date()): void {
    this.#inTurn();
    this.#inTurnWrite(() => this.#write(pipeline, item, now));
  }

  #write(pipeline: string, item: StateItem, now: Date): void {
    this.#upsert.run(
      pipeline,
      item.kind,
      item.key,
      item.remoteId,
      item.slug,
      item.hash,
      JSON.stringify(item.written),
      item.remoteModified,
      item.remoteFields ? JSON.stringify(item.remoteFields) : null,
      now.toISOString(),
    );
  }

  /** Items per kind of a pipeline (`npm run state -- show`). */
  counts(pipeline: string): Partial<Record<Kind, number>> {
    this.#commit();
    const rows = this.#db
      .prepare('SELECT kind, COUNT(*) AS n FROM items WHERE pipeline = ? GROUP BY kind')
      .all(pipeline) as { kind: Kind; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  }

  /** The pipelines this file knows (items or runs). */
  pipelines(): string[] {
    this.#commit();
    const rows = this.#db
      .prepare('SELECT pipeline FROM items UNION SELECT pipeline FROM runs ORDER BY pipeline')
      .all() as { pipeline: string }[];
    return rows.map((r) => r.pipeline);
  }

  /**
   * Forgets everything of a pipeline: its items, its source validators and its runs (`npm run state --
   * forget`). The target is untouched; the next run takes its items over again by slug and natural key.
   */
  forgetPipeline(pipeline: string): number {
    return this.#forget(pipeline, true);
  }

  /**
   * Forgets what a pipeline wrote — its items and source validators — and keeps its runs: the target lost
   * them (pipeline/bind-state.ts `bindSite`). How many items it knew.
   */
  forgetItems(pipeline: string): number {
    return this.#forget(pipeline, false);
  }

  #forget(pipeline: string, runs: boolean): number {
    this.#commit();
    this.#db.exec('BEGIN');
    try {
      const { changes } = this.#db.prepare('DELETE FROM items WHERE pipeline = ?').run(pipeline);
      this.#db.prepare('DELETE FROM sources WHERE pipeline = ?').run(pipeline);
      if (runs) this.#db.prepare('DELETE FROM runs WHERE pipeline = ?').run(pipeline);
      this.#db.exec('COMMIT');
      return Number(changes);
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  /**
   * Records that the ids the state holds are ids in store `instance` (Target.instance), and answers
   * whether what it knew had to be forgotten: when it recorded another instance, or recorded none (a state
   * from before schema 4) and knows items while the caller found their store `gone` (the store is new, or
   * holds none of `recentItems`: pipeline/bind-state.ts), its ids are in a store that is gone — the data file
   * was deleted or replaced. Then every pipeline's items and source validators go (their runs stay), and
   * the next plan takes over what the store has by slug and name and creates the rest.
   */
  bind(instance: string, gone: boolean): boolean {
    this.#commit();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const bound = this.boundInstance();
      const stale = bound
        ? bound !== instance
        : gone && this.#db.prepare('SELECT 1 FROM items LIMIT 1').get() !== undefined;
      if (stale) this.#db.exec('DELETE FROM items; DELETE FROM sources;');
      if (bound !== instance)
        this.#db.prepare(`INSERT OR REPLACE INTO meta VALUES ('instance', ?)`).run(instance);
      this.#db.exec('COMMIT');
      return stale;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  /** The store instance recorded by `bind`, if any. */
  boundInstance(): string | undefined {
    const row = this.#db.prepare(`SELECT value FROM meta WHERE name = 'instance'`).get() as
      | { value: string }
      | undefined;
    return row?.value;
  }

  /**
   * How many events of a pipeline were last written ending on or after `from` (`YYYY-MM-DD`, compared with
   * the written local end): what an earlier import holds that has not passed (cli/earlier-import.ts).
   */
  eventsEndingFrom(pipeline: string, from: string): number {
    this.#commit();
    const row = this.#db
      .prepare(
        `SELECT count(*) AS n FROM items WHERE pipeline = ? AND kind = 'event' AND written ->> '$.end_date' >= ?`,
      )
      .get(pipeline, from) as { n: number };
    return row.n;
  }

  /** The earlier import a file's own import name was found to stand for (cli/earlier-import.ts). */
  importAlias(pipeline: string): string | undefined {
    const row = this.#db.prepare('SELECT value FROM meta WHERE name = ?').get(`alias:${pipeline}`) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  /** Records (or, with undefined, drops) the earlier import a file's import name stands for. */
  setImportAlias(pipeline: string, earlier: string | undefined): void {
    this.#commit();
    if (earlier === undefined) this.#db.prepare('DELETE FROM meta WHERE name = ?').run(`alias:${pipeline}`);
    else this.#db.prepare('INSERT OR REPLACE INTO meta VALUES (?, ?)').run(`alias:${pipeline}`, earlier);
  }

  /** Replaces the items of a pipeline at once (`npm run state -- rebuild`); its runs are kept. */
  replaceItems(pipeline: string, items: readonly StateItem[], now = new Date()): void {
    this.#commit();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      this.#db.prepare('DELETE FROM items WHERE pipeline = ?').run(pipeline);
      this.#db.prepare('DELETE FROM sources WHERE pipeline = ?').run(pipeline);
      for (const item of items) this.#write(pipeline, item, now);
      this.#db.exec('COMMIT');
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  /** The source validators of the pipeline's last successful run, if any. */
  sourceCache(pipeline: string): SourceCache | undefined {
    const row = this.#db
      .prepare('SELECT url, etag, last_modified, fingerprint FROM sources WHERE pipeline = ?')
      .get(pipeline) as
      | { url: string; etag: string | null; last_modified: string | null; fingerprint: string }
      | undefined;
    return row && sourceCacheOf(row);
  }

  /** Keeps (or, with `undefined`, drops) the source validators of a pipeline. */
  setSourceCache(pipeline: string, cache: SourceCache | undefined, now = new Date()): void {
    this.#commit();
    if (!cache || (!cache.etag && !cache.lastModified)) {
      this.#db.prepare('DELETE FROM sources WHERE pipeline = ?').run(pipeline);
      return;
    }
    this.#db
      .prepare(
        `INSERT INTO sources (pipeline, url, etag, last_modified, fingerprint, updated_utc) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (pipeline) DO UPDATE SET url = excluded.url, etag = excluded.etag,
           last_modified = excluded.last_modified, fingerprint = excluded.fingerprint,
           updated_utc = excluded.updated_utc`,
      )
      .run(
        pipeline,
        cache.url,
        cache.etag ?? null,
        cache.lastModified ?? null,
        cache.fingerprint,
        now.toISOString(),
      );
  }

  /** The last `limit` runs of a pipeline, newest first. */
  runs(pipeline: string, limit = 5): RunRow[] {
    this.#commit();
    const rows = this.#db
      .prepare(
        'SELECT id, started_utc, finished_utc, outcome, report FROM runs WHERE pipeline = ? ORDER BY rowid DESC LIMIT ?',
      )
      .all(pipeline, limit) as {
      id: string;
      started_utc: string;
      finished_utc: string | null;
      outcome: string | null;
      report: string | null;
    }[];
    return rows.map((r) => ({
      id: r.id,
      startedUtc: r.started_utc,
      finishedUtc: r.finished_utc,
      outcome: r.outcome,
      report: r.report ? JSON.parse(r.report) : null,
    }));
  }

  /** Forgets an item deleted from the target; committed like `put`. */
  forget(pipeline: string, kind: Kind, key: string): void {
    this.#inTurn();
    this.#inTurnWrite(() => this.#remove.run(pipeline, kind, key));
  }

  /**
   * A write of this turn. SQLite answers some failures (SQLITE_FULL) by rolling the whole transaction
   * back: the turn's earlier records are gone, and this failure is what the turn's commit must tell.
   */
  #inTurnWrite(write: () => void): void {
    try {
      write();
    } catch (err) {
      if (!this.#db.isTransaction) this.#turnLost ??= err;
      throw err;
    }
  }

  /** Opens a transaction for the records of this turn of the event loop, committed by `setImmediate`. */
  #inTurn(): void {
    if (this.#turn) return;
    this.#db.exec('BEGIN IMMEDIATE');
    this.#turnLost = undefined;
    this.#turn = setImmediate(() => {
      // A timer has no caller: its failure (SQLITE_FULL) is kept for the next explicit commit (finishRun,
      // say), whose caller reports it with the run's summary; thrown here, it killed the process.
      try {
        this.#commit();
      } catch (err) {
        this.#turnFailure = err;
        // The turn is over either way: a commit that throws an earlier turn's failure first leaves this
        // one open (and a later explicit commit would then find its transaction gone).
        this.#turn = undefined;
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      }
    });
  }

  #commit(): void {
    const failure = this.#turnFailure;
    if (failure !== undefined) {
      this.#turnFailure = undefined;
      throw failure;
    }
    if (!this.#turn) return;
    clearImmediate(this.#turn);
    this.#turn = undefined;
    if (!this.#db.isTransaction) {
      throw this.#turnLost ?? new Error("the sync state's transaction was rolled back: nothing to commit");
    }
    this.#db.exec('COMMIT');
  }

  startRun(id: string, pipeline: string, now = new Date()): void {
    this.#commit();
    this.#db
      .prepare('INSERT INTO runs (id, pipeline, started_utc) VALUES (?, ?, ?)')
      .run(id, pipeline, now.toISOString());
  }

  /** Did a run of this pipeline start and never finish (killed, crashed)? Its last creates may have landed. */
  interrupted(pipeline: string): boolean {
    return (
      this.#db
        .prepare('SELECT 1 FROM runs WHERE pipeline = ? AND finished_utc IS NULL LIMIT 1')
        .get(pipeline) !== undefined
    );
  }

  /**
   * Did the last finished run of this pipeline fail? An event create it gave up on may still have landed
   * (its answer lost, then the look-up by slug failed too), so the next run looks creates up first, as
   * after a kill.
   */
  lastRunFailed(pipeline: string): boolean {
    const row = this.#db
      .prepare(
        'SELECT outcome FROM runs WHERE pipeline = ? AND finished_utc IS NOT NULL ORDER BY rowid DESC LIMIT 1',
      )
      .get(pipeline) as { outcome: string } | undefined;
    return row?.outcome === 'failed';
  }

  /** Finishes run `id`; earlier unfinished runs of its pipeline are settled by it and marked interrupted. */
  finishRun(id: string, pipeline: string, outcome: string, report: unknown, now = new Date()): void {
    this.#commit();
    const at = now.toISOString();
    this.#db
      .prepare(
        `UPDATE runs SET finished_utc = ?, outcome = 'interrupted' WHERE pipeline = ? AND finished_utc IS NULL AND id != ?`,
      )
      .run(at, pipeline, id);
    this.#db
      .prepare('UPDATE runs SET finished_utc = ?, outcome = ?, report = ? WHERE id = ?')
      .run(at, outcome, JSON.stringify(report), id);
  }

  close(): void {
    if (!this.#db.isOpen) return;
    this.#commit();
    this.#db.close();
  }
}

/** Source validators as either backend keeps them. */
export function sourceCacheOf(row: {
  url: string;
  etag: string | null;
  last_modified: string | null;
  fingerprint: string;
}): SourceCache {
  return {
    url: row.url,
    fingerprint: row.fingerprint,
    ...(row.etag ? { etag: row.etag } : {}),
    ...(row.last_modified ? { lastModified: row.last_modified } : {}),
  };
}

/** An item as either backend keeps it (PostgreSQL's bigint ids come back as strings). */
export function itemOf(r: ItemRow): StateItem {
  return {
    kind: r.kind as Kind,
    key: r.key,
    remoteId: Number(r.remote_id),
    slug: r.slug,
    hash: r.hash,
    written: JSON.parse(r.written),
    remoteModified: r.remote_modified,
    ...(r.remote_fields ? { remoteFields: JSON.parse(r.remote_fields) } : {}),
  };
}

/** The columns an `ItemRow` is read from. */
const ITEM_COLUMNS = 'kind, key, remote_id, slug, hash, written, remote_modified, remote_fields';

export interface ItemRow {
  kind: string;
  key: string;
  remote_id: number | string;
  slug: string;
  hash: string;
  written: string;
  remote_modified: string | null;
  remote_fields: string | null;
}
