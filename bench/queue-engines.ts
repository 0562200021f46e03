/**
 * `npm run bench:queue-engines`: the measurements behind the choice of pg-boss over graphile-worker for
 * `npm run worker` (ARCHITECTURE.md, "Workers and the queue"). On a private PostgreSQL cluster
 * (test/helpers/postgres.ts), for each engine:
 *   - pickup latency: a job sent to an idle worker, until its handler starts (median and p95 of 40);
 *   - throughput: 2,000 empty jobs through one worker process with 8 at a time, jobs/s;
 *   - a worker SIGKILLed in the middle of a job: how long until another worker runs that job again
 *     (given up after --kill-wait seconds, default 60).
 * Prints one table. Needs Debian's postgresql (or PG_BIN).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { makeWorkerUtils, run as runGraphile } from 'graphile-worker';
import { PgBoss } from 'pg-boss';
import { startPostgres } from '../test/helpers/postgres.ts';

type Engine = 'pg-boss' | 'graphile-worker';

/** pg-boss at its quickest: woken by NOTIFY, a heartbeat every 5 s checked within 10 s. */
const QUEUE = { heartbeatSeconds: 10, retryLimit: 3, retryDelay: 1, notify: true };

interface Consumer {
  stop(): Promise<void>;
}

/** A worker in this process (or a child) calling `onJob` with each job's payload. */
async function consume(
  engine: Engine,
  url: string,
  queue: string,
  concurrency: number,
  onJob: (data: { i: number; sentAt: number }) => Promise<void>,
): Promise<Consumer> {
  if (engine === 'pg-boss') {
    const boss = new PgBoss({
      connectionString: url,
      max: concurrency + 2,
      useListenNotify: true,
      superviseIntervalSeconds: 2,
      monitorIntervalSeconds: 2,
    });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue(queue, QUEUE).catch(() => {});
    await boss.work<{ i: number; sentAt: number }>(
      queue,
      {
        batchSize: 1,
        localConcurrency: concurrency,
        pollingIntervalSeconds: 0.5,
        notifyPollingIntervalSeconds: 0.5,
      },
      async ([job]) => onJob(job.data),
    );
    return { stop: () => boss.stop({ graceful: false }) };
  }
  const runner = await runGraphile({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    pollInterval: 500,
    logger: quietGraphileLogger,
    taskList: { [queue]: async (payload) => onJob(payload as { i: number; sentAt: number }) },
  });
  return { stop: () => runner.stop() };
}

interface Producer {
  send(queue: string, data: object): Promise<void>;
  stop(): Promise<void>;
}

async function producer(engine: Engine, url: string, queue: string): Promise<Producer> {
  if (engine === 'pg-boss') {
    const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue(queue, QUEUE).catch(() => {});
    return {
      send: async (q, data) => void (await boss.send(q, data)),
      stop: () => boss.stop({ graceful: false }),
    };
  }
  const utils = await makeWorkerUtils({ connectionString: url });
  await utils.migrate();
  return {
    send: async (q, data) => void (await utils.addJob(q, data, { maxAttempts: 3 })),
    stop: async () => {
      await utils.release();
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: graphile-worker's Logger wants a factory of any scope
const quietGraphileLogger = new (await import('graphile-worker')).Logger(() => (() => {}) as any);

async function pickupLatency(engine: Engine, url: string): Promise<number[]> {
  const queue = 'latency';
  const prod = await producer(engine, url, queue);
  const latencies: number[] = [];
  let done: (() => void) | undefined;
  const cons = await consume(engine, url, queue, 1, async (d) => {
    latencies.push(performance.timeOrigin + performance.now() - d.sentAt);
    done?.();
  });
  await sleep(1000);
  for (let i = 0; i < 40; i++) {
    const taken = new Promise<void>((r) => (done = r));
    await prod.send(queue, { i, sentAt: performance.timeOrigin + performance.now() });
    await taken;
    await sleep(50);
  }
  await cons.stop();
  await prod.stop();
  return latencies.sort((a, b) => a - b);
}

async function throughput(engine: Engine, url: string): Promise<number> {
  const queue = 'throughput';
  const n = 2000;
  const prod = await producer(engine, url, queue);
  for (let i = 0; i < n; i += 100)
    await Promise.all(Array.from({ length: 100 }, (_, k) => prod.send(queue, { i: i + k, sentAt: 0 })));
  let seen = 0;
  let finished: () => void = () => {};
  const all = new Promise<void>((r) => (finished = r));
  const started = performance.now();
  const cons = await consume(engine, url, queue, 8, async () => {
    if (++seen === n) finished();
  });
  await all;
  const seconds = (performance.now() - started) / 1000;
  await cons.stop();
  await prod.stop();
  return n / seconds;
}

/** Seconds from the SIGKILL of the worker running a job until another worker starts it again. */
async function afterKill(engine: Engine, url: string, waitSeconds: number): Promise<number | undefined> {
  const queue = 'killed';
  const prod = await producer(engine, url, queue);
  const child = spawnChild(engine, url, queue);
  await new Promise<void>((r) => child.stdout?.on('data', (d) => String(d).includes('started') && r()));
  await prod.send(queue, { i: 1, sentAt: 0 }).catch(() => {});
  await new Promise<void>((r) => child.stdout?.on('data', (d) => String(d).includes('job') && r()));
  child.kill('SIGKILL');
  const killedAt = performance.now();
  let again: (() => void) | undefined;
  const rerun = new Promise<void>((r) => (again = r));
  const cons = await consume(engine, url, queue, 1, async () => again?.());
  const seconds = await Promise.race([
    rerun.then(() => (performance.now() - killedAt) / 1000),
    sleep(waitSeconds * 1000).then(() => undefined),
  ]);
  await cons.stop();
  await prod.stop();
  return seconds;
}

function spawnChild(engine: Engine, url: string, queue: string): ChildProcess {
  return spawn(process.execPath, [import.meta.filename, '--child', engine, '--url', url, '--queue', queue], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    url: { type: 'string' },
    queue: { type: 'string' },
    'kill-wait': { type: 'string', default: '60' },
  },
});

if (values.child) {
  // The worker to be killed: says when it is ready and when it holds the job, then never finishes it.
  await consume(values.child as Engine, values.url as string, values.queue as string, 1, async () => {
    process.stdout.write('job\n');
    await new Promise(() => {});
  });
  process.stdout.write('started\n');
} else {
  const pg = await startPostgres();
  try {
    const rows: string[] = [];
    for (const engine of ['pg-boss', 'graphile-worker'] as const) {
      const l = await pickupLatency(engine, pg.url);
      const t = await throughput(engine, pg.url);
      const k = await afterKill(engine, pg.url, Number(values['kill-wait']));
      const at = (q: number) => l[Math.min(l.length - 1, Math.floor(q * l.length))].toFixed(1);
      rows.push(
        `${engine.padEnd(16)} pickup median ${at(0.5)} ms, p95 ${at(0.95)} ms | ${t.toFixed(0)} jobs/s | ` +
          `killed worker's job run again after ${k === undefined ? `> ${values['kill-wait']} s (not yet)` : `${k.toFixed(1)} s`}`,
      );
      console.log(rows.at(-1));
    }
  } finally {
    await pg.stop();
  }
}
