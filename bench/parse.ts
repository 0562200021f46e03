/**
 * `npm run -s bench:parse [-- --events 20000 --runs 3]`: the .ics source stage against plain node-ical, printed
 * as one JSON document on stdout (progress on stderr).
 *
 * A generated calendar (bench/generate-ics.ts: five zones, 10% weekly series with EXDATEs and overrides) is
 * read, each measurement in a child process of its own so that its peak RSS (`maxRSS`) is its own:
 * - `node-ical`: `ical.sync.parseICS` of the whole file (no expansion: node-ical leaves series to the caller);
 * - `calsync`: our whole source stage — readIcs (decode, lines, node-ical per VEVENT, series expanded in the
 *   import's window) and mapRecords (src/pipeline/map.ts).
 * Both read the file inside the timed part, with the Node flags of `npm run import`. The two run `--runs`
 * times, interleaved; medians are reported. The speed goal is judged on CPU time (user + system), which the
 * load of other processes on a shared machine changes far less than wall time.
 *
 * Goals (issue 4): calsync ≥ 50% of node-ical's VEVENTs/s; calsync's peak RSS ≤ 2.5 × file size + 100 MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import ical from 'node-ical';
import pkg from '../package.json' with { type: 'json' };
import { DEFAULT_MAPPING } from '../src/pipeline/definition.ts';
import { mapRecords } from '../src/pipeline/map.ts';
import { readIcs } from '../src/sources/ics/index.ts';
import { generateIcsWithStats } from './generate-ics.ts';

const DAY = 86_400_000;
// Both children run with the Node flags of `npm run import` (package.json), the way users run the source stage.
const IMPORT_FLAGS = pkg.scripts.import.split(' ').filter((word) => word.startsWith('--'));
const NOW = new Date('2027-01-01T00:00:00Z');
const MB = 1024 * 1024;

interface ChildFigures {
  ms: number;
  /** CPU time (user + system) of the measured part: what the goal is judged on, as wall time on a shared
   * 2-core machine swings by 2× with the load of other processes. */
  cpu_ms: number;
  /** node-ical: the VEVENTs of its result (overrides hang under their master); calsync: the records. */
  records: number;
  entities: number;
  peak_rss_mb: number;
}

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
    child: { type: 'string' },
    file: { type: 'string' },
  },
});

if (opts.child !== undefined) {
  process.stdout.write(`${JSON.stringify(measure(opts.child, opts.file ?? ''))}\n`);
} else {
  main();
}

/** One measurement, in this (child) process. */
function measure(which: string, file: string): ChildFigures {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let records = 0;
  let entities = 0;
  if (which === 'node-ical') {
    const parsed = ical.sync.parseICS(readFileSync(file, 'utf8'));
    records = Object.values(parsed).filter((item) => item?.type === 'VEVENT').length;
  } else {
    const result = readIcs(readFileSync(file), {
      file,
      window: { from: new Date(NOW.getTime() - 30 * DAY), to: new Date(NOW.getTime() + 365 * DAY) },
    });
    const mapped = mapRecords(result.records, {
      pipeline: 'bench-parse',
      timezone: result.calendar.timezone ?? 'UTC',
      ...DEFAULT_MAPPING,
    });
    records = result.records.length;
    entities = mapped.entities.length;
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return {
    ms,
    cpu_ms: (cpu.user + cpu.system) / 1000,
    records,
    entities,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  };
}

function run(which: string, file: string): ChildFigures {
  const child = spawnSync(
    process.execPath,
    [...IMPORT_FLAGS, import.meta.filename, '--child', which, '--file', file],
    {
      encoding: 'utf8',
      maxBuffer: 16 * MB,
    },
  );
  if (child.status !== 0) throw new Error(`${which} exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout) as ChildFigures;
}

function median(list: ChildFigures[], by: (f: ChildFigures) => number): number {
  return [...list].map(by).sort((a, b) => a - b)[Math.floor(list.length / 2)];
}

function main(): void {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-parse-'));
  try {
    const { ics, stats } = generateIcsWithStats({ events: Number(opts.events), start: NOW });
    const file = join(dir, 'calendar.ics');
    writeFileSync(file, ics);
    const bytes = Buffer.byteLength(ics);
    log(`generated ${stats.vevents} VEVENTs, ${(bytes / 1e6).toFixed(1)} MB`);
    const runs = Math.max(1, Number(opts.runs));
    const all: Record<string, ChildFigures[]> = { 'node-ical': [], calsync: [] };
    // Interleaved, so that both see the same load of the machine.
    for (let i = 0; i < runs; i++) {
      for (const which of ['node-ical', 'calsync']) {
        const f = run(which, file);
        all[which].push(f);
        log(
          `${which} run ${i + 1}: ${f.ms.toFixed(0)} ms wall, ${f.cpu_ms.toFixed(0)} ms CPU, ${f.peak_rss_mb.toFixed(0)} MB`,
        );
      }
    }
    const summary = (list: ChildFigures[]) => {
      const cpu = median(list, (f) => f.cpu_ms);
      const wall = median(list, (f) => f.ms);
      return {
        wall_ms: Math.round(wall),
        cpu_ms: Math.round(cpu),
        vevents_per_s_wall: Math.round(stats.vevents / (wall / 1000)),
        vevents_per_s_cpu: Math.round(stats.vevents / (cpu / 1000)),
        peak_rss_mb: Math.round(median(list, (f) => f.peak_rss_mb)),
      };
    };
    const theirs = summary(all['node-ical']);
    const ours = summary(all.calsync);
    const rssGoal = (2.5 * bytes) / MB + 100;
    const speedRatio = ours.vevents_per_s_cpu / theirs.vevents_per_s_cpu;
    const report = {
      machine: { cpus: cpus().length, load: Number(loadavg()[0].toFixed(2)), node: process.version },
      input: { ...stats, bytes },
      runs,
      node_ical: { ...theirs, vevents_in_result: all['node-ical'][0].records },
      calsync_source_stage: { ...ours, records: all.calsync[0].records, entities: all.calsync[0].entities },
      goals: {
        speed: {
          want: '≥ 0.5 × node-ical (VEVENTs per CPU second, medians)',
          ratio: Number(speedRatio.toFixed(2)),
          ratio_wall: Number((ours.vevents_per_s_wall / theirs.vevents_per_s_wall).toFixed(2)),
          met: speedRatio >= 0.5,
        },
        peak_rss: {
          want_mb: `≤ 2.5 × ${(bytes / MB).toFixed(1)} MB + 100 MB = ${rssGoal.toFixed(0)} MB`,
          peak_rss_mb: ours.peak_rss_mb,
          met: ours.peak_rss_mb <= rssGoal,
        },
      },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
