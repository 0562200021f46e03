/**
 * The real TEC 6.2.6 kit (start.sh, reset.sh, stop.sh): where it is, and a site started from it on a free
 * loopback port, or one already running described by the variables its start.sh prints (`TEC_URL`…). Used
 * by the real-TEC suite's globalSetup and by `npm run bench:sync -- --tec`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RealTec } from './site.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');

/** The kit folder: `$TEC_KIT`, else `../shared/peers/tec-6.2.6` beside the repository; `undefined` if absent. */
export function kitFolder(): string | undefined {
  const kit = resolve(process.env.TEC_KIT ?? join(ROOT, '..', 'shared', 'peers', 'tec-6.2.6'));
  return existsSync(join(kit, 'start.sh')) ? kit : undefined;
}

/** The site `TEC_URL` and friends describe, if they are set. */
export function runningSite(kit: string): RealTec | undefined {
  return process.env.TEC_URL ? fromVariables(process.env, kit) : undefined;
}

/**
 * Starts the kit's site in `$TEC_WORKDIR` (default a folder under the system's temp dir, kept between runs so
 * that the next start takes seconds) on a free port; installs its Debian packages first when missing.
 */
export async function startSite(kit: string): Promise<RealTec> {
  const workdir = process.env.TEC_WORKDIR ?? join(tmpdir(), 'calsync-real-tec');
  const port = await freePort();
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
  return site;
}

export async function stopSite(site: RealTec): Promise<void> {
  await run(join(site.kit, 'stop.sh'), [site.workdir]).catch(() => {});
}

/** Back to the freshly installed site (~0.3 s). No request may be in flight. */
export async function resetSite(tec: RealTec): Promise<void> {
  await run(join(tec.kit, 'reset.sh'), [tec.workdir]);
}

/**
 * Runs `sql` in the site's database (the kit's MariaDB, over its socket): for what neither the REST API nor
 * wp-admin's buttons a test presses can do through HTTP, such as "Delete Permanently" from the trash.
 */
export async function siteSql(tec: RealTec, sql: string): Promise<void> {
  const config = readFileSync(join(tec.workdir, 'wordpress', 'wp-config.php'), 'utf8');
  const database = /define\(\s*'DB_NAME',\s*'([^']+)'/.exec(config)?.[1];
  if (!database) throw new Error(`no DB_NAME in ${tec.workdir}/wordpress/wp-config.php`);
  await run('mariadb', [`--defaults-file=${join(tec.workdir, 'conf', 'my.cnf')}`, database, '-e', sql]);
}

export function fromVariables(env: Record<string, string | undefined>, kit: string): RealTec {
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
