import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StateItem, SyncState } from '../../src/state/sync-state.ts';
import { tempDir } from '../writer/setup.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const item = (key: string, remoteId = 1): StateItem => ({
  kind: 'event',
  key,
  remoteId,
  slug: `${key}-slug`,
  hash: 'h',
  written: { title: key },
  remoteModified: null,
});

/** What another process would read from the file right now. */
const rowsOnDisk = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('SELECT key FROM items ORDER BY key').all() as { key: string }[]).map((r) => r.key);
  } finally {
    db.close();
  }
};

describe('sync state', () => {
  it('commits the records of one event-loop turn together, before the next turn', async () => {
    const file = `${dir.dir}/turn.sync.db`;
    const state = new SyncState(file);
    state.put('p', item('a'));
    state.put('p', item('b'));
    expect(rowsOnDisk(file)).toEqual([]);
    await new Promise((turn) => setImmediate(turn));
    expect(rowsOnDisk(file)).toEqual(['a', 'b']);
    state.forget('p', 'event', 'a');
    state.close(); // commits what is pending
    expect(rowsOnDisk(file)).toEqual(['b']);
  });

  it('keeps items per pipeline, with what was last written', () => {
    const state = new SyncState(`${dir.dir}/pipelines.sync.db`);
    state.put('one', item('a', 7));
    state.put('two', item('a', 9));
    expect(state.items('one')).toEqual([item('a', 7)]);
    expect(state.items('two').map((i) => i.remoteId)).toEqual([9]);
    state.close();
  });

  it('tells an interrupted or failed run from a finished one', () => {
    const state = new SyncState(`${dir.dir}/runs.sync.db`);
    state.startRun('r1', 'p');
    expect(state.interrupted('p')).toBe(true);
    state.startRun('r2', 'p');
    state.finishRun('r2', 'p', 'failed', {});
    expect(state.interrupted('p')).toBe(false); // r1 is settled by r2
    expect(state.lastRunFailed('p')).toBe(true);
    state.startRun('r3', 'p');
    state.finishRun('r3', 'p', 'ok', {});
    expect(state.lastRunFailed('p')).toBe(false);
    state.close();
  });

  it('keeps per-field hashes of the remote item, source validators, and forgets a whole pipeline', () => {
    const state = new SyncState(`${dir.dir}/v2.sync.db`);
    const withFields = { ...item('a'), remoteFields: { title: 'x1', start_date: 'y2' } };
    state.put('p', withFields);
    state.put('q', item('b'));
    expect(state.items('p')).toEqual([withFields]);
    state.setSourceCache('p', { url: 'https://x.example/f.ics', etag: '"7"', fingerprint: 'f' });
    expect(state.sourceCache('p')).toEqual({ url: 'https://x.example/f.ics', etag: '"7"', fingerprint: 'f' });
    state.startRun('r1', 'p');
    state.finishRun('r1', 'p', 'ok', { counts: {} });
    expect(state.runs('p').map((r) => [r.id, r.outcome])).toEqual([['r1', 'ok']]);
    expect(state.counts('p')).toEqual({ event: 1 });
    expect(state.forgetPipeline('p')).toBe(1);
    expect([state.items('p'), state.sourceCache('p'), state.runs('p')]).toEqual([[], undefined, []]);
    expect(state.items('q')).toHaveLength(1);
    state.close();
  });

  it('upgrades a file of schema version 1 in place, keeping its items and runs', () => {
    const file = `${dir.dir}/v1.sync.db`;
    const db = new DatabaseSync(file);
    db.exec(`CREATE TABLE items (pipeline TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
      remote_id INTEGER NOT NULL, slug TEXT NOT NULL, hash TEXT NOT NULL, written TEXT NOT NULL,
      remote_modified TEXT, updated_utc TEXT NOT NULL, PRIMARY KEY (pipeline, kind, key)) WITHOUT ROWID;
      CREATE TABLE runs (id TEXT PRIMARY KEY, pipeline TEXT NOT NULL, started_utc TEXT NOT NULL,
      finished_utc TEXT, outcome TEXT, report TEXT);
      PRAGMA user_version = 1;`);
    db.prepare(
      `INSERT INTO items VALUES ('p', 'event', 'old', 4, 'old-slug', 'h', '{"title":"old"}', '2026-01-01 10:00:00', '2026-01-01T10:00:00Z')`,
    ).run();
    db.prepare(
      `INSERT INTO runs VALUES ('r0', 'p', '2026-01-01T10:00:00Z', '2026-01-01T10:00:01Z', 'failed', NULL)`,
    ).run();
    db.close();

    const state = new SyncState(file);
    expect(state.items('p')).toEqual([
      {
        ...item('old', 4),
        slug: 'old-slug',
        written: { title: 'old' },
        remoteModified: '2026-01-01 10:00:00',
      },
    ]);
    expect(state.lastRunFailed('p')).toBe(true);
    state.put('p', { ...item('new'), remoteFields: { title: 'h1' } });
    expect(state.items('p').find((i) => i.key === 'new')?.remoteFields).toEqual({ title: 'h1' });
    state.close();
    const check = new DatabaseSync(file, { readOnly: true });
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 4 });
    check.close();
  });

  it('refuses a file written by a newer calsync instead of damaging it', () => {
    const file = `${dir.dir}/newer.sync.db`;
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => new SyncState(file)).toThrow(/schema version 99, newer than this calsync knows/);
  });
});
