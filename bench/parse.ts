/**
 * `npm run -s bench:parse [-- --sizes 1000,10000,50000,100000 --runs 3 --only calsync]`: the .ics source
 * stage against the two parsers it could stand on, ical.js and node-ical, printed as one JSON document on
 * stdout (progress on stderr), with the ratios per file size.
 *
 * For each size a calendar is generated (bench/generate-ics.ts: five zones, 10% weekly series with EXDATEs
 * and overrides) and read by three children of this process, each in a process of its own so that its
 * peak RSS (`maxRSS`) is its own, all with the Node flags of `npm run import`:
 * - `ical.js`: `ICAL.parse` of the whole file, its VTIMEZONEs registered, and every series expanded in the
 *   import's window (`ICAL.Event` with the same-UID overrides and `strictExceptions`, the way that avoids
 *   relating every override to every series — spec/pipeline.md);
 * - `node-ical`: `ical.sync.parseICS` of the whole file and each RRULE's `between` over the window;
 * - `calsync`: our source stage read whole, readIcs (decode, lines, fields, series expanded in the window),
 *   then mapRecords (src/pipeline/map.ts); `source_cpu_ms` is readIcs alone;
 * - `calsync-stream`: the path `npm run import` takes, and what a user pays: streamIcs over a file stream
 *   (a first pass for zones and keys, then records as the second pass reads them), each batch of 2,000
 *   records mapped as it comes (`first_pass_cpu_ms`, `map_cpu_ms` its parts).
 * All read the file inside the timed part. They run `--runs` times, interleaved (ical.js, node-ical,
 * calsync, ical.js, …) so that all see the same load; medians are reported. Ratios are judged on CPU time
 * (user + system), which the load of other processes on a shared machine changes far less than wall time.
 *
 * Goals (issue 17): calsync's source stage ≤ 0.5 × the CPU of ical.js parse + expand, with the same
 * occurrences (`occurrences` of both are printed; the oracle tests compare them one by one); peak RSS flat
 * in the file's size.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type ICAL from 'ical.js';
import pkg from '../package.json' with { type: 'json' };
import { generateIcsWithStats } from './generate-ics.ts';

const DAY = 86_400_000;
// The children run with the Node flags of `npm run import` (package.json), the way users run the source stage.
// The V8 flags (not `--import ./bin/compile-cache.js`, whose path follows it as a word of its own).
const IMPORT_FLAGS = pkg.scripts.import
  .split(' ')
  .filter((word) => word.startsWith('--') && word !== '--import');
const NOW = new Date('2027-01-01T00:00:00Z');
const WINDOW = { from: new Date(NOW.getTime() - 30 * DAY), to: new Date(NOW.getTime() + 365 * DAY) };
const MB = 1024 * 1024;
const PARSERS = ['ical.js', 'node-ical', 'calsync', 'calsync-stream'] as const;
type Parser = (typeof PARSERS)[number];
const round2 = (n: number) => Number(n.toFixed(2));

interface ChildFigures {
  ms: number;
  /** CPU time (user + system) of the measured part. */
  cpu_ms: number;
  /** calsync: readIcs alone (without mapRecords); calsync-stream: streamIcs's first pass. */
  source_cpu_ms?: number;
  /** calsync-stream: the Mapper's batches alone. */
  map_cpu_ms?: number;
  /** Single events plus the occurrences of series in the window. */
  occurrences: number;
  /** calsync: entities mapped (events, venues, organizers, terms). */
  entities?: number;
  peak_rss_mb: number;
}

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,50000,100000' },
    events: { type: 'string' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    child: { type: 'string' },
    file: { type: 'string' },
  },
});

if (opts.child !== undefined) {
  const figures = await measure(opts.child as Parser, opts.file ?? '');
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else {
  main();
}

/** One measurement, in this (child) process; each parser's modules are loaded before the clock starts. */
async function measure(which: Parser, file: string): Promise<ChildFigures> {
  const read = await (which === 'ical.js'
    ? icalJs()
    : which === 'node-ical'
      ? nodeIcal()
      : which === 'calsync'
        ? calsync()
        : calsyncStream());
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const counted = await read(file);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return {
    ms,
    cpu_ms: (cpu.user + cpu.system) / 1000,
    ...counted,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  };
}

type Counted = Pick<ChildFigures, 'occurrences' | 'entities' | 'source_cpu_ms' | 'map_cpu_ms'>;
type Reader = (file: string) => Counted | Promise<Counted>;

async function icalJs(): Promise<Reader> {
  const { default: Ical } = await import('ical.js');
  return (file) => {
    const calendar = new Ical.Component(Ical.parse(readFileSync(file, 'utf8')));
    for (const zone of calendar.getAllSubcomponents('vtimezone'))
      Ical.TimezoneService.register(new Ical.Timezone(zone));
    const byUid = new Map<string, ICAL.Component[]>();
    for (const vevent of calendar.getAllSubcomponents('vevent')) {
      const uid = String(vevent.getFirstPropertyValue('uid'));
      const same = byUid.get(uid);
      if (same === undefined) byUid.set(uid, [vevent]);
      else same.push(vevent);
    }
    const from = Ical.Time.fromJSDate(WINDOW.from, true);
    const to = Ical.Time.fromJSDate(WINDOW.to, true);
    let occurrences = 0;
    for (const same of byUid.values()) {
      const master = same.find((v) => !v.hasProperty('recurrence-id'));
      if (master === undefined) continue;
      const exceptions = same.filter((v) => v !== master);
      const event = new Ical.Event(master, { strictExceptions: true, exceptions });
      if (!event.isRecurring()) {
        occurrences++;
        continue;
      }
      const iterator = event.iterator();
      for (let next = iterator.next(); next; next = iterator.next()) {
        if (next.compare(to) >= 0) break;
        if (event.getOccurrenceDetails(next).endDate.compare(from) > 0) occurrences++;
      }
    }
    return { occurrences };
  };
}

async function nodeIcal(): Promise<Reader> {
  const { default: ical } = await import('node-ical');
  return (file) => {
    const parsed = ical.sync.parseICS(readFileSync(file, 'utf8'));
    let occurrences = 0;
    for (const item of Object.values(parsed)) {
      if (item?.type !== 'VEVENT') continue;
      if (item.rrule === undefined) {
        occurrences++;
        continue;
      }
      const excluded = new Set(Object.values(item.exdate ?? {}).map((d) => (d as Date).getTime()));
      for (const date of item.rrule.between(WINDOW.from, WINDOW.to, true))
        if (!excluded.has(date.getTime())) occurrences++;
    }
    return { occurrences };
  };
}

async function calsync(): Promise<Reader> {
  const { readIcs } = await import('../src/sources/ics/index.ts');
  const { mapRecords } = await import('../src/pipeline/map.ts');
  const { DEFAULT_MAPPING } = await import('../src/pipeline/definition.ts');
  return (file) => {
    const cpuStarted = process.cpuUsage();
    const result = readIcs(readFileSync(file), { file, window: WINDOW });
    const source = process.cpuUsage(cpuStarted);
    const mapped = mapRecords(result.records, {
      pipeline: 'bench-parse',
      timezone: result.calendar.timezone ?? 'UTC',
      ...DEFAULT_MAPPING,
    });
    return {
      occurrences: result.records.length,
      entities: mapped.entities.length,
      source_cpu_ms: (source.user + source.system) / 1000,
    };
  };
}

/**
 * The path `npm run import` takes with an .ics file (pipeline/read-source.ts, pipeline/stream.ts): the file
 * read as a stream by streamIcs (a first pass for the zones and keys, then the records as the second pass
 * reads them), each batch of 2,000 records mapped as it comes. What a user pays for the source stage.
 */
async function calsyncStream(): Promise<Reader> {
  const { streamIcs } = await import('../src/sources/ics/stream.ts');
  const { Mapper } = await import('../src/pipeline/map.ts');
  const { BATCH } = await import('../src/pipeline/stream.ts');
  const { DEFAULT_MAPPING } = await import('../src/pipeline/definition.ts');
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  return async (file) => {
    const cpuStarted = process.cpuUsage();
    const stream = await streamIcs(() => createReadStream(file), { file, window: WINDOW });
    const firstPass = cpuMs(cpuStarted);
    const mapper = new Mapper(
      { pipeline: 'bench-parse', timezone: stream.calendar.timezone ?? 'UTC', ...DEFAULT_MAPPING },
      undefined,
      true,
    );
    let occurrences = 0;
    let entities = 0;
    let map = 0;
    for await (const batch of stream.records(BATCH)) {
      occurrences += batch.length;
      const mapStarted = process.cpuUsage();
      entities += mapper.map(batch).entities.length;
      map += cpuMs(mapStarted);
    }
    return { occurrences, entities, source_cpu_ms: firstPass, map_cpu_ms: map };
  };
}

function run(which: Parser, file: string): ChildFigures {
  const child = spawnSync(
    process.execPath,
    [...IMPORT_FLAGS, import.meta.filename, '--child', which, '--file', file],
    { encoding: 'utf8', maxBuffer: 16 * MB },
  );
  if (child.status !== 0) throw new Error(`${which} exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout) as ChildFigures;
}

function median(list: ChildFigures[], by: (f: ChildFigures) => number): number {
  return [...list].map(by).sort((a, b) => a - b)[Math.floor(list.length / 2)];
}

function main(): void {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const sizes = (opts.events ?? opts.sizes).split(',').map(Number);
  const runs = Math.max(1, Number(opts.runs));
  const parsers = PARSERS.filter((p) => opts.only === undefined || opts.only.split(',').includes(p));
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-parse-'));
  const results = [];
  try {
    for (const size of sizes) {
      const { ics, stats } = generateIcsWithStats({ events: size, start: NOW });
      const file = join(dir, `calendar-${size}.ics`);
      writeFileSync(file, ics);
      const bytes = Buffer.byteLength(ics);
      log(`${size}: generated ${stats.vevents} VEVENTs, ${(bytes / 1e6).toFixed(1)} MB`);
      const all = new Map<Parser, ChildFigures[]>(parsers.map((p) => [p, []]));
      // Interleaved, so that all see the same load of the machine.
      for (let i = 0; i < runs; i++) {
        for (const which of parsers) {
          const f = run(which, file);
          all.get(which)?.push(f);
          log(
            `  ${which} run ${i + 1}: ${f.ms.toFixed(0)} ms wall, ${f.cpu_ms.toFixed(0)} ms CPU, ${f.peak_rss_mb.toFixed(0)} MB`,
          );
        }
      }
      const summary = (list: ChildFigures[]) => ({
        wall_ms: Math.round(median(list, (f) => f.ms)),
        cpu_ms: Math.round(median(list, (f) => f.cpu_ms)),
        peak_rss_mb: Math.round(median(list, (f) => f.peak_rss_mb)),
        occurrences: list[0].occurrences,
      });
      const figures: Record<string, unknown> = {};
      for (const [which, list] of all) {
        figures[which] = {
          ...summary(list),
          ...(which === 'calsync'
            ? {
                source_cpu_ms: Math.round(median(list, (f) => f.source_cpu_ms ?? 0)),
                entities: list[0].entities,
              }
            : which === 'calsync-stream'
              ? {
                  first_pass_cpu_ms: Math.round(median(list, (f) => f.source_cpu_ms ?? 0)),
                  map_cpu_ms: Math.round(median(list, (f) => f.map_cpu_ms ?? 0)),
                  entities: list[0].entities,
                }
              : {}),
        };
      }
      const ours = all.get('calsync');
      const streamed = all.get('calsync-stream');
      const ratios: Record<string, unknown> = {};
      for (const anchor of ['ical.js', 'node-ical'] as const) {
        const theirs = all.get(anchor);
        if (theirs === undefined) continue;
        const cpu = median(theirs, (f) => f.cpu_ms);
        const vs: Record<string, number> = {};
        if (ours !== undefined) {
          vs.cpu = round2(median(ours, (f) => f.cpu_ms) / cpu);
          vs.source_cpu = round2(median(ours, (f) => f.source_cpu_ms ?? 0) / cpu);
          vs.wall = round2(median(ours, (f) => f.ms) / median(theirs, (f) => f.ms));
          vs.peak_rss = round2(median(ours, (f) => f.peak_rss_mb) / median(theirs, (f) => f.peak_rss_mb));
        }
        if (streamed !== undefined) {
          vs.stream_cpu = round2(median(streamed, (f) => f.cpu_ms) / cpu);
          vs.stream_peak_rss = round2(
            median(streamed, (f) => f.peak_rss_mb) / median(theirs, (f) => f.peak_rss_mb),
          );
        }
        ratios[`vs_${anchor}`] = vs;
      }
      results.push({ input: { ...stats, bytes }, ...figures, ratios });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = {
    machine: { cpus: cpus().length, load: Number(loadavg()[0].toFixed(2)), node: process.version },
    runs,
    goal: 'calsync CPU ≤ 0.5 × ical.js parse + expand (ratios.vs_ical.js: cpu read whole with map, source_cpu without map, stream_cpu the path a run takes)',
    sizes: results,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
