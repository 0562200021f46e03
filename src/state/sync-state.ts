/**
 * The sync state: per target, one SQLite file that remembers, for every item a pipeline wrote, its
 * source key → remote id and slug, the body we last wrote (for change detection and field diffs) and the
 * remote `modified` we saw. The target API cannot be searched by our keys, so this is what makes a re-run
 * idempotent.
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
import type { Kind } from '../writer/target.ts';

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
}

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
];

export class SyncState {
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #remove: StatementSync;
  #turn: NodeJS.Immediate | undefined;

  constructor(file: string) {
    this.file = file;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.#db = new DatabaseSync(file);
    // WAL + NORMAL: each commit is one append to the log, durable across a killed process (not across a
    // power cut, which would lose the last commits — then the next run settles them by slug).
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    migrate(this.#db);
    this.#upsert = this.#db.prepare(
      `INSERT INTO items (pipeline, kind, key, remote_id, slug, hash, written, remote_modified, updated_utc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (pipeline, kind, key) DO UPDATE SET remote_id = excluded.remote_id, slug = excluded.slug,
         hash = excluded.hash, written = excluded.written, remote_modified = excluded.remote_modified,
         updated_utc = excluded.updated_utc`,
    );
    this.#remove = this.#db.prepare('DELETE FROM items WHERE pipeline = ? AND kind = ? AND key = ?');
  }

  /** Every item of a pipeline. */
  items(pipeline: string): StateItem[] {
    this.#commit();
    const rows = this.#db
      .prepare(
        'SELECT kind, key, remote_id, slug, hash, written, remote_modified FROM items WHERE pipeline = ? ORDER BY kind, key',
      )
      .all(pipeline) as unknown as Row[];
    return rows.map((r) => ({
      kind: r.kind as Kind,
      key: r.key,
      remoteId: r.remote_id,
      slug: r.slug,
      hash: r.hash,
      written: JSON.parse(r.written),
      remoteModified: r.remote_modified,
    }));
  }

  /** Records an item as written; committed before the event loop turns (`#inTurn`). */
  put(pipeline: string, item: StateItem, now = new Date()): void {
    this.#inTurn();
    this.#upsert.run(
      pipeline,
      item.kind,
      item.key,
      item.remoteId,
      item.slug,
      item.hash,
      JSON.stringify(item.written),
      item.remoteModified,
      now.toISOString(),
    );
  }

  /** Forgets an item deleted from the target; committed like `put`. */
  forget(pipeline: string, kind: Kind, key: string): void {
    this.#inTurn();
    this.#remove.run(pipeline, kind, key);
  }

  /** Opens a transaction for the records of this turn of the event loop, committed by `setImmediate`. */
  #inTurn(): void {
    if (this.#turn) return;
    this.#db.exec('BEGIN IMMEDIATE');
    this.#turn = setImmediate(() => this.#commit());
  }

  #commit(): void {
    if (!this.#turn) return;
    clearImmediate(this.#turn);
    this.#turn = undefined;
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

interface Row {
  kind: string;
  key: string;
  remote_id: number;
  slug: string;
  hash: string;
  written: string;
  remote_modified: string | null;
}

/** Stepwise migrations on `user_version`; a file from a newer calsync is refused rather than damaged. */
function migrate(db: DatabaseSync): void {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > MIGRATIONS.length) {
    throw new Error(
      `sync state has schema version ${version}, newer than this calsync knows (${MIGRATIONS.length}); upgrade calsync`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.exec('BEGIN');
    db.exec(MIGRATIONS[v]);
    db.exec(`PRAGMA user_version = ${v + 1}`);
    db.exec('COMMIT');
  }
}
