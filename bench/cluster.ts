/**
 * `npm run bench:cluster`: pipelines run as jobs by 1, 2 and 3 workers (`npm run worker` processes) on a
 * private PostgreSQL cluster (test/helpers/postgres.ts), into target hosts that are our own server
 * (`npm run serve` processes, each on its own SQLite file) with a per-host rate limit. For each number of
 * workers, on fresh hosts: wall time from `npm run schedule -- --now` until every run is done, pipelines per
 * minute and events written per second, the workers' CPU seconds, and per host the most requests it
 * received in any 1 s window (its own request log) against its limit.
 *
 * Options: --pipelines 200, --hosts 5, --events 10 (per pipeline), --workers 1,2,3, --concurrency 4 (runs
 * per worker), --rates 20,25,30,40,50 (requests per second per host; cycled over the hosts), --rate-margin
 * 50 (the workers' margin, ms: src/queue/host-limits.ts).
 * Needs Debian's postgresql (or PG_BIN). Everything listens on 127.0.0.1 and is stopped at the end.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MARGIN_MS } from '../src/queue/host-limits.ts';
import { openBoss } from '../src/queue/jobs.ts';
import { killChildren } from '../test/helpers/children.ts';
import {
  allDone,
  clusterEnv,
  queueNow,
  spreadPipelines,
  startHost,
  stopHost,
  type TargetHost,
} from '../test/helpers/cluster.ts';
import { startPostgres } from '../test/helpers/postgres.ts';
import { busiestSecond, startWorker } from '../test/helpers/queue.ts';

const { values } = parseArgs({
  options: {
    pipelines: { type: 'string', default: '200' },
    hosts: { type: 'string', default: '5' },
    events: { type: 'string', default: '10' },
    workers: { type: 'string', default: '1,2,3' },
    concurrency: { type: 'string', default: '4' },
    rates: { type: 'string', default: '20,25,30,40,50' },
    'rate-margin': { type: 'string', default: String(DEFAULT_MARGIN_MS) },
  },
});
const pipelines = Number(values.pipelines);
const hostCount = Number(values.hosts);
const events = Number(values.events);
const concurrency = Number(values.concurrency);
const rates = values.rates.split(',').map(Number);
const workerCounts = values.workers.split(',').map(Number);

/** CPU seconds (user + system) of a live process, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Row {
  workers: number;
  seconds: number;
  pipelinesPerMin: number;
  eventsPerSec: number;
  workerCpu: number;
  failed: number;
  hosts: { name: string; rate: number; requests: number; busiest: number }[];
  load: string;
}

const say = (line: string) => process.stderr.write(`${line}\n`);
say('starting PostgreSQL');
const pg = await startPostgres();
// Stopped by a signal (timeout, ^C): the workers, servers and the cluster go too.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, async () => {
    await killChildren();
    await pg.stop();
    process.exit(130);
  });
const rows: Row[] = [];
try {
  const boss = await openBoss(pg.url, { role: 'sender' });
  boss.on('error', () => {});
  for (const w of workerCounts) {
    const dir = await mkdtemp(join(tmpdir(), `calsync-cluster-${w}-`));
    let hosts: TargetHost[] = [];
    try {
      hosts = await Promise.all(
        Array.from({ length: hostCount }, (_, i) => startHost(dir, `w${w}h${i}`, rates[i % rates.length])),
      );
      say(`${hosts.length} hosts up; writing ${pipelines} pipelines, starting ${w} worker(s)`);
      const env = clusterEnv(pg.url, hosts);
      const { files } = await spreadPipelines(dir, `w${w}`, hosts, pipelines, events);
      const workers = await Promise.all(
        Array.from({ length: w }, () =>
          startWorker(dir, env, [
            '--concurrency',
            String(concurrency),
            '--rate-margin',
            values['rate-margin'],
          ]),
        ),
      );
      const cpu0 = workers.map((c) => cpuSeconds(c.pid as number));
      const started = Date.now();
      say(`${w} worker(s) ready; queueing ${files.length} runs`);
      await queueNow(files, env);
      const done = await allDone(boss, files, 60 * 60_000, (n) =>
        process.stderr.write(`\r${w} worker(s): ${n}/${files.length} pipelines done`),
      );
      const seconds = (Date.now() - started) / 1000;
      process.stderr.write('\n');
      const workerCpu = workers.reduce((sum, c, i) => sum + cpuSeconds(c.pid as number) - cpu0[i], 0);
      const jobs = [...done.values()];
      const created = jobs.reduce(
        (n, j) =>
          n + ((j.output as { counts?: { event?: { created?: number } } }).counts?.event?.created ?? 0),
        0,
      );
      rows.push({
        workers: w,
        seconds,
        pipelinesPerMin: (files.length / seconds) * 60,
        eventsPerSec: created / seconds,
        workerCpu,
        failed: jobs.filter((j) => j.state !== 'completed').length,
        hosts: hosts.map((h) => ({
          name: h.name,
          rate: h.rate,
          requests: h.arrivals.length,
          busiest: busiestSecond(h.arrivals),
        })),
        load: loadavg()
          .map((l) => l.toFixed(2))
          .join(' '),
      });
    } finally {
      await killChildren();
      await Promise.all(hosts.map(stopHost));
      await rm(dir, { recursive: true, force: true });
    }
  }
  await boss.stop({ graceful: false });
} finally {
  await killChildren();
  await pg.stop();
}

console.log(
  `\n${pipelines} pipelines × ${events} events into ${hostCount} hosts (our server on SQLite), ${concurrency} runs per worker\n`,
);
console.log('workers | wall s | pipelines/min | events/s | worker CPU s | failed | load (1/5/15 min)');
for (const r of rows)
  console.log(
    `${String(r.workers).padStart(7)} | ${r.seconds.toFixed(1).padStart(6)} | ${r.pipelinesPerMin.toFixed(0).padStart(13)} | ${r.eventsPerSec.toFixed(1).padStart(8)} | ${r.workerCpu.toFixed(1).padStart(12)} | ${String(r.failed).padStart(6)} | ${r.load}`,
  );
console.log(
  `\nper host: most requests its log shows in any 1 s window / limit (workers' --rate-margin ${values['rate-margin']} ms)`,
);
for (const r of rows)
  console.log(
    `${r.workers} worker(s): ${r.hosts.map((h) => `${h.busiest}/${h.rate}${h.busiest > h.rate ? ' OVER' : ''} (${h.requests} requests)`).join('  ')}`,
  );
