/**
 * The README walked as a new user walks it: every command of its `sh` blocks, parsed from README.md itself
 * (so the two cannot drift), run in the order written in a fresh copy of the repository (its tracked
 * files, node_modules linked), each expected to exit 0; long-running servers started, asked, and stopped.
 * Then what the README promises: the import prints the table it shows, `npm run sync -- pipelines/*.yaml`
 * exits 0, the `--feeds` example serves feeds, and no store the walk filled holds an event twice.
 *
 * Skipped, each with its reason in the test's name (see SKIPS): `npm install` and `npm test` (this clone
 * shares the repository's node_modules; the packed install is test/install/pack.slow.test.ts; npm test
 * is what runs this), commands aimed at remote sites (`--target https://site.example/…`, `--from https://…`,
 * feed URLs: the real WordPress suite, test/real-tec, and test/e2e/import-url.test.ts cover those), files
 * that are the reader's own (club.ics, club.csv) or paths outside the clone (/var/lib, /tmp), curl (it
 * needs the passwords the README leaves to the reader; the API is tested in test/server), benchmarks
 * (minutes; run by hand), workers and the scheduler but for their --help (they need PostgreSQL;
 * test/queue runs them). The PostgreSQL commands run on a private cluster (test/helpers/postgres.ts) that
 * stands in for the reader's server at 127.0.0.1:5432: its port replaces 5432 and PGHOST/PGPORT/PGUSER
 * point `createdb` at it (trust authentication, so the README's password is not checked). The cron, systemd and Kubernetes examples are not `sh` blocks; the command they
 * run, `npm run sync -- pipelines/*.yaml --quiet --report …`, is walked here.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ICAL from 'ical.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOW, ROOT, snapshotOf } from '../e2e/helpers.ts';
import { killChildren, spawnChild } from '../helpers/children.ts';
import { binDir, type Postgres, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { tempDir } from '../writer/setup.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The commands of the README's `sh` blocks in order: continuation lines joined, comments dropped. */
function readmeCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

/** Why a command is not run here, or undefined when it is. */
const SKIPS: [RegExp, string][] = [
  [/^npm (install|ci)\b/, 'the clone shares the repository node_modules; test/install covers installing'],
  [/^npm (test|run test:slow)\b/, 'it is what runs this test'],
  [/^curl\b/, 'needs the passwords the README leaves to the reader; the API is tested in test/server'],
  [/\b(https?|webcal):\/\//, 'aimed at a remote site: test/real-tec and test/e2e/import-url.test.ts'],
  [/\bclub[\w-]*\.(ics|csv|txt)\b/, "a file of the reader's own, not in the repository"],
  [/\s\/(var|tmp|srv)\//, 'a path outside the clone'],
  [/^npm run (-s )?bench:/, 'a benchmark (minutes): run by hand'],
  [
    /^npm run (worker|schedule)\b(?!.*--help)/,
    'needs a PostgreSQL database: test/queue/worker.slow.test.ts runs workers and the scheduler on one',
  ],
];
/** Commands aimed at the README's PostgreSQL server, run on the walk's private cluster. */
const onPostgres = (command: string) => /^createdb\b|postgres:\/\//.test(command);
const skipOf = (command: string) =>
  SKIPS.find(([re]) => re.test(command))?.[1] ?? (onPostgres(command) ? postgresMissing() : undefined);
/** Commands that serve until stopped (`--help` prints and exits). */
const serves = (command: string) => /^npm run serve\b/.test(command) && !/--help\b/.test(command);

/** The environment of a user's shell: not the npm_* variables of the `npm run` that started the tests. */
const shellEnv = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS'),
  ),
  // The day the README's figures were taken: the samples' window around it.
  CALSYNC_NOW: NOW,
  NO_COLOR: '1',
  ...(pg && {
    PGHOST: '127.0.0.1',
    PGPORT: String(pg.port),
    PGUSER: 'calsync',
    PATH: `${binDir()}:${process.env.PATH}`,
  }),
});

/** The README's server (127.0.0.1:5432) is the walk's cluster. */
const onOurCluster = (command: string) =>
  pg ? command.replaceAll('@127.0.0.1:5432/', `@127.0.0.1:${pg.port}/`) : command;

let dir: Awaited<ReturnType<typeof tempDir>>;
let clone: string;
let pg: Postgres | undefined;
beforeAll(async () => {
  dir = await tempDir();
  if (COMMANDS.some(onPostgres) && !postgresMissing()) pg = await startPostgres();
  clone = join(dir.dir, 'calsync');
  // A fresh clone of the working tree: the files git tracks or would add, nothing ignored (no data/).
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
});
afterEach(killChildren);
afterAll(async () => {
  await pg?.stop();
  await dir.remove();
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}
const outputs = new Map<string, Ran>();

/** Runs a command line as the README's reader would type it, in the clone. */
function shell(command: string): Promise<Ran> {
  const child = spawnChild('sh', ['-c', onOurCluster(command)], {
    cwd: clone,
    env: shellEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/**
 * Starts a serving command on a free port (`--port 0` after the README's own options: the last one wins;
 * 8080 may be taken on a shared machine), waits for its address, runs `check`, then stops it with SIGTERM.
 */
async function whileServing(command: string, check: (url: string) => Promise<void>): Promise<Ran> {
  const port = / -- /.test(command) ? ' --port 0' : ' -- --port 0';
  const child = spawnChild('sh', ['-c', `${onOurCluster(command)}${port}`], {
    cwd: clone,
    env: shellEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\/calendar\/events\/v1/.exec(stdout);
      if (m) resolve(m[1]);
    });
    child.on('close', (code) =>
      reject(new Error(`${command} exited ${code} before serving:\n${stdout}${stderr}`)),
    );
  });
  await check(url);
  // As Ctrl-C or `systemctl stop` would: the whole group (npm, sh, node) gets the signal. npm and sh end
  // by it; the server exits 0 on it (test/server/loopback.test.ts), so ending by SIGTERM counts as 0.
  const closed = new Promise<number | null>((done) =>
    child.on('close', (code, signal) => done(signal === 'SIGTERM' ? 0 : code)),
  );
  process.kill(-(child.pid as number), 'SIGTERM');
  return { code: await closed, stdout, stderr };
}

/** VEVENTs of a feed that share a SUMMARY and a DTSTART: an event there twice. */
function doubledIn(ics: string): string[] {
  const seen = new Map<string, number>();
  for (const v of new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents('vevent')) {
    if (v.getFirstPropertyValue('status') === 'CANCELLED') continue;
    const key = `${v.getFirstPropertyValue('summary')} @ ${String(v.getFirstPropertyValue('dtstart'))}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
}

const vevents = (ics: string) => new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents('vevent').length;

/** What a served instance must answer, by the command that started it. */
async function checkServed(command: string, url: string): Promise<void> {
  const get = (path: string) => fetch(`${url}${path}`, { headers: { connection: 'close' } });
  expect((await get('/')).status).toBe(200);
  const all = await get('/feeds/all.ics');
  expect(all.status).toBe(200);
  const feed = await all.text();
  expect(doubledIn(feed)).toEqual([]);
  if (/--feeds pipelines\/community-ics\.yaml/.test(command)) {
    // The README: "+ /feeds/community.ics, /feeds/music.ics".
    for (const name of ['community', 'music']) {
      const res = await get(`/feeds/${name}.ics`);
      expect(res.status, name).toBe(200);
      const body = await res.text();
      expect(vevents(body), name).toBeGreaterThan(0);
      expect(doubledIn(body), name).toEqual([]);
    }
    expect(vevents(feed)).toBeGreaterThan(400);
  }
  // The page of an event of the feed (its URL: points at this server's default site URL, so by path).
  const first = /^URL:(.+)$/m.exec(feed)?.[1].trim();
  if (first) expect((await get(new URL(first).pathname)).status, first).toBe(200);
}

const COMMANDS = readmeCommands(README);

describe('the README, walked in order in a fresh clone', () => {
  it('has the commands this walk knows how to read', () => {
    expect(COMMANDS.length).toBeGreaterThan(30);
    expect(COMMANDS).toContain('npm run import -- samples/community-calendar.ics');
    expect(COMMANDS).toContain('npm run sync     -- pipelines/*.yaml --quiet --report last-run.json');
  });

  COMMANDS.forEach((command, index) => {
    const skipped = skipOf(command);
    if (skipped) {
      it.skip(`${index + 1}. ${command} — skipped: ${skipped}`, () => {});
      return;
    }
    it(`${index + 1}. ${command}`, async () => {
      const ran = serves(command)
        ? await whileServing(command, (url) => checkServed(command, url))
        : await shell(command);
      outputs.set(command, ran);
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    }, 120_000);
  });
});

describe('what the README promises', () => {
  it('the first import prints the table the README shows (the summary line up to its timing)', () => {
    const ran = outputs.get('npm run import -- samples/community-calendar.ics');
    expect(ran).toBeDefined();
    const shown = /npm run import -- samples\/community-calendar\.ics\n```\n\n```\n([\s\S]*?)```/.exec(
      README,
    )?.[1];
    expect(shown).toBeDefined();
    // npm's own `> calsync@0.1.0 import` header lines come first; the README shows what calsync prints.
    const timing = (s: string) =>
      s
        .replace(/^> .*\n/gm, '')
        .replace(/ in \d+\.\d s$/m, ' in … s')
        .trim();
    expect(timing(ran?.stdout ?? '')).toBe(timing(shown ?? ''));
  });

  it('npm run sync -- pipelines/*.yaml ran every example pipeline ok', () => {
    const report = JSON.parse(readFileSync(join(clone, 'last-run.json'), 'utf8')) as {
      pipeline: string;
      outcome: string;
    }[];
    expect(report.map((r) => [r.pipeline, r.outcome])).toEqual([
      ['community-csv', 'ok'],
      ['community-ics', 'ok'],
    ]);
  });

  it('no store the walk filled holds an event twice', async () => {
    const stores = readdirSync(join(clone, 'data')).filter((f) => /\.db$/.test(f) && !f.includes('.sync.'));
    expect(stores).toEqual(expect.arrayContaining(['calendar.db', 'community-ics.db', 'community-csv.db']));
    for (const store of stores) {
      const { events } = await snapshotOf(join(clone, 'data', store));
      const seen = new Map<string, number>();
      for (const e of events)
        seen.set(`${e.title} @ ${e.start_date}`, (seen.get(`${e.title} @ ${e.start_date}`) ?? 0) + 1);
      expect(
        [...seen].filter(([, n]) => n > 1),
        store,
      ).toEqual([]);
    }
  });

  it('the sync wrote the feed file the example pipeline names', () => {
    const file = join(clone, 'data', 'feeds', 'community.ics');
    expect(existsSync(file)).toBe(true);
    expect(vevents(readFileSync(file, 'utf8'))).toBeGreaterThan(400);
  });
});
