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

  it('refuses a file written by a newer calsync instead of damaging it', () => {
    const file = `${dir.dir}/newer.sync.db`;
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => new SyncState(file)).toThrow(/schema version 99, newer than this calsync knows/);
  });
});
