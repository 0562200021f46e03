/**
 * One run of one pipeline: lock → read the source → map → plan against the sync state → apply through the
 * target → report. `npm run import`, `npm run sync` and `npm run plan` are this function with different
 * specs and options; everything here is sequencing, the work is in the modules it calls.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Logger } from 'pino';
import { readCsv } from '../sources/csv/index.ts';
import { readIcs } from '../sources/ics/index.ts';
import type { SourceProblem, SourceResult, Window } from '../sources/record.ts';
import { acquireLock } from '../state/lock.ts';
import { SyncState } from '../state/sync-state.ts';
import type { Target } from '../writer/target.ts';
import { apply, eventsBySlugSuffix, type ItemResult } from './apply.ts';
import { ConfigError } from './errors.ts';
import { type MapOptions, mapRecords } from './map.ts';
import { type Plan, type Policies, plan } from './plan.ts';
import { emptyCounts, type RunReport, tally } from './report.ts';

export interface SourceSpec {
  type: 'ics' | 'csv';
  path: string;
  delimiter?: 'auto' | ',' | ';' | '\t';
  encoding?: 'auto' | 'utf-8' | 'windows-1252';
  dateFormat?: string;
  columns?: Record<string, string>;
}

/** What a run needs, whether it came from a pipeline file or from `npm run import -- file`. */
export interface RunSpec {
  name: string;
  source: SourceSpec;
  mapping: Omit<MapOptions, 'pipeline'>;
  window: { pastDays: number; futureDays: number };
  policies: Omit<Policies, 'forceDelete'>;
  /** Where the sync state lives (one file per target) and what the report calls the target. */
  stateFile: string;
  targetLabel: string;
}

export interface RunOptions {
  /** Opens the target to write to (not called on a dry run). */
  openTarget: () => Promise<Target>;
  dryRun?: boolean;
  forceDelete?: boolean;
  now?: Date;
  logger?: Logger;
  /** Called after each item settles, with counts done and total. */
  onProgress?: (done: number, total: number) => void;
}

export interface RunResult {
  plan: Plan;
  report: RunReport;
}

export async function runPipeline(spec: RunSpec, options: RunOptions): Promise<RunResult> {
  const now = options.now ?? new Date();
  const started = Date.now();
  const runId = randomUUID();
  const log = options.logger?.child({ pipeline: spec.name, run: runId });
  if (spec.policies.update === 'preserve-local-edits') {
    throw new ConfigError(
      `${spec.name}: policies.update preserve-local-edits is not available yet; use overwrite or skip-existing`,
    );
  }
  const release = options.dryRun ? () => {} : acquireLock(`${spec.stateFile}.${spec.name}.lock`);
  let state: SyncState | undefined;
  try {
    // A dry run creates nothing, not even an empty state file.
    state = options.dryRun && !existsSync(spec.stateFile) ? undefined : openState(spec.stateFile);
    const window = {
      from: new Date(now.getTime() - spec.window.pastDays * 86_400_000),
      to: new Date(now.getTime() + spec.window.futureDays * 86_400_000),
    };
    const source = await readSource(spec, window);
    for (const p of source.problems) log?.warn({ problem: p }, `${p.code}: ${p.message}`);
    const mapped = mapRecords(source.records, {
      ...spec.mapping,
      pipeline: spec.name,
      timezone: spec.mapping.timezone ?? source.calendar.timezone,
    });
    const problems = [...source.problems, ...mapped.problems];
    const thePlan = plan(mapped.entities, state?.items(spec.name) ?? [], {
      ...spec.policies,
      forceDelete: options.forceDelete ?? false,
      keepBefore: window.from,
      unreadable: unreadable(source.problems),
    });
    log?.info({ counts: thePlan.counts }, 'plan');
    if (thePlan.guard) log?.warn(thePlan.guard);

    const base = {
      pipeline: spec.name,
      runId,
      source: displayPath(spec.source.path),
      target: spec.targetLabel,
      dryRun: options.dryRun ?? false,
      startedAt: new Date(started).toISOString(),
      problems,
      guard: thePlan.guard,
    };
    if (options.dryRun || !state) {
      const report: RunReport = {
        ...base,
        durationMs: Date.now() - started,
        counts: emptyCounts(),
        failures: [],
        warnings: [],
        requests: {},
        peakRssMb: peakRssMb(),
        outcome: outcomeOf([], problems, thePlan.guard),
      };
      return { plan: thePlan, report };
    }

    const interrupted = state.interrupted(spec.name);
    const recovering = interrupted || state.lastRunFailed(spec.name);
    if (interrupted) log?.warn('the last run was interrupted: event creates are looked up by slug first');
    else if (recovering) log?.info('the last run failed: event creates are looked up by slug first');
    const target = await options.openTarget();
    let results: ItemResult[];
    try {
      // A state that knows nothing of this pipeline (first run, or its file was lost): events of an earlier
      // run are found by slug on the target and taken over. One listing; on a first import, of nothing.
      const fresh = thePlan.actions.every((a) => !a.item) && thePlan.counts.event.create > 0;
      const known = fresh ? await eventsBySlugSuffix(target) : undefined;
      if (known?.size)
        log?.warn(`${known.size} events of an earlier run found on the target by slug: taken over`);
      state.startRun(runId, spec.name, now);
      let done = 0;
      const total = thePlan.actions.length;
      results = await apply(thePlan, {
        pipeline: spec.name,
        target,
        state,
        recovering,
        known,
        onResult: (r) => {
          if (r.outcome === 'failed') log?.error({ key: r.action.key, error: r.error }, r.error?.message);
          if (r.warning) log?.warn({ key: r.action.key }, r.warning);
          options.onProgress?.(++done, total);
        },
      });
    } finally {
      await target.close();
    }
    const { counts, failures, warnings } = tally(results);
    const report: RunReport = {
      ...base,
      durationMs: Date.now() - started,
      counts,
      failures,
      warnings,
      requests: { ...target.requests },
      peakRssMb: peakRssMb(),
      outcome: outcomeOf(failures, problems, thePlan.guard),
    };
    state.finishRun(runId, spec.name, report.outcome, report);
    log?.info({ counts, requests: report.requests, durationMs: report.durationMs }, `run ${report.outcome}`);
    return { plan: thePlan, report };
  } finally {
    state?.close();
    release();
  }
}

/** The sync state, or a ConfigError naming the file (a file from a newer calsync, a damaged file). */
function openState(file: string): SyncState {
  try {
    return new SyncState(file);
  } catch (err) {
    throw new ConfigError(`sync state ${displayPath(file)}: ${(err as Error).message}`);
  }
}

/**
 * What the source failed to read: the events of a dropped VEVENT must not be deleted because of it. A
 * dropped record without a UID (a CSV row) could be any event, so then no event is deleted at all.
 */
function unreadable(problems: readonly SourceProblem[]): Policies['unreadable'] {
  const dropped = problems.filter((p) => p.severity === 'error' && p.origin.line !== undefined);
  return {
    uids: new Set(dropped.flatMap((p) => (p.uid ? [p.uid] : []))),
    unknown: dropped.some((p) => !p.uid),
  };
}

function outcomeOf(failures: readonly unknown[], problems: SourceResult['problems'], guard?: string) {
  return failures.length > 0 || guard || problems.some((p) => p.severity === 'error') ? 'failed' : 'ok';
}

async function readSource(spec: RunSpec, window: Window): Promise<SourceResult> {
  const { source } = spec;
  const file = displayPath(source.path);
  const defaultZone = spec.mapping.timezone;
  try {
    if (source.type === 'ics') return readIcs(await readFile(source.path), { file, window, defaultZone });
    return await readCsv(createReadStream(source.path), {
      file,
      columns: source.columns,
      dateFormat: source.dateFormat,
      delimiter: source.delimiter,
      encoding: source.encoding,
      defaultZone,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ConfigError(`${file}: no such file`);
    if (e.code === 'EISDIR') throw new ConfigError(`${file}: is a directory, expected a .ics or .csv file`);
    throw err;
  }
}

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

const displayPath = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};
