/**
 * A cluster on loopback for test/queue/cluster.slow.test.ts and bench/cluster.ts: target hosts that are our
 * own server (`npm run serve` processes, bench/serve-process.ts) each counting the requests that reach it
 * from its own request log, pipelines spread over them, `npm run schedule -- --now` for all of them, and
 * waiting until every job is done. PostgreSQL (test/helpers/postgres.ts) and the workers
 * (test/helpers/queue.ts) are started by the caller.
 *
 * A host's store is its own SQLite file, or (`data`) a PostgreSQL database that several hosts share: two
 * `serve` processes on one `--data postgres://…` are two hosts (two ports, two rate limits) over one store,
 * the first adding the importer and the second given its password.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { PgBoss } from 'pg-boss';
import { startServe, stopServe } from '../../bench/serve-process.ts';
import { main as scheduleMain } from '../../src/cli/schedule.ts';
import { SYNC_QUEUE, type SyncJob } from '../../src/queue/jobs.ts';
import { openStore } from '../../src/store/open.ts';
import { runCli } from '../e2e/helpers.ts';
import { type Snapshot, snapshotOver } from '../e2e/remote-run.ts';
import { createImporter } from '../writer/setup.ts';
import { type Job, sleep, writePipeline } from './queue.ts';

export interface TargetHost {
  name: string;
  /** `http://127.0.0.1:<port>`, the API root. */
  url: string;
  /** Requests per second the pipelines writing here ask for (`target.rate`). */
  rate: number;
  /** The application password of `importer`. */
  password: string;
  /** Its `--data`: a SQLite file, or a PostgreSQL URL other hosts may share. */
  data: string;
  /** When each request reached the server (its log's `incoming request` lines, the server's clock). */
  arrivals: number[];
  child: ChildProcess;
}

/** Adds the importer (an administrator with an application password) to the store at `data`. */
async function prepareStore(data: string): Promise<string> {
  const store = await openStore(data);
  try {
    return await createImporter(store);
  } finally {
    await store.close();
  }
}

/**
 * `npm run serve` as host `name`, logging every request (LOG_LEVEL=info), which it counts; on its own SQLite
 * file in `dir`, or on `shared.data` (a PostgreSQL URL) whose importer another host added (`shared.password`).
 */
export async function startHost(
  dir: string,
  name: string,
  rate: number,
  shared: { data?: string; password?: string } = {},
): Promise<TargetHost> {
  const data = shared.data ?? join(dir, `${name}.db`);
  const password = shared.password ?? (await prepareStore(data));
  const arrivals: number[] = [];
  const { child, origin } = await startServe({
    dataFile: data,
    logLevel: 'info',
    onLine: (line) => {
      if (!line.includes('"incoming request"')) return;
      arrivals.push((JSON.parse(line) as { time: number }).time);
    },
  });
  return { name, url: origin, rate, password, data, arrivals, child };
}

export const stopHost = (host: TargetHost) => stopServe(host.child);

/** The environment variable that holds a host's password in the pipeline files. */
export const passwordVar = (host: TargetHost) => `PASSWORD_${host.name.replace(/\W/g, '_').toUpperCase()}`;

export interface Pipelines {
  files: string[];
  /** The pipeline files writing to each host, by host name. */
  byHost: Map<string, string[]>;
}

/** `count` pipelines of `events` events each, named `<prefix>-<n>`, spread round-robin over the hosts. */
export async function spreadPipelines(
  dir: string,
  prefix: string,
  hosts: readonly TargetHost[],
  count: number,
  events: number,
): Promise<Pipelines> {
  const files: string[] = [];
  const byHost = new Map(hosts.map((h) => [h.name, [] as string[]]));
  for (let i = 0; i < count; i++) {
    const host = hosts[i % hosts.length];
    const file = await writePipeline(dir, `${prefix}-${i}`, host.url, events, {
      rate: host.rate,
      password: passwordVar(host),
    });
    files.push(file);
    byHost.get(host.name)?.push(file);
  }
  return { files, byHost };
}

/** The environment workers and the scheduler need: the database and every host's password. */
export function clusterEnv(databaseUrl: string, hosts: readonly TargetHost[]): Record<string, string> {
  return {
    CALSYNC_DATABASE_URL: databaseUrl,
    ...Object.fromEntries(hosts.map((h) => [passwordVar(h), h.password])),
  };
}

/** `npm run schedule -- <files> --now` (in-process), retried 1 s after a failure. */
export async function queueNow(files: readonly string[], env: Record<string, string>): Promise<void> {
  const run = await runCli(scheduleMain, [...files, '--now', '--retry-delay', '1'], env);
  if (run.code !== 0) throw new Error(`schedule exited ${run.code}: ${run.stderr}`);
}

/** Waits until every file has a completed job (or one failed for good); the last job of each file. */
export async function allDone(
  boss: PgBoss,
  files: readonly string[],
  ms: number,
  onTick?: (done: number) => void,
): Promise<Map<string, Job>> {
  const wanted = new Set(files);
  const deadline = Date.now() + ms;
  for (;;) {
    const jobs = (await boss.findJobs<SyncJob>(SYNC_QUEUE, { limit: 100_000 })) as Job[];
    const last = new Map<string, Job>();
    for (const j of jobs) if (wanted.has(j.data.file)) last.set(j.data.file, j);
    const done = [...last.values()].filter((j) => j.state === 'completed' || j.state === 'failed');
    onTick?.(done.length);
    if (done.length === wanted.size) return last;
    if (Date.now() > deadline) {
      const states = new Map<string, number>();
      for (const j of last.values()) states.set(j.state, (states.get(j.state) ?? 0) + 1);
      throw new Error(`${done.length} of ${wanted.size} pipelines done: ${JSON.stringify([...states])}`);
    }
    await sleep(500);
  }
}

/** What a host holds, read as its importer. */
export const hostSnapshot = (host: TargetHost): Promise<Snapshot> =>
  snapshotOver(host.url, { username: 'importer', password: host.password });
