/**
 * A lost, forgotten or stale sync state: the next run, or `npm run state -- rebuild`, recognises what the
 * pipeline wrote on the target — events by their slug suffix, venues, organizers and terms by name — and
 * creates nothing twice, for every kind. `npm run state -- show|forget` on the way.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as planMain } from '../../src/cli/plan.ts';
import { main as stateMain } from '../../src/cli/state.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { SyncState } from '../../src/state/sync-state.ts';
import { tempDir } from '../writer/setup.ts';
import { readReport, runCli, SAMPLE_ICS, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let file: string;
let clean: Awaited<ReturnType<typeof snapshotOf>>;
const at = (name: string) => join(dir.dir, name);
const KINDS = ['category', 'tag', 'venue', 'organizer', 'event'] as const;

beforeAll(async () => {
  dir = await tempDir();
  file = at('repair.yaml');
  await writeFile(
    file,
    `name: repair\nsource:\n  type: ics\n  path: ${SAMPLE_ICS}\ntarget:\n  data: ${at('calendar.db')}\nmapping:\n  tags: [Community]\n`,
  );
  const first = await sync();
  expect(first.code).toBe(0);
  clean = await snapshotOf(at('calendar.db'));
});
afterAll(() => dir.remove());

async function sync() {
  const run = await runCli(syncMain, [file, '--report', at('report.json')]);
  const [report] = await readReport<RunReport[]>(at('report.json'));
  return { ...run, report };
}

const created = (r: RunReport) => KINDS.reduce((n, k) => n + r.counts[k].created, 0);
const itemCounts = () => {
  const state = new SyncState(at('calendar.sync.db'));
  try {
    return state.counts('repair');
  } finally {
    state.close();
  }
};

describe('a deleted sync state file', () => {
  it('is read around by npm run plan: the plan creates nothing and no state file is left behind', async () => {
    for (const suffix of ['', '-wal', '-shm']) await rm(at(`calendar.sync.db${suffix}`), { force: true });
    const run = await runCli(planMain, [file]);
    expect(run.code, run.stderr).toBe(0);
    // created updated unchanged deleted skipped failed
    expect(run.stdout).toMatch(/^events\s+0\s+0\s+\d+\s+0\s+1\s+0$/m);
    expect(run.stdout).toMatch(/^venues\s+0\s+0\s+17\s/m);
    expect(existsSync(at('calendar.sync.db'))).toBe(false);
    expect(await snapshotOf(at('calendar.db'))).toEqual(clean);
    expect((await sync()).code).toBe(0); // the state back, as the next test expects it
  });

  it('is rebuilt by the next run from the target: nothing created, nothing written, every kind taken over', async () => {
    const before = itemCounts();
    expect(before).toMatchObject({ category: 10, tag: 1, venue: 17, organizer: 11 });
    for (const suffix of ['', '-wal', '-shm']) await rm(at(`calendar.sync.db${suffix}`), { force: true });

    const run = await sync();
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /events of an earlier run found on the target by slug, 39 venues, organizers and terms/,
    );
    expect(created(run.report)).toBe(0);
    expect(writesOf(run.report)).toBe(0);
    for (const kind of KINDS) expect(run.report.counts[kind].unchanged).toBe(before[kind]);
    expect(await snapshotOf(at('calendar.db'))).toEqual(clean);
    expect(itemCounts()).toEqual(before);
  });
});

describe('npm run state', () => {
  it('show lists the items per kind and the last runs', async () => {
    const run = await runCli(stateMain, ['show', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`repair in ${at('calendar.sync.db')}`);
    expect(run.stdout).toMatch(/items: 10 categories, 1 tags, 17 venues, 11 organizers, \d+ events/);
    expect(run.stdout).toMatch(/last runs:\n {2}\S+ {2}ok {10} repair: \d+ events \(\d+ unchanged/);
  });

  it('forget drops the items, and rebuild records them again from the target without writing to it', async () => {
    const before = itemCounts();
    const forgot = await runCli(stateMain, ['forget', file]);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toMatch(/repair: forgot \d+ items/);
    expect(itemCounts()).toEqual({});

    const rebuilt = await runCli(stateMain, ['rebuild', file]);
    expect(rebuilt.stderr).not.toMatch(/"level":[56]0/);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toContain('  venue: 17 of 17 found on the target\n');
    expect(itemCounts()).toEqual(before);
    expect(await snapshotOf(at('calendar.db'))).toEqual(clean);
    const next = await sync();
    expect(writesOf(next.report)).toBe(0);
  });

  it('rebuild records the data file it read, so that the next run keeps what it rebuilt', async () => {
    // The data file replaced by one from another machine: the same events under another store id.
    const db = new DatabaseSync(at('calendar.db'));
    db.exec(`UPDATE store_meta SET value = 'another-machine' WHERE name = 'instance'`);
    db.close();
    expect((await runCli(stateMain, ['rebuild', file])).code).toBe(0);
    const next = await sync();
    expect(next.stderr).not.toMatch(/another calendar database|found on the target/);
    expect(writesOf(next.report)).toBe(0);
  });

  it('rebuild marks what changed in the source since, and the next run updates only that', async () => {
    await runCli(stateMain, ['forget', file]);
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(SAMPLE_ICS, 'utf8');
    // One single (non-recurring) event renamed: the one whose VEVENT has no RRULE.
    const single =
      text.split('BEGIN:VEVENT').find((v) => v.includes('SUMMARY:') && !v.includes('RRULE')) ?? '';
    const summary = /SUMMARY:(.*)\r?\n/.exec(single)?.[1] ?? '';
    await writeFile(
      at('changed.ics'),
      text.replace(single, single.replace(`SUMMARY:${summary}`, `SUMMARY:${summary} (late)`)),
    );
    await writeFile(file, (await readFile(file, 'utf8')).replace(SAMPLE_ICS, at('changed.ics')));

    const rebuilt = await runCli(stateMain, ['rebuild', file]);
    // All but the one the sample cancels (never created), one of them changed since.
    const [, found, all] =
      /event: (\d+) of (\d+) found on the target, 1 to be updated by the next run/.exec(rebuilt.stdout) ?? [];
    expect(Number(found)).toBe(Number(all) - 1);
    const next = await sync();
    expect(created(next.report)).toBe(0);
    expect(next.report.counts.event.updated).toBe(1);
    expect(writesOf(next.report)).toBe(1);
  });

  it('says what is wrong with an unknown command or pipeline', async () => {
    expect((await runCli(stateMain, ['fix', file])).code).toBe(2);
    const missing = await runCli(stateMain, ['rebuild', 'no-such-pipeline', '--data', at('calendar.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /no pipeline named no-such-pipeline: no definition in pipelines\/ has that name/,
    );
  });
});
