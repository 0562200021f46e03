/**
 * An import loads what its run uses and nothing else (issue 17: memory and start-up): the sample .ics into
 * the local store goes through the route handlers in-process, so neither the Fastify app nor the HTTP
 * client, the node-ical parser, the token, password-hash or image libraries are loaded; nor what only the
 * app, CSV dates, .ics export, Windows zone names or markup need (each several MB of the import's RSS).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../writer/setup.ts';
import { ROOT, SAMPLE_ICS } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('packages an import loads', () => {
  it('the sample .ics into the local store: no Fastify, HTTP client, node-ical, jose, argon2, sharp, node:http…', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { import: string };
    };
    // The npm script's own Node flags, then the recorder.
    const flags = pkg.scripts.import.split(' ').slice(1, -1);
    const record = join(dir.dir, 'packages.txt');
    const run = spawnSync(
      process.execPath,
      [
        ...flags,
        '--import',
        './test/helpers/record-packages.ts',
        'src/cli/import.ts',
        SAMPLE_ICS,
        '--data',
        join(dir.dir, 'c.db'),
        '--quiet',
      ],
      { cwd: ROOT, env: { ...process.env, RECORD_PACKAGES: record }, encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const loaded = readFileSync(record, 'utf8').split('\n');
    expect(loaded).toContain('zod');
    for (const unused of [
      'fastify',
      'light-my-request',
      'undici',
      'node-ical',
      'jose',
      'argon2',
      'sharp',
      'yaml',
      'qs',
      'luxon',
      'windows-iana',
      'helmet',
      'ipaddr.js',
      'sanitize-html',
      'postcss',
      'node:http',
      'node:zlib',
    ])
      expect(loaded, unused).not.toContain(unused);
  });
});
