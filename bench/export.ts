/**
 * `npm run bench:export [-- --events 10000 --connections 10 --seconds 5 --cpu-prof <dir>]`: the export
 * renderers and the served feed, printed as one JSON document on stdout (progress on stderr).
 *
 * A fresh SQLite file gets `--events` events through the server's own request path, in-process (the
 * varied bodies of bench/event-bodies.ts: five zones, venues, organizers, categories, tags, next year, so
 * the default feed window holds them all). Then, in a fresh child process (so that the seeding's heap
 * does not count): the feed's events read from the store and rendered to the wire (`load`), that wire
 * rendered to .ics and to CSV, each the median of five runs after a cold first one, with the child's
 * peak RSS. Then `src/cli/serve.ts` in a child
 * process serves /feeds/all.ics to autocannon over loopback: whole feeds from its cache (identity and
 * gzip), and conditional requests answered 304.
 *
 * Goals (the issue): 10,000 events render to .ics in ≤ 300 ms; ≥ 5,000 conditional 304s per second;
 * ≥ 100 full 10,000-event feeds per second served from cache.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { feedSpec } from '../src/export/feed-spec.ts';
import { eventsToIcal } from '../src/export/ical.ts';
import { loadStoreFeed } from '../src/export/store-feed.ts';
import { eventsToCsv } from '../src/render/csv.ts';
import { buildApp } from '../src/server/app.ts';
import { resolveConfig } from '../src/server/config.ts';
import { openSqliteStore } from '../src/store/sqlite.ts';
import { eventBodies } from './event-bodies.ts';
import { type Figures, load } from './load.ts';
import { benchEditor, startServe, stopServe } from './serve-process.ts';

const GOALS = { render_ics_ms: 300, not_modified_per_s: 5000, full_feeds_per_s: 100 };
const ROOT = resolve(import.meta.dirname, '..');
const SITE = 'http://127.0.0.1:8080';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    'cpu-prof': { type: 'string' },
    /** Internal: measure the renderers on this SQLite file and print their figures as JSON. */
    'render-only': { type: 'string' },
  },
});
const eventCount = Number(opts.events);
const connections = Number(opts.connections);
const seconds = Number(opts.seconds);
const progress = (s: string) => process.stderr.write(`bench:export: ${s}\n`);
const YEAR = new Date().getUTCFullYear() + 1;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const peakRssMb = () => round(process.resourceUsage().maxRSS / 1024, 0);

async function seed(dataFile: string): Promise<number> {
  const store = openSqliteStore(dataFile);
  const { authorization } = await benchEditor(store);
  const app = await buildApp({ store, siteUrl: SITE, responseCache: { maxEntries: 0, maxBytes: 0 } });
  const headers = { authorization, 'content-type': 'application/json' };
  const next = eventBodies(YEAR);
  let created = 0;
  for (let start = 0; start < eventCount; start += 64) {
    const batch = Array.from({ length: Math.min(64, eventCount - start) }, () =>
      app.inject({ method: 'POST', url: '/calendar/events/v1/events', headers, payload: next() }),
    );
    for (const res of await Promise.all(batch)) if (res.statusCode === 201) created++;
    if (start % 2000 === 0) progress(`seeding: ${start} events`);
  }
  await app.close();
  return created;
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, value };
}

/** Cold first run, then the median of five. */
function measure<T>(fn: () => T): { cold_ms: number; median_ms: number; value: T } {
  const cold = timed(fn);
  const runs = Array.from({ length: 5 }, () => timed(fn).ms).sort((a, b) => a - b);
  return { cold_ms: round(cold.ms), median_ms: round(runs[2]), value: cold.value };
}

/** `fn` once cold, then the median of five, for an async `fn`. */
async function measureAsync<T>(
  fn: () => Promise<T>,
): Promise<{ cold_ms: number; median_ms: number; value: T }> {
  const once = async () => {
    const started = performance.now();
    const value = await fn();
    return { ms: performance.now() - started, value };
  };
  const cold = await once();
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push((await once()).ms);
  runs.sort((a, b) => a - b);
  return { cold_ms: round(cold.ms), median_ms: round(runs[2]), value: cold.value };
}

async function renderPhase(dataFile: string) {
  const store = openSqliteStore(dataFile);
  try {
    const cfg = resolveConfig({ siteUrl: SITE });
    const feed = feedSpec({ name: 'all' });
    const now = new Date();
    const loaded = await measureAsync(() => loadStoreFeed(store, cfg, feed, now));
    const data = loaded.value;
    const opts = {
      host: cfg.host,
      calendarName: 'bench',
      refreshMinutes: 60,
      sequence: (e: { id: number }) => data.sequences.get(e.id) ?? 0,
    };
    const ics = measure(() => eventsToIcal(data.events, opts));
    const rssAfterIcs = peakRssMb();
    const csv = measure(() => eventsToCsv(data.events));
    return {
      events: data.events.length,
      load_from_store: { cold_ms: loaded.cold_ms, median_ms: loaded.median_ms },
      ics: { cold_ms: ics.cold_ms, median_ms: ics.median_ms, bytes: Buffer.byteLength(ics.value) },
      csv: { cold_ms: csv.cold_ms, median_ms: csv.median_ms, bytes: Buffer.byteLength(csv.value) },
      // The process's peak: the store read and the 10,000 wire events included.
      peak_rss_mb: { after_ics: rssAfterIcs, after_csv: peakRssMb() },
    };
  } finally {
    await store.close();
  }
}

/** `renderPhase` in a child process of this script: its own heap and peak RSS. */
async function renderInChild(dataFile: string): Promise<Awaited<ReturnType<typeof renderPhase>>> {
  const child = spawn(process.execPath, [import.meta.filename, '--render-only', dataFile], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`the render child exited with code ${code}`);
  return JSON.parse(out);
}

/** Responses of any status per second (a 304 is not a 2xx, which `load`'s `per_s` counts). */
const answered = (f: Figures) => round(f.requests / f.duration_s, 0);

async function servePhase(origin: string) {
  const path = '/feeds/all.ics';
  const first = timed(() => fetch(origin + path));
  const res = await first.value;
  const body = Buffer.from(await res.arrayBuffer());
  const etag = res.headers.get('etag') ?? '';
  progress(`first feed request: ${res.status}, ${body.length} bytes`);
  const phase = (headers: Record<string, string>) =>
    load({ origin, connections, method: 'GET', seconds, headers, next: () => ({ path }) });
  await load({ origin, connections, method: 'GET', seconds: 1, next: () => ({ path }) }); // warm-up
  progress('full feeds, identity');
  const identity = await phase({});
  progress('full feeds, gzip');
  const gzip = await phase({ 'accept-encoding': 'gzip' });
  progress('conditional requests');
  const conditional = await phase({ 'if-none-match': etag });
  return {
    feed_bytes: body.length,
    full_feed_identity: identity,
    full_feed_gzip: gzip,
    not_modified: { ...conditional, answered_per_s: answered(conditional) },
  };
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-export-'));
  const dataFile = join(dir, 'calendar.db');
  let child: ChildProcess | undefined;
  try {
    const loadBefore = loadavg()[0];
    progress(`seeding ${eventCount} events into ${dataFile}`);
    const seeded = await seed(dataFile);
    progress('rendering (child process)');
    const render = await renderInChild(dataFile);
    const server = await startServe({ dataFile, args: ['--site', SITE], cpuProfDir: opts['cpu-prof'] });
    child = server.child;
    progress(`server at ${server.origin}, ${connections} connections, ${seconds} s per phase`);
    const serve = await servePhase(server.origin);
    const fullPerS = Math.max(serve.full_feed_identity.per_s, serve.full_feed_gzip.per_s);
    const met = {
      render_ics_ms: render.ics.median_ms <= GOALS.render_ics_ms,
      not_modified_per_s:
        (serve.not_modified.status_codes['304'] ?? 0) / serve.not_modified.duration_s >=
        GOALS.not_modified_per_s,
      full_feeds_per_s: fullPerS >= GOALS.full_feeds_per_s,
    };
    const report = {
      machine: {
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model,
        node: process.version,
        loadavg_1m: { before: round(loadBefore, 2), after: round(loadavg()[0], 2) },
      },
      seeded_events: seeded,
      render,
      serve: { connections, seconds, ...serve },
      goals: GOALS,
      met: { ...met, all: Object.values(met).every(Boolean) },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } finally {
    if (child) await stopServe(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (opts['render-only']) process.stdout.write(JSON.stringify(await renderPhase(opts['render-only'])));
else process.exitCode = await main();
