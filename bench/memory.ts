/**
 * `npm run -s bench:memory [-- --sizes 1000,10000,50000,100000] [--rerun] [--target local|none]`: peak RSS,
 * time and CPU of `npm run import` as the file grows (issue 17: memory must not grow with the file), plus
 * the two samples. Each import runs as its own process with the npm script's Node flags, under
 * /usr/bin/time, so its peak RSS and CPU are its own (the kernel's maxrss, also what the report's
 * peakRssMb reads). Printed as one JSON document on stdout, with the machine's load before and after.
 *
 * Each figure is of a run with Node's compile cache filled (one import before them fills it, unmeasured).
 *
 * `--rerun` also times the unchanged re-run of each file (state and store then hold every event).
 * `--dry-run` plans instead (no target opened when the store does not exist: the source stage alone).
 *
 * Goals (issue 17): the .ics sample ≤ 120 MB, any file ≤ 200 MB (re-runs included), flat from 1,000 to
 * 100,000 VEVENTs: `met` says which hold, and `growth_mb` how much the peak grew from the smallest file to
 * the largest.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import type { RunReport } from '../src/pipeline/report.ts';
import { generateIcsWithStats } from './generate-ics.ts';

const ROOT = resolve(import.meta.dirname, '..');
const GOALS = { sample_peak_rss_mb: 120, any_peak_rss_mb: 200 };
const NOW = new Date('2027-01-01T00:00:00Z');

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,50000,100000' },
    rerun: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    samples: { type: 'boolean', default: true },
    'no-samples': { type: 'boolean', default: false },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-memory-'));
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Measured {
  wall_s: number;
  cpu_s: number;
  peak_rss_mb: number;
  events: number;
  created: number;
  unchanged: number;
  outcome: string;
}

/** One `npm run import` of `file` into the store `db`, under /usr/bin/time: its figures. */
function importOnce(file: string, db: string, name: string): Measured {
  const reportFile = join(dir, `${name}.json`);
  // Paths in them (./bin/compile-cache.js) are the package folder's.
  const [, ...flags] = pkg.scripts.import
    .split(' ')
    .slice(0, -1)
    .map((word) => (word.startsWith('./') ? join(ROOT, word) : word));
  const started = performance.now();
  const child = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'TIME %e %U %S %M',
      process.execPath,
      ...flags,
      join(ROOT, 'src/cli/import.ts'),
      file,
      '--data',
      db,
      '--report',
      reportFile,
      '--quiet',
      ...(opts['dry-run'] ? ['--dry-run'] : []),
    ],
    // In the package's folder: the script's flags name ./bin/compile-cache.js.
    {
      cwd: ROOT,
      env: { ...process.env, CALSYNC_NOW: NOW.toISOString() },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    },
  );
  const wall = (performance.now() - started) / 1000;
  const line = /TIME (\S+) (\S+) (\S+) (\d+)/.exec(child.stderr);
  if (child.status !== 0 || !line)
    throw new Error(`import exited ${child.status}:\n${child.stdout}\n${child.stderr.slice(-4000)}`);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport;
  const events = report.counts.event;
  return {
    wall_s: round(wall),
    cpu_s: round(Number(line[2]) + Number(line[3])),
    peak_rss_mb: Math.round(Number(line[4]) / 1024),
    events: Object.values(events).reduce((a, b) => a + b, 0),
    created: events.created,
    unchanged: events.unchanged,
    outcome: report.outcome,
  };
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** The goals, whether the rows meet them, and the growth of the generated files' first imports. */
function verdict(rows: Record<string, unknown>[]) {
  const peak = (row: Record<string, unknown>, run: 'first' | 'rerun') =>
    (row[run] as Measured | undefined)?.peak_rss_mb;
  const sample = rows.find((r) => r.input === 'community-calendar.ics');
  const peaks = rows.flatMap((r) => [peak(r, 'first'), peak(r, 'rerun')]).filter((p) => p !== undefined);
  const generated = rows.filter((r) => String(r.input).endsWith('VEVENTs')).map((r) => peak(r, 'first') ?? 0);
  const met = {
    sample: sample === undefined ? null : (peak(sample, 'first') ?? 0) <= GOALS.sample_peak_rss_mb,
    any: Math.max(...peaks) <= GOALS.any_peak_rss_mb,
  };
  return {
    goals: GOALS,
    met,
    growth_mb: generated.length > 1 ? generated.at(-1)! - generated[0] : null,
  };
}

try {
  const loadBefore = loadavg().map((l) => l.toFixed(2));
  const rows: Record<string, unknown>[] = [];
  // One import first, not measured: it fills Node's compile cache (bin/compile-cache.js), as any earlier
  // run of calsync on the machine has, so the figures are those of every run but the very first.
  importOnce(join(ROOT, 'samples', 'community-calendar.ics'), join(dir, 'warm-up.db'), 'warm-up');
  if (opts.samples && !opts['no-samples']) {
    for (const sample of ['community-calendar.ics', 'community-calendar.csv']) {
      const first = importOnce(join(ROOT, 'samples', sample), join(dir, `${sample}.db`), sample);
      log(`${sample}: ${JSON.stringify(first)}`);
      rows.push({ input: sample, first });
    }
  }
  for (const size of opts.sizes.split(',').map(Number)) {
    const { ics, stats } = generateIcsWithStats({ events: size, start: NOW });
    const file = join(dir, `calendar-${size}.ics`);
    writeFileSync(file, ics);
    const db = join(dir, `calendar-${size}.db`);
    const first = importOnce(file, db, `first-${size}`);
    log(`${size} VEVENTs: ${JSON.stringify(first)}`);
    const row: Record<string, unknown> = {
      input: `${size} VEVENTs`,
      mb: round(statSync(file).size / 1e6, 1),
      first,
    };
    if (opts.rerun) {
      row.rerun = importOnce(file, db, `rerun-${size}`);
      log(`  re-run: ${JSON.stringify(row.rerun)}`);
    }
    rows.push(row);
    rmSync(file, { force: true });
    void stats;
  }
  process.stdout.write(
    `${JSON.stringify(
      {
        machine: {
          cpus: cpus().length,
          load_before: loadBefore,
          load_after: loadavg().map((l) => l.toFixed(2)),
          node: process.version,
        },
        dry_run: opts['dry-run'],
        rows,
        ...verdict(rows),
      },
      null,
      2,
    )}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
