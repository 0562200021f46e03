/**
 * The real TEC site of the suite (started by global-setup.ts) and what its tests share: a reset between
 * tests, writer targets as each WordPress role, and the real CLI run against the site as a child process.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, inject } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { createHttpTransport, createTarget, type Target } from '../../src/writer/index.ts';
import { NOW, ROOT, snapshot, spawnImport } from '../e2e/helpers.ts';
import { killChildren, spawnChild } from '../helpers/children.ts';
import { resetSite } from './kit.ts';

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';

export interface RealTec {
  /** The kit folder (start.sh, reset.sh, stop.sh). */
  kit: string;
  /** REST root, e.g. `http://127.0.0.1:41234/wp-json`. */
  url: string;
  siteUrl: string;
  namespace: string;
  workdir: string;
  users: Record<Role, { username: string; password: string }>;
}

const provided = inject('realTec');
export const site: RealTec | undefined = 'skip' in provided ? undefined : provided;

/** `describe` that runs only with a real site, and says why it does not otherwise. */
export function describeRealTec(name: string, body: (site: RealTec) => void): void {
  if ('skip' in provided) {
    describe.skip(`${name} — skipped: ${provided.skip}`, () => {});
    return;
  }
  describe(name, () => body(provided));
}

/** A writer target on the site as `role` (an editor by default, as the README recommends). */
export function tecTarget(tec: RealTec, role: Role = 'editor', concurrency = 4): Target {
  const { username, password } = tec.users[role];
  return createTarget(createHttpTransport({ url: tec.url, auth: { type: 'basic', username, password } }), {
    namespace: tec.namespace,
    label: tec.url,
    concurrency,
    retries: { attempts: 3, baseMs: 50, capMs: 500 },
  });
}

/**
 * Resets the site before each test of the enclosing `describe` and gives the test a fresh working folder
 * (the `cwd` of its CLI runs, where their sync state lives), removed after it.
 */
export function freshSiteEach(tec: RealTec): { readonly dir: string } {
  let dir: string | undefined;
  beforeEach(async () => {
    await resetSite(tec);
    dir = await mkdtemp(join(tmpdir(), 'calsync-real-tec-'));
  });
  afterEach(async () => {
    // A failed test may leave a CLI process running: its process group goes first (test/helpers/children.ts).
    await killChildren();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      if (!dir) throw new Error('freshSiteEach: no test is running');
      return dir;
    },
  };
}

/** Everything the site holds (every kind, any status but trash), read as an editor through the writer. */
export async function siteSnapshot(tec: RealTec) {
  const target = tecTarget(tec);
  try {
    return await snapshot(target);
  } finally {
    await target.close();
  }
}

/** A calsync command (`src/cli/<command>.ts`) as a real process in `cwd`, as `npm run <command>` runs it. */
export function runCommand(command: string, argv: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; output: string; stdout: string }>((done) => {
    const child = spawnChild(process.execPath, [join(ROOT, 'src', 'cli', `${command}.ts`), ...argv], {
      cwd,
      env: { ...process.env, CALSYNC_NOW: NOW, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    child.stdout?.on('data', (d) => {
      output += d;
      stdout += d;
    });
    child.stderr?.on('data', (d) => (output += d));
    child.on('exit', (code) => done({ code, output, stdout }));
  });
}

/** CALSYNC_USER and CALSYNC_APP_PASSWORD of a role, as a user sets them for an API target. */
export const credentials = (tec: RealTec, role: Role = 'editor') => ({
  CALSYNC_USER: tec.users[role].username,
  CALSYNC_APP_PASSWORD: tec.users[role].password,
});

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  report?: RunReport;
}

/**
 * `npm run import -- <args> --target $TEC_URL --namespace tribe/events/v1` as a real process in `cwd`
 * (its sync state in `cwd/data/sync`), with the role's application password in the environment.
 */
export async function importInto(
  tec: RealTec,
  cwd: string,
  args: string[],
  options: { role?: Role; password?: string } = {},
): Promise<CliRun> {
  const report = join(cwd, `report-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const { exited } = spawnImport(
    [...args, '--target', tec.url, '--namespace', tec.namespace, '--report', report],
    cwd,
    {
      ...credentials(tec, options.role),
      ...(options.password ? { CALSYNC_APP_PASSWORD: options.password } : {}),
    },
  );
  const result = await exited;
  const text = await readFile(report, 'utf8').catch(() => undefined);
  return { ...result, report: text ? (JSON.parse(text) as RunReport) : undefined };
}

/**
 * A pipeline file in `dir` that syncs `source` (a file name in `dir`) into the site, its credentials from
 * the environment as the README's pipelines take them; `extra` adds YAML lines (mapping, policies, rate).
 */
export async function pipelineFile(
  tec: RealTec,
  dir: string,
  name: string,
  source: string,
  extra: string[] = [],
): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  const yaml = [
    `name: ${name}`,
    'source:',
    '  type: ics',
    `  path: ${source}`,
    'target:',
    `  url: ${tec.url}`,
    `  namespace: ${tec.namespace}`,
    '  auth:',
    '    type: basic',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference of the pipeline file
    '    username: ${CALSYNC_USER}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference of the pipeline file
    '    password: ${CALSYNC_APP_PASSWORD}',
    ...extra,
    '',
  ];
  await writeFile(file, yaml.join('\n'));
  return file;
}

/** `npm run sync -- <files> --report …` as a real process in `cwd`; the report is one per pipeline. */
export async function syncInto(tec: RealTec, cwd: string, files: string[], role: Role = 'editor') {
  const report = join(cwd, `sync-report-${Date.now()}.json`);
  const run = await runCommand('sync', [...files, '--report', report], cwd, credentials(tec, role));
  const text = await readFile(report, 'utf8').catch(() => undefined);
  return { ...run, reports: text ? (JSON.parse(text) as RunReport[]) : [] };
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/**
 * A snapshot with every title and name in the normal form of contract C.22: the site shows them texturized
 * (curly quotes, `&#8217;`), our server and the source do not. Slugs compared by their key suffix (a slug is
 * set at creation, and the site may add `-2`).
 */
export function comparable(s: Snapshot) {
  const t = (v: unknown) => comparableText(String(v));
  const ts = (xs: unknown[]) => xs.map(t).sort();
  return {
    events: s.events
      .map((e) => ({
        ...e,
        slug: /-([0-9a-f]{10})(?:-\d+)?$/.exec(String(e.slug))?.[1] ?? e.slug,
        title: t(e.title),
        venue: e.venue === null ? null : t(e.venue),
        organizers: ts(e.organizers),
        categories: ts(e.categories),
        tags: ts(e.tags),
      }))
      .sort((a, b) => String(a.slug).localeCompare(String(b.slug))),
    venues: ts(s.venues),
    organizers: ts(s.organizers),
    categories: ts(s.categories),
    tags: ts(s.tags),
  };
}

export { ROOT };
