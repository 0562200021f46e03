/**
 * Demo mode (`npm run serve -- --demo`, issue 7): the store holds the sample calendar, put back on start
 * and every day at 00:00 UTC, like the public test services whose visitors may write anything.
 *
 * Public: `DemoReset` (`reset()`, `resetOnStart()`, `start()`, `stop()`, `nextReset()`, the schedule the
 * landing and docs pages show in their banner) and `nextMidnightUtc(now)`.
 *
 * A reset runs the real import pipeline (`runPipeline` into the local target, as `npm run import` does)
 * into a fresh SQLite file, then copies that file's content into the served store in ONE transaction, so
 * requests keep reading the old data until the COMMIT and the new data from then on, never a half-reset
 * store. Users, application passwords, OAuth clients and the token signing key are kept: a client made
 * with `npm run users -- client add` works across resets.
 * - SQLite (demo-sqlite.ts): the fresh file lies beside the served one and is copied by a second
 *   connection; under WAL the server's caches see its commit through `PRAGMA data_version`.
 * - PostgreSQL (demo-postgres.ts): several servers may share the database, so a reset runs once per due
 *   time across them (recorded in the database), and a server starting beside running ones keeps the
 *   day's data; the commit is told to the other servers as any write's is (LISTEN/NOTIFY).
 *
 * The timer is computed from the injected clock and re-armed after each reset, so a clock that jumps (a
 * suspended laptop, a test) is caught up by the next arming, and tests trigger it without waiting.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileRunSpec } from '../pipeline/file-run-spec.ts';
import { type RunSpec, runPipeline } from '../pipeline/run.ts';
import type { PostgresStore } from '../store/postgres.ts';
import type { Store } from '../store/store.ts';
import type { DemoDue } from './demo-postgres.ts';
import { copyContent } from './demo-sqlite.ts';
import { LOCAL_USER, openLocalTarget } from './local-target.ts';

/** Largest delay handed to setTimeout (2^31 − 1 ms); a longer wait is re-armed on expiry. */
const MAX_TIMER_MS = 2_147_483_647;

export interface DemoOptions {
  /** The served SQLite file (`npm run serve -- --data`); its store is `store`. Unused on PostgreSQL. */
  dataFile?: string;
  /** The served store: the user that owns the demo content; on PostgreSQL, where the sample goes. */
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
  /**
   * False when nothing was changed because another server on the same PostgreSQL database had done this
   * reset already (`events` is then what it loaded); always true on SQLite.
   */
  loaded: boolean;
}

/** The 00:00 UTC that began the day of `now`. */
function midnightUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The PostgreSQL store, known by its `rewrite` (loading its class would load the PostgreSQL client). */
function onPostgres(store: Store): store is PostgresStore {
  return typeof (store as Partial<PostgresStore>).rewrite === 'function';
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
    if (options.dataFile === undefined && !onPostgres(options.store)) {
      throw new Error('demo mode on a SQLite store needs its file (dataFile)');
    }
    this.#o = {
      ...options,
      dataFile: options.dataFile && resolve(options.dataFile),
      sampleFile: resolve(options.sampleFile),
    };
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

  /** Puts the sample back now, whatever other servers did. Concurrent calls share one reset. */
  reset(): Promise<DemoResetResult> {
    return this.#once('now', midnightUtc(this.#now()));
  }

  /**
   * The reset of a server starting. On SQLite, `reset()`. On PostgreSQL, only when no reset of the
   * current UTC day with this sample file is recorded or the database holds no events: a server started
   * beside running ones keeps what they serve (demo-postgres.ts).
   */
  resetOnStart(): Promise<DemoResetResult> {
    return this.#once('start', midnightUtc(this.#now()));
  }

  #once(rule: DemoDue['rule'], due: Date): Promise<DemoResetResult> {
    this.#running ??= this.#reset(rule, due).finally(() => {
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
        await this.#once('due', this.#next);
      } catch (err) {
        this.#o.logger?.error({ err }, 'demo reset failed; the data stays as it was');
      }
    }
    this.#arm();
  }

  async #reset(rule: DemoDue['rule'], due: Date): Promise<DemoResetResult> {
    const started = Date.now();
    const { store, dataFile } = this.#o;
    let reset: DemoDue | undefined;
    if (onPostgres(store)) {
      const sample = createHash('sha256')
        .update(await readFile(this.#o.sampleFile))
        .digest('hex');
      reset = { rule, due, sample, owner: await this.#owner(), now: this.#now() };
      // Asked before importing, so that a server need not import what another already loaded.
      const { demoDone } = await import('./demo-postgres.ts');
      const done = rule === 'now' ? undefined : await demoDone(store, reset);
      if (done) return this.#skipped(done, started);
    }
    // Beside the served file (the same disk); a PostgreSQL store's sample goes to the temp folder.
    const dir = dataFile
      ? await mkdtemp(join(dirname(dataFile), `.${basename(dataFile)}.demo-`))
      : await mkdtemp(join(tmpdir(), 'calsync-demo-'));
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
      if (reset && onPostgres(store)) {
        const { loadIntoPostgres } = await import('./demo-postgres.ts');
        const load = await loadIntoPostgres(store, fresh, reset, created);
        if (!load.loaded) return this.#skipped(load, started);
      } else {
        copyContent(fresh, dataFile!, await this.#owner());
      }
      const result = {
        events: report.counts.event.created,
        skipped: report.counts.event.skipped,
        failed: report.counts.event.failed,
        durationMs: Date.now() - started,
        loaded: true,
      };
      this.#o.logger?.info(result, 'demo data reset to the sample calendar');
      return result;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Another server on the database did this reset (its record): nothing changed here. */
  #skipped(done: { resetUtc: string; events: number; due: string }, started: number): DemoResetResult {
    this.#o.logger?.info(
      { due: done.due, resetUtc: done.resetUtc, events: done.events },
      'demo reset already done by another server on the database; the data stays as it is',
    );
    return { events: done.events, skipped: 0, failed: 0, durationMs: Date.now() - started, loaded: false };
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

function unrefTimer(fn: () => void, ms: number): { cancel(): void } {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
}
