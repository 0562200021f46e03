/**
 * `npm run bench:lists [-- --events 10000 --connections 50 --seconds 5]`: event list pages (per_page=50)
 * against the socket's own speed, printed as one JSON document on stdout (progress on stderr).
 *
 * A fresh SQLite file gets `--events` events through the API of `src/cli/serve.ts` (a child process).
 * Kept pages: one page asked for again and again, in identity, gzip and br, by undici clients
 * (bench/closed-loop.ts); the anchor is a bare Fastify server (bench/bare-fastify.ts, also a child
 * process) sending exactly the same headers and bytes, and the ratio of the two rates is printed.
 * Pages made afresh: the same server with its response cache off (`--cache-mb 0`, what a page costs
 * right after a write), random pages of the whole list.
 *
 * Goals (issue 17): kept pages ≥ 0.8× the bare server sending the same bytes; pages made afresh
 * ≥ 1,000/s at 10,000 events.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { openSqliteStore } from '../src/store/sqlite.ts';
import { closedLoop, type LoopFigures } from './closed-loop.ts';
import { benchEditor, type ServeProcess, seedEvents, startServe, stopServe } from './serve-process.ts';

const GOALS = { kept_vs_bare: 0.8, fresh_pages_per_s: 1000 };
const NS = '/calendar/events/v1';
const PER_PAGE = 50;
const CODINGS = ['identity', 'gzip', 'br'] as const;

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '5' },
    'warmup-seconds': { type: 'string', default: '1' },
    /** A seeded file to reuse (made and seeded when it does not exist): repeated runs skip seeding. */
    data: { type: 'string' },
    /** `kept` or `fresh`: that part only. */
    only: { type: 'string' },
    /** Write the servers' CPU profiles into this folder (node --cpu-prof). */
    'cpu-prof': { type: 'string' },
  },
});
const events = Number(opts.events);
const connections = Number(opts.connections);
const seconds = Number(opts.seconds);
const warmupSeconds = Number(opts['warmup-seconds']);
const only = opts.only as 'kept' | 'fresh' | undefined;
const cpuProfDir = opts['cpu-prof'];
const progress = (s: string) => process.stderr.write(`bench:lists: ${s}\n`);
const round2 = (x: number) => Math.round(x * 100) / 100;

interface KeptFigures {
  bytes: number;
  pages_per_s: number;
  p99_ms: number;
  server_cpu_us_per_page: number;
  bare_fastify_per_s: number;
  bare_cpu_us_per_page: number;
  ratio: number;
}

/** User + system CPU of a child process so far, ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const perRequestUs = (ms: number, requests: number) => Math.round((ms * 1000) / Math.max(1, requests));

/** Starts bench/bare-fastify.ts on `dir` and waits for its address. */
async function startBare(dir: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'bare-fastify.ts'), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const origin = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`bare-fastify exited with code ${code}`)));
    lines.on('line', (line) => {
      const m = /^listening at (\S+)/.exec(line);
      if (m) done(m[1]);
    });
  });
  return { child, origin };
}

/** Requests/s of GET `path` with these headers, after a warm-up. */
async function rate(origin: string, path: string, headers: Record<string, string>) {
  const requests = [{ name: 'page', method: 'GET' as const, path, headers }];
  await closedLoop({ origin, connections, seconds: warmupSeconds, requests });
  return closedLoop({ origin, connections, seconds, requests });
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-lists-'));
  const dataFile = opts.data ? resolve(opts.data) : join(dir, 'calendar.db');
  // The editor's header of a reused file is kept beside it.
  const authFile = `${dataFile}.auth`;
  const reuse = opts.data !== undefined && existsSync(dataFile) && existsSync(authFile);
  const children: ChildProcess[] = [];
  let server: ServeProcess | undefined;
  const cleanUp = async () => {
    if (server) await stopServe(server.child);
    for (const c of children) await stopServe(c);
    rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  try {
    const loadBefore = loadavg()[0];
    if (!reuse) {
      const store = openSqliteStore(dataFile);
      const auth = (await benchEditor(store)).authorization;
      await store.close();
      server = await startServe({ dataFile, args: ['--host', '127.0.0.1'] });
      progress(`seeding ${events} events`);
      await seedEvents(server.origin, auth, events);
      if (opts.data) writeFileSync(authFile, auth);
      await stopServe(server.child);
    } else progress(`reusing ${dataFile} (its ${events} events are not checked)`);
    const kept: Record<string, KeptFigures> = {};
    if (only !== 'fresh') {
      server = await startServe({ dataFile, args: ['--host', '127.0.0.1'], cpuProfDir });
      // The same page's bytes and headers, per coding, for the bare server to send.
      const page = `${NS}/events?per_page=${PER_PAGE}&page=2`;
      const bareDir = join(dir, 'bare');
      mkdirSync(bareDir);
      const pageBytes: Record<string, number> = {};
      for (const coding of CODINGS) {
        const headers = coding === 'identity' ? {} : { 'accept-encoding': coding };
        const res = await request(`${server.origin}${page}`, { headers });
        const body = Buffer.from(await res.body.arrayBuffer());
        const keptHeaders = Object.fromEntries(
          Object.entries(res.headers).filter(
            ([k]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(k),
          ),
        );
        writeFileSync(join(bareDir, `${coding}.json`), JSON.stringify({ headers: keptHeaders }));
        writeFileSync(join(bareDir, `${coding}.body`), body);
        pageBytes[coding] = body.length;
      }
      const bare = await startBare(bareDir);
      children.push(bare.child);
      for (const coding of CODINGS) {
        progress(`kept page, ${coding}`);
        const headers: Record<string, string> = coding === 'identity' ? {} : { 'accept-encoding': coding };
        const cpuBefore = cpuMs(server.child);
        const ours = await rate(server.origin, page, headers);
        const ourCpu = cpuMs(server.child) - cpuBefore;
        const bareBefore = cpuMs(bare.child);
        const anchor = await rate(bare.origin, `/${coding}`, {});
        const bareCpu = cpuMs(bare.child) - bareBefore;
        kept[coding] = {
          bytes: pageBytes[coding],
          pages_per_s: ours.requests_per_s,
          p99_ms: ours.p99_ms,
          server_cpu_us_per_page: perRequestUs(ourCpu, ours.requests),
          bare_fastify_per_s: anchor.requests_per_s,
          bare_cpu_us_per_page: perRequestUs(bareCpu, anchor.requests),
          ratio: round2(ours.requests_per_s / anchor.requests_per_s),
        };
      }
      await stopServe(server.child);
      server = undefined;
    }
    let fresh: (LoopFigures & { server_cpu_us_per_page: number }) | undefined;
    if (only !== 'kept') {
      server = await startServe({
        dataFile,
        args: ['--host', '127.0.0.1', '--cache-mb', '0'],
        cpuProfDir,
      });
      progress('pages made afresh (response cache off), random pages');
      const pages = Math.ceil(events / PER_PAGE);
      let n = 0;
      const cpuBefore = cpuMs(server.child);
      const figures = await closedLoop({
        origin: server.origin,
        connections,
        seconds,
        requests: Array.from({ length: 97 }, () => ({
          name: 'page',
          method: 'GET' as const,
          path: `${NS}/events?per_page=${PER_PAGE}&page=${1 + ((n++ * 37) % pages)}`,
          headers: {},
        })),
      });
      fresh = {
        ...figures,
        server_cpu_us_per_page: perRequestUs(cpuMs(server.child) - cpuBefore, figures.requests),
      };
    }
    const ratios = Object.values(kept).map((k) => k.ratio);
    const met = {
      kept_vs_bare: ratios.length > 0 && Math.min(...ratios) >= GOALS.kept_vs_bare,
      fresh_pages_per_s: fresh !== undefined && fresh.requests_per_s >= GOALS.fresh_pages_per_s,
    };
    const report = {
      machine: {
        cpus: cpus().length,
        node: process.version,
        loadavg_1m: { before: round2(loadBefore), after: round2(loadavg()[0]) },
      },
      events_seeded: events,
      connections,
      per_page: PER_PAGE,
      kept,
      fresh: fresh && {
        pages_per_s: fresh.requests_per_s,
        p50_ms: fresh.p50_ms,
        p99_ms: fresh.p99_ms,
        server_cpu_us_per_page: fresh.server_cpu_us_per_page,
        client_cpu_ms_per_request: fresh.client_cpu_ms_per_request,
      },
      goals: GOALS,
      met: { ...met, all: Object.values(met).every(Boolean) },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.met.all ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

process.exitCode = await main();
