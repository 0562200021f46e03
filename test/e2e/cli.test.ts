/**
 * `npm run import` as a user meets it, in-process with a temp `--data`: every CSV row arrives, bad records
 * are named by file:line and code while the rest is imported, usage errors exit 2, `--dry-run` writes
 * nothing and shows field changes, deletions go to the trash behind the mass-delete guard, the run lock
 * refuses a live owner and takes over a dead one, and logs are NDJSON off a terminal.
 */
import { createReadStream, existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { readCsv } from '../../src/sources/csv/index.ts';
import { acquireLock } from '../../src/state/lock.ts';
import { killChildren, spawnChild } from '../helpers/children.ts';
import { tempDir } from '../writer/setup.ts';
import { ROOT, readReport, runCli, SAMPLE_CSV, SAMPLE_ICS, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());
afterEach(killChildren);

const at = (name: string) => join(dir.dir, name);

/** A small calendar of single events in December 2026 (inside the window around NOW, 2026-11-22). */
function calendar(count: number, change: (n: number, lines: string[]) => string[] = (_, l) => l): string {
  const events = Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const day = String(n).padStart(2, '0');
    const lines = [
      'BEGIN:VEVENT',
      `UID:event-${n}@cli.test`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;TZID=Europe/London:202612${day}T190000`,
      `DTEND;TZID=Europe/London:202612${day}T210000`,
      `SUMMARY:Evening ${n}`,
      'END:VEVENT',
    ];
    return change(n, lines);
  });
  const head = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//cli test//EN'];
  return [...head, ...events.flat(), 'END:VCALENDAR', ''].join('\r\n');
}

/** The 8-event calendar without the events numbered `gone`. */
const without = (...gone: number[]) => calendar(8, (n, lines) => (gone.includes(n) ? [] : lines));

describe('npm run import -- samples/community-calendar.csv', () => {
  it('imports every row the CSV reader reads, then writes nothing on a second run', async () => {
    const data = at('csv.db');
    const source = await readCsv(createReadStream(SAMPLE_CSV), { file: 'sample' });
    expect(source.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(source.records.length).toBeGreaterThanOrEqual(50);

    const first = await runCli(importMain, [SAMPLE_CSV, '--data', data, '--report', at('csv-1.json')]);
    expect(first.code).toBe(0);
    const snap = await snapshotOf(data);
    expect(snap.events).toHaveLength(source.records.length);
    expect(snap.events.map((e) => e.title).sort()).toEqual(source.records.map((r) => r.title).sort());
    expect((await readReport(at('csv-1.json'))).counts.event.created).toBe(source.records.length);

    const second = await runCli(importMain, [SAMPLE_CSV, '--data', data, '--report', at('csv-2.json')]);
    expect(second.code).toBe(0);
    const report = await readReport(at('csv-2.json'));
    expect(writesOf(report)).toBe(0);
    expect(report.counts.event).toMatchObject({ unchanged: source.records.length, created: 0, updated: 0 });
  });
});

describe('a file with bad records', () => {
  it('imports the good VEVENTs and names each bad one by file:line and code, with exit code 1', async () => {
    const file = at('broken.ics');
    const good = calendar(2).split('\r\n');
    const bad = [
      'BEGIN:VEVENT', // line 18 (after 3 header lines and 2 events of 7 lines): no DTSTART, so its BEGIN
      'UID:no-start@cli.test',
      'DTSTAMP:20261101T000000Z',
      'SUMMARY:No start',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:bad-date@cli.test',
      'DTSTAMP:20261101T000000Z',
      'DTSTART;TZID=Europe/London:20261345T190000', // line 26: the bad value's own line
      'SUMMARY:Thirteenth month',
      'END:VEVENT',
    ];
    await writeFile(file, [...good.slice(0, -2), ...bad, 'END:VCALENDAR', ''].join('\r\n'));
    const run = await runCli(importMain, [file, '--data', at('broken-ics.db'), '--report', at('ics.json')]);
    expect(run.code).toBe(1);
    expect((await snapshotOf(at('broken-ics.db'))).events.map((e) => e.title).sort()).toEqual([
      'Evening 1',
      'Evening 2',
    ]);
    expect(run.stdout).toMatch(new RegExp(`${file}:18 .*ics_no_dtstart`));
    expect(run.stdout).toMatch(new RegExp(`${file}:26 .*ics_bad_date`));
    const report = await readReport(at('ics.json'));
    expect(report.outcome).toBe('failed');
    expect(report.counts.event.created).toBe(2);
    expect(report.problems.map((p) => [p.code, p.origin.line, p.uid])).toEqual([
      ['ics_no_dtstart', 18, 'no-start@cli.test'],
      ['ics_bad_date', 26, 'bad-date@cli.test'],
    ]);
  });

  it('imports the good CSV rows and names each bad row by file:line and code, with exit code 1', async () => {
    const file = at('broken.csv');
    await writeFile(
      file,
      [
        'event_name,event_start_date,event_start_time,event_end_date,event_end_time,event_timezone',
        'Good row,2026-12-01,19:00,2026-12-01,21:00,Europe/London',
        ',2026-12-02,19:00,2026-12-02,21:00,Europe/London',
        'Thirteenth month,2026-13-01,19:00,2026-13-01,21:00,Europe/London',
        'On Mars,2026-12-04,19:00,2026-12-04,21:00,Mars/Olympus',
        'Another good row,2026-12-05,10:00,2026-12-05,12:00,Europe/London',
        '',
      ].join('\n'),
    );
    const run = await runCli(importMain, [file, '--data', at('broken-csv.db'), '--report', at('csv.json')]);
    expect(run.code).toBe(1);
    expect((await snapshotOf(at('broken-csv.db'))).events.map((e) => e.title).sort()).toEqual([
      'Another good row',
      'Good row',
    ]);
    expect(run.stdout).toMatch(new RegExp(`${file}:3: .*csv_missing_title`));
    expect(run.stdout).toMatch(new RegExp(`${file}:4: .*csv_bad_date`));
    expect(run.stdout).toMatch(new RegExp(`${file}:5: .*csv_bad_timezone`));
    const report = await readReport(at('csv.json'));
    const errors = report.problems.filter((p) => p.severity === 'error');
    // The bad-date row is reported once per bad cell (start and end): lines, not counts, are the contract.
    expect([...new Set(errors.map((p) => `${p.origin.line} ${p.code}`))]).toEqual([
      '3 csv_missing_title',
      '4 csv_bad_date',
      '5 csv_bad_timezone',
    ]);
  });
});

describe('usage errors', () => {
  it.each([
    ['no file', [], /expected exactly one/],
    ['two files', ['a.ics', 'b.csv'], /expected exactly one/],
    [
      'an unknown extension',
      ['notes.txt'],
      /notes\.txt: expected a \.ics or \.csv file \(or say which with --format csv\|ics\)/,
    ],
    ['a missing file', ['missing.ics'], /missing\.ics: no such file/],
    ['a bad --timezone', [SAMPLE_CSV, '--timezone', 'Mars/Olympus'], /--timezone: "Mars\/Olympus"/],
    ['an unknown option', [SAMPLE_CSV, '--colour'], /Unknown option '--colour'/],
    // Regression: the CSV reader's refusal of a date format crashed the run with exit 1 and a stack trace.
    ['a bad --date-format', [SAMPLE_CSV, '--date-format', 'XX'], /--date-format: expected one of/],
    [
      'an unknown --columns field',
      [SAMPLE_CSV, '--columns', 'titel=Subject'],
      /--columns: unknown field "titel"/,
    ],
    ['a --columns without =', [SAMPLE_CSV, '--columns', 'Subject'], /--columns: expected field=header pairs/],
    ['a bad --delimiter', [SAMPLE_CSV, '--delimiter', 'x'], /--delimiter: expected , ; tab or \|/],
    ['a bad --encoding', [SAMPLE_CSV, '--encoding', 'ebcdic'], /--encoding: expected utf-8/],
    ['a bad --format', [SAMPLE_CSV, '--format', 'xlsx'], /--format: expected csv or ics/],
    ['a CSV flag on an .ics file', [SAMPLE_ICS, '--no-header'], /--no-header: only for CSV files/],
  ])('%s exits 2 with a message', async (_, argv, message) => {
    const run = await runCli(importMain, [...(argv as string[]), '--data', at('usage.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message as RegExp);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await snapshotOf(at('usage.db'))).events).toEqual([]);
  });

  it('--help exits 0 and shows examples', async () => {
    const run = await runCli(importMain, ['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Examples:');
    expect(run.stdout).toContain('npm run import -- samples/community-calendar.ics');
    expect(run.stderr).toBe('');
  });
});

describe('--dry-run', () => {
  const file = () => at('dry.ics');
  const data = () => at('dry.db');

  it('prints the planned counts and writes nothing', async () => {
    await writeFile(file(), calendar(8));
    const run = await runCli(importMain, [file(), '--data', data(), '--dry-run', '--report', at('dry.json')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('dry run, nothing written');
    expect(run.stdout).toMatch(/^events\s+8\s+0\s+0\s+0\s+0\s+0$/m); // create update unchanged delete skip conflict
    expect(run.stdout).toContain('create    event "Evening 3"');
    const report = await readReport(at('dry.json'));
    expect(report.dryRun).toBe(true);
    expect(report.requests).toEqual({});
    expect(existsSync(data())).toBe(false);
  });

  it('shows the field changes of an event changed since the last real run', async () => {
    expect((await runCli(importMain, [file(), '--data', data()])).code).toBe(0);
    const moved = calendar(8, (n, lines) =>
      n === 5 ? lines.map((l) => l.replace('T190000', 'T183000')) : lines,
    );
    await writeFile(file(), moved);
    const run = await runCli(importMain, [file(), '--data', data(), '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^events\s+0\s+1\s+7\s+0\s+0\s+0$/m);
    expect(run.stdout).toContain('update    event "Evening 5"');
    expect(run.stdout).toContain('start_date: "2026-12-05 19:00:00" → "2026-12-05 18:30:00"');
    // Still nothing written: the event keeps its old time.
    const snap = await snapshotOf(data());
    expect(snap.events.find((e) => e.title === 'Evening 5')?.start_date).toBe('2026-12-05 19:00:00');
  });
});

describe('--deletions trash', () => {
  const file = () => at('deletions.ics');
  const data = () => at('deletions.db');
  const run = (...extra: string[]) =>
    runCli(importMain, [
      file(),
      '--data',
      data(),
      '--deletions',
      'trash',
      '--report',
      at('del.json'),
      ...extra,
    ]);

  it('trashes an event removed from the file and counts it as deleted', async () => {
    await writeFile(file(), calendar(8));
    expect((await run()).code).toBe(0);
    const target = await openLocalTarget({ dataFile: data() });
    let id: number | undefined;
    for await (const e of target.list('event')) if (e.body.title === 'Evening 8') id = e.id;
    await target.close();
    expect(id).toBeDefined();

    await writeFile(file(), without(8));
    expect((await run()).code).toBe(0);
    expect((await readReport(at('del.json'))).counts.event.deleted).toBe(1);
    expect((await snapshotOf(data())).events.map((e) => e.title)).not.toContain('Evening 8');
    const after = await openLocalTarget({ dataFile: data() });
    expect((await after.get('event', id as number))?.status).toBe('trash');
    await after.close();
  });

  it('holds back removing more than 25% unless --force-delete', async () => {
    await writeFile(file(), without(8, 7, 6, 5)); // 3 of the 7 left: 43%
    const held = await run();
    expect(held.code).toBe(1);
    expect(held.stdout).toMatch(/deletions held back: .*--force-delete/);
    expect((await readReport(at('del.json'))).counts.event.deleted).toBe(0);
    expect((await snapshotOf(data())).events).toHaveLength(7);

    const forced = await run('--force-delete');
    expect(forced.code).toBe(0);
    expect((await readReport(at('del.json'))).counts.event.deleted).toBe(3);
    expect((await snapshotOf(data())).events.map((e) => e.title).sort()).toEqual([
      'Evening 1',
      'Evening 2',
      'Evening 3',
      'Evening 4',
    ]);
  });
});

describe('an event deleted on the site', () => {
  it('is created again when its source changes, and the run says so', async () => {
    await writeFile(at('gone.ics'), calendar(2));
    expect((await runCli(importMain, [at('gone.ics'), '--data', at('gone.db')])).code).toBe(0);
    const target = await openLocalTarget({ dataFile: at('gone.db') });
    const victim = (await snapshotOf(at('gone.db'))).events.find((e) => e.title === 'Evening 1');
    const found = await target.findBySlug('event', String(victim?.slug));
    await target.remove('event', Number(found?.id), 'delete');
    await target.close();

    await writeFile(
      at('gone.ics'),
      calendar(2, (n, l) => l.map((x) => (n === 1 ? x.replace('Evening 1', 'Evening one') : x))),
    );
    const run = await runCli(importMain, [
      at('gone.ics'),
      '--data',
      at('gone.db'),
      '--report',
      at('gone.json'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/written with warnings \(1\)[\s\S]*deleted on the target/);
    expect((await readReport(at('gone.json'))).counts.event).toMatchObject({ created: 1, unchanged: 1 });
    expect((await snapshotOf(at('gone.db'))).events.map((e) => e.title).sort()).toEqual([
      'Evening 2',
      'Evening one',
    ]);
  });
});

describe('the run lock', () => {
  // src/state/lock.ts: `<state file>.<pipeline>.lock`, the state file beside the data file.
  const lockFile = () => at('locked.sync.db.import-locked-ics.lock');

  it('refuses to run while another run holds the lock, with exit code 2', async () => {
    await writeFile(at('locked.ics'), calendar(2));
    const release = acquireLock(lockFile());
    try {
      const run = await runCli(importMain, [at('locked.ics'), '--data', at('locked.db')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('another run of this pipeline holds the lock');
      expect((await snapshotOf(at('locked.db'))).events).toEqual([]);
    } finally {
      release();
    }
  });

  it('runs when the process that held the lock was killed', async () => {
    // The holder keeps its release function (and so the SQLite connection holding the lock) reachable:
    // dropped, the connection is closed whenever the garbage collector runs, and the lock goes with it.
    const holder = spawnChild(
      process.execPath,
      [
        '-e',
        `import(${JSON.stringify(join(ROOT, 'src/state/lock.ts'))}).then((m) => { globalThis.release = m.acquireLock(${JSON.stringify(lockFile())}); console.log('held'); setInterval(() => {}, 1000); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((held) => holder.stdout?.once('data', held));
    expect((await runCli(importMain, [at('locked.ics'), '--data', at('locked.db')])).code).toBe(2);
    holder.kill('SIGKILL');
    await new Promise((exited) => holder.once('exit', exited));
    const run = await runCli(importMain, [at('locked.ics'), '--data', at('locked.db')]);
    expect(run.code).toBe(0);
    expect((await snapshotOf(at('locked.db'))).events).toHaveLength(2);
  });
});

describe('logs and --quiet', () => {
  it('logs NDJSON lines carrying the pipeline and the run id when stderr is not a terminal', async () => {
    await writeFile(at('logs.ics'), calendar(3));
    const run = await runCli(importMain, [at('logs.ics'), '--data', at('logs.db')]);
    expect(run.code).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const logs = lines.map((line) => JSON.parse(line));
    for (const log of logs)
      expect(log).toMatchObject({ pipeline: 'import-logs-ics', run: expect.any(String) });
    expect(new Set(logs.map((l) => l.run)).size).toBe(1);
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['plan', 'run ok']));
  });

  it('--quiet prints only the one-line summary on success', async () => {
    await writeFile(at('quiet.ics'), calendar(3));
    const run = await runCli(importMain, [at('quiet.ics'), '--data', at('quiet.db'), '--quiet']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^import-quiet-ics: 3 events \(3 created\), 0 failed → local .* in \d+\.\d s\n$/,
    );
  });
});
