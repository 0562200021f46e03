/**
 * `npm run -s bench:import [-- --events 10000]`: `npm run import` end to end on a generated calendar
 * (bench/generate-ics.ts: 500 venues, 300 organizers, 40 categories, 10% weekly series with EXDATEs and
 * overrides, five zones) into the local target on a fresh SQLite file, printed as one JSON document on
 * stdout. The import runs as its own process, exactly as the npm script runs it (same Node flags), so that
 * its peak RSS is its own.
 *
 * Figures: the source stage alone (parse + expand + map, in this process), the first import (events/s
 * over the run, parse included; HTTP requests per entity; peak RSS) and the unchanged re-run (writes, and
 * seconds beyond the source stage). Goals (issue 3, raised by issue 17): ≥ 3,000 events/s, ≤ 1.02 writes
 * per entity, 0 writes and ≤ 1 s beyond parsing on the re-run, peak RSS ≤ 200 MB; `met` says which hold.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import { DEFAULT_MAPPING } from '../src/pipeline/definition.ts';
import { mapRecords } from '../src/pipeline/map.ts';
import type { RunReport } from '../src/pipeline/report.ts';
import { readIcs } from '../src/sources/ics/index.ts';
import { generateIcsWithStats } from './generate-ics.ts';

const GOALS = { events_per_s: 3000, writes_per_entity: 1.02, rerun_beyond_source_s: 1, peak_rss_mb: 200 };
const DAY = 86_400_000;
const ROOT = resolve(import.meta.dirname, '..');
const NOW = new Date('2027-01-01T00:00:00Z');

const { values: opts } = parseArgs({ options: { events: { type: 'string', default: '10000' } } });
const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-import-'));
const log = (s: string) => process.stderr.write(`${s}\n`);

/** `npm run import -- file --data … --report …` as a child process: its report, wall-clock and CPU seconds. */
function importOnce(
  file: string,
  name: string,
): { report: RunReport; wallSeconds: number; cpuSeconds: number } {
  const reportFile = join(dir, `${name}.json`);
  const cpuFile = join(dir, `${name}.cpu.json`);
  // The script's own command line, so that the Node flags measured are the ones users get.
  // Paths in them (./bin/compile-cache.js) are the package folder's.
  const [, ...flags] = pkg.scripts.import
    .split(' ')
    .slice(0, -1)
    .map((word) => (word.startsWith('./') ? join(ROOT, word) : word));
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    [
      ...flags,
      '--import',
      join(ROOT, 'bench/cpu-at-exit.ts'),
      join(ROOT, 'src/cli/import.ts'),
      file,
      '--data',
      join(dir, 'calendar.db'),
      '--report',
      reportFile,
    ],
    {
      env: { ...process.env, CALSYNC_NOW: NOW.toISOString(), CALSYNC_BENCH_CPU_FILE: cpuFile },
      encoding: 'utf8',
    },
  );
  const wallSeconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`import exited ${child.status}:\n${child.stdout}\n${child.stderr}`);
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user_s: number; system_s: number };
  return {
    report: JSON.parse(readFileSync(reportFile, 'utf8')),
    wallSeconds,
    cpuSeconds: cpu.user_s + cpu.system_s,
  };
}

const writes = (r: RunReport) => (r.requests.POST ?? 0) + (r.requests.PUT ?? 0) + (r.requests.DELETE ?? 0);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

try {
  const { ics, stats } = generateIcsWithStats({ events: Number(opts.events), start: NOW });
  const file = join(dir, 'calendar.ics');
  writeFileSync(file, ics);
  log(`generated ${stats.vevents} VEVENTs (${(ics.length / 1e6).toFixed(1)} MB)`);

  // The source stage alone, as a re-run pays it (import's window: 30 days back, 365 ahead).
  const sourceStart = performance.now();
  const { records } = readIcs(readFileSync(file), {
    file,
    window: { from: new Date(NOW.getTime() - 30 * DAY), to: new Date(NOW.getTime() + 365 * DAY) },
  });
  const { entities } = mapRecords(records, {
    pipeline: 'import-calendar-ics',
    timezone: 'UTC',
    ...DEFAULT_MAPPING,
  });
  const sourceSeconds = (performance.now() - sourceStart) / 1000;
  log(
    `source stage: ${records.length} records, ${entities.length} entities in ${sourceSeconds.toFixed(2)} s`,
  );

  const loadBefore = loadavg()[0];
  const first = importOnce(file, 'first');
  log(`first import: ${first.wallSeconds.toFixed(2)} s`);
  const rerun = importOnce(file, 'rerun');
  log(`re-run: ${rerun.wallSeconds.toFixed(2)} s`);

  const runSeconds = first.report.durationMs / 1000;
  const events = first.report.counts.event.created;
  const figures = {
    // The 1-minute load average before the first import and after the re-run: other work on the machine.
    machine: {
      cpus: cpus().length,
      load: `${loadBefore.toFixed(2)}–${loadavg()[0].toFixed(2)}`,
      node: process.version,
    },
    input: { ...stats, bytes: ics.length, records: records.length, entities: entities.length },
    source_stage_s: round(sourceSeconds),
    first: {
      run_s: round(runSeconds),
      wall_s: round(first.wallSeconds),
      // The import process's CPU time (all threads), comparable across machine load where wall time is not.
      cpu_s: round(first.cpuSeconds),
      events,
      events_per_s: Math.round(events / runSeconds),
      writes: writes(first.report),
      requests: first.report.requests,
      writes_per_entity: round(writes(first.report) / entities.length, 3),
      failed: first.report.failures.length,
      peak_rss_mb: first.report.peakRssMb,
    },
    rerun: {
      run_s: round(rerun.report.durationMs / 1000),
      wall_s: round(rerun.wallSeconds),
      cpu_s: round(rerun.cpuSeconds),
      beyond_source_stage_s: round(rerun.report.durationMs / 1000 - sourceSeconds),
      writes: writes(rerun.report),
      unchanged: rerun.report.counts.event.unchanged,
      peak_rss_mb: rerun.report.peakRssMb,
    },
    goals: GOALS,
  };
  const met = {
    events_per_s: figures.first.events_per_s >= GOALS.events_per_s,
    writes_per_entity: figures.first.writes_per_entity <= GOALS.writes_per_entity,
    rerun: figures.rerun.writes === 0 && figures.rerun.beyond_source_stage_s <= GOALS.rerun_beyond_source_s,
    peak_rss_mb: Math.max(figures.first.peak_rss_mb, figures.rerun.peak_rss_mb) <= GOALS.peak_rss_mb,
  };
  const output = { ...figures, met: { ...met, all: Object.values(met).every(Boolean) } };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
