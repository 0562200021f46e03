/**
 * Starts the real WordPress + The Events Calendar 6.2.6 site the real-TEC suite runs against (vitest
 * globalSetup of `npm run test:slow`), from the kit in `$TEC_KIT` or `../shared/peers/tec-6.2.6` beside the
 * repository: its `start.sh` installs Debian's WordPress, PHP, MariaDB and nginx when they are missing and
 * serves the site on a free loopback port. A site already running is used as it is when `TEC_URL` and the
 * other variables `start.sh` prints are set (with `TEC_KIT`, for `reset.sh`).
 *
 * Without a kit the suite skips, saying why; a kit that is there but fails to start fails the run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import type { RealTec } from './site.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    realTec: RealTec | { skip: string };
  }
}

export default async function setup(project: TestProject) {
  const kit = resolve(process.env.TEC_KIT ?? join(ROOT, '..', 'shared', 'peers', 'tec-6.2.6'));
  if (process.env.TEC_URL) {
    project.provide('realTec', fromVariables(process.env, kit));
    return;
  }
  if (!existsSync(join(kit, 'start.sh'))) {
    project.provide('realTec', {
      skip: `no TEC kit at ${kit}: set TEC_KIT to a tec-6.2.6 kit folder (or TEC_URL and the variables its start.sh prints)`,
    });
    return;
  }
  const workdir = process.env.TEC_WORKDIR ?? join(tmpdir(), 'calsync-real-tec');
  const port = await freePort();
  const started = Date.now();
  const { stdout } = await run(join(kit, 'start.sh'), [workdir, String(port)], {
    maxBuffer: 1 << 20,
    timeout: 15 * 60_000,
  }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`the TEC kit did not start: ${err.message}\n${err.stderr ?? ''}`);
  });
  const vars = Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  const site = fromVariables(vars, kit);
  // Faster writes on a slow disk, until MariaDB restarts (the kit's README suggests it for tests).
  await run('mariadb', [
    `--defaults-file=${join(site.workdir, 'conf', 'my.cnf')}`,
    '-e',
    'SET GLOBAL innodb_flush_log_at_trx_commit=2',
  ]).catch(() => {});
  console.log(`real TEC site at ${site.url} (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  project.provide('realTec', site);
  return async () => {
    await run(join(kit, 'stop.sh'), [site.workdir]).catch(() => {});
  };
}

function fromVariables(env: Record<string, string | undefined>, kit: string): RealTec {
  const need = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`the TEC site's variable ${name} is not set`);
    return value;
  };
  return {
    kit,
    url: need('TEC_URL'),
    siteUrl: need('TEC_SITE_URL'),
    namespace: need('TEC_NAMESPACE'),
    workdir: need('TEC_WORKDIR'),
    users: {
      administrator: { username: need('TEC_ADMIN_USER'), password: need('TEC_ADMIN_APP_PASSWORD') },
      editor: { username: need('TEC_EDITOR_USER'), password: need('TEC_EDITOR_APP_PASSWORD') },
      author: { username: need('TEC_AUTHOR_USER'), password: need('TEC_AUTHOR_APP_PASSWORD') },
      contributor: { username: need('TEC_CONTRIBUTOR_USER'), password: need('TEC_CONTRIBUTOR_APP_PASSWORD') },
      subscriber: { username: need('TEC_SUBSCRIBER_USER'), password: need('TEC_SUBSCRIBER_APP_PASSWORD') },
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
