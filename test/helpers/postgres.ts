/**
 * A private PostgreSQL cluster for one test file: initdb in a temp dir, started on a free loopback port
 * (no fsync: a test's data need not survive a power cut), stopped and deleted by `stop()`. Debian's
 * postgresql-15 (or another major version under /usr/lib/postgresql, or PG_BIN); as root, initdb and
 * pg_ctl run as the `postgres` user, since PostgreSQL refuses to run as root (CI runs as root).
 *
 * `postgresMissing()` says why the cluster cannot start (no binaries), for `describe.skipIf`.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  /** `postgres://calsync@127.0.0.1:PORT/postgres`, trust auth. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The directory of the server binaries (initdb, pg_ctl, and the client tools beside them). */
export function binDir(): string | undefined {
  if (process.env.PG_BIN)
    return existsSync(join(process.env.PG_BIN, 'pg_ctl')) ? process.env.PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/** A message naming what is missing, or undefined when a cluster can start. */
export function postgresMissing(): string | undefined {
  if (binDir()) return undefined;
  return process.env.PG_BIN
    ? `PostgreSQL server binaries not found: PG_BIN=${process.env.PG_BIN} has no pg_ctl`
    : 'PostgreSQL server binaries not found (no /usr/lib/postgresql/*/bin/pg_ctl, no PG_BIN): apt-get install postgresql';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<Postgres> {
  const bin = binDir();
  if (!bin) throw new Error(postgresMissing());
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'calsync-pg-'));
  // As root the cluster belongs to `postgres`, which must be able to write the dir (and its socket).
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = root
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'calsync', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://calsync@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
