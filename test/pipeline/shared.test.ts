import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Desired } from '../../src/pipeline/desired.ts';
import { leaveToOthers, leftProblems } from '../../src/pipeline/shared.ts';
import { type StateItem, SyncState } from '../../src/state/sync-state.ts';
import { tempDir } from '../writer/setup.ts';

const held = (key: string, remoteId: number): StateItem => ({
  kind: 'event',
  key,
  remoteId,
  slug: `${key}-slug`,
  hash: 'h',
  written: {},
  remoteModified: null,
  remoteFields: {},
});
const desired = (kind: Desired['kind'], key: string): Desired => ({
  kind,
  key,
  origin: { file: 'club.ics' },
  label: key,
  fields: {},
  refs: {},
  cancelled: false,
  hash: 'h',
});

let dir: Awaited<ReturnType<typeof tempDir>>;
let state: SyncState;
beforeAll(async () => {
  dir = await tempDir();
  state = new SyncState(join(dir.dir, 'state.db'));
  state.put('import-city', held('shared', 1));
  state.put('import-city', held('both', 2));
  state.put('import-club', held('both', 3)); // written by the club before it was left to anyone
});
afterAll(async () => {
  state.close();
  await dir.remove();
});

describe('leaveToOthers', () => {
  it('leaves out the events another import holds and this one does not, and counts them by import', async () => {
    const entities = [
      desired('venue', 'shared'),
      desired('event', 'shared'),
      desired('event', 'both'),
      desired('event', 'own'),
    ];
    const own = state.itemsOf('import-club', entities);
    const left = new Map<string, number>();
    const kept = await leaveToOthers(state, ['import-city'], entities, own, left);
    expect(kept.map((d) => `${d.kind} ${d.key}`)).toEqual(['venue shared', 'event both', 'event own']);
    expect(left).toEqual(new Map([['import-city', 1]]));
    expect(leftProblems(left, 'club.ics')).toEqual([
      expect.objectContaining({
        code: 'left_to_earlier_import',
        severity: 'warning',
        message:
          '1 event was imported before as "import-city": left to that import, not created a second time',
        origin: { file: 'club.ics' },
      }),
    ]);
    expect(await leaveToOthers(state, [], entities, own, left)).toBe(entities);
  });
});
