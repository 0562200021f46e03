/**
 * Pipelines run as jobs (`npm run schedule`, `npm run worker`) with every part real: a private PostgreSQL
 * cluster (test/helpers/postgres.ts), workers as child processes, our server on loopback ports as the
 * targets, counting what reaches it. A run end to end with its report kept on the job, a failed run kept
 * with its error; two runs of one pipeline never overlap across two workers; a worker SIGKILLed mid-run
 * has its job retried by another, and the target ends with every event once; two workers together keep a
 * host's rate in every second; a `Retry-After` one worker gets holds the other's requests too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { PgBoss } from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as scheduleMain } from '../../src/cli/schedule.ts';
import { SYNC_QUEUE } from '../../src/queue/jobs.ts';
import { NOW, runCli } from '../e2e/helpers.ts';
import { eventDuplicates, snapshotOver } from '../e2e/remote-run.ts';
import { killChildren } from '../helpers/children.ts';
import { type FaultyProxy, startFaultyProxy } from '../helpers/faulty-proxy.ts';
import { type Postgres, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import {
  busiestSecond,
  type PipelineOptions,
  jobsOf as queueJobsOf,
  settled as settledJobs,
  sleep,
  startWorker,
  writePipeline,
} from '../helpers/queue.ts';
import { type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';

const missing = postgresMissing();
if (missing) console.warn(`test/queue/worker.slow.test.ts skipped: ${missing}`);

let pg: Postgres;
let tmp: Awaited<ReturnType<typeof tempDir>>;
let boss: PgBoss;

interface Site {
  server: LoopbackServer;
  /** When each API request reached the server, and what it was. */
  arrivals: { at: number; method: string; url: string }[];
}

async function site(name: string): Promise<Site> {
  const server = await startServer(join(tmp.dir, `${name}.db`));
  const arrivals: Site['arrivals'] = [];
  server.app.server.on('request', (req) =>
    arrivals.push({ at: Date.now(), method: req.method ?? '', url: req.url ?? '' }),
  );
  return { server, arrivals };
}

/** A pipeline file in the temp dir writing `events` events to `url` (the password from the environment). */
const pipeline = (name: string, url: string, events: number, options: PipelineOptions = {}) =>
  writePipeline(tmp.dir, name, url, events, options);

/** The environment of workers and the scheduler: the queue's database and the sites' password. */
let env: Record<string, string>;

/** `npm run worker` as a real process in the temp dir; resolves once it takes jobs. */
const worker = () => startWorker(tmp.dir, env);

async function schedule(args: string[]) {
  const run = await runCli(scheduleMain, args, env);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

const settled = (file: string, count: number, ms?: number) => settledJobs(boss, file, count, ms);
const jobsOf = (file: string) => queueJobsOf(boss, file);
const who = (s: Site) => ({ username: s.server.username, password: s.server.password });

describe.skipIf(missing)('pipelines as jobs on PostgreSQL, run by npm run worker', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    tmp = await tempDir();
    env = { CALSYNC_DATABASE_URL: pg.url, CALSYNC_NOW: NOW, WRONG_PASSWORD: 'abcd efgh ijkl mnop qrst uvwx' };
    boss = new PgBoss({ connectionString: pg.url, supervise: false, schedule: false });
    boss.on('error', () => {});
    // The queue itself is made by the first `schedule` (src/queue/jobs.ts); the test only reads it.
    await runCli(scheduleMain, ['--runs'], env);
    await boss.start();
  }, 60_000);
  afterEach(killChildren);
  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await tmp?.remove();
    await pg?.stop();
  });

  it('runs a pipeline file as a job end to end and keeps its report; a failed run is kept with its error', async () => {
    const a = await site('end-to-end');
    env.SYNC_PASSWORD = a.server.password;
    const good = await pipeline('alpha', a.server.url, 12);
    const bad = await pipeline('bravo', a.server.url, 3, { password: 'WRONG_PASSWORD' });
    const scheduled = await schedule([good]);
    expect(scheduled.stdout).toContain('scheduled "0 3 * * *" (Europe/London)');
    expect((await boss.getSchedules(SYNC_QUEUE)).map((s) => s.key)).toContain(good);
    await schedule([good, '--now']);
    await schedule([bad, '--now', '--retries', '0']);
    await worker();
    const [run] = await settled(good, 1);
    expect(run.state).toBe('completed');
    const report = run.output as { outcome: string; counts: { event: { created: number } } };
    expect(report.outcome).toBe('ok');
    expect(report.counts.event.created).toBe(12);
    expect((await snapshotOver(a.server.url, who(a))).events).toHaveLength(12);

    const [failed] = await settled(bad, 1);
    expect(failed.state).toBe('failed');
    expect(JSON.stringify(failed.output)).toContain('incorrect_password');
    const runs = await runCli(scheduleMain, ['--runs'], env);
    expect(runs.stdout).toMatch(/failed .*bravo\.yaml/);
    await a.server.close();
  }, 90_000);

  it('fires a cron schedule: a worker checking every second starts the run within seconds, its state in PostgreSQL', async () => {
    const a = await site('cron');
    env.SYNC_PASSWORD = a.server.password;
    // Every minute: pg-boss's cron pass sends an occurrence of the last 60 s, so the first pass of a worker
    // that checks every second (--cron-check 1) fires it. No --now: only the schedule can start this run.
    const file = await pipeline('kilo', a.server.url, 5, { cron: '* * * * *' });
    const scheduled = await schedule([file]);
    expect(scheduled.stdout).toContain('scheduled "* * * * *"');
    expect(await jobsOf(file)).toEqual([]);
    const asked = Date.now();
    await startWorker(tmp.dir, env, ['--cron-check', '1']);
    const [run] = await settled(file, 1, 30_000);
    expect(run.state, JSON.stringify(run.output)).toBe('completed');
    expect(+new Date(run.createdOn) - asked).toBeLessThan(15_000);
    expect((run.output as { counts: { event: { created: number } } }).counts.event.created).toBe(5);
    await runCli(scheduleMain, [file, '--remove'], env);
    // The run's records are in the queue's database, not in a state file beside the worker.
    const db = new Client({ connectionString: env.CALSYNC_DATABASE_URL });
    await db.connect();
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM calsync_state_items WHERE pipeline = 'kilo' AND kind = 'event'`,
    );
    await db.end();
    expect(rows[0].n).toBe(5);
    expect(existsSync(join(tmp.dir, 'data', 'sync'))).toBe(false);
    await a.server.close();
  }, 90_000);

  it('never runs one pipeline twice at once, though two workers are free', async () => {
    const a = await site('one-at-a-time');
    env.SYNC_PASSWORD = a.server.password;
    // ~40 requests at 20/s: a run lasts about two seconds.
    const file = await pipeline('charlie', a.server.url, 30, { rate: 20 });
    await worker();
    await worker();
    await schedule([file, '--now']);
    const deadline = Date.now() + 20_000;
    while (!(await jobsOf(file)).some((j) => j.state === 'active') && Date.now() < deadline) await sleep(50);
    const again = await schedule([file, '--now']);
    expect(again.stdout).toContain('run queued');
    // A third while one runs and one waits: the queue keeps one waiting run per pipeline.
    const third = await schedule([file, '--now']);
    expect(third.stdout).toContain('a run is already waiting');
    const [first, second] = await settled(file, 2);
    expect([first.state, second.state]).toEqual(['completed', 'completed']);
    expect(+new Date(second.startedOn)).toBeGreaterThanOrEqual(+new Date(first.completedOn as Date));
    expect((second.output as { counts: { event: { unchanged: number } } }).counts.event.unchanged).toBe(30);
    await a.server.close();
  }, 90_000);

  it('retries the job of a worker SIGKILLed mid-run: every event once on the target, none lost', async () => {
    const a = await site('killed');
    env.SYNC_PASSWORD = a.server.password;
    const events = 80;
    const file = await pipeline('delta', a.server.url, events, { rate: 25 });
    const doomed = await worker();
    await schedule([file, '--now', '--retry-delay', '1']);
    const creates = () => a.arrivals.filter((r) => r.method === 'POST' && r.url.includes('/events')).length;
    const deadline = Date.now() + 30_000;
    while (creates() < 20 && Date.now() < deadline) await sleep(20);
    expect(creates()).toBeGreaterThanOrEqual(20);
    doomed.kill('SIGKILL');
    await new Promise((r) => doomed.once('exit', r));
    await worker();
    const [run] = await settled(file, 1, 90_000);
    expect(run.state, JSON.stringify(run.output)).toBe('completed');
    expect(run.retryCount).toBeGreaterThanOrEqual(1);
    const after = await snapshotOver(a.server.url, who(a));
    expect(eventDuplicates(after)).toEqual([]);
    expect(after.events).toHaveLength(events);
    await a.server.close();
  }, 120_000);

  it('keeps two workers together to a host rate of 10 requests per second, in every second', async () => {
    const a = await site('rate');
    env.SYNC_PASSWORD = a.server.password;
    const files = [
      await pipeline('echo', a.server.url, 20, { rate: 10 }),
      await pipeline('foxtrot', a.server.url, 20, { rate: 10 }),
    ];
    // A margin that covers this shared machine's scheduling delays (cluster.slow.test.ts MARGIN_MS).
    const margin = ['--concurrency', '1', '--rate-margin', '500'];
    await startWorker(tmp.dir, env, margin);
    await startWorker(tmp.dir, env, margin);
    await schedule([...files, '--now']);
    const runs = [(await settled(files[0], 1))[0], (await settled(files[1], 1))[0]];
    expect(runs.map((r) => r.state)).toEqual(['completed', 'completed']);
    // The two ran at the same time (each on its own worker), so the limit was shared, not taken in turns.
    const [x, y] = runs.map((r) => [+new Date(r.startedOn), +new Date(r.completedOn as Date)]);
    expect(Math.min(x[1], y[1]) - Math.max(x[0], y[0])).toBeGreaterThan(1000);
    expect(a.arrivals.length).toBeGreaterThanOrEqual(40);
    expect(busiestSecond(a.arrivals.map((r) => r.at))).toBeLessThanOrEqual(10);
    await a.server.close();
  }, 90_000);

  it("pauses a host for every worker when one worker's request gets a Retry-After", async () => {
    const a = await site('retry-after');
    env.SYNC_PASSWORD = a.server.password;
    const proxy: FaultyProxy = await startFaultyProxy(a.server.url);
    // Both pipelines at 8/s, so that each worker sends steadily; the 9th create gets `429, Retry-After: 1`.
    const files = [
      await pipeline('golf', proxy.url, 30, { rate: 8 }),
      await pipeline('hotel', proxy.url, 30, { rate: 8 }),
    ];
    proxy.fail({ fault: '429', method: 'POST', path: /\/events/, skip: 8 });
    await worker();
    await worker();
    await schedule([...files, '--now']);
    const runs = [(await settled(files[0], 1))[0], (await settled(files[1], 1))[0]];
    expect(
      runs.map((r) => r.state),
      JSON.stringify(runs.map((r) => r.output)),
    ).toEqual(['completed', 'completed']);
    const refused = proxy.log.find((e) => e.fate === '429');
    expect(refused).toBeDefined();
    const t = (refused as { at: number }).at;
    // Both runs were going on when the host said to wait…
    for (const r of runs) {
      expect(+new Date(r.startedOn)).toBeLessThan(t);
      expect(+new Date(r.completedOn as Date)).toBeGreaterThan(t + 1000);
    }
    // …and nothing from either worker reached it for that second (requests already on the way aside).
    const during = proxy.log.filter((e) => e.at > t + 100 && e.at < t + 950);
    expect(during).toEqual([]);
    await proxy.close();
    await a.server.close();
  }, 90_000);
});
