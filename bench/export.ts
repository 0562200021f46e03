/**
 * `npm run -s bench:export [-- --sizes 1000,10000,50000,100000 | --events 10000] [--runs 3]
 * [--only load,calsync,ical-generator,csv,first-feed,serve] [--keep <dir>] [--connections 10 --seconds 5]
 * [--cpu-prof <dir>]`: the .ics render against ical-generator alone, and the served feed, at each size,
 * printed as one JSON document on stdout (progress on stderr).
 *
 * Each size gets a fresh SQLite file (`--keep`: kept in that folder and reused), seeded once, unmeasured,
 * through the server's request path in-process (src/server/in-process.ts, the local import target's path:
 * the route handlers with the app's authentication and body parsing, 64 requests per group commit) with
 * the varied bodies of bench/event-bodies.ts (seven IANA zones and UTC, venues, organizers, categories,
 * tags, next year, so the default feed window holds them all). Then, `--runs` times, interleaved (load,
 * calsync, ical-generator, csv, first-feed, load, …) so that all see the same load of the machine, each
 * part in a process of its own so that its peak RSS is its own:
 * - `load`: the `all` feed's events read from the store and rendered to the wire (`loadStoreFeed`); peak
 *   RSS of the whole process;
 * - `calsync`: the same load, not timed, then `eventsToIcal` of those wire events (src/export/ical.ts);
 * - `ical-generator`: the same load, then the same events as ical-generator's input (`ICalEventData`, the
 *   values calsync gives it, made before the clock: `input_cpu_ms`, see `anchor`), then timed: one
 *   `ICalCalendar` with all of them, its VTIMEZONEs from the same generator, and `toString()`;
 * - `csv`: the same load, then `eventsToCsv` (src/render/csv.ts), beside the .ics;
 * - `first-feed`: `src/cli/serve.ts` started on the file, and the first GET /feeds/all.ics right after
 *   it listens (no feed rendered yet: its render thread starts, loads, renders each VEVENT, hashes):
 *   time to the response's head and to its last byte, the server's CPU for it (all threads, /proc) and
 *   the server's peak RSS (VmHWM) after it — what a feed's first subscriber waits for after a restart.
 * A renderer's first render in its process is timed (cold, as a feed's first request) and a second one
 * (warm); its peak RSS is the process's during the first render (garbage collected and the peak reset
 * just before it: /proc/self/clear_refs), `rss_before_mb` what the loaded events already held. Medians of
 * the runs are printed, and ratios calsync ÷ ical-generator judged on CPU time (user + system), which
 * other processes on a shared machine change far less than wall time. Then `serve` (once per size): the
 * server serves /feeds/all.ics to autocannon over loopback: whole feeds from its cache (identity and
 * gzip), and conditional requests answered 304.
 *
 * Goals (issue 5, issue 17): 10,000 events render to .ics in ≤ 300 ms (warm); calsync's render ≤
 * ical-generator's alone (CPU, cold and warm, every size); ≥ 5,000 conditional 304s per second; ≥ 100 full
 * 10,000-event feeds per second served from cache. The goals at 10,000 events are judged when that size
 * runs.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ICalEventData } from 'ical-generator';
import { feedSpec } from '../src/export/feed-spec.ts';
import { type FeedEvents, loadStoreFeed } from '../src/export/store-feed.ts';
import type { WireEvent } from '../src/render/wire.ts';
import { resolveConfig } from '../src/server/config.ts';
import { openSqliteStore } from '../src/store/sqlite.ts';
import { eventBodies } from './event-bodies.ts';
// The parent's own modules (the API's handlers, the load generator, argon2) are imported where it uses
// them, so that they are not in the children's RSS (~17 MB).
import type { Figures } from './load.ts';

const GOALS = {
  render_ics_ms: 300,
  ics_cpu_vs_ical_generator: 1,
  not_modified_per_s: 5000,
  full_feeds_per_s: 100,
};
const SITE = 'http://127.0.0.1:8080';
const PARTS = ['load', 'calsync', 'ical-generator', 'csv', 'first-feed', 'serve'] as const;
type Part = (typeof PARTS)[number];
/** The parts that run `--runs` times in child processes; `serve` runs once per size. */
const CHILD_PARTS = ['load', 'calsync', 'ical-generator', 'csv'] as const;
type ChildPart = (typeof CHILD_PARTS)[number];

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,50000,100000' },
    /** One size (the earlier form of this benchmark): wins over `--sizes`. */
    events: { type: 'string' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    /** Keep the seeded files in this folder (`events-<size>.db`), and reuse those already there. */
    keep: { type: 'string' },
    /** Write the first-feed servers' CPU profiles into this folder (`node --cpu-prof`). */
    'cpu-prof': { type: 'string' },
    /** Internal: measure this part on the `--data` file and print its figures as JSON. */
    child: { type: 'string' },
    data: { type: 'string' },
  },
});
const connections = Number(opts.connections);
const seconds = Number(opts.seconds);
const progress = (s: string) => process.stderr.write(`bench:export: ${s}\n`);
const YEAR = new Date().getUTCFullYear() + 1;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const MB = 1024 * 1024;

/** `count` events written through the API's handlers in-process, 64 per group commit (as an import does). */
async function seed(dataFile: string, count: number): Promise<number> {
  const { inProcessApi } = await import('../src/server/in-process.ts');
  const { benchEditor } = await import('./serve-process.ts');
  const store = openSqliteStore(dataFile);
  try {
    const { login } = await benchEditor(store);
    const user = (await store.findUser(login))!;
    const api = await inProcessApi({
      store,
      siteUrl: SITE,
      responseCache: { maxEntries: 0, maxBytes: 0 },
      renderCacheBytes: 4_000_000,
      renderCacheEvents: false,
      schemes: { local: async () => user },
    });
    const url = `${api.core.config.apiPrefix}/calendar/events/v1/events`;
    const headers = { authorization: 'Local bench', 'content-type': 'application/json' };
    const next = eventBodies(YEAR);
    let created = 0;
    for (let start = 0; start < count; start += 64) {
      await store.beginGroup();
      const answers = await Promise.all(
        Array.from({ length: Math.min(64, count - start) }, () =>
          api.call({ method: 'POST', url, headers, payload: next() }),
        ),
      );
      await store.commitGroup();
      for (const a of answers) {
        if (a?.status !== 201) throw new Error(`seeding: ${a?.status} ${a?.body.toString()}`);
        created++;
      }
      if (start % 10_000 === 0 && start > 0) progress(`seeding: ${start} events`);
    }
    return created;
  } finally {
    await store.close();
  }
}

// ——— The child processes ———

interface ChildFigures {
  events: number;
  ms: number;
  cpu_ms: number;
  /** Renderers: the second render in the process. */
  warm_ms?: number;
  warm_cpu_ms?: number;
  /** Renderers: making the renderer's input from the wire events, before the clock (the anchor's). */
  input_cpu_ms?: number;
  /** Renderers: RSS right before the first render (the loaded events in it, garbage collected). */
  rss_before_mb?: number;
  /** `load`: the process's peak RSS; renderers: the peak during the first render. */
  peak_rss_mb: number;
  /** Renderers: the process's peak RSS, the load's included, after the first render. */
  process_peak_rss_mb?: number;
  bytes?: number;
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

function timed<T>(fn: () => T): { ms: number; cpu_ms: number; value: T } {
  const cpu = cpuNow();
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, cpu_ms: cpuNow() - cpu, value };
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

/** Resets this process's peak RSS (VmHWM) to its current RSS (Linux, /proc/<pid>/clear_refs). */
function peakReset(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function childPart(part: ChildPart, dataFile: string): Promise<ChildFigures> {
  // Read-only, as the server's feed render thread opens the file (src/server/feed-render-worker.ts).
  const store = openSqliteStore(dataFile, { readOnly: true });
  const cfg = resolveConfig({ siteUrl: SITE });
  const feed = feedSpec({ name: 'all' });
  const now = new Date();
  try {
    // The renderers' modules are loaded before any clock starts.
    const render = part === 'load' ? null : await RENDERERS[part]();
    const cpu = cpuNow();
    const started = performance.now();
    const data = await loadStoreFeed(store, cfg, feed, now);
    if (!render) {
      return {
        events: data.events.length,
        ms: performance.now() - started,
        cpu_ms: cpuNow() - cpu,
        peak_rss_mb: peakRssMb(),
      };
    }
    // The anchor's input made from the wire events (the mapping calsync's render does inside its clock).
    const input = timed(() => render(data, cfg.host));
    const run = input.value;
    // The render's own peak: the garbage of the load and of making the anchor's input collected, and the
    // peak RSS counted from here (VmHWM, reset by clear_refs; the process's whole peak is `maxRSS`).
    globalThis.gc?.();
    const resetPeak = peakReset();
    const rssBefore = process.memoryUsage.rss() / MB;
    const first = timed(run);
    const peak = resetPeak ? vmHwmMb('self') : peakRssMb();
    const processPeak = peakRssMb();
    const second = timed(run);
    return {
      events: data.events.length,
      ms: first.ms,
      cpu_ms: first.cpu_ms,
      warm_ms: second.ms,
      warm_cpu_ms: second.cpu_ms,
      input_cpu_ms: input.cpu_ms,
      rss_before_mb: rssBefore,
      peak_rss_mb: peak,
      process_peak_rss_mb: processPeak,
      bytes: Buffer.byteLength(first.value),
    };
  } finally {
    await store.close();
  }
}

type Renderer = (data: FeedEvents, host: string) => () => string;

/** The options bench/export.ts has always rendered with: no clock in them, so runs render the same bytes. */
const CALENDAR = { calendarName: 'bench', refreshMinutes: 60 };

async function calsyncRender(): Promise<Renderer> {
  const { eventsToIcal } = await import('../src/export/ical.ts');
  return (data, host) => () =>
    eventsToIcal(data.events, {
      host,
      ...CALENDAR,
      sequence: (e) => data.sequences.get(e.id) ?? 0,
      cancelled: (e) => data.cancelled.has(e.id),
    });
}

async function csvRender(): Promise<Renderer> {
  const { eventsToCsv } = await import('../src/render/csv.ts');
  return (data) => () => eventsToCsv(data.events);
}

/**
 * ical-generator alone on the same events: what calsync's `eventData` (src/export/ical.ts) hands it, made
 * before the clock by that function itself (entities decoded, HTML to text, the venue's one-line address),
 * so that the clock covers the library's own work: its events built from that data, then `toString()` of
 * the calendar holding them all (which folds the whole text). Zoned times are luxon DateTimes in the
 * event's zone with the event's `timezone` set, the way ical-generator's README gives them (calsync passes
 * objects shaped like a Temporal.ZonedDateTime instead, src/export/wall-time.ts, which Node 24 does not
 * have); the VTIMEZONEs come from calsync's generator (src/export/vtimezone.ts) through the calendar's
 * `timezone.generator`, for the years each zone's events need (calsync's blocks are per zone and years).
 *
 * What differs in the output, all that the library allows (same VEVENTs, same properties otherwise):
 * - REFRESH-INTERVAL/X-PUBLISHED-TTL stand after the VTIMEZONEs (calsync writes them before, with the
 *   calendar's other lines);
 * - no IMAGE line for an event's image (ical-generator has none; ATTACH is written by both), and no CRLF
 *   after END:VCALENDAR — neither appears in these events' feed but the last.
 */
async function anchor(): Promise<Renderer> {
  const { ICalCalendar, ICalCalendarMethod } = await import('ical-generator');
  const { DateTime } = await import('luxon');
  const { eventData } = await import('../src/export/ical.ts');
  const { vtimezone } = await import('../src/export/vtimezone.ts');
  return (data, host) => {
    const zoneYears = new Map<string, Set<number>>();
    const opts = {
      host,
      sequence: (e: WireEvent) => data.sequences.get(e.id) ?? 0,
      cancelled: (e: WireEvent) => data.cancelled.has(e.id),
    };
    const instant = (wire: string) => Date.parse(`${wire.replace(' ', 'T')}Z`);
    const events = data.events.map((e): ICalEventData => {
      const d = eventData(e, opts, zoneYears);
      // Zoned times as luxon DateTimes, the way ical-generator's README gives them, from the same instants.
      if (d.timezone) {
        d.start = DateTime.fromMillis(instant(e.utc_start_date), { zone: d.timezone });
        d.end = DateTime.fromMillis(instant(e.utc_end_date), { zone: d.timezone });
      }
      return d;
    });
    return () =>
      new ICalCalendar({
        prodId: '//calsync//calendar/events/v1//EN',
        scale: 'GREGORIAN',
        method: ICalCalendarMethod.PUBLISH,
        name: CALENDAR.calendarName,
        ttl: CALENDAR.refreshMinutes * 60,
        // No calendar zone name (it would add TIMEZONE-ID and shift DTSTAMP), only the VTIMEZONE generator.
        timezone: { name: null, generator: (tz) => vtimezone(tz, zoneYears.get(tz) ?? []) },
        events,
      }).toString();
  };
}

const RENDERERS: Record<Exclude<ChildPart, 'load'>, () => Promise<Renderer>> = {
  calsync: calsyncRender,
  'ical-generator': anchor,
  csv: csvRender,
};

// ——— The parent ———

function runChild(part: ChildPart, dataFile: string): ChildFigures {
  const args = ['--expose-gc', import.meta.filename, '--child', part, '--data', dataFile];
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 16 * MB,
  });
  if (child.status !== 0) {
    const how = child.signal ? `was killed by ${child.signal}` : `exited with code ${child.status}`;
    throw new Error(`${how}: ${child.error?.message ?? child.stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
  return JSON.parse(child.stdout) as ChildFigures;
}

/** User + system CPU of a process so far, ms (/proc/<pid>/stat, all its threads, in ticks of 10 ms). */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Peak RSS (VmHWM) of a process so far, MB. */
const vmHwmMb = (pid: number | 'self') => statusMb(pid, 'VmHWM');
/** RSS (VmRSS) of a process now, MB. */
const vmRssMb = (pid: number | 'self') => statusMb(pid, 'VmRSS');

function statusMb(pid: number | 'self', field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

interface FirstFeed {
  status: number;
  bytes: number;
  /** From the request to the response's head. */
  head_ms: number;
  /** From the request to its last byte. */
  ms: number;
  /** The server's CPU (all threads) during the request. */
  cpu_ms: number;
  /** The server's RSS when it listened, its peak after the answer, and what it still holds 2 s later. */
  rss_listening_mb: number;
  peak_rss_mb: number;
  rss_after_mb: number;
}

/** The first GET /feeds/all.ics of a server started on `dataFile`, right after it listens. */
async function firstFeed(dataFile: string): Promise<FirstFeed> {
  const { startServe, stopServe } = await import('./serve-process.ts');
  const server = await startServe({ dataFile, args: ['--site', SITE], cpuProfDir: opts['cpu-prof'] });
  const pid = server.child.pid!;
  try {
    const rssListening = vmHwmMb(pid);
    const cpu = procCpuMs(pid);
    const started = performance.now();
    const res = await fetch(`${server.origin}/feeds/all.ics`);
    const headMs = performance.now() - started;
    const body = await res.arrayBuffer();
    const ms = performance.now() - started;
    const cpuMs = procCpuMs(pid) - cpu;
    const peak = vmHwmMb(pid);
    await new Promise((done) => setTimeout(done, 2000));
    return {
      status: res.status,
      bytes: body.byteLength,
      head_ms: headMs,
      ms,
      cpu_ms: cpuMs,
      rss_listening_mb: rssListening,
      peak_rss_mb: peak,
      rss_after_mb: vmRssMb(pid),
    };
  } finally {
    await stopServe(server.child);
  }
}

/** Responses of any status per second (a 304 is not a 2xx, which `load`'s `per_s` counts). */
const answered = (f: Figures) => round(f.requests / f.duration_s, 0);

/** The served feed under load: whole feeds from the server's cache, and conditional requests. */
async function serveLoad(dataFile: string) {
  const { startServe, stopServe } = await import('./serve-process.ts');
  const { load } = await import('./load.ts');
  let child: ChildProcess | undefined;
  try {
    const server = await startServe({ dataFile, args: ['--site', SITE] });
    child = server.child;
    const origin = server.origin;
    const path = '/feeds/all.ics';
    const res = await fetch(origin + path);
    const etag = res.headers.get('etag') ?? '';
    const feedBytes = (await res.arrayBuffer()).byteLength;
    const phase = (headers: Record<string, string>) =>
      load({ origin, connections, method: 'GET', seconds, headers, next: () => ({ path }) });
    await load({ origin, connections, method: 'GET', seconds: 1, next: () => ({ path }) }); // warm-up
    progress(`  serve: full feeds, identity (${connections} connections, ${seconds} s)`);
    const identity = await phase({});
    progress('  serve: full feeds, gzip');
    const gzip = await phase({ 'accept-encoding': 'gzip' });
    progress('  serve: conditional requests');
    const conditional = await phase({ 'if-none-match': etag });
    return {
      connections,
      seconds,
      feed_bytes: feedBytes,
      full_feed_identity: identity,
      full_feed_gzip: gzip,
      not_modified: { ...conditional, answered_per_s: answered(conditional) },
    };
  } finally {
    if (child) await stopServe(child);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Medians of each numeric field over the runs (the counts are the same in every run). */
function medians<T extends object>(runs: T[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(runs[0]))
    out[key] = round(median(runs.map((r) => (r as Record<string, number>)[key])), 1);
  return out;
}

interface Row {
  events: number;
  /** Runs that failed, with the reason. */
  failed?: string[];
  /** By part, the medians of its runs. */
  medians: Partial<Record<Part, Record<string, number>>>;
  calsync_vs_ical_generator?: Record<
    'cpu' | 'wall' | 'warm_cpu' | 'cpu_with_input' | 'peak_rss' | 'rss_growth',
    number
  >;
  serve?: Awaited<ReturnType<typeof serveLoad>>;
}

async function measureSize(size: number, parts: readonly Part[], runs: number) {
  const dir = opts.keep ? resolve(opts.keep) : mkdtempSync(join(tmpdir(), 'calsync-bench-export-'));
  mkdirSync(dir, { recursive: true });
  const dataFile = join(dir, `events-${size}.db`);
  try {
    if (existsSync(dataFile)) progress(`${size}: reusing ${dataFile}`);
    else {
      const seedStarted = performance.now();
      const seeded = await seed(dataFile, size);
      const s = ((performance.now() - seedStarted) / 1000).toFixed(1);
      progress(`${size}: seeded ${seeded} events in ${s} s`);
    }
    const all = new Map<Part, object[]>();
    const failed: string[] = [];
    for (let i = 1; i <= runs; i++) {
      for (const part of parts) {
        if (part === 'serve') continue;
        try {
          const f = part === 'first-feed' ? await firstFeed(dataFile) : runChild(part, dataFile);
          all.set(part, [...(all.get(part) ?? []), f]);
          progress(
            `  ${part} run ${i}: ${f.ms.toFixed(0)} ms, ${f.cpu_ms.toFixed(0)} ms CPU, ${f.peak_rss_mb.toFixed(0)} MB peak`,
          );
        } catch (err) {
          // A run that failed (out of memory, say) is reported, and the others still measured.
          const message = `${part} run ${i}: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`;
          failed.push(message);
          progress(`  ${message}`);
        }
      }
    }
    const row: Row = { events: size, medians: {}, ...(failed.length > 0 ? { failed } : {}) };
    for (const [part, list] of all) row.medians[part] = medians(list);
    const ours = all.get('calsync') as ChildFigures[] | undefined;
    const theirs = all.get('ical-generator') as ChildFigures[] | undefined;
    if (ours && theirs) {
      const ratio = (by: (f: ChildFigures) => number) =>
        round(median(ours.map(by)) / median(theirs.map(by)), 2);
      row.calsync_vs_ical_generator = {
        cpu: ratio((f) => f.cpu_ms),
        wall: ratio((f) => f.ms),
        warm_cpu: ratio((f) => f.warm_cpu_ms ?? 0),
        // ical-generator with the making of its input from the wire events counted too.
        cpu_with_input: ratio((f) => f.cpu_ms + (f.input_cpu_ms ?? 0)),
        peak_rss: ratio((f) => f.peak_rss_mb),
        // What the render adds to the process beyond the loaded events.
        rss_growth: ratio((f) => f.peak_rss_mb - (f.rss_before_mb ?? 0)),
      };
    }
    if (parts.includes('serve')) row.serve = await serveLoad(dataFile);
    return row;
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const sizes = (opts.events ?? opts.sizes).split(',').map(Number);
  const runs = Math.max(1, Number(opts.runs));
  const parts = PARTS.filter((p) => opts.only === undefined || opts.only.split(',').includes(p));
  const loadBefore = loadavg()[0];
  const rows: Row[] = [];
  for (const size of sizes) {
    rows.push(await measureSize(size, parts, runs));
    progress(`${size}: done, load ${loadavg()[0].toFixed(2)}`);
  }
  const at10k = rows.find((r) => r.events === 10_000);
  const met: Record<string, boolean> = {};
  const ics10k = at10k?.medians.calsync;
  if (ics10k) met.render_ics_ms = ics10k.warm_ms <= GOALS.render_ics_ms;
  const ratios = rows.flatMap((r) => (r.calsync_vs_ical_generator ? [r.calsync_vs_ical_generator] : []));
  if (ratios.length > 0)
    met.ics_cpu_vs_ical_generator = ratios.every(
      (r) => Math.max(r.cpu, r.warm_cpu) <= GOALS.ics_cpu_vs_ical_generator,
    );
  if (at10k?.serve) {
    const s = at10k.serve;
    met.not_modified_per_s =
      (s.not_modified.status_codes['304'] ?? 0) / s.not_modified.duration_s >= GOALS.not_modified_per_s;
    met.full_feeds_per_s =
      Math.max(s.full_feed_identity.per_s, s.full_feed_gzip.per_s) >= GOALS.full_feeds_per_s;
  }
  const report = {
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      node: process.version,
      loadavg_1m: { before: round(loadBefore, 2), after: round(loadavg()[0], 2) },
    },
    runs,
    sizes: rows,
    goals: GOALS,
    met: { ...met, all: Object.values(met).every(Boolean) },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.met.all ? 0 : 1;
}

if (opts.child !== undefined) {
  const figures = await childPart(opts.child as ChildPart, opts.data ?? '');
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else process.exitCode = await main();
