/**
 * Demo mode (`npm run serve -- --demo`, issue 7): the store holds the sample calendar, put back on start
 * and every day at 00:00 UTC, like the public test services whose visitors may write anything.
 *
 * Public: `DemoReset` (`reset()`, `start()`, `stop()`, `nextReset()`, the schedule the landing and docs
 * pages show in their banner) and `nextMidnightUtc(now)`.
 *
 * A reset runs the real import pipeline (`runPipeline` into the local target, as `npm run import` does)
 * into a fresh SQLite file beside the served one, then copies that file's content into the served file in
 * ONE transaction of a second connection: under WAL, requests keep reading the old data until the COMMIT
 * and the new data from then on, never a half-reset store; the server's caches see the commit through
 * `PRAGMA data_version` (store/connection.ts). Users, application passwords, OAuth clients and the token
 * signing key are kept: a client made with `npm run users -- client add` works across resets.
 *
 * The timer is computed from the injected clock and re-armed after each reset, so a clock that jumps (a
 * suspended laptop, a test) is caught up by the next arming, and tests trigger it without waiting.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileRunSpec } from '../pipeline/file-run-spec.ts';
import { type RunSpec, runPipeline } from '../pipeline/run.ts';
import type { Store } from '../store/store.ts';
import { LOCAL_USER, openLocalTarget } from './local-target.ts';

/** Tables that are not demo content: who may sign in, and the key their tokens are signed with. */
const KEPT_TABLES = new Set(['users', 'app_passwords', 'oauth_clients', 'signing_keys']);
/** How long a reset waits for the served file's write lock (a long write of the server) before failing. */
const BUSY_TIMEOUT_MS = 10_000;
/** Largest delay handed to setTimeout (2^31 − 1 ms); a longer wait is re-armed on expiry. */
const MAX_TIMER_MS = 2_147_483_647;

export interface DemoOptions {
  /** The served SQLite file (`npm run serve -- --data`); its store is `store`. */
  dataFile: string;
  /** The served store, for the user that owns the demo content. */
  store: Store;
  /** The calendar to reset to (.ics or .csv). */
  sampleFile: string;
  siteUrl?: string;
  apiBase?: string;
  siteTimezone?: string;
  /** Clock; default the system's. The import window (30 days back, a year ahead) follows it too. */
  now?: () => Date;
  /** Timer; default an unref'd setTimeout. Tests pass one that records the delay. */
  setTimer?: (fn: () => void, ms: number) => { cancel(): void };
  /** Where resets are reported (the server's pino logger). */
  logger?: DemoLogger;
}

export interface DemoLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DemoResetResult {
  /** Events the sample imported, and the source rows it skipped or failed. */
  events: number;
  skipped: number;
  failed: number;
  durationMs: number;
}

/** The first 00:00 UTC strictly after `now`. */
export function nextMidnightUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export class DemoReset {
  readonly #o: DemoOptions;
  readonly #now: () => Date;
  #timer: { cancel(): void } | undefined;
  #next: Date;
  #running: Promise<DemoResetResult> | undefined;
  #stopped = false;

  constructor(options: DemoOptions) {
    this.#o = { ...options, dataFile: resolve(options.dataFile), sampleFile: resolve(options.sampleFile) };
    this.#now = options.now ?? (() => new Date());
    this.#next = nextMidnightUtc(this.#now());
  }

  /** When the next reset is due (what the banner shows). */
  nextReset(): Date {
    return this.#next;
  }

  /** Arms the daily timer; the first reset (on start) is the caller's `await reset()`. */
  start(): void {
    this.#stopped = false;
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  /** Puts the sample back now. Concurrent calls share one reset. */
  reset(): Promise<DemoResetResult> {
    this.#running ??= this.#reset().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer?.cancel();
    const now = this.#now();
    this.#next = nextMidnightUtc(now);
    const delay = Math.min(this.#next.getTime() - now.getTime(), MAX_TIMER_MS);
    const set = this.#o.setTimer ?? unrefTimer;
    this.#timer = set(() => void this.#fire(), delay);
  }

  async #fire(): Promise<void> {
    // A timer may fire early (clock adjusted, or capped above): only reset once the due time has come.
    if (this.#now().getTime() >= this.#next.getTime()) {
      try {
        await this.reset();
      } catch (err) {
        this.#o.logger?.error({ err }, 'demo reset failed; the data stays as it was');
      }
    }
    this.#arm();
  }

  async #reset(): Promise<DemoResetResult> {
    const started = Date.now();
    const dir = await mkdtemp(join(dirname(this.#o.dataFile), `.${basename(this.#o.dataFile)}.demo-`));
    try {
      const fresh = join(dir, 'sample.db');
      const { report } = await runPipeline(this.#spec(dir), {
        openTarget: () =>
          openLocalTarget({
            dataFile: fresh,
            siteUrl: this.#o.siteUrl,
            apiBase: this.#o.apiBase,
            siteTimezone: this.#o.siteTimezone,
          }),
        now: this.#now(),
      }).catch((err: Error) => {
        // A sample that is no calendar at all (read-source.ts refuses it before planning).
        throw new Error(`demo reset: ${err.message}`, { cause: err });
      });
      // A sample that did not import whole would leave visitors a broken demo: keep the current data.
      const { created, failed } = report.counts.event;
      if (failed > 0 || created === 0) {
        const first = report.failures[0];
        throw new Error(
          `demo reset: ${this.#o.sampleFile} imported ${created} events, ${failed} failed` +
            (first
              ? ` (first: ${first.code} ${first.message}, ${first.file ?? ''}:${first.line ?? ''})`
              : ''),
        );
      }
      const owner = await this.#owner();
      copyContent(fresh, this.#o.dataFile, owner);
      const result = {
        events: report.counts.event.created,
        skipped: report.counts.event.skipped,
        failed: report.counts.event.failed,
        durationMs: Date.now() - started,
      };
      this.#o.logger?.info(result, 'demo data reset to the sample calendar');
      return result;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  #spec(dir: string): RunSpec {
    const type = this.#o.sampleFile.toLowerCase().endsWith('.csv') ? 'csv' : 'ics';
    return fileRunSpec({
      name: 'demo-sample',
      source: { type, path: this.#o.sampleFile },
      // A fresh state every reset: nothing to delete, and no deletions to guard against.
      policies: { delete: 'keep' },
      stateFile: join(dir, 'sample.sync.db'),
      targetLabel: `demo ${basename(this.#o.sampleFile)}`,
    });
  }

  /** The served store's `calsync` administrator, who owns imported content (local-target.ts). */
  async #owner(): Promise<number> {
    const { store } = this.#o;
    const user =
      (await store.findUser(LOCAL_USER)) ??
      (await store.insertUser({
        login: LOCAL_USER,
        email: '',
        role: 'administrator',
        display_name: 'calsync',
      }));
    return user.id;
  }
}

/**
 * Replaces every content table of `target` with `source`'s, in one transaction. Content tables are all
 * ordinary tables but `KEPT_TABLES`, so tables added by later migrations are reset too. Triggers fire as
 * the rows move, so: a second clearing pass removes rows the first pass's delete triggers wrote (feed
 * tombstones); term counts, which the `event_terms` insert triggers move, are set to the sample's; the
 * FTS5 index is emptied with its `delete-all` command and refilled from `events_fts_pending`, which the
 * event insert trigger fills (store/search-index.ts). `author` columns point at the target's owner.
 */
function copyContent(sourceFile: string, targetFile: string, owner: number): void {
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

function unrefTimer(fn: () => void, ms: number): { cancel(): void } {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
}
