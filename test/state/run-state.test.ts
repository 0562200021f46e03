/**
 * The sync state's contract, on both backends (state/backend.ts): one SQLite file per target, and the
 * PostgreSQL database the workers share (state/pg-state.ts, on a private cluster: test/helpers/postgres.ts).
 * Each case says how another process sees the state — a second connection, a second lock taker.
 */
import { basename } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specFromPipeline } from '../../src/cli/pipeline-spec.ts';
import { main as stateMain } from '../../src/cli/state.ts';
import type { Kind } from '../../src/model/kind.ts';
import { loadPipeline } from '../../src/pipeline/load.ts';
import { type RunState, type StateBackend, sqliteBackend } from '../../src/state/backend.ts';
import { LockedError } from '../../src/state/lock.ts';
import { migratePg, pgStateBackend } from '../../src/state/pg-state.ts';
import type { StateItem } from '../../src/state/sync-state.ts';
import { runCli } from '../e2e/helpers.ts';
import { type Postgres, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { writePipeline } from '../helpers/queue.ts';
import { tempDir } from '../writer/setup.ts';

const item = (key: string, remoteId = 1, kind: Kind = 'event'): StateItem => ({
  kind,
  key,
  remoteId,
  slug: `${key}-slug`,
  hash: 'h',
  written: { title: key, b: 1, a: 2 },
  remoteModified: null,
  remoteFields: { title: 't1' },
});
const turn = () => new Promise((r) => setImmediate(r));

interface Subject {
  backend: StateBackend;
  /** A state file's path for this backend (its target's identity). */
  file: (name: string) => string;
}

function contract(name: string, setup: () => Promise<Subject & { done(): Promise<void> }>) {
  describe(`sync state on ${name}`, () => {
    let s: Subject & { done(): Promise<void> };
    beforeAll(async () => {
      s = await setup();
    });
    afterAll(() => s?.done());

    /** What a second connection (another worker) reads now. */
    const seenElsewhere = async (file: string, pipeline: string) => {
      const other = await s.backend.open(file);
      try {
        return (await other.items(pipeline)).map((i) => i.key);
      } finally {
        await other.close();
      }
    };

    it('records written in one turn reach another connection as that turn ends, in order of writing', async () => {
      const file = s.file('turns');
      const state = await s.backend.open(file);
      state.put('p', item('a'));
      state.put('p', item('b'));
      state.forget('p', 'event', 'b');
      state.put('p', item('c'));
      // Read after the turn and after the round trip that carries it: a later read waits for it.
      await turn();
      expect(await state.items('p')).toEqual([item('a'), item('c')]);
      expect(await seenElsewhere(file, 'p')).toEqual(['a', 'c']);
      state.forget('p', 'event', 'a');
      await state.close(); // commits what is pending
      expect(await seenElsewhere(file, 'p')).toEqual(['c']);
    });

    it('asks for a batch of keys, and gives the events no batch asked for as gone from the source', async () => {
      const file = s.file('batches');
      const state = await s.backend.open(file);
      for (const k of ['e1', 'e2', 'e3']) state.put('p', item(k, Number(k[1])));
      state.put('p', item('v1', 9, 'venue'));
      state.put('other', item('e9'));
      const known = await state.itemsOf('p', [
        { kind: 'event', key: 'e1' },
        { kind: 'event', key: 'new' },
        { kind: 'venue', key: 'v1' },
      ]);
      expect([...known.keys()].sort()).toEqual(['event\ne1', 'venue\nv1']);
      expect(known.get('event\ne1')).toEqual(item('e1', 1));
      await state.itemsOf('p', [{ kind: 'event', key: 'e3' }]);
      expect((await state.unseenEvents('p')).map((i) => i.key)).toEqual(['e2']);
      expect(await state.counts('p')).toEqual({ event: 3, venue: 1 });
      await state.close();
      // Seen marks belong to the run's connection: the next run starts with none.
      const next = await s.backend.open(file);
      expect((await next.unseenEvents('p')).map((i) => i.key)).toEqual(['e1', 'e2', 'e3']);
      await next.close();
    });

    it('tells an interrupted or failed run from a finished one, and keeps source validators', async () => {
      const file = s.file('runs');
      expect(await s.backend.exists(file)).toBe(false);
      const state = await s.backend.open(file);
      await state.startRun('r1', 'p');
      expect(await s.backend.exists(file)).toBe(true);
      expect(await state.interrupted('p')).toBe(true);
      await state.startRun('r2', 'p');
      await state.finishRun('r2', 'p', 'failed', { n: 1 });
      expect(await state.interrupted('p')).toBe(false); // r1 is settled by r2
      expect(await state.lastRunFailed('p')).toBe(true);
      await state.startRun('r3', 'p');
      await state.finishRun('r3', 'p', 'ok', { n: 3 });
      expect(await state.lastRunFailed('p')).toBe(false);
      await state.setSourceCache('p', { url: 'https://x.example/f.ics', etag: '"7"', fingerprint: 'f' });
      expect(await state.sourceCache('p')).toEqual({
        url: 'https://x.example/f.ics',
        etag: '"7"',
        fingerprint: 'f',
      });
      await state.setSourceCache('p', undefined);
      expect(await state.sourceCache('p')).toBeUndefined();
      const runs = await (state as RunState & { runs(p: string): Promise<unknown[]> }).runs('p');
      expect(runs.map((r) => (r as { id: string; outcome: string }).outcome)).toEqual([
        'ok',
        'failed',
        'interrupted',
      ]);
      await state.close();
    });

    it('forgets the items of every pipeline when bound to another store, keeping the runs', async () => {
      const file = s.file('bind');
      const state = await s.backend.open(file);
      state.put('p', item('a'));
      state.put('q', item('b'));
      await state.setSourceCache('p', { url: 'https://x.example/f.ics', etag: '"7"', fingerprint: 'f' });
      await state.startRun('r1', 'p');
      await state.finishRun('r1', 'p', 'ok', {});
      // A state from before stores had ids adopts the store it is first bound to, unless that one is gone.
      expect(await state.bind('store-1', false)).toBe(false);
      expect(await state.boundInstance()).toBe('store-1');
      expect(await state.bind('store-1', false)).toBe(false);
      expect((await state.items('p')).map((i) => i.key)).toEqual(['a']);

      expect(await state.bind('store-2', false)).toBe(true);
      expect(await seenElsewhere(file, 'p')).toEqual([]);
      expect(await seenElsewhere(file, 'q')).toEqual([]);
      expect(await state.sourceCache('p')).toBeUndefined();
      expect(await state.lastRunFailed('p')).toBe(false);
      const other = await s.backend.open(file);
      expect(await other.boundInstance()).toBe('store-2');
      expect(await other.bind('store-2', false)).toBe(false);
      await other.close();
      await state.close();
    });

    it('forgets the items of a state that recorded no store when its store is gone', async () => {
      const file = s.file('fresh');
      const state = await s.backend.open(file);
      expect(await state.bind('empty-store', true)).toBe(false);
      const old = await s.backend.open(s.file('fresh-old'));
      old.put('p', item('a'));
      expect(await old.bind('new-store', true)).toBe(true);
      expect(await old.items('p')).toEqual([]);
      await old.close();
      await state.close();
    });

    it('names the items written last, of every pipeline, for a store to be asked whether it has them', async () => {
      const state = await s.backend.open(s.file('recent'));
      expect(await state.recentItems(5)).toEqual([]);
      state.put('p', item('old', 1), new Date('2026-01-01T00:00:00Z'));
      state.put('q', item('newest', 3), new Date('2026-03-01T00:00:00Z'));
      state.put('p', item('newer', 2), new Date('2026-02-01T00:00:00Z'));
      await turn();
      expect((await state.recentItems(2)).map((i) => [i.key, i.remoteId, i.slug])).toEqual([
        ['newest', 3, 'newest-slug'],
        ['newer', 2, 'newer-slug'],
      ]);
      state.put('p', item('venue', 4, 'venue'), new Date('2026-04-01T00:00:00Z'));
      await turn();
      expect((await state.recentItems(5, { pipeline: 'p', kind: 'event' })).map((i) => i.key)).toEqual([
        'newer',
        'old',
      ]);
      await state.close();
    });

    it("forgets a pipeline's items and source validators for a site that lost them, and keeps its runs", async () => {
      const state = await s.backend.open(s.file('lost'));
      state.put('p', item('a', 1));
      state.put('p', item('b', 2));
      state.put('q', item('c', 3));
      await state.setSourceCache('p', { url: 'https://example.org/p.ics', etag: '"1"', fingerprint: 'f' });
      await state.startRun('r1', 'p');
      await turn();
      expect(await state.forgetItems('p')).toBe(2);
      expect(await state.items('p')).toEqual([]);
      expect(await state.sourceCache('p')).toBeUndefined();
      expect(await state.interrupted('p')).toBe(true); // the run started and never finished: still known
      expect((await state.items('q')).map((i) => i.key)).toEqual(['c']);
      await state.close();
    });

    it("lists a pipeline's events that link a venue, organizer or term", async () => {
      const state = await s.backend.open(s.file('linking'));
      const linking = (key: string, refs: Record<string, unknown>): StateItem => ({
        ...item(key),
        written: { title: key, refs },
      });
      state.put('p', linking('a', { venue: 'hall', organizers: ['society'] }));
      state.put(
        'p',
        linking('b', { venue: 'cinema', organizers: ['club', 'society'], categories: ['film'] }),
      );
      state.put('p', linking('c', { venue: 'hall annex' }));
      state.put('p', linking('d', {}));
      state.put('q', linking('e', { venue: 'hall' }));
      state.put('p', { ...item('hall', 9, 'venue'), written: { venue: 'Hall' } });
      const keys = async (kind: 'venue' | 'organizer' | 'category', ...keys: string[]) =>
        (await state.linking('p', { kind, keys })).map((i) => i.key);
      expect(await keys('venue', 'hall')).toEqual(['a']);
      expect(await keys('venue', 'hall', 'hall annex')).toEqual(['a', 'c']);
      expect(await keys('organizer', 'society')).toEqual(['a', 'b']);
      expect(await keys('category', 'film')).toEqual(['b']);
      expect(await keys('category', 'hall')).toEqual([]);
      await state.close();
    });

    it('lets one run of a pipeline hold its lock, until it lets go', async () => {
      const file = s.file('locks');
      const release = await s.backend.lock(file, 'p');
      await expect(s.backend.lock(file, 'p')).rejects.toBeInstanceOf(LockedError);
      const other = await s.backend.lock(file, 'q'); // another pipeline of the same target
      await other();
      await release();
      await (await s.backend.lock(file, 'p'))();
    });
  });
}

contract('SQLite (one file per target)', async () => {
  const dir = await tempDir();
  return {
    backend: sqliteBackend,
    file: (name) => `${dir.dir}/${name}.db`,
    done: () => dir.remove(),
  };
});

const missing = postgresMissing();
if (missing) console.warn(`test/state/run-state.test.ts: PostgreSQL cases skipped: ${missing}`);
describe.skipIf(missing)('PostgreSQL', () => {
  let cluster: Postgres;
  let pool: pg.Pool;
  beforeAll(async () => {
    cluster = await startPostgres();
    pool = new pg.Pool({ connectionString: cluster.url, max: 10 });
    await Promise.all([migratePg(pool), migratePg(pool)]); // workers start together
  });
  afterAll(async () => {
    await pool?.end();
    await cluster?.stop();
  });
  let host = 0;
  contract('PostgreSQL (shared by workers)', async () => ({
    backend: pgStateBackend(pool),
    // The target is the file's name, wherever each worker keeps its state dir: each open names another dir.
    file: (name) => `/host-${host++}/state/${name}.db`,
    done: async () => {},
  }));

  it('frees the lock of a worker whose connection died (a SIGKILL), and keeps what it committed', async () => {
    const file = '/host-a/state/site.example-wp-json-x.db';
    const backend = pgStateBackend(pool);
    const killed = await backend.lock(file, 'p');
    const state = await backend.open(file);
    state.put('p', item('kept'));
    await state.startRun('r1', 'p');
    // The worker's sessions end as a killed process's would: the server sees its sockets close. With a
    // timeout, pg_terminate_backend waits until each session has exited (and let go of its advisory lock);
    // without, it only signals, and on a busy machine the next lock could come first.
    await pool.query(
      `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'`,
    );
    const otherPool = new pg.Pool({ connectionString: cluster.url, max: 3 });
    const other = pgStateBackend(otherPool);
    const release = await other.lock('/host-b/elsewhere/site.example-wp-json-x.db', 'p');
    const next = await other.open(file);
    expect((await next.items('p')).map((i) => i.key)).toEqual(['kept']);
    expect(await next.interrupted('p')).toBe(true);
    await next.close();
    await release();
    await otherPool.end();
    // The dead sessions' connections go back to their pool as broken.
    await expect(state.close()).rejects.toThrow();
    await killed();
  });

  it('npm run state -- show and forget --database: the state workers keep for a pipeline file', async () => {
    const dir = await tempDir();
    try {
      const file = await writePipeline(dir.dir, 'shown', 'http://127.0.0.1:9', 2);
      // Where a worker elsewhere keeps that target's state: only the file's name (host, path, namespace) counts.
      const { spec } = specFromPipeline(await loadPipeline(file, { SYNC_PASSWORD: 'x' }));
      const stateFile = `/another/host/${basename(spec.stateFile)}`;
      const backend = pgStateBackend(pool);
      const state = await backend.open(stateFile);
      state.put('shown', item('e1'));
      await state.startRun('r1', 'shown');
      await state.finishRun('r1', 'shown', 'ok', null);
      await state.close();
      const env = { SYNC_PASSWORD: 'x' };
      const shown = await runCli(stateMain, ['show', file, '--database', cluster.url], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('items: 0 categories, 0 tags, 0 venues, 0 organizers, 1 events');
      expect(shown.stdout).toMatch(/last runs:\n .* ok/);
      const forgot = await runCli(stateMain, ['forget', file, '--database', cluster.url], env);
      expect(forgot.stdout).toContain('forgot 1 items');
      const again = await runCli(stateMain, ['show', file, '--database', cluster.url], env);
      expect(again.stdout).toContain('no sync state');
    } finally {
      await dir.remove();
    }
  });

  it('refuses a database whose state schema is newer than this calsync', async () => {
    await pool.query('UPDATE calsync_state_version SET version = 99');
    await expect(migratePg(pool)).rejects.toThrow(/schema version 99, newer than this calsync knows/);
    await pool.query('UPDATE calsync_state_version SET version = 1');
  });
});
