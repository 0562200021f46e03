/**
 * calsync as a user installs it: `npm pack`, then the tarball installed into an empty folder and run with
 * `npx calsync …` under whatever Node is first on PATH (the system's, possibly older than 22) — the bin
 * must start the commands under the Node 24 calsync depends on. Also `npx calsync` from the clone itself.
 *
 * The install is `--prefer-offline`: packages come from npm's cache, which the clone's own `npm install`
 * filled; a tarball carries no lockfile, so a dependency released since (a newer version in range) is
 * fetched from the npm registry, as a user's install would — the one host besides loopback this test may
 * reach. Slow (an install of ~300 packages), hence test:slow.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../writer/setup.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = (await import('../../package.json', { with: { type: 'json' } })).default;

/** The environment of a user's shell: no npm_* variables of the `npm run test:slow` that started us. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS'),
);

async function sh(command: string, args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let folder: string;
beforeAll(async () => {
  dir = await tempDir();
  const packed = await sh('npm', ['pack', '--pack-destination', dir.dir], ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = (await readdir(dir.dir)).find((f) => f.endsWith('.tgz'));
  expect(tarball).toBe(`calsync-${PACKAGE.version}.tgz`);
  folder = join(dir.dir, 'empty');
  await mkdir(folder);
  const installed = await sh(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir.dir, tarball as string)],
    folder,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 300_000);
afterAll(() => dir.remove());

describe('npm pack, installed in an empty folder', () => {
  it('npx calsync --version, and each command runs under the pinned Node 24', async () => {
    const version = await sh('npx', ['calsync', '--version'], folder);
    expect(version.stdout).toBe(`calsync ${PACKAGE.version}\n`);
    const imported = await sh('npx', ['calsync', 'import', '--version'], folder);
    expect(imported.stdout).toMatch(new RegExp(`^calsync ${PACKAGE.version} \\(Node v24\\.`));
  });

  it('npx calsync import of the packed sample writes the local store; a re-run writes nothing', async () => {
    const sample = join('node_modules', 'calsync', 'samples', 'community-calendar.ics');
    const first = await sh('npx', ['calsync', 'import', sample, '--quiet'], folder);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(
      /^import-community-calendar-ics: \d+ events \(\d+ created, 1 skipped\), 0 failed → local data\/calendar\.db/,
    );
    const again = await sh('npx', ['calsync', 'import', sample, '--quiet'], folder);
    expect(again.stdout).toMatch(/\(\d+ unchanged, 1 skipped\), 0 failed/);
  });

  it('an unknown command exits 2 with the list of commands', async () => {
    const wrong = await sh('npx', ['calsync', 'impotr'], folder);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('calsync: no command "impotr"');
    expect(wrong.stderr).toContain('import <file|URL>');
  });
});

describe('npx calsync in the clone', () => {
  it('runs the bin of the project itself', async () => {
    const version = await sh('npx', ['calsync', 'validate', 'pipelines/community-ics.yaml'], ROOT);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toContain('ok pipelines/community-ics.yaml');
  });
});
