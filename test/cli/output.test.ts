/**
 * What a person reads when something goes wrong, as the commands print it (in-process, temp folders, a
 * real server on a loopback port): one line for a file that is no calendar (an HTML page, a binary file),
 * no stack for expected failures (a refused connection) unless --debug, a hint that names the variables
 * when a site wants credentials, each source problem once (on a terminal the logs do not repeat them),
 * errors first, colour on a terminal unless NO_COLOR, `--report -` and `--json` on stdout, non-zero exits
 * where nothing matched, and `--version` on every command.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIcs } from '../../bench/generate-ics.ts';
import { main as exportMain } from '../../src/cli/export.ts';
import { main as importMain } from '../../src/cli/import.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { main as planMain } from '../../src/cli/plan.ts';
import { main as schemaMain } from '../../src/cli/schema.ts';
import { main as serveMain } from '../../src/cli/serve.ts';
import { main as stateMain } from '../../src/cli/state.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { main as usersMain } from '../../src/cli/users.ts';
import { main as validateMain } from '../../src/cli/validate.ts';
import { NOW, runCli } from '../e2e/helpers.ts';
import { type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());
const at = (name: string) => join(dir.dir, name);

const PACKAGE_VERSION = (await import('../../package.json', { with: { type: 'json' } })).default.version;

/** An .ics with `good` events and one VEVENT whose DTSTART cannot be read (an error-severity problem). */
function calendar(good: number, broken = 1): string {
  const event = (n: number, start: string) => [
    'BEGIN:VEVENT',
    `UID:out-${n}@output.test`,
    'DTSTAMP:20261101T000000Z',
    `DTSTART:${start}`,
    `SUMMARY:Talk ${n}`,
    'END:VEVENT',
  ];
  const events = [
    ...Array.from({ length: good }, (_, i) => event(i, `202612${String(i + 1).padStart(2, '0')}T190000Z`)),
    ...Array.from({ length: broken }, (_, i) => event(100 + i, 'not-a-date')),
  ];
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//t//EN', ...events.flat(), 'END:VCALENDAR', ''].join(
    '\r\n',
  );
}

/** A command run with stdout and stderr that say they are a terminal (as `npm run` in a shell gives). */
async function onTerminal(
  main: (io: CliIO) => Promise<number>,
  argv: string[],
  env: Record<string, string> = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { CALSYNC_NOW: NOW, ...env },
    stdout: { write: (s: string) => (stdout += s), isTTY: true },
    stderr: { write: (s: string) => (stderr += s), isTTY: true },
  });
  return { code, stdout, stderr };
}

const ESC = '\u001b[';
/** An SGR escape (colour, bold); the progress bar's cursor movements are not colour. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[\\d+(;\\d+)*m`);

describe('a file that is no calendar', () => {
  it('an HTML page saved as .ics: one line that calls it an HTML page, exit 2', async () => {
    await writeFile(
      at('page.ics'),
      '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body></body></html>\n',
    );
    const run = await runCli(importMain, [at('page.ics'), '--data', at('page.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/page\.ics: this is an HTML page.*not an iCalendar \(\.ics\) file/);
    expect(run.stdout).toBe('');
  });

  it('a binary file renamed .ics: one line that calls it binary, not 1,891 lines of bad lines', async () => {
    const bytes = Buffer.alloc(200_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 3)) & 0xff;
    await writeFile(at('binary.ics'), bytes);
    const run = await onTerminal(importMain, [at('binary.ics'), '--data', at('binary.db')]);
    expect(run.code).toBe(2);
    expect(`${run.stdout}${run.stderr}`.trim().split('\n')).toEqual([
      expect.stringMatching(/binary\.ics: this is a binary file, not an iCalendar \(\.ics\) file$/),
    ]);
  });

  it('an Excel workbook named .csv is named as one', async () => {
    await writeFile(at('sheet.csv'), Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(600, 1)]));
    const run = await runCli(importMain, [at('sheet.csv'), '--data', at('sheet.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /sheet\.csv: this is a ZIP archive \(an Excel or LibreOffice file\? save it as CSV\)/,
    );
  });

  it('a text file with no BEGIN:VCALENDAR says so and shows how it begins', async () => {
    await writeFile(at('notes.ics'), 'Meeting notes\nnothing here\n');
    const run = await runCli(importMain, [at('notes.ics'), '--data', at('notes.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a calendar: an iCalendar file has BEGIN:VCALENDAR, this one has none');
    expect(run.stderr).toContain('it begins "Meeting notes nothing here"');
  });
});

describe('source problems', () => {
  it('on a terminal each problem is printed once, in the list, and the table and summary are coloured', async () => {
    await writeFile(at('broken.ics'), calendar(3));
    const run = await onTerminal(importMain, [at('broken.ics'), '--data', at('broken.db')]);
    expect(run.code).toBe(1);
    const lines = `${run.stdout}${run.stderr}`.split('\n');
    expect(lines.filter((l) => l.includes('out-100@output.test'))).toHaveLength(1);
    expect(run.stderr).not.toContain('out-100@output.test');
    expect(run.stdout).toContain('problems in the source (1):');
    expect(run.stdout).toMatch(COLOUR);
    // While it reads and plans (no count to show yet) a status line says so, then gives way to the bar.
    expect(run.stderr).toContain('reading ');
    expect(run.stderr).toMatch(/broken\.ics…/);
    // (an .ics file is read, planned and written a batch at a time: its VEVENTs are what it counts)
    expect(run.stderr).toMatch(/planning \d+ VEVENTs…/);
  });

  it('NO_COLOR turns the colour off, and a pipe never gets any', async () => {
    await writeFile(at('nocolour.ics'), calendar(2));
    const tty = await onTerminal(importMain, [at('nocolour.ics'), '--data', at('nocolour.db')], {
      NO_COLOR: '1',
    });
    expect(tty.stdout).not.toMatch(COLOUR);
    expect(tty.stderr).not.toMatch(COLOUR);
    const pipe = await runCli(importMain, [at('nocolour.ics'), '--data', at('nocolour-pipe.db')]);
    expect(pipe.stdout).not.toMatch(COLOUR);
    expect(pipe.stdout).not.toContain(ESC);
  });

  it('logs an error-severity problem at level error (50), not warn, off a terminal', async () => {
    await writeFile(at('levels.ics'), calendar(1));
    const run = await runCli(importMain, [at('levels.ics'), '--data', at('levels.db')]);
    const logs = run.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; problem?: { severity: string } });
    const problems = logs.filter((l) => l.problem);
    expect(problems.length).toBeGreaterThan(0);
    for (const p of problems) expect(p.level).toBe(p.problem?.severity === 'error' ? 50 : 40);
  });

  it('lists errors first, and past 20 says how to get them all without a --report having been given', async () => {
    await writeFile(at('many.ics'), calendar(2, 25));
    const run = await runCli(importMain, [at('many.ics'), '--data', at('many.db')]);
    expect(run.stdout).toContain('problems in the source (25):');
    expect(run.stdout).toContain('… and 5 more (all of them with --report <file.json>)');
    const listed = run.stdout.split('problems in the source')[1].split('\n').slice(1, 4);
    for (const line of listed) expect(line).toMatch(/: error /);
  });
});

describe('progress while a large .ics is parsed', () => {
  /** The counts the bars showed, frame by frame, as `{ value, total, what }`. */
  const frames = (stderr: string) =>
    [...stderr.matchAll(/(\d+)\/(\d+) (events parsed|items)/g)].map((m) => ({
      value: Number(m[1]),
      total: Number(m[2]),
      what: m[3],
    }));

  it('on a terminal a bar counts the VEVENTs parsed of the file while the parse runs; a pipe gets none', async () => {
    // The parse blocks the event loop, so a bar drawn by a timer would show only 0 and the end: counts
    // between them were drawn from inside the parse. The bar redraws at most every 100 ms; 10,000 VEVENTs
    // take ~0.5 s to parse on a fast quiet machine (3,000 took ~0.15 s there: one frame, or none).
    await writeFile(
      at('large.ics'),
      generateIcs({ events: 10_000, start: new Date('2027-01-01T00:00:00Z') }),
    );
    const run = await onTerminal(importMain, [at('large.ics'), '--data', at('large.db'), '--dry-run']);
    expect(run.code).toBe(0);
    const parsed = frames(run.stderr);
    expect(new Set(parsed.map((f) => `${f.what} of ${f.total}`))).toEqual(
      new Set(['events parsed of 10000']),
    );
    const between = parsed.filter((f) => f.value > 0 && f.value < 10_000).map((f) => f.value);
    expect(between.length).toBeGreaterThan(0);
    expect(between).toEqual([...between].sort((a, b) => a - b));
    expect(parsed.at(-1)?.value).toBe(10_000);
    // Then the bar gives way to the planning stage's status line.
    expect(run.stderr.lastIndexOf('events parsed')).toBeLessThan(run.stderr.indexOf('planning '));

    const pipe = await runCli(importMain, [at('large.ics'), '--data', at('large.db'), '--dry-run']);
    expect(pipe.code).toBe(0);
    expect(frames(pipe.stderr)).toEqual([]);
    expect(pipe.stderr).not.toContain(ESC);
  });
});

describe('failures of the target', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startServer(at('site.db'));
  });
  afterAll(() => server.close());

  it('a refused connection: the message and a hint, no stack; --debug adds the stack', async () => {
    await writeFile(at('refused.ics'), calendar(2, 0));
    // Port 9 (discard) on loopback: nothing listens there.
    const args = [at('refused.ics'), '--target', 'http://127.0.0.1:9', '--report', at('refused.json')];
    const run = await onTerminal(importMain, args, { CALSYNC_STATE_DIR: at('state') });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/connection failed \(ECONNREFUSED/);
    expect(run.stderr).toContain('hint: nothing listens there: is the server running (npm run serve)');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr.match(/import-refused-ics: GET/g)).toHaveLength(1);

    const debug = await runCli(importMain, [...args, '--debug'], { CALSYNC_STATE_DIR: at('state') });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/"stack":"WriteError: GET [^"]*\\n\s+at /);
  }, 30_000);

  it('a 401 without credentials: one hint that names CALSYNC_USER and CALSYNC_APP_PASSWORD', async () => {
    await writeFile(at('anonymous.ics'), calendar(3, 0));
    const run = await runCli(importMain, [at('anonymous.ics'), '--target', server.url], {
      CALSYNC_STATE_DIR: at('state'),
    });
    expect(run.code).toBe(1);
    const all = `${run.stdout}${run.stderr}`;
    expect(all).toMatch(/HTTP 401/);
    const hints = all.split('\n').filter((l) => l.startsWith('hint:'));
    expect(hints).toEqual([
      'hint: the target wants credentials: set CALSYNC_USER and CALSYNC_APP_PASSWORD (a user of the site and one of its application passwords), or CALSYNC_TOKEN',
    ]);
  });

  it('a 401 with a wrong application password says which variables were refused', async () => {
    await writeFile(at('wrong.ics'), calendar(1, 0));
    const run = await runCli(importMain, [at('wrong.ics'), '--target', server.url], {
      CALSYNC_STATE_DIR: at('state-wrong'),
      CALSYNC_USER: server.username,
      CALSYNC_APP_PASSWORD: 'aaaa bbbb cccc dddd eeee ffff',
    });
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toContain(
      'hint: the target refused CALSYNC_USER/CALSYNC_APP_PASSWORD',
    );
  });
});

describe('JSON on stdout', () => {
  it('--report - writes the report to stdout (no file named "-"), and --json does the same', async () => {
    await writeFile(at('json.ics'), calendar(2, 0));
    const dash = await runCli(importMain, [at('json.ics'), '--data', at('json.db'), '--report', '-']);
    expect(dash.code).toBe(0);
    expect(existsSync('-')).toBe(false);
    const report = JSON.parse(dash.stdout) as { pipeline: string; counts: { event: { created: number } } };
    expect(report.pipeline).toBe('import-json-ics');
    expect(report.counts.event.created).toBe(2);

    const json = await runCli(importMain, [at('json.ics'), '--data', at('json.db'), '--json']);
    expect((JSON.parse(json.stdout) as typeof report).counts.event).toMatchObject({
      created: 0,
      unchanged: 2,
    });
  });

  it('npm run sync/plan --json print one entry per pipeline file, a failed one with its error', async () => {
    await writeFile(at('json-pipe.ics'), calendar(1, 0));
    await writeFile(
      at('json-pipe.yaml'),
      `name: json-pipe\nsource: { type: ics, path: json-pipe.ics }\ntarget: { url: local, data: json-pipe.db }\n`,
    );
    const run = await runCli(planMain, [at('json-pipe.yaml'), at('missing.yaml'), '--json']);
    expect(run.code).toBe(2);
    const entries = JSON.parse(run.stdout) as { pipeline?: string; outcome: string; plan?: unknown }[];
    expect(entries.map((e) => e.outcome)).toEqual(['ok', 'failed']);
    expect(entries[0]).toMatchObject({ pipeline: 'json-pipe', plan: { counts: { event: { create: 1 } } } });
  });
});

describe('nothing matched', () => {
  it('export --category nosuch exits 2 and writes no file', async () => {
    await writeFile(at('cats.ics'), calendar(2, 0).replace(/SUMMARY/g, 'CATEGORIES:Music\r\nSUMMARY'));
    expect((await runCli(importMain, [at('cats.ics'), '--data', at('cats.db')])).code).toBe(0);
    const out = at('nosuch.ics');
    const run = await runCli(exportMain, ['--data', at('cats.db'), '--category', 'nosuch', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--category nosuch: no category with that slug or name');
    expect(existsSync(out)).toBe(false);
    const known = await runCli(exportMain, ['--data', at('cats.db'), '--category', 'music', '--out', out]);
    expect(known.code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('state show nosuch exits 2 naming what the state knows', async () => {
    const run = await runCli(stateMain, ['show', 'nosuch', '--data', at('cats.db')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no pipeline named nosuch.*it knows import-cats-ics/);
    const known = await runCli(stateMain, ['show', 'import-cats-ics', '--data', at('cats.db')]);
    expect(known.code).toBe(0);
    expect(known.stdout).toMatch(/items: 1 categories, 0 tags, 0 venues, 0 organizers, 2 events/);
  });
});

describe('--version', () => {
  const commands = {
    importMain,
    syncMain,
    planMain,
    exportMain,
    stateMain,
    validateMain,
    schemaMain,
    serveMain,
    usersMain,
  };
  for (const [name, main] of Object.entries(commands)) {
    it(`${name.replace('Main', '')} --version prints calsync's version and exits 0`, async () => {
      const run = await runCli(main, ['--version']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`calsync ${PACKAGE_VERSION} (Node ${process.version})\n`);
    });
  }
});
