/**
 * A source that lost part of itself never deletes: `npm run import` of an .ics cut off mid-VEVENT, or of
 * a CSV with an unreadable row, under `--deletions trash`, keeps every event it did not see, exits 1 and
 * says why on its first line.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

/** December evenings 1..n, inside the window around the tests' NOW (2026-11-22). */
function calendar(n: number): string {
  const events = Array.from({ length: n }, (_, i) => {
    const day = String(i + 1).padStart(2, '0');
    return [
      'BEGIN:VEVENT',
      `UID:evening-${i + 1}@salvage.test`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;TZID=Europe/Berlin:202612${day}T190000`,
      `DTEND;TZID=Europe/Berlin:202612${day}T220000`,
      `SUMMARY:Evening ${i + 1}`,
      'END:VEVENT',
    ].join('\r\n');
  });
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//t//EN', ...events, 'END:VCALENDAR', ''].join(
    '\r\n',
  );
}

async function published(data: string): Promise<string[]> {
  const target = await openLocalTarget({ dataFile: data });
  try {
    const titles: string[] = [];
    for await (const e of target.list('event')) if (e.status === 'publish') titles.push(String(e.body.title));
    return titles.sort();
  } finally {
    await target.close();
  }
}

describe('a salvaged source never deletes and exits 1', () => {
  it('an .ics cut off mid-VEVENT: the complete events are imported, none of the lost ones trashed', async () => {
    const file = join(dir.dir, 'club.ics');
    const data = join(dir.dir, 'club.db');
    await writeFile(file, calendar(12));
    const first = await runCli(importMain, [file, '--data', data, '--deletions', 'trash']);
    expect(first.code).toBe(0);
    expect(await published(data)).toHaveLength(12);

    const full = calendar(12);
    await writeFile(file, full.slice(0, full.indexOf('UID:evening-4@') + 10));
    const force = ['--deletions', 'trash', '--force-delete'];
    const plan = await runCli(importMain, [file, '--data', data, ...force, '--dry-run']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).not.toMatch(/^delete /m);

    const cut = await runCli(importMain, [file, '--data', data, ...force]);
    expect(cut.code).toBe(1);
    expect(cut.stdout.split('\n')[0]).toMatch(
      /not read whole, so nothing was deleted: .*club\.ics:\d+: file ends inside a VEVENT; read the 3 complete ones/,
    );
    expect(await published(data)).toHaveLength(12);
  });

  it('a CSV with an unreadable row: the events that left it are kept', async () => {
    const file = join(dir.dir, 'list.csv');
    const data = join(dir.dir, 'list.db');
    const rows = [
      'Title,Start Date,Start Time',
      'A,2026-12-01,19:00',
      'B,2026-12-02,19:00',
      'C,2026-12-03,19:00',
    ];
    await writeFile(file, `${rows.join('\n')}\n`);
    expect((await runCli(importMain, [file, '--data', data, '--deletions', 'trash'])).code).toBe(0);

    // B gone, C's date unreadable: C may be the row that is "missing", so neither is deleted.
    await writeFile(file, `${[rows[0], rows[1], 'C,2026-13-45,19:00'].join('\n')}\n`);
    const force = ['--deletions', 'trash', '--force-delete'];
    const run = await runCli(importMain, [file, '--data', data, ...force]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[0]).toMatch(
      /nothing was deleted: .*list\.csv:3: a record could not be read/,
    );
    expect(await published(data)).toEqual(['A', 'B', 'C']);

    // Read whole again, the file without B deletes B: the rule holds back only what a lost part could hide.
    await writeFile(file, `${[rows[0], rows[1], rows[3]].join('\n')}\n`);
    expect((await runCli(importMain, [file, '--data', data, ...force])).code).toBe(0);
    expect(await published(data)).toEqual(['A', 'C']);
  });
});
