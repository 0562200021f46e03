/**
 * The sync state in PostgreSQL, for workers on several hosts (`npm run worker`): the same records as the
 * SQLite file of sync-state.ts — items by source key → remote id, slug, hash and field hashes; per pipeline
 * the source's HTTP validators; the runs, for recovery after a crash — in three tables keyed by target, in
 * the database the queue already lives in. The run lock is a session advisory lock, which PostgreSQL
 * releases when the holder's connection ends however it ends (a SIGKILLed worker's socket closes).
 *
 * The target's identity is its state file's name (`site.example-wp-json-tribe-events-v1` for a remote
 * target: host, path and namespace, the same on every worker whatever its CALSYNC_STATE_DIR), or the whole
 * path of a local target's `….sync.db`.
 *
 * Commits as sync-state.ts does: the records of one turn of the event loop go in one statement (a data-
 * modifying CTE: deletions and upserts, atomic) sent when the turn ends. While one is on its way the next
 * turns' records gather for the next; so a kill loses the records of the statement in flight and of those
 * gathering behind it — answers of the last round trip to PostgreSQL (a few ms), no more. As with the file,
 * the `runs` row left unfinished tells the next run to look its event creates up by slug first, and an
 * update or delete whose record was lost is sent again harmlessly. Reads first wait for the records before
 * them. A failed statement is thrown by the next read or by `finishRun`.
 * Public: PgSyncState, pgStateBackend, migratePg, PG_SCHEMA_VERSION.
 */
import { basename } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import type { Kind } from '../model/kind.ts';
import type { RunState, StateBackend } from './backend.ts';
import { LockedError } from './lock.ts';
import {
  type ItemRow,
  itemOf,
  REF_OF,
  type RunRow,
  type SourceCache,
  type StateItem,
  sourceCacheOf,
} from './sync-state.ts';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE calsync_state_items (
     target text NOT NULL,
     pipeline text NOT NULL,
     kind text NOT NULL,
     key text NOT NULL,
     remote_id bigint NOT NULL,
     slug text NOT NULL,
     hash text NOT NULL,
     written text NOT NULL,
     remote_modified text,
     remote_fields text,
     updated_utc text NOT NULL,
     PRIMARY KEY (target, pipeline, kind, key)
   );
   CREATE TABLE calsync_state_runs (
     seq bigserial PRIMARY KEY,
     target text NOT NULL,
     id text NOT NULL,
     pipeline text NOT NULL,
     started_utc text NOT NULL,
     finished_utc text,
     outcome text,
     report text,
     UNIQUE (target, id)
   );
   CREATE INDEX calsync_state_runs_pipeline ON calsync_state_runs (target, pipeline, seq);
   CREATE TABLE calsync_state_sources (
     target text NOT NULL,
     pipeline text NOT NULL,
     url text NOT NULL,
     etag text,
     last_modified text,
     fingerprint text NOT NULL,
     updated_utc text NOT NULL,
     PRIMARY KEY (target, pipeline)
   );`,
  // 2: which store a target's ids are in (Target.instance, sync-state.ts `bind`).
  `CREATE TABLE calsync_state_instances (target text PRIMARY KEY, instance text NOT NULL);`,
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Stepwise migrations, their version in `calsync_state_version`, under a transaction-scoped advisory lock
 * (workers start together); a database from a newer calsync is refused rather than changed.
 */
export async function migratePg(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('calsync_state_version'))`);
    await client.query('CREATE TABLE IF NOT EXISTS calsync_state_version (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM calsync_state_version');
    const version = rows[0]?.version ?? 0;
    if (version > MIGRATIONS.length)
      throw new Error(
        `sync state in PostgreSQL has schema version ${version}, newer than this calsync knows (${MIGRATIONS.length}); upgrade calsync`,
      );
    for (let v = version; v < MIGRATIONS.length; v++) await client.query(MIGRATIONS[v]);
    if (rows.length === 0)
      await client.query('INSERT INTO calsync_state_version VALUES ($1)', [MIGRATIONS.length]);
    else await client.query('UPDATE calsync_state_version SET version = $1', [MIGRATIONS.length]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

/** The target a state file stands for (see the header). */
export function targetOf(stateFile: string): string {
  return stateFile.endsWith('.sync.db') ? stateFile : basename(stateFile).replace(/\.db$/, '');
}

/** Runs' state and locks in `pool`'s database; `migratePg` first. */
export function pgStateBackend(pool: Pool): StateBackend {
  return {
    async lock(stateFile, pipeline) {
      const name = `${targetOf(stateFile)}\n${pipeline}`;
      const client = await pool.connect();
      // The connection lost (PostgreSQL restarted, the network cut): the lock is gone with it, and the
      // release finds it closed; pg emits this on a checked-out client, where no listener would crash us.
      const lost = () => {};
      client.on('error', lost);
      let held = false;
      try {
        const { rows } = await client.query<{ ok: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
          [name],
        );
        held = rows[0].ok;
      } finally {
        if (!held) {
          client.off('error', lost);
          client.release();
        }
      }
      if (!held) throw new LockedError(`postgres:${targetOf(stateFile)}.${pipeline}`);
      return async () => {
        try {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]);
          client.off('error', lost);
          client.release();
        } catch (err) {
          // A connection that failed cannot go back to the pool; closing it frees the lock too.
          client.release(err as Error);
        }
      };
    },
    async open(stateFile) {
      return PgSyncState.open(pool, targetOf(stateFile));
    },
    async exists(stateFile) {
      const target = targetOf(stateFile);
      const { rows } = await pool.query(
        `SELECT 1 FROM calsync_state_items WHERE target = $1 UNION ALL
         SELECT 1 FROM calsync_state_runs WHERE target = $1 LIMIT 1`,
        [target],
      );
      return rows.length > 0;
    },
  };
}

type Op =
  | { put: StateItem; pipeline: string; at: string }
  | { forget: true; pipeline: string; kind: Kind; key: string };

const COLUMNS = 'kind, key, remote_id, slug, hash, written, remote_modified, remote_fields';

/** One target's state on one connection of its own (the run's seen keys are a temporary table of it). */
export class PgSyncState implements RunState {
  readonly target: string;
  readonly #client: PoolClient;
  /** Records of this turn, by pipeline, kind and key: the last one of a key wins, as in order. */
  #pending = new Map<string, Op>();
  #turn: NodeJS.Immediate | undefined;
  /** The statements sent so far, in order; rejected never (failures go to `#failure`). */
  #sent: Promise<void> = Promise.resolve();
  #failure: unknown;
  #seen = false;

  private constructor(client: PoolClient, target: string) {
    this.#client = client;
    this.target = target;
    // A connection lost while held: the next statement fails with it; unheard, pg's event would crash us.
    client.on('error', this.#lost);
  }

  readonly #lost = (err: Error) => {
    this.#failure ??= err;
  };

  static async open(pool: Pool, target: string): Promise<PgSyncState> {
    return new PgSyncState(await pool.connect(), target);
  }

  async items(pipeline: string): Promise<StateItem[]> {
    await this.#commit();
    const { rows } = await this.#client.query<ItemRow>(
      `SELECT ${COLUMNS} FROM calsync_state_items WHERE target = $1 AND pipeline = $2 ORDER BY kind, key`,
      [this.target, pipeline],
    );
    return rows.map(itemOf);
  }

  async recentItems(limit: number, of?: { pipeline: string; kind: Kind }): Promise<StateItem[]> {
    await this.#commit();
    const { rows } = await this.#client.query<ItemRow>(
      `SELECT ${COLUMNS} FROM calsync_state_items
       WHERE target = $1 AND ($3::text IS NULL OR (pipeline = $3 AND kind = $4))
       ORDER BY updated_utc DESC LIMIT $2`,
      [this.target, limit, of?.pipeline ?? null, of?.kind ?? null],
    );
    return rows.map(itemOf);
  }

  async itemsOf(
    pipeline: string,
    ids: readonly { kind: Kind; key: string }[],
  ): Promise<Map<string, StateItem>> {
    await this.#commit();
    await this.#seenTable();
    const kinds = ids.map((i) => i.kind);
    const keys = ids.map((i) => i.key);
    await this.#client.query(
      'INSERT INTO pg_temp.calsync_seen (kind, key) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING',
      [kinds, keys],
    );
    const { rows } = await this.#client.query<ItemRow>(
      `SELECT ${COLUMNS} FROM calsync_state_items
       WHERE target = $1 AND pipeline = $2 AND (kind, key) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
      [this.target, pipeline, kinds, keys],
    );
    return new Map(rows.map((r) => [`${r.kind}\n${r.key}`, itemOf(r)]));
  }

  async unseenEvents(pipeline: string): Promise<StateItem[]> {
    await this.#commit();
    await this.#seenTable();
    const { rows } = await this.#client.query<ItemRow>(
      `SELECT ${COLUMNS} FROM calsync_state_items i
       WHERE target = $1 AND pipeline = $2 AND kind = 'event'
         AND NOT EXISTS (SELECT 1 FROM pg_temp.calsync_seen s WHERE s.kind = i.kind AND s.key = i.key)
       ORDER BY kind, key`,
      [this.target, pipeline],
    );
    return rows.map(itemOf);
  }

  async #seenTable(): Promise<void> {
    if (this.#seen) return;
    await this.#client.query(
      'CREATE TEMP TABLE IF NOT EXISTS calsync_seen (kind text NOT NULL, key text NOT NULL, PRIMARY KEY (kind, key))',
    );
    await this.#client.query('TRUNCATE pg_temp.calsync_seen');
    this.#seen = true;
  }

  async linking(
    pipeline: string,
    link: { kind: Exclude<Kind, 'event'>; keys: readonly string[] },
  ): Promise<StateItem[]> {
    await this.#commit();
    // jsonb ?| of a venue's one key is equality; of the other links' lists, membership.
    const { rows } = await this.#client.query<ItemRow>(
      `SELECT ${COLUMNS} FROM calsync_state_items
       WHERE target = $1 AND pipeline = $2 AND kind = 'event'
         AND (written::jsonb -> 'refs' -> $3::text) ?| $4::text[]
       ORDER BY key`,
      [this.target, pipeline, REF_OF[link.kind], link.keys],
    );
    return rows.map(itemOf);
  }

  async counts(pipeline: string): Promise<Partial<Record<Kind, number>>> {
    await this.#commit();
    const { rows } = await this.#client.query<{ kind: Kind; n: string }>(
      'SELECT kind, COUNT(*) AS n FROM calsync_state_items WHERE target = $1 AND pipeline = $2 GROUP BY kind',
      [this.target, pipeline],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
  }

  /** The pipelines this target's state knows (items or runs). */
  async pipelines(): Promise<string[]> {
    await this.#commit();
    const { rows } = await this.#client.query<{ pipeline: string }>(
      `SELECT pipeline FROM calsync_state_items WHERE target = $1 UNION
       SELECT pipeline FROM calsync_state_runs WHERE target = $1 ORDER BY pipeline`,
      [this.target],
    );
    return rows.map((r) => r.pipeline);
  }

  put(pipeline: string, item: StateItem, now = new Date()): void {
    this.#inTurn(`${pipeline}\n${item.kind}\n${item.key}`, { put: item, pipeline, at: now.toISOString() });
  }

  forget(pipeline: string, kind: Kind, key: string): void {
    this.#inTurn(`${pipeline}\n${kind}\n${key}`, { forget: true, pipeline, kind, key });
  }

  #inTurn(id: string, op: Op): void {
    this.#pending.delete(id);
    this.#pending.set(id, op);
    this.#turn ??= setImmediate(() => this.#send());
  }

  /** Sends the records of the turn as one statement behind those already sent. */
  #send(): void {
    if (this.#turn) clearImmediate(this.#turn);
    this.#turn = undefined;
    if (this.#pending.size === 0) return;
    const ops = [...this.#pending.values()];
    this.#pending = new Map();
    this.#sent = this.#sent.then(() =>
      this.#write(ops).catch((err) => {
        this.#failure ??= err;
      }),
    );
  }

  async #write(ops: Op[]): Promise<void> {
    const puts = ops.filter((o): o is Extract<Op, { put: StateItem }> => 'put' in o);
    const gone = ops.filter((o): o is Extract<Op, { forget: true }> => 'forget' in o);
    await this.#client.query(
      `WITH gone AS (
         DELETE FROM calsync_state_items d USING unnest($2::text[], $3::text[], $4::text[]) AS g(pipeline, kind, key)
         WHERE d.target = $1 AND d.pipeline = g.pipeline AND d.kind = g.kind AND d.key = g.key
       )
       INSERT INTO calsync_state_items (target, pipeline, kind, key, remote_id, slug, hash, written,
         remote_modified, remote_fields, updated_utc)
       SELECT $1, * FROM unnest($5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[],
         $11::text[], $12::text[], $13::text[], $14::text[])
       ON CONFLICT (target, pipeline, kind, key) DO UPDATE SET remote_id = excluded.remote_id,
         slug = excluded.slug, hash = excluded.hash, written = excluded.written,
         remote_modified = excluded.remote_modified, remote_fields = excluded.remote_fields,
         updated_utc = excluded.updated_utc`,
      [
        this.target,
        gone.map((o) => o.pipeline),
        gone.map((o) => o.kind),
        gone.map((o) => o.key),
        puts.map((o) => o.pipeline),
        puts.map((o) => o.put.kind),
        puts.map((o) => o.put.key),
        puts.map((o) => o.put.remoteId),
        puts.map((o) => o.put.slug),
        puts.map((o) => o.put.hash),
        puts.map((o) => JSON.stringify(o.put.written)),
        puts.map((o) => o.put.remoteModified),
        puts.map((o) => (o.put.remoteFields ? JSON.stringify(o.put.remoteFields) : null)),
        puts.map((o) => o.at),
      ],
    );
  }

  /** Sends what is pending and waits for every record before it; throws a failed one's error. */
  async #commit(): Promise<void> {
    this.#send();
    await this.#sent;
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      throw failure;
    }
  }

  forgetPipeline(pipeline: string): Promise<number> {
    return this.#forget(pipeline, true);
  }

  /** sync-state.ts `forgetItems`: items and source validators, the runs kept. */
  forgetItems(pipeline: string): Promise<number> {
    return this.#forget(pipeline, false);
  }

  async #forget(pipeline: string, runs: boolean): Promise<number> {
    await this.#commit();
    await this.#client.query('BEGIN');
    try {
      const args = [this.target, pipeline];
      const { rowCount } = await this.#client.query(
        'DELETE FROM calsync_state_items WHERE target = $1 AND pipeline = $2',
        args,
      );
      await this.#client.query('DELETE FROM calsync_state_sources WHERE target = $1 AND pipeline = $2', args);
      if (runs)
        await this.#client.query('DELETE FROM calsync_state_runs WHERE target = $1 AND pipeline = $2', args);
      await this.#client.query('COMMIT');
      return rowCount ?? 0;
    } catch (err) {
      await this.#client.query('ROLLBACK');
      throw err;
    }
  }

  /** sync-state.ts `bind`, for this target; the row lock keeps two runs binding at once apart. */
  async bind(instance: string, gone: boolean): Promise<boolean> {
    await this.#commit();
    await this.#client.query('BEGIN');
    try {
      await this.#client.query(
        'INSERT INTO calsync_state_instances VALUES ($1, $2) ON CONFLICT (target) DO NOTHING',
        [this.target, gone ? '' : instance],
      );
      const { rows } = await this.#client.query<{ instance: string }>(
        'SELECT instance FROM calsync_state_instances WHERE target = $1 FOR UPDATE',
        [this.target],
      );
      const bound = rows[0].instance;
      // '' stands for "none recorded, and the store is gone": stale if the state knows any item.
      const stale =
        bound === ''
          ? (
              await this.#client.query('SELECT 1 FROM calsync_state_items WHERE target = $1 LIMIT 1', [
                this.target,
              ])
            ).rowCount !== 0
          : bound !== instance;
      if (stale) {
        await this.#client.query('DELETE FROM calsync_state_items WHERE target = $1', [this.target]);
        await this.#client.query('DELETE FROM calsync_state_sources WHERE target = $1', [this.target]);
      }
      if (bound !== instance)
        await this.#client.query('UPDATE calsync_state_instances SET instance = $2 WHERE target = $1', [
          this.target,
          instance,
        ]);
      await this.#client.query('COMMIT');
      return stale;
    } catch (err) {
      await this.#client.query('ROLLBACK');
      throw err;
    }
  }

  async boundInstance(): Promise<string | undefined> {
    await this.#commit();
    const { rows } = await this.#client.query<{ instance: string }>(
      'SELECT instance FROM calsync_state_instances WHERE target = $1',
      [this.target],
    );
    return rows[0]?.instance;
  }

  async sourceCache(pipeline: string): Promise<SourceCache | undefined> {
    await this.#commit();
    const { rows } = await this.#client.query<{
      url: string;
      etag: string | null;
      last_modified: string | null;
      fingerprint: string;
    }>(
      'SELECT url, etag, last_modified, fingerprint FROM calsync_state_sources WHERE target = $1 AND pipeline = $2',
      [this.target, pipeline],
    );
    return rows[0] && sourceCacheOf(rows[0]);
  }

  async setSourceCache(pipeline: string, cache: SourceCache | undefined, now = new Date()): Promise<void> {
    await this.#commit();
    if (!cache || (!cache.etag && !cache.lastModified)) {
      await this.#client.query('DELETE FROM calsync_state_sources WHERE target = $1 AND pipeline = $2', [
        this.target,
        pipeline,
      ]);
      return;
    }
    await this.#client.query(
      `INSERT INTO calsync_state_sources (target, pipeline, url, etag, last_modified, fingerprint, updated_utc)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (target, pipeline) DO UPDATE SET url = excluded.url, etag = excluded.etag,
         last_modified = excluded.last_modified, fingerprint = excluded.fingerprint,
         updated_utc = excluded.updated_utc`,
      [
        this.target,
        pipeline,
        cache.url,
        cache.etag ?? null,
        cache.lastModified ?? null,
        cache.fingerprint,
        now.toISOString(),
      ],
    );
  }

  async runs(pipeline: string, limit = 5): Promise<RunRow[]> {
    await this.#commit();
    const { rows } = await this.#client.query<{
      id: string;
      started_utc: string;
      finished_utc: string | null;
      outcome: string | null;
      report: string | null;
    }>(
      `SELECT id, started_utc, finished_utc, outcome, report FROM calsync_state_runs
       WHERE target = $1 AND pipeline = $2 ORDER BY seq DESC LIMIT $3`,
      [this.target, pipeline, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      startedUtc: r.started_utc,
      finishedUtc: r.finished_utc,
      outcome: r.outcome,
      report: r.report ? JSON.parse(r.report) : null,
    }));
  }

  async startRun(id: string, pipeline: string, now = new Date()): Promise<void> {
    await this.#commit();
    await this.#client.query(
      'INSERT INTO calsync_state_runs (target, id, pipeline, started_utc) VALUES ($1, $2, $3, $4)',
      [this.target, id, pipeline, now.toISOString()],
    );
  }

  async interrupted(pipeline: string): Promise<boolean> {
    await this.#commit();
    const { rows } = await this.#client.query(
      'SELECT 1 FROM calsync_state_runs WHERE target = $1 AND pipeline = $2 AND finished_utc IS NULL LIMIT 1',
      [this.target, pipeline],
    );
    return rows.length > 0;
  }

  async lastRunFailed(pipeline: string): Promise<boolean> {
    await this.#commit();
    const { rows } = await this.#client.query<{ outcome: string }>(
      `SELECT outcome FROM calsync_state_runs WHERE target = $1 AND pipeline = $2 AND finished_utc IS NOT NULL
       ORDER BY seq DESC LIMIT 1`,
      [this.target, pipeline],
    );
    return rows[0]?.outcome === 'failed';
  }

  async finishRun(
    id: string,
    pipeline: string,
    outcome: string,
    report: unknown,
    now = new Date(),
  ): Promise<void> {
    await this.#commit();
    const at = now.toISOString();
    await this.#client.query(
      `UPDATE calsync_state_runs SET finished_utc = $1, outcome = CASE WHEN id = $4 THEN $5 ELSE 'interrupted' END,
         report = CASE WHEN id = $4 THEN $6 ELSE report END
       WHERE target = $2 AND pipeline = $3 AND (finished_utc IS NULL OR id = $4)`,
      [at, this.target, pipeline, id, outcome, JSON.stringify(report)],
    );
  }

  /** Commits what is pending and gives the connection back (its seen keys dropped). */
  async close(): Promise<void> {
    try {
      await this.#commit();
      if (this.#seen) await this.#client.query('DROP TABLE IF EXISTS pg_temp.calsync_seen');
      this.#client.off('error', this.#lost);
      this.#client.release();
    } catch (err) {
      this.#client.release(err as Error);
      throw err;
    }
  }
}
