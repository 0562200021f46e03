/**
 * `npm run -s bench:import [-- --events 10000 --cpu-prof <dir>]`: the import pipeline end to end on a
 * generated calendar (bench/generate-ics.ts: 500 venues, 300 organizers, 40 categories, 10% weekly
 * series with EXDATEs and overrides, mixed zones) into the local target on a fresh SQLite file, printed as
 * one JSON document on stdout.
 *
 * Figures: the source stage alone (parse + expand + map), the first import (events/s over the whole run,
 * parse included; HTTP requests per entity), the unchanged re-run (writes, and seconds beyond the source
 * stage) and peak RSS. Goals (issue 3): ≥ 2,000 events/s, ≤ 1.02 writes per entity, 0 writes and ≤ 1 s
 * beyond parsing on the re-run, peak RSS ≤ 300 MB.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mapRecords } from '../src/pipeline/map.ts';
import { type RunSpec, runPipeline } from '../src/pipeline/run.ts';
import { readIcs } from '../src/sources/ics/index.ts';
import { openLocalTarget } from '../src/writer/index.ts';
import { generateIcsWithStats } from './generate-ics.ts';

const GOALS = { events_per_s: 2000, writes_per_entity: 1.02, rerun_beyond_parse_s: 1, peak_rss_mb: 300 };
const DAY = 86_400_000;

const { values: opts } = parseArgs({
  options: { events: { type: 'string', default: '10000' }, 'cpu-prof': { type: 'string' } },
});
const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-import-'));
const log = (s: string) => process.stderr.write(`${s}\n`);

try {
  const now = new Date('2027-01-01T00:00:00Z');
  const { ics, stats } = generateIcsWithStats({ events: Number(opts.events), start: now });
  const file = join(dir, 'calendar.ics');
  writeFileSync(file, ics);
  log(`generated ${stats.vevents} VEVENTs (${(ics.length / 1e6).toFixed(1)} MB)`);

  const spec: RunSpec = {
    name: 'bench',
    source: { type: 'ics', path: file },
    mapping: {
      timezone: 'Europe/London',
      status: 'publish',
      categories: [],
      tags: [],
      featured: false,
      show_map: true,
      show_map_link: true,
    },
    window: { pastDays: 30, futureDays: 400 },
    policies: { update: 'overwrite', delete: 'trash', maxDeleteRatio: 0.25 },
    stateFile: join(dir, 'calendar.sync.db'),
    targetLabel: 'local (bench)',
  };
  const dataFile = join(dir, 'calendar.db');
  const options = { openTarget: () => openLocalTarget({ dataFile }), now };

  // The source stage alone, as the re-run pays it.
  const sourceStart = performance.now();
  const records = readIcs(await readFile(file), {
    file,
    window: { from: new Date(now.getTime() - 30 * DAY), to: new Date(now.getTime() + 400 * DAY) },
    defaultZone: 'Europe/London',
  }).records;
  const mapped = mapRecords(records, { ...spec.mapping, pipeline: spec.name });
  const sourceSeconds = (performance.now() - sourceStart) / 1000;
  const entities = mapped.entities.length;
  log(`source stage: ${records.length} records, ${entities} entities in ${sourceSeconds.toFixed(2)} s`);

  const profile = opts['cpu-prof'] ? new Session() : undefined;
  if (profile) {
    profile.connect();
    await profile.post('Profiler.enable');
    await profile.post('Profiler.start');
  }
  const firstStart = performance.now();
  const first = await runPipeline(spec, options);
  const firstSeconds = (performance.now() - firstStart) / 1000;
  if (profile) {
    const { profile: cpu } = await profile.post('Profiler.stop');
    writeFileSync(join(opts['cpu-prof'] as string, `import-${Date.now()}.cpuprofile`), JSON.stringify(cpu));
  }
  const firstRss = process.resourceUsage().maxRSS / 1024;
  log(`first import: ${firstSeconds.toFixed(2)} s`);

  const rerunStart = performance.now();
  const rerun = await runPipeline(spec, options);
  const rerunSeconds = (performance.now() - rerunStart) / 1000;

  const writes = (r: typeof first.report) =>
    (r.requests.POST ?? 0) + (r.requests.PUT ?? 0) + (r.requests.DELETE ?? 0);
  const events = first.report.counts.event.created;
  const figures = {
    machine: { cpus: cpus().length, load: loadavg()[0].toFixed(2), node: process.version },
    input: { ...stats, bytes: ics.length, records: records.length, entities },
    source_stage_s: round(sourceSeconds),
    first: {
      seconds: round(firstSeconds),
      events,
      events_per_s: Math.round(events / firstSeconds),
      writes: writes(first.report),
      requests: first.report.requests,
      writes_per_entity: round(writes(first.report) / entities, 3),
      failed: first.report.failures.length,
      peak_rss_mb: Math.round(firstRss),
    },
    rerun: {
      seconds: round(rerunSeconds),
      beyond_source_stage_s: round(rerunSeconds - sourceSeconds),
      writes: writes(rerun.report),
      unchanged: rerun.report.counts.event.unchanged,
    },
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    goals: GOALS,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function round(n: number, digits = 2): number {
  return Number(n.toFixed(digits));
}
