import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/validate.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/pipelines');
const COMMUNITY = join(FIXTURES, 'community.yaml');
const CLUB = join(FIXTURES, 'club.json');
const BROKEN = join(FIXTURES, 'broken.yaml');
const ENV = { CALSYNC_USER: 'importer', CALSYNC_APP_PASSWORD: 'secret password' };

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

describe('npm run validate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'calsync-validate-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints ok with the pipeline name for each valid file and exits 0', async () => {
    const result = await run([COMMUNITY, CLUB], ENV);
    expect(result).toEqual({
      code: 0,
      stdout: `ok ${COMMUNITY} (community)\nok ${CLUB} (club-csv)\n`,
      stderr: '',
    });
  });

  it('prints every problem of an invalid file with file:line:column and exits 2', async () => {
    const result = await run([CLUB, BROKEN], ENV);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(`ok ${CLUB} (club-csv)\n`);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[1]).toBe(`${BROKEN}:4:9: source.path: expected string, got number`);
    expect(lines[7]).toBe('1 of 2 pipeline files are invalid');
  });

  it('fails when a variable the file uses is not set, naming it', async () => {
    const result = await run([COMMUNITY], { CALSYNC_USER: 'importer' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `${COMMUNITY}:12:15: target.auth.password: expected environment variable CALSYNC_APP_PASSWORD to be set, got nothing\n`,
    );
  });

  it('checks the file only with --allow-missing-env', async () => {
    expect(await run(['--allow-missing-env', COMMUNITY])).toMatchObject({ code: 0, stderr: '' });
    expect((await run(['--allow-missing-env', BROKEN])).code).toBe(2);
  });

  it('refuses two pipelines with the same name, which would share sync state and lock', async () => {
    const copy = join(dir, 'copy.yaml');
    await writeFile(copy, 'name: club-csv\nsource: { type: ics, path: other.ics }\n');
    const result = await run([CLUB, copy]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${copy}: name: expected a name no other pipeline uses, got "club-csv"`);
  });

  it('reports a missing file', async () => {
    const result = await run([join(dir, 'absent.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('absent.yaml: cannot read: no such file');
  });

  it('exits 2 with usage on no files or an unknown option, and 0 with examples on --help', async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('expected at least one pipeline file');
    expect((await run(['--strict', CLUB])).code).toBe(2);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('npm run validate -- --allow-missing-env');
  });
});
