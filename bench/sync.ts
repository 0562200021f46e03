/**
 * `npm run -s bench:sync [-- --events 10000 --rps 50]`: the nightly sync, measured. Our server listens on a
 * loopback port in this process and counts every request it answers (so the figures do not depend on the
 * client's own counting); `npm run sync` runs as a child process, exactly as cron would start it.
 *
 * 1. A first sync of a generated calendar (`--events` one-off VEVENTs, 200 venues, 100 organizers, 20
 *    categories) with no rate limit: the state every later night starts from.
 * 2. The nightly sync with `rate.requests_per_second: --rps` in the pipeline file, after the source changed:
 *    1% of the events edited (a new title), 0.5% gone, 0.5% new.
 *
 * With `--tec`, the real WordPress + TEC 6.2.6 site of the kit instead (bench/sync-real-tec.ts).
 *
 * Printed as one JSON document on stdout. Goals (issue 6): exactly one request per changed item and none
 * for the unchanged ones; an achieved request rate ≥ 95% of the configured one (requests counted per
 * second of the run by the server).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import type { RunReport } from '../src/pipeline/report.ts';
import { buildApp } from '../src/server/app.ts';
import { openSqliteStore } from '../src/store/sqlite.ts';
import { prng } from './prng.ts';
import { benchEditor } from './serve-process.ts';

const ROOT = resolve(import.meta.dirname, '..');
const NOW = new Date('2027-01-01T00:00:00Z');
const GOALS = { requests_per_changed_item: 1, achieved_rate_ratio: 0.95 };

const { values: opts } = parseArgs({
  options: { events: { type: 'string' }, rps: { type: 'string', default: '50' }, tec: { type: 'boolean' } },
});
if (opts.tec) {
  // The real TEC site instead of our server: events/s and latency at concurrency 1, 2, 4, 8.
  const { benchRealTec } = await import('./sync-real-tec.ts');
  await benchRealTec(Number(opts.events ?? 120));
  process.exit(0);
}
const EVENTS = Number(opts.events ?? 10_000);
const RPS = Number(opts.rps);
const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-sync-'));
const log = (s: string) => process.stderr.write(`${s}\n`);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

// ---- The source: one-off events, and what changes overnight -------------------------------------------

const random = prng(20_261_122);
const pick = (n: number) => Math.floor(random() * n);
const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

interface Ev {
  uid: string;
  title: string;
  start: Date;
  venue: number;
  organizer: number;
  category: number;
}

const makeEvent = (uid: string, i: number): Ev => ({
  uid,
  title: `Bench event ${i}`,
  // Within the default window (a year ahead), on the hour.
  start: new Date(NOW.getTime() + (1 + pick(360)) * 86_400_000 + pick(12) * 3_600_000),
  venue: pick(200),
  organizer: pick(100),
  category: pick(20),
});

function ics(events: readonly Ev[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//bench sync//EN'];
  for (const e of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${e.uid}`,
      'DTSTAMP:20261201T000000Z',
      `DTSTART:${stamp(e.start)}`,
      `DTEND:${stamp(new Date(e.start.getTime() + 2 * 3_600_000))}`,
      `SUMMARY:${e.title}`,
      `LOCATION:Hall ${e.venue}\\, ${e.venue} High Street\\, Springfield`,
      `ORGANIZER;CN=Society ${e.organizer}:mailto:society${e.organizer}@example.org`,
      `CATEGORIES:Category ${e.category}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

const first = Array.from({ length: EVENTS }, (_, i) => makeEvent(`bench-${i}@calsync`, i));
const changed = new Set<number>();
const gone = new Set<number>();
// Every 100th edited, every 200th (offset) gone: 1% and 0.5%, disjoint.
for (let i = 0; i < EVENTS; i++) {
  if (i % 100 === 0) changed.add(i);
  else if (i % 200 === 50) gone.add(i);
}
const added = Array.from({ length: Math.round(EVENTS * 0.005) }, (_, i) =>
  makeEvent(`bench-new-${i}@calsync`, EVENTS + i),
);
const nightly = [
  ...first.flatMap((e, i) =>
    gone.has(i) ? [] : changed.has(i) ? [{ ...e, title: `${e.title} (moved to the big hall)` }] : [e],
  ),
  ...added,
];

// ---- The server, counting what it answers -------------------------------------------------------------

interface Arrival {
  method: string;
  at: number;
}
let arrivals: Arrival[] = [];

async function startServer() {
  const store = openSqliteStore(join(dir, 'site.db'));
  const { password } = await benchEditor(store);
  const app = await buildApp({ store, siteUrl: 'http://127.0.0.1:8080' });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  app.server.on('request', (req) => arrivals.push({ method: req.method ?? '', at: performance.now() }));
  return { app, url, password };
}

/** A pipeline file: the same name (and so the same sync state) for both nights. */
function pipeline(file: string, source: string, rate: string[]): void {
  const yaml = [
    'name: bench-nightly',
    'source:',
    '  type: ics',
    `  path: ${source}`,
    'target:',
    `  url: \${BENCH_URL}`,
    '  auth:',
    '    type: basic',
    '    username: bench',
    `    password: \${BENCH_PASSWORD}`,
    '  rate:',
    ...rate.map((l) => `    ${l}`),
    'mapping:',
    '  timezone: UTC',
    'policies:',
    '  delete: trash',
    '',
  ];
  writeFileSync(file, yaml.join('\n'));
}

/** `npm run sync -- file --report …` as a child process, with the script's own Node flags. */
function sync(
  file: string,
  env: Record<string, string>,
): Promise<{ report: RunReport; wallSeconds: number }> {
  const reportFile = `${file}.report.json`;
  // Paths in them (./bin/compile-cache.js) are the package folder's.
  const [, ...flags] = pkg.scripts.sync
    .split(' ')
    .slice(0, -1)
    .map((word) => (word.startsWith('./') ? join(ROOT, word) : word));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...flags, join(ROOT, 'src/cli/sync.ts'), file, '--quiet', '--report', reportFile],
    { cwd: dir, env: { ...process.env, CALSYNC_NOW: NOW.toISOString(), ...env }, stdio: 'pipe' },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((done, fail) =>
    child.on('exit', (code) => {
      const wallSeconds = (performance.now() - started) / 1000;
      if (code !== 0) return fail(new Error(`sync exited ${code}:\n${output}`));
      const [report] = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport[];
      done({ report, wallSeconds });
    }),
  );
}

const byMethod = (list: readonly Arrival[]) => {
  const out: Record<string, number> = {};
  for (const a of list) out[a.method] = (out[a.method] ?? 0) + 1;
  return out;
};

/**
 * Requests per second as the server saw them: arrivals counted in whole seconds from the first one, over
 * the seconds the run was sending throughout (the last, partial one left out), averaged. Under 2 s of
 * requests, the rate over their n − 1 gaps instead. (Not a check of the limit itself: arrival times carry
 * the jitter of a shared machine, and the first request also pays for its connection.)
 */
function ratePerSecond(list: readonly Arrival[]): number {
  if (list.length < 2) return 0;
  const first = list[0].at;
  const span = (list[list.length - 1].at - first) / 1000;
  if (span < 2) return (list.length - 1) / span;
  const seconds = Array.from({ length: Math.floor(span) }, () => 0);
  for (const a of list) {
    const s = Math.floor((a.at - first) / 1000);
    if (s < seconds.length) seconds[s]++;
  }
  return seconds.reduce((x, y) => x + y, 0) / seconds.length;
}

const server = await startServer();
try {
  const env = { BENCH_URL: server.url, BENCH_PASSWORD: server.password };
  writeFileSync(join(dir, 'first.ics'), ics(first));
  writeFileSync(join(dir, 'nightly.ics'), ics(nightly));
  pipeline(join(dir, 'first.yaml'), 'first.ics', ['concurrency: 8']);
  pipeline(join(dir, 'nightly.yaml'), 'nightly.ics', ['concurrency: 4', `requests_per_second: ${RPS}`]);

  log(`first sync of ${EVENTS} events (no rate limit)…`);
  const initial = await sync(join(dir, 'first.yaml'), env);
  const initialRequests = arrivals.length;
  log(`first sync: ${initial.wallSeconds.toFixed(1)} s, ${initialRequests} requests`);

  arrivals = [];
  log(`nightly sync at ${RPS} requests/s…`);
  const night = await sync(join(dir, 'nightly.yaml'), env);
  const n = arrivals.length;
  const phase = n > 1 ? (arrivals[n - 1].at - arrivals[0].at) / 1000 : 0;
  const achieved = ratePerSecond(arrivals);
  const expected = { updated: changed.size, deleted: gone.size, created: added.length };
  const itemsChanged = expected.updated + expected.deleted + expected.created;
  const figures = {
    machine: { cpus: cpus().length, load: loadavg()[0].toFixed(2), node: process.version },
    events: EVENTS,
    first_sync: {
      wall_s: round(initial.wallSeconds),
      requests_server: initialRequests,
      created: initial.report.counts.event.created,
    },
    nightly: {
      source_changes: expected,
      outcome: night.report.counts.event,
      requests_server: { ...byMethod(arrivals), total: n },
      requests_client: night.report.requests,
      requests_per_changed_item: round(n / itemsChanged, 3),
      requests_for_unchanged: Math.max(0, n - itemsChanged),
      wall_s: round(night.wallSeconds),
      run_s: round(night.report.durationMs / 1000),
      request_phase_s: round(phase),
      configured_rps: RPS,
      achieved_rps: round(achieved, 1),
      achieved_rate_ratio: round(achieved / RPS, 3),
    },
    goals: GOALS,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await server.app.close();
  rmSync(dir, { recursive: true, force: true });
}
