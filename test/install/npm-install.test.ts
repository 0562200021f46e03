/**
 * What `npm install` of a clone says, as README.md ("Set up and test") promises it: run by the system's
 * npm in a copy of package.json and package-lock.json (`--package-lock-only --offline`: the lockfile as an
 * install leaves it, from npm's cache, no download), it leaves package-lock.json byte for byte as it is;
 * under the system Node 20 its only warnings are the EBADENGINE ones of the packages the README names; the
 * same npm under the pinned Node 24, the one that runs everything, warns about none — no package wants a
 * newer Node than calsync runs on.
 */
import { execFile } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../writer/setup.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PINNED_NODE_BIN = dirname(join(ROOT, 'node_modules', '.bin', 'node'));

/**
 * A user's shell: no npm_* variables of the `npm test` that started us (npm reads npm_config_* as its
 * settings), and PATH without any node_modules/.bin, so that `npm` and its `node` are the system's.
 */
function shell(pathFirst: string[] = []): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS'),
  );
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => !p.includes('node_modules'));
  return { ...env, PATH: [...pathFirst, ...path].join(delimiter) };
}

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `npm install` of the copy; its warnings as lines, and the names of the packages it called unsupported. */
async function install(env: NodeJS.ProcessEnv) {
  const done = await sh(
    'npm',
    ['install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'],
    dir.dir,
    env,
  );
  expect(done.code, done.stderr).toBe(0);
  const warnings = `${done.stdout}${done.stderr}`.split('\n').filter((l) => /^npm (warn|WARN|ERR)/.test(l));
  const unsupported = [...done.stderr.matchAll(/EBADENGINE {3}package: '(@?[^@']+)@/g)].map((m) => m[1]);
  const lock = await readFile(join(dir.dir, 'package-lock.json'), 'utf8');
  return { warnings, unsupported: unsupported.sort(), lock };
}

/** The packages README.md says warn on Node 20: the backquoted names of its EBADENGINE paragraph. */
async function namedInReadme(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const paragraph = readme.split('\n\n').find((p) => p.includes('EBADENGINE')) ?? '';
  const listed = paragraph.slice(0, paragraph.indexOf('they declare'));
  return [...listed.matchAll(/`([a-z@][\w./-]*)`/g)]
    .map((m) => m[1])
    .filter((n) => n !== 'EBADENGINE' && n !== 'npm install')
    .sort();
}

/** The Node a user's `npm` runs on (`node` first on PATH outside node_modules). */
const systemNode = (await sh('node', ['--version'], ROOT, shell())).stdout.trim();

let dir: Awaited<ReturnType<typeof tempDir>>;
let committedLock: string;
beforeAll(async () => {
  dir = await tempDir();
  await copyFile(join(ROOT, 'package.json'), join(dir.dir, 'package.json'));
  await copyFile(join(ROOT, 'package-lock.json'), join(dir.dir, 'package-lock.json'));
  committedLock = await readFile(join(ROOT, 'package-lock.json'), 'utf8');
});
afterAll(() => dir.remove());

describe('npm install of a clone', () => {
  it.skipIf(!/^v20\./.test(systemNode))(
    'under the system Node 20: the lockfile unchanged, and only the EBADENGINE warnings the README names',
    async () => {
      const { warnings, unsupported, lock } = await install(shell());
      expect(lock).toBe(committedLock);
      expect(unsupported).toEqual(await namedInReadme());
      expect(unsupported.length).toBeGreaterThan(0);
      expect(warnings.filter((l) => !l.includes('EBADENGINE'))).toEqual([]);
    },
  );

  it('under the pinned Node 24: the lockfile unchanged, and no package wants a newer Node', async () => {
    const { warnings, lock } = await install(shell([PINNED_NODE_BIN]));
    expect(lock).toBe(committedLock);
    expect(warnings).toEqual([]);
  });
});
