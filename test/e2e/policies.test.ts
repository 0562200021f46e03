/**
 * The policies of a pipeline, end to end through `npm run plan` and `npm run sync` on a local target:
 * each deletion policy (keep, draft, trash, delete) on events that left the source or became
 * STATUS:CANCELLED; the mass-delete guard and --force-delete; the update policies skip-existing and
 * preserve-local-edits, with edits made through the API between two runs (events trashed and deleted there
 * among them).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as planMain } from '../../src/cli/plan.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import type { Remote } from '../../src/writer/target.ts';
import { tempDir } from '../writer/setup.ts';
import { readReport, runCli, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());
const at = (name: string) => join(dir.dir, name);

interface Change {
  title?: string;
  start?: string;
  status?: 'CANCELLED';
  description?: string;
}

/** Single events on December evenings (inside the window around the tests' NOW, 2026-11-22). */
function calendar(numbers: number[], changes: Record<number, Change> = {}): string {
  const events = numbers.flatMap((n) => {
    const day = String(n).padStart(2, '0');
    const c = changes[n] ?? {};
    return [
      'BEGIN:VEVENT',
      `UID:policy-${n}@policies.test`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;TZID=Europe/Berlin:202612${day}T${c.start ?? '190000'}`,
      `DTEND;TZID=Europe/Berlin:202612${day}T230000`,
      `SUMMARY:${c.title ?? `Evening ${n}`}`,
      ...(c.description ? [`DESCRIPTION:${c.description}`] : []),
      ...(c.status ? [`STATUS:${c.status}`] : []),
      'END:VEVENT',
    ];
  });
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync//policies//EN',
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}
const ALL = [1, 2, 3, 4, 5, 6, 7, 8];

/** A pipeline `name` reading `<name>.ics` into `<name>.db`, with `policies` as YAML lines. */
async function pipeline(name: string, policies: string): Promise<string> {
  const file = at(`${name}.yaml`);
  await writeFile(
    file,
    `name: ${name}\nsource:\n  type: ics\n  path: ${name}.ics\ntarget:\n  data: ${at(`${name}.db`)}\npolicies:\n${policies}\n`,
  );
  return file;
}

async function sync(file: string, ...args: string[]) {
  const run = await runCli(syncMain, [file, '--report', at('report.json'), ...args]);
  const [report] = await readReport<RunReport[]>(at('report.json'));
  return { ...run, report };
}

/** Every event of a local data file by title, any status but trash; `get` reads one by id (trash too). */
async function events(
  name: string,
): Promise<{ byTitle: Map<string, Remote>; get(id: number): Promise<Remote | null> }> {
  const target = await openLocalTarget({ dataFile: at(`${name}.db`) });
  const byTitle = new Map<string, Remote>();
  for await (const e of target.list('event')) byTitle.set(String(e.body.title), e);
  return {
    byTitle,
    get: async (id) => {
      const t = await openLocalTarget({ dataFile: at(`${name}.db`) });
      try {
        return await t.get('event', id);
      } finally {
        await t.close();
      }
    },
  };
}

describe('deletion policies, for events that left the source or were cancelled', () => {
  it.each([
    ['keep', 'publish', 'publish', { skipped: 2, deleted: 0 }],
    ['draft', 'draft', 'draft', { skipped: 0, deleted: 2 }],
    ['trash', 'trash', 'trash', { skipped: 0, deleted: 2 }],
    ['delete', null, null, { skipped: 0, deleted: 2 }],
  ] as const)(
    '%s: the events end up %s, shown in the plan and counted in the report',
    async (policy, gone, cancelled, counts) => {
      const name = `delete-${policy}`;
      const file = await pipeline(name, `  delete: ${policy}`);
      await writeFile(at(`${name}.ics`), calendar(ALL));
      expect((await sync(file)).code).toBe(0);
      const before = await events(name);
      const id8 = before.byTitle.get('Evening 8')?.id as number;
      const id7 = before.byTitle.get('Evening 7')?.id as number;

      // Event 8 leaves the source, event 7 is cancelled: 2 of 8, within the 25% guard.
      await writeFile(at(`${name}.ics`), calendar(ALL.slice(0, 7), { 7: { status: 'CANCELLED' } }));
      const plan = await runCli(planMain, [file]);
      const op = policy === 'keep' ? 'skip' : 'delete';
      expect(plan.stdout).toContain(
        `event "Evening 8" — no longer in the source (deletion policy ${policy})`,
      );
      expect(plan.stdout).toContain(`event "Evening 7" (${at(`${name}.ics`)}`);
      expect(plan.stdout).toMatch(new RegExp(`^${op}\\s+event "Evening 7" .*cancelled in the source`, 'm'));

      const run = await sync(file);
      expect(run.code).toBe(0);
      expect(run.report.counts.event).toMatchObject({ ...counts, unchanged: 6, failed: 0 });
      const after = await events(name);
      expect((await after.get(id8))?.status ?? null).toBe(gone);
      expect((await after.get(id7))?.status ?? null).toBe(cancelled);
      expect(after.byTitle.size).toBe(policy === 'keep' || policy === 'draft' ? 8 : 6);

      // Settled: the next run writes nothing (a drafted event is not drafted again).
      const again = await sync(file);
      expect(writesOf(again.report)).toBe(0);
    },
  );

  it('an event cancelled before it was ever imported is skipped, not created', async () => {
    const file = await pipeline('cancelled-new', '  delete: trash');
    await writeFile(at('cancelled-new.ics'), calendar([1, 2], { 2: { status: 'CANCELLED' } }));
    const run = await sync(file);
    expect(run.report.counts.event).toMatchObject({ created: 1, skipped: 1 });
    expect([...(await events('cancelled-new')).byTitle.keys()]).toEqual(['Evening 1']);
  });
});

describe('the mass-delete guard', () => {
  it('holds back deleting more than 25% of the events, and --force-delete lifts it', async () => {
    const file = await pipeline('guard', '  delete: delete');
    await writeFile(at('guard.ics'), calendar(ALL));
    await sync(file);
    await writeFile(at('guard.ics'), calendar(ALL.slice(0, 5))); // 3 of 8 gone: 37.5%
    const plan = await runCli(planMain, [file]);
    expect(plan.stdout).toMatch(
      /deletions held back: 3 of 8 events would be deleted, more than the 25% limit/,
    );
    const held = await sync(file);
    expect(held.code).toBe(1);
    expect(held.report.guard).toMatch(/--force-delete/);
    expect(held.report.counts.event).toMatchObject({ deleted: 0, skipped: 3 });
    expect((await events('guard')).byTitle.size).toBe(8);

    const forced = await sync(file, '--force-delete');
    expect(forced.code).toBe(0);
    expect(forced.report.counts.event.deleted).toBe(3);
    expect((await events('guard')).byTitle.size).toBe(5);
  });

  it('refuses any deletion when the source comes back empty, whatever the ratio allows', async () => {
    const file = await pipeline('empty', '  delete: trash\n  max_delete_ratio: 1');
    await writeFile(at('empty.ics'), calendar([1, 2, 3]));
    await sync(file);
    await writeFile(at('empty.ics'), calendar([]));
    const held = await sync(file);
    expect(held.code).toBe(1);
    expect(held.stdout).toMatch(/deletions held back: the source has no events, so all 3 would be deleted/);
    expect((await events('empty')).byTitle.size).toBe(3);
    const forced = await sync(file, '--force-delete');
    expect(forced.report.counts.event.deleted).toBe(3);
    expect((await events('empty')).byTitle.size).toBe(0);
  });
});

describe('update policies', () => {
  it('skip-existing leaves events that exist alone and creates new ones', async () => {
    const file = await pipeline('skip', '  update: skip-existing');
    await writeFile(at('skip.ics'), calendar([1, 2]));
    await sync(file);
    await writeFile(at('skip.ics'), calendar([1, 2, 3], { 1: { title: 'Renamed' } }));
    const run = await sync(file);
    expect(run.report.counts.event).toMatchObject({ created: 1, skipped: 1, unchanged: 1 });
    expect([...(await events('skip')).byTitle.keys()].sort()).toEqual([
      'Evening 1',
      'Evening 2',
      'Evening 3',
    ]);
  });

  it('preserve-local-edits keeps fields edited through the API, writes the rest and reports each conflict', async () => {
    const file = await pipeline('preserve', '  update: preserve-local-edits');
    await writeFile(at('preserve.ics'), calendar([1, 2, 3]));
    expect((await sync(file)).code).toBe(0);

    // Edits on the site, through the API: event 1's title, event 3's title and description.
    const ids = new Map([...(await events('preserve')).byTitle].map(([title, e]) => [title, e.id]));
    const site = await openLocalTarget({ dataFile: at('preserve.db') });
    await site.update('event', ids.get('Evening 1') as number, { title: 'Evening 1 (sold out)' });
    await site.update('event', ids.get('Evening 3') as number, {
      title: 'Evening 3 (new room)',
      description: 'Now in the small hall',
    });
    await site.close();

    // The source changes event 1's title and time (a conflict on the title), event 2's title (no edit on
    // the site) and event 3's description (a conflict), not event 3's title.
    await writeFile(
      at('preserve.ics'),
      calendar([1, 2, 3], {
        1: { title: 'Evening 1 (moved)', start: '200000' },
        2: { title: 'Evening 2 (moved)' },
        3: { description: 'Doors at seven' },
      }),
    );
    const plan = await runCli(planMain, [file]);
    expect(plan.stdout).toMatch(/^events\s+0\s+1\s+0\s+0\s+0\s+2$/m);
    expect(plan.stdout).toContain('conflicts: kept as edited on the target (2):');
    expect(plan.stdout).toContain(
      'event "Evening 1 (moved)": title kept as edited on the target ("Evening 1 (sold out)"); the source says "Evening 1 (moved)"',
    );

    const run = await sync(file);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 conflicts');
    expect(run.report.conflicts.map((c) => [c.label, c.fields.map((f) => f.field)])).toEqual([
      ['Evening 1 (moved)', ['title']],
      ['Evening 3', ['description']],
    ]);
    expect(run.report.counts.event).toMatchObject({ updated: 2, skipped: 1 });
    const after = (await events('preserve')).byTitle;
    expect(after.get('Evening 1 (sold out)')?.body.start_date).toBe('2026-12-01 20:00:00'); // the rest written
    expect(after.has('Evening 2 (moved)')).toBe(true);
    expect(String(after.get('Evening 3 (new room)')?.body.description)).toContain('Now in the small hall');

    // Never silently lost: the next run reports the conflicts again, and writes nothing.
    const again = await sync(file);
    expect(again.report.conflicts).toHaveLength(2);
    expect(writesOf(again.report)).toBe(0);

    // overwrite takes the source's values; preserve-local-edits then has nothing left to keep.
    const overwrite = await pipeline('preserve', '  update: overwrite');
    expect((await sync(overwrite)).report.counts.event.updated).toBe(2);
    const back = await sync(file);
    expect(back.report.conflicts).toEqual([]);
    expect(writesOf(back.report)).toBe(0);
    expect([...(await events('preserve')).byTitle.keys()].sort()).toEqual([
      'Evening 1 (moved)',
      'Evening 2 (moved)',
      'Evening 3',
    ]);
  });
  it('preserve-local-edits leaves an event trashed or deleted on the site as it is when the source changes it; overwrite brings it back', async () => {
    const file = await pipeline('removed', '  update: preserve-local-edits');
    await writeFile(at('removed.ics'), calendar([1, 2, 3]));
    expect((await sync(file)).code).toBe(0);
    const ids = new Map([...(await events('removed')).byTitle].map(([title, e]) => [title, e.id]));
    const site = await openLocalTarget({ dataFile: at('removed.db') });
    await site.remove('event', ids.get('Evening 1') as number, 'trash');
    await site.remove('event', ids.get('Evening 2') as number, 'delete');
    await site.close();

    await writeFile(
      at('removed.ics'),
      calendar([1, 2, 3], { 1: { title: 'Evening 1 (moved)' }, 2: { title: 'Evening 2 (moved)' } }),
    );
    for (const run of [await sync(file), await sync(file)]) {
      expect(run.code).toBe(0);
      expect(run.report.counts.event).toMatchObject({ created: 0, updated: 0, unchanged: 1, skipped: 2 });
      expect(run.report.warnings).toEqual([
        expect.stringMatching(/"Evening 1 \(moved\)": trashed on the target, and kept so/),
        expect.stringMatching(/"Evening 2 \(moved\)": deleted on the target, and kept so/),
      ]);
    }
    const kept = await events('removed');
    expect([...kept.byTitle.keys()]).toEqual(['Evening 3']);
    expect((await kept.get(ids.get('Evening 1') as number))?.body).toMatchObject({
      status: 'trash',
      title: 'Evening 1',
    });

    // overwrite: the source wins, the trashed one restored and the deleted one made again.
    const overwrite = await pipeline('removed', '  update: overwrite');
    expect((await sync(overwrite)).report.counts.event).toMatchObject({ created: 1, updated: 1 });
    const back = await events('removed');
    expect([...back.byTitle.keys()].sort()).toEqual(['Evening 1 (moved)', 'Evening 2 (moved)', 'Evening 3']);
    expect(back.byTitle.get('Evening 1 (moved)')?.id).toBe(ids.get('Evening 1'));
  });

  it('preserve-local-edits keeps a draft an editor published as published when the source changes it', async () => {
    // pipelines/remote/wordpress-example.yaml: events arrive as drafts and an editor publishes them.
    const file = at('review.yaml');
    await writeFile(
      file,
      `name: review\nsource:\n  type: ics\n  path: review.ics\ntarget:\n  data: ${at('review.db')}\nmapping:\n  status: draft\npolicies:\n  update: preserve-local-edits\n`,
    );
    await writeFile(at('review.ics'), calendar([1, 2]));
    expect((await sync(file)).code).toBe(0);
    const id1 = (await events('review')).byTitle.get('Evening 1')?.id as number;
    const site = await openLocalTarget({ dataFile: at('review.db') });
    await site.update('event', id1, { status: 'publish' });
    await site.close();

    await writeFile(
      at('review.ics'),
      calendar([1, 2], { 1: { title: 'Evening 1 (moved)', start: '200000' } }),
    );
    const run = await sync(file);
    expect(run.code).toBe(0);
    expect(run.report.conflicts).toEqual([]); // the source did not change the status: nothing to report
    const after = await events('review');
    const e1 = after.byTitle.get('Evening 1 (moved)');
    expect(e1?.body).toMatchObject({ status: 'publish', start_date: '2026-12-01 20:00:00' });
    expect(after.byTitle.get('Evening 2')?.body.status).toBe('draft');
  });
});
