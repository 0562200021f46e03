/**
 * `npm run import` of CSV files that need a word from the user, given as flags instead of a pipeline
 * file: the error of the run without the flag names it, and the run with it imports the events.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { decodeEntities } from '../../src/render/text.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

async function events(data: string): Promise<string[]> {
  const target = await openLocalTarget({ dataFile: data });
  try {
    const found: string[] = [];
    for await (const e of target.list('event')) {
      found.push(`${decodeEntities(String(e.body.title))} ${e.body.start_date} ${e.body.timezone}`);
    }
    return found.sort();
  } finally {
    await target.close();
  }
}

describe('npm run import with CSV flags', () => {
  it('--columns maps headers no alias knows; the error without it names the flag', async () => {
    const file = join(dir.dir, 'club.csv');
    await writeFile(
      file,
      'Was;Wann;Wo\nSommerfest;2026-12-05 15:00;Vereinsheim\nWeihnachtsfeier;2026-12-19 18:00;Saal\n',
    );
    const data = join(dir.dir, 'club.db');
    const without = await runCli(importMain, [file, '--data', data, '--timezone', 'Europe/Berlin']);
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(
      /no title or start_date column; .*pass --columns title=<header>,start_date=<header>/,
    );

    const run = await runCli(importMain, [
      file,
      '--data',
      data,
      '--timezone',
      'Europe/Berlin',
      '--columns',
      'title=Was,start_date=Wann,venue_name=Wo',
    ]);
    expect(run.code, run.stdout).toBe(0);
    expect(await events(data)).toEqual([
      'Sommerfest 2026-12-05 15:00:00 Europe/Berlin',
      'Weihnachtsfeier 2026-12-19 18:00:00 Europe/Berlin',
    ]);
  });

  it('--format csv --no-header --delimiter "|" read a .txt list by column numbers', async () => {
    const file = join(dir.dir, 'fixtures.txt');
    await writeFile(file, 'Heim|Gast|12/06/2026|14:30\nGast|Heim|19/12/2026|15:00\n');
    const data = join(dir.dir, 'fixtures.db');
    const run = await runCli(importMain, [
      file,
      '--data',
      data,
      '--format',
      'csv',
      '--no-header',
      '--delimiter',
      '|',
      '--columns',
      'title=1,start_date=3,start_time=4',
      '--timezone',
      'Europe/London',
    ]);
    expect(run.code, run.stdout).toBe(0);
    // 19/12 settles day-first for the file, so 12/06 is 12 June.
    expect(await events(data)).toEqual([
      'Gast 2026-12-19 15:00:00 Europe/London',
      'Heim 2026-06-12 14:30:00 Europe/London',
    ]);
  });

  it('--date-format settles 03/04 dates that no value of the file does; the error names it', async () => {
    const file = join(dir.dir, 'us.csv');
    await writeFile(file, 'Subject,Start Date,Start Time\nTalk,12/03/2026,7:00 PM\n');
    const data = join(dir.dir, 'us.db');
    const without = await runCli(importMain, [file, '--data', data]);
    expect(without.code).toBe(1);
    expect(without.stdout).toContain('pass --date-format DD/MM/YYYY or MM/DD/YYYY');
    const run = await runCli(importMain, [file, '--data', data, '--date-format', 'MM/DD/YYYY']);
    expect(run.code, run.stdout).toBe(0);
    expect(await events(data)).toEqual(['Talk 2026-12-03 19:00:00 UTC']);
  });
});
