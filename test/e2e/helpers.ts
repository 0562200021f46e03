/**
 * End-to-end helpers: run the real CLI commands in-process (their `main` with captured output) or as a
 * child process (to kill it), and read everything a target holds back through the API, in a form two
 * targets can be compared by.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIO } from '../../src/cli/io.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { htmlToText } from '../../src/model/html.ts';
import type { Kind } from '../../src/model/kind.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import type { Target } from '../../src/writer/target.ts';
import { spawnChild } from '../helpers/children.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const SAMPLE_ICS = join(ROOT, 'samples', 'community-calendar.ics');
export const SAMPLE_CSV = join(ROOT, 'samples', 'community-calendar.csv');
/** Every run of the tests sees the samples from the same day, whatever the date of the run. */
export const NOW = '2026-11-22T12:00:00Z';

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  main: (io: CliIO) => Promise<number>,
  argv: string[],
  env: Record<string, string> = {},
): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { CALSYNC_NOW: NOW, ...env },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

/**
 * Starts `npm run import -- …` as a real process (Node 24 of this test run); resolves with its exit.
 * `env` adds to the environment (credentials of an API target). Its own process group: a test file that
 * calls this runs `afterEach(killChildren)` (test/helpers/children.ts).
 */
export function spawnImport(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawnChild(process.execPath, [join(ROOT, 'src', 'cli', 'import.ts'), ...argv], {
    cwd,
    env: { ...process.env, CALSYNC_NOW: NOW, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal, output })),
  );
  return { child, exited };
}

type Doc = Record<string, unknown>;
/** Names and titles come back rendered (`&#038;`, contract C.5): compared as the text they stand for. */
const text = (value: unknown) => htmlToText(String(value));
const names = (list: unknown, field: string) =>
  (Array.isArray(list) ? list : []).map((x) => text((x as Doc)[field])).sort();

/** What a target holds, as comparable data: every item of every kind, references by name. */
export async function snapshot(target: Target) {
  const all = async (kind: Kind) => {
    const items: Doc[] = [];
    for await (const remote of target.list(kind)) items.push(remote.body);
    return items;
  };
  const events = (await all('event')).map((e) => ({
    slug: e.slug,
    title: text(e.title),
    start_date: e.start_date,
    end_date: e.end_date,
    timezone: e.timezone,
    all_day: e.all_day,
    status: e.status,
    venue: (e.venue as Doc | undefined)?.venue === undefined ? null : text((e.venue as Doc).venue),
    organizers: names(e.organizer, 'organizer'),
    categories: names(e.categories, 'name'),
    tags: names(e.tags, 'name'),
  }));
  events.sort((a, b) => String(a.slug).localeCompare(String(b.slug)));
  return {
    events,
    venues: names(await all('venue'), 'venue'),
    organizers: names(await all('organizer'), 'organizer'),
    categories: names(await all('category'), 'name'),
    tags: names(await all('tag'), 'name'),
  };
}

export async function snapshotOf(dataFile: string) {
  const target = await openLocalTarget({ dataFile });
  try {
    return await snapshot(target);
  } finally {
    await target.close();
  }
}

/** The JSON a command wrote with `--report <file>`: one report for `import`, an array for `sync`/`plan`. */
export async function readReport<T = RunReport>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Requests of a run that change something on the target: what "0 writes" counts. */
export const writesOf = (r: Pick<RunReport, 'requests'>) =>
  (r.requests.POST ?? 0) + (r.requests.PUT ?? 0) + (r.requests.DELETE ?? 0);
