/**
 * `npm run bench:server [-- --connections 10 --create-seconds 8 --list-seconds 5 --events 10000
 * --cpu-prof <dir> --cache-mb 64 --store sqlite|postgres]`: the calendar/events/v1 server under load over a loopback socket, printed as
 * one JSON document on stdout (progress goes to stderr; `npm run -s` drops npm's own banner from
 * stdout, for `npm run -s bench:server > figures.json`).
 *
 * The server is `src/cli/serve.ts` in a child process on a fresh SQLite file (or, with `--store postgres`,
 * a database of a private PostgreSQL cluster started for the run: test/helpers/postgres.ts, no fsync, as
 * the SQLite file's synchronous=NORMAL does not sync each commit either), so the load generator
 * (autocannon, in this process) does not share its event loop. An editor with an application
 * password is made in the file before the server starts. Phases: event creates (each with a venue,
 * an organizer, 2 categories and 3 tags, inline by name), a top-up to `--events` events, then four
 * list scenarios with per_page=50 on random pages within range (plain, a date window, a search, a
 * category filter) as anonymous reads. Each phase runs after a warm-up that is not counted.
 * `--cpu-prof <dir>` writes a V8 CPU profile of the server process there when it exits; `--cache-mb 0`
 * turns the server's response cache off, to measure lists as they cost right after a write.
 *
 * Goals (the issue): ≥ 1,000 creates/s and ≥ 1,000 list pages/s with p99 under 20 ms on a 2-core
 * machine; a WordPress site with The Events Calendar manages about 8 creates/s and 4 pages/s there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/open.ts';
import { type Postgres, startPostgres } from '../test/helpers/postgres.ts';
import { CATEGORY_SLUG, eventBodies, SEARCH_WORD } from './event-bodies.ts';
import { type Figures, load } from './load.ts';
import { benchEditor, type ServeProcess, startServe, stopServe } from './serve-process.ts';

const GOALS = { creates_per_s: 1000, pages_per_s: 1000, p99_ms: 20 };
const NS = '/calendar/events/v1';
const PER_PAGE = 50;
/** serve's LOG_LEVEL; `info`, its default, logs two lines per request, which is not what is measured here. */
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';

const { values: opts } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    'create-seconds': { type: 'string', default: '8' },
    'list-seconds': { type: 'string', default: '5' },
    'warmup-seconds': { type: 'string', default: '2' },
    events: { type: 'string', default: '10000' },
    'cpu-prof': { type: 'string' },
    'cache-mb': { type: 'string', default: '64' },
    store: { type: 'string', default: 'sqlite' },
  },
});
if (opts.store !== 'sqlite' && opts.store !== 'postgres') {
  throw new Error(`bench:server: --store must be sqlite or postgres, got ${opts.store}`);
}
const connections = Number(opts.connections);
const targetEvents = Number(opts.events);
const createSeconds = Number(opts['create-seconds']);
const listSeconds = Number(opts['list-seconds']);
const warmupSeconds = Number(opts['warmup-seconds']);
for (const [name, n] of Object.entries({
  connections,
  events: targetEvents,
  createSeconds,
  listSeconds,
  warmupSeconds,
})) {
  if (!(n > 0)) throw new Error(`bench:server: ${name} must be a positive number, got ${n}`);
}

/** Events fall in next year, so the default list window (yesterday to +2 years) holds them all. */
const YEAR = new Date().getUTCFullYear() + 1;
const progress = (s: string) => process.stderr.write(`bench:server: ${s}\n`);

/** An editor and an application password, written to the file before the server opens it. */
async function makeUser(dataFile: string): Promise<string> {
  const store = await openStore(dataFile);
  try {
    return (await benchEditor(store)).authorization;
  } finally {
    await store.close();
  }
}

const startServer = (dataFile: string, cpuProfDir: string | undefined) =>
  startServe({
    dataFile,
    args: ['--host', '127.0.0.1', '--cache-mb', opts['cache-mb'] as string],
    logLevel: LOG_LEVEL,
    cpuProfDir,
    echo: true,
  });

/** One GET, timed: the total and page count of a list, and how long its first request took. */
async function probe(origin: string, path: string) {
  const started = performance.now();
  const res = await fetch(origin + path);
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return {
    total: Number(res.headers.get('x-tec-total')),
    pages: Number(res.headers.get('x-tec-totalpages')),
    ms: Math.round(ms * 100) / 100,
  };
}

async function createPhase(origin: string, auth: string) {
  const next = eventBodies(YEAR);
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const create = (p: { seconds?: number; amount?: number; max?: number; connections?: number }) =>
    load({
      origin,
      connections,
      method: 'POST',
      headers,
      next: () => ({ path: `${NS}/events`, body: next() }),
      ...p,
    });

  progress(`creates: warm-up ${warmupSeconds} s`);
  const warm = await create({
    seconds: warmupSeconds,
    max: Math.max(connections, Math.floor(targetEvents / 4)),
  });
  progress(`creates: ${createSeconds} s (at most ${targetEvents} events in all)`);
  const room = targetEvents - warm.requests;
  const measured = room >= connections ? await create({ seconds: createSeconds, max: room }) : null;

  // Failures outside the measured run are counted too: they would leave the lists short.
  let unmeasuredFailures = warm.non2xx + warm.errors;
  let total = (await probe(origin, `${NS}/events?per_page=1`)).total;
  for (let round = 0; total < targetEvents && round < 3; round++) {
    const missing = targetEvents - total;
    progress(`seeding: ${missing} more events`);
    const topUp = await create({ amount: missing, connections: Math.min(connections, missing) });
    unmeasuredFailures += topUp.non2xx + topUp.errors;
    total = (await probe(origin, `${NS}/events?per_page=1`)).total;
  }
  return { warmup_requests: warm.requests, measured, seeded: total, unmeasuredFailures };
}

async function listPhase(
  origin: string,
  query: string,
): Promise<Figures & { total: number; pages: number; first_request_ms: number }> {
  const base = `${NS}/events?per_page=${PER_PAGE}${query}`;
  const first = await probe(origin, base);
  const pages = Math.max(1, first.pages);
  const next = () => ({ path: `${base}&page=${1 + Math.floor(Math.random() * pages)}` });
  await load({ origin, connections, method: 'GET', seconds: Math.min(1, warmupSeconds), next });
  const figures = await load({ origin, connections, method: 'GET', seconds: listSeconds, next });
  return { total: first.total, pages, first_request_ms: first.ms, ...figures };
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-'));
  let cluster: Postgres | undefined;
  let server: ServeProcess | undefined;
  const cleanUp = async () => {
    if (server) await stopServe(server.child);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  try {
    if (opts.store === 'postgres') cluster = await startPostgres();
    const dataFile = cluster ? cluster.url : join(dir, 'calendar.db');
    const loadBefore = loadavg()[0];
    const auth = await makeUser(dataFile);
    server = await startServer(dataFile, opts['cpu-prof']);
    progress(`server at ${server.origin} on ${dataFile}, ${connections} connections`);

    const creates = await createPhase(server.origin, auth);
    progress(`${creates.seeded} events stored`);
    const scenarios = {
      plain: '',
      window: `&start_date=${YEAR}-03-01&end_date=${YEAR}-06-30`,
      search: `&search=${SEARCH_WORD}`,
      category: `&categories=${CATEGORY_SLUG}`,
    };
    const lists: Record<string, Awaited<ReturnType<typeof listPhase>>> = {};
    for (const [name, query] of Object.entries(scenarios)) {
      progress(`lists: ${name}`);
      lists[name] = await listPhase(server.origin, query);
    }

    const c = creates.measured;
    const met: Record<string, boolean> = {
      creates_per_s: (c?.per_s ?? 0) >= GOALS.creates_per_s,
      creates_p99_ms: (c?.p99_ms ?? Infinity) < GOALS.p99_ms,
    };
    for (const [name, l] of Object.entries(lists)) {
      met[`${name}_pages_per_s`] = l.per_s >= GOALS.pages_per_s;
      met[`${name}_p99_ms`] = l.p99_ms < GOALS.p99_ms;
    }
    met.all = Object.values(met).every(Boolean);
    const report = {
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model,
        node: process.version,
        loadavg_1m: { before: round2(loadBefore), after: round2(loadavg()[0]) },
      },
      server: {
        entry: 'src/cli/serve.ts',
        log_level: LOG_LEVEL,
        store: cluster
          ? 'PostgreSQL 15, a private cluster on loopback (fsync off)'
          : 'SQLite file (WAL) in the temp dir',
        response_cache_mb: Number(opts['cache-mb']),
      },
      connections,
      creates: {
        ...c,
        warmup_requests: creates.warmup_requests,
        warmup_and_seeding_failures: creates.unmeasuredFailures,
        body: 'venue + organizer inline, 2 categories, 3 tags',
      },
      seeded_events: creates.seeded,
      lists: Object.fromEntries(
        Object.entries(lists).map(([k, v]) => [k, { query: scenarios[k as keyof typeof scenarios], ...v }]),
      ),
      goals: GOALS,
      met,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const failures = [c, ...Object.values(lists)].reduce(
      (n, f) => n + (f ? f.non2xx + f.errors : 1),
      creates.unmeasuredFailures,
    );
    return failures === 0 ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

process.exitCode = await main();
