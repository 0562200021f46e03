/**
 * One run of one pipeline: lock → read the source → map → plan against the sync state → apply through the
 * target → report. `npm run import`, `npm run sync` and `npm run plan` are this function with different
 * specs and options; everything here is sequencing, the work is in the modules it calls.
 *
 * Around the plan: a remote source that answers 304 ends the run before it (read-source.ts); a state that
 * knows nothing of this pipeline is first rebuilt from the target (rebuild-state.ts), so that items an
 * earlier run wrote are taken over, not created again; under preserve-local-edits, the target's current
 * version of each item the source changed is read, so that the plan can keep what was edited there.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DAY } from '../model/civil-time.ts';
import type { SourceProblem, SourceResult } from '../sources/record.ts';
import { type RunState, type StateBackend, sqliteBackend } from '../state/backend.ts';
import type { StateItem } from '../state/sync-state.ts';
import { storageFault } from '../store/errors.ts';
import type { Remote, Target } from '../writer/target.ts';
import { applyEach, type ItemResult } from './apply.ts';
import { bindSite, bindState, describesAnotherStore, siteLost } from './bind-state.ts';
import { KIND_ORDER } from './desired.ts';
import { ConfigError, StateWriteError } from './errors.ts';
import { type MapOptions, mapRecords } from './map.ts';
import { changedItems, countActions, type Plan, type Policies, plan } from './plan.ts';
import { cacheFingerprints, openSource, type SourceSpec, sourceLabel, wholeOf } from './read-source.ts';
import { rebuildState } from './rebuild-state.ts';
import { conflictsOf, emptyCounts, type RunReport, Tally } from './report.ts';
import { type Left, leaveToOthers, leftProblems } from './shared.ts';
import { runInBatches } from './stream.ts';

export type { SourceSpec } from './read-source.ts';

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
  /**
   * Pipelines of the target that keep the events they hold and this one does not: it leaves them to them
   * (pipeline/shared.ts; cli/import.ts gives the other imports of files).
   */
  leaveTo?: readonly string[];
}

export interface RunOptions {
  /**
   * Opens the target. A dry run only reads from it, and only when the plan needs it: a sync state that
   * knows nothing of the pipeline (rebuilt from the target), or preserve-local-edits.
   */
  openTarget: () => Promise<Target>;
  /**
   * The target cannot hold anything yet (a local store whose file does not exist): a dry run without a
   * state file then plans creates without opening it, which would create the file.
   */
  targetIsNew?: boolean;
  /**
   * The target says which store it is (Target.instance: the local target): the run opens it first and binds
   * the sync state to it (`bindState`).
   */
  targetHasInstance?: boolean;
  dryRun?: boolean;
  forceDelete?: boolean;
  now?: Date;
  logger?: Logger;
  /** Called after each item settles, with counts done and total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called as the run enters a stage that shows no count (reading and parsing the source, planning), with
   * what it is doing: a terminal shows it until the writes' progress bar takes over.
   */
  onStage?: (doing: string) => void;
  /** Called while an .ics source is parsed, with its VEVENTs read so far and its total. */
  onParse?: (done: number, total: number) => void;
  /** Records per batch of a run in batches (stream.ts BATCH); tests cross batch boundaries with small ones. */
  batch?: number;
  /** The run's id in logs, the sync state and the report; default a new UUID (the CLI makes it first, for its own log lines). */
  runId?: string;
  /** Where the sync state and the run lock live; default one SQLite file per target (state/backend.ts). */
  stateBackend?: StateBackend;
}

export interface RunResult {
  plan: Plan;
  report: RunReport;
}

/** A run's window at `now`: `pastDays` before it to `futureDays` after (series are expanded in it). */
export function runWindow(spec: Pick<RunSpec, 'window'>, now: Date): { from: Date; to: Date } {
  return {
    from: new Date(now.getTime() - spec.window.pastDays * DAY),
    to: new Date(now.getTime() + spec.window.futureDays * DAY),
  };
}

export async function runPipeline(spec: RunSpec, options: RunOptions): Promise<RunResult> {
  const now = options.now ?? new Date();
  const started = Date.now();
  const runId = options.runId ?? randomUUID();
  const log = options.logger?.child({ pipeline: spec.name, run: runId });
  const backend = options.stateBackend ?? sqliteBackend;
  const release = options.dryRun ? () => {} : await backend.lock(spec.stateFile, spec.name);
  let state: RunState | undefined;
  let target: Target | undefined;
  try {
    // A dry run creates nothing, not even an empty state file.
    state =
      options.dryRun && !(await backend.exists(spec.stateFile))
        ? undefined
        : await openState(backend, spec.stateFile);

    // The target is opened before the plan only when the plan needs to read it; a dry run reads, never writes.
    const open = async () => {
      if (!target) {
        target = await options.openTarget();
        await target.checkAccess();
      }
      return target;
    };
    const dry = options.dryRun ? ' (by a real run: a dry run changes nothing)' : '';
    // Events left to the import that holds them (shared.ts): one warning line each.
    const leftTo = (left: Left) => {
      const found = leftProblems(left, sourceLabel(spec.source));
      for (const p of found) log?.warn(p.message);
      return found;
    };
    const bind = async () => {
      if (!state) return false;
      if (options.targetHasInstance) {
        const stale = await bindRun(state, spec.name, open, options);
        if (stale)
          log?.warn(
            `sync state ${spec.stateFile} was recorded for another calendar database (the data file was deleted or replaced since): what it knew of every pipeline is forgotten, and items are matched on the target by slug and name${dry}`,
          );
        return stale;
      }
      const forgotten = await bindSite(state, spec.name, open, options.dryRun ?? false);
      if (forgotten > 0)
        log?.warn(
          `${spec.targetLabel} holds none of the events this pipeline wrote there last (the site was reset): the sync state forgets the ${forgotten} items it knew, and items are matched on the site by slug and name${dry}`,
        );
      return forgotten > 0;
    };
    // A store not made yet is made when opened: it is bound once the source has been read, so that a
    // source that cannot be read leaves no empty data file behind.
    let stale = options.targetIsNew ? false : await bind();
    const window = runWindow(spec, now);
    const fingerprints = cacheFingerprints(spec, window);
    const cache =
      spec.source.url && state && !stale && !options.targetIsNew
        ? await conditional(state, spec, fingerprints)
        : undefined;
    const base = {
      pipeline: spec.name,
      runId,
      source: sourceLabel(spec.source),
      target: spec.targetLabel,
      dryRun: options.dryRun ?? false,
      startedAt: new Date(started).toISOString(),
    };
    options.onStage?.(`reading ${sourceLabel(spec.source)}`);
    const read = await openSource(spec, window, cache, options.onParse);
    if (options.targetIsNew) stale = await bind();
    if (read.notModified) {
      log?.info('source not modified (HTTP 304): nothing to plan or write');
      const report: RunReport = {
        ...base,
        problems: [],
        durationMs: Date.now() - started,
        counts: emptyCounts(),
        failures: [],
        warnings: [],
        conflicts: [],
        requests: {},
        peakRssMb: peakRssMb(),
        outcome: 'ok',
        notModified: true,
      };
      if (!options.dryRun && state) {
        await state.startRun(runId, spec.name, now);
        await state.finishRun(runId, spec.name, 'ok', report);
      }
      return { plan: { actions: [], counts: emptyPlanCounts() }, report };
    }
    // A new store holds nothing to leave (and a dry run must not make it by looking).
    const forgotten = options.targetIsNew === true || (stale && options.targetHasInstance === true);
    const leaveTo = await importsToLeaveTo(spec, state, forgotten, open);
    // An .ics file is read as the run goes (stream); any other source has been read whole (source).
    const stream = 'stream' in read ? read.stream : undefined;
    let source = 'stream' in read ? undefined : read.result;
    const logProblems = (found: readonly SourceProblem[]) => {
      for (const p of found) {
        if (p.severity === 'error') log?.error({ problem: p }, `${p.code}: ${p.message}`);
        else log?.warn({ problem: p }, `${p.code}: ${p.message}`);
      }
    };
    const calendar = stream?.calendar ?? source?.calendar ?? {};
    const mapping = {
      ...spec.mapping,
      pipeline: spec.name,
      timezone: spec.mapping.timezone ?? calendar.timezone,
    };
    const policies = {
      ...spec.policies,
      forceDelete: options.forceDelete ?? false,
      keepBefore: window.from,
      unreadable: unreadable([]),
    };
    let incomplete: string | undefined;
    /** A source read whole: what it could not read is known before planning. */
    const takeWhole = (whole: SourceResult): SourceResult => {
      logProblems(whole.problems);
      options.onStage?.(`planning ${whole.records.length} records`);
      policies.unreadable = unreadable(whole.problems);
      incomplete = incompleteReason(whole.problems);
      return whole;
    };
    if (source) takeWhole(source);

    /** The writes: counted, logged and reported as each settles. */
    const writing = async (written: RunState, total: () => number, batched: boolean) => {
      const interrupted = await written.interrupted(spec.name);
      const recovering = interrupted || (await written.lastRunFailed(spec.name));
      if (interrupted) log?.warn('the last run was interrupted: event creates are looked up by slug first');
      else if (recovering) log?.info('the last run failed: event creates are looked up by slug first');
      const writer = await open();
      // A file written over what a feed wrote (a downloaded copy that took over its import): a 304 to the
      // feed's next request must not keep what the file writes, even if this run stops half-way.
      if (!spec.source.url && (await written.sourceCache(spec.name)))
        await written.setSourceCache(spec.name, undefined);
      await written.startRun(runId, spec.name, now);
      // The last line before the first write (a run in batches logs its plan's counts after the writes).
      log?.info({ batched }, 'writing');
      const results = new Tally();
      let done = 0;
      const onResult = (r: ItemResult, index: number) => {
        if (r.outcome === 'failed') log?.error({ key: r.action.key, error: r.error }, r.error?.message);
        if (r.warning) log?.warn({ key: r.action.key }, r.warning);
        results.add(r, index);
        options.onProgress?.(++done, total());
      };
      const onNote = (line: string) => {
        log?.warn(line);
        results.note(line);
      };
      return { writer, recovering, results, onResult, onNote };
    };

    /** The run's report from what the writes came to. */
    const reportOf = (w: { writer: Target; results: Tally }, p: Plan, probs: SourceProblem[]): RunReport => {
      const { counts, failures, warnings, conflicts } = w.results.done();
      return {
        ...base,
        problems: probs,
        guard: p.guard,
        ...(incomplete ? { incomplete } : {}),
        durationMs: Date.now() - started,
        counts,
        failures,
        warnings,
        conflicts,
        requests: { ...w.writer.requests },
        peakRssMb: peakRssMb(),
        outcome: outcomeOf(failures, probs, p.guard),
      };
    };

    let thePlan: Plan;
    let problems: SourceProblem[];
    let written: { writer: Target; results: Tally };
    const empty = source ? source.records.length === 0 && !source.standalone : stream?.total === 0;
    if (!options.dryRun && state && (await streamable(state, spec.name, empty, open))) {
      // Batches: the state is asked per batch, and no more than a batch is held (stream.ts).
      const records = source?.records ?? (stream as NonNullable<typeof stream>);
      const sourceProblems = source?.problems ?? (stream as NonNullable<typeof stream>).problems;
      let total = Array.isArray(records) ? records.length : records.left();
      // A stream's VEVENTs are read, planned and written together: its parse bar follows this line.
      if (stream) options.onStage?.(`planning ${stream.total} VEVENTs`);
      const w = await writing(state, () => total, true);
      let streamed: Awaited<ReturnType<typeof runInBatches>>;
      try {
        streamed = await runInBatches({
          pipeline: spec.name,
          records,
          standalone: source?.standalone,
          mapping,
          policies,
          state,
          target: w.writer,
          recovering: w.recovering,
          currentVersions: (items) => currentVersions(items, open),
          onResult: w.onResult,
          onNote: w.onNote,
          batch: options.batch,
          leaveTo,
          onPlanned: (actions, left) => {
            total = actions + left;
          },
          // What the source failed to read is known once it has been read: nothing is deleted then.
          endOfSource: () => ({ unreadable: unreadable(sourceProblems) }),
        });
      } catch (err) {
        // The sync state's disk filled up mid-run: the run stops before planning deletions (what it
        // recorded as seen may be lost with the failed commit), and reports what it wrote.
        if (!storageFault(err)) throw err;
        const stopped: Plan = { actions: [], counts: countActions([]) };
        throw new StateWriteError(reportOf(w, stopped, sourceProblems), stopped, err);
      }
      if (stream) {
        logProblems(stream.problems);
        incomplete = incompleteReason(stream.problems);
      }
      thePlan = streamed.plan;
      problems = [...sourceProblems, ...streamed.problems, ...leftTo(streamed.left)];
      log?.info({ counts: thePlan.counts }, 'plan');
      if (thePlan.guard) log?.warn(thePlan.guard);
      if (incomplete) log?.warn(incomplete);
      written = w;
    } else {
      if (!source) source = takeWhole(await wholeOf(stream as NonNullable<typeof stream>));
      const mapped = mapRecords(source.records, mapping, source.standalone);
      problems = [...source.problems, ...mapped.problems];
      let items = (!stale && (await state?.items(spec.name))) || [];
      // A dry run to a store not made yet finds nothing there, and opening it would make the file.
      const canRebuild = !(options.dryRun && options.targetIsNew);
      if (canRebuild && items.length === 0 && mapped.entities.length > 0) {
        // A state that knows nothing of this pipeline (first run, or its file was lost): what an earlier run
        // wrote is recognised on the target by slug and natural key and taken over, not created again. A dry
        // run without a state file reads the same, so that its plan is what a real run would do.
        const t = await open();
        items = await rebuildState(t, mapped.entities);
        if (items.length > 0) {
          const events = items.filter((i) => i.kind === 'event').length;
          log?.warn(
            `${events} events of an earlier run found on the target by slug, ${items.length - events} venues, organizers and terms by name: taken over`,
          );
          if (!options.dryRun) for (const item of items) state?.put(spec.name, item);
        }
      }
      const left: Left = new Map();
      const own = new Set(items.map((i) => `${i.kind}\n${i.key}`));
      const entities = state
        ? await leaveToOthers(state, leaveTo, mapped.entities, own, left)
        : mapped.entities;
      problems.push(...leftTo(left));
      const remote =
        spec.policies.update === 'preserve-local-edits'
          ? await currentVersions(changedItems(entities, items), open)
          : undefined;
      const sourceHasEvents = mapped.entities.some((d) => d.kind === 'event');
      thePlan = plan(entities, items, { ...policies, remote }, sourceHasEvents);
      log?.info({ counts: thePlan.counts }, 'plan');
      if (thePlan.guard) log?.warn(thePlan.guard);
      if (incomplete) log?.warn(incomplete);

      if (options.dryRun || !state) {
        const report: RunReport = {
          ...base,
          problems,
          guard: thePlan.guard,
          ...(incomplete ? { incomplete } : {}),
          durationMs: Date.now() - started,
          counts: emptyCounts(),
          failures: [],
          warnings: [],
          conflicts: conflictsOf(thePlan.actions),
          requests: target ? { ...target.requests } : {},
          peakRssMb: peakRssMb(),
          outcome: outcomeOf([], problems, thePlan.guard),
        };
        return { plan: thePlan, report };
      }
      const total = thePlan.actions.length;
      const w = await writing(state, () => total, false);
      await applyEach(thePlan.actions, {
        pipeline: spec.name,
        target: w.writer,
        state,
        recovering: w.recovering,
        onResult: w.onResult,
        onNote: w.onNote,
      });
      written = w;
    }

    const report = reportOf(written, thePlan, problems);
    for (const c of report.conflicts ?? [])
      log?.warn({ key: c.key, conflict: c.fields }, `conflict: ${c.kind} "${c.label}"`);
    try {
      await state.finishRun(runId, spec.name, report.outcome, report);
      // Validators are kept only after a run that wrote everything: a 304 must never hide a failed item.
      if (spec.source.url && 'result' in read) {
        const fingerprint = read.hasSeries ? fingerprints.windowed : fingerprints.plain;
        await state.setSourceCache(
          spec.name,
          report.outcome === 'ok' && read.validators
            ? { url: spec.source.url, ...read.validators, fingerprint }
            : undefined,
        );
      }
    } catch (err) {
      // What was written is written: the caller still gets the report to print (a full disk, say).
      if (storageFault(err)) throw new StateWriteError(report, thePlan, err);
      throw err;
    }
    log?.info(
      { counts: report.counts, requests: report.requests, durationMs: report.durationMs },
      `run ${report.outcome}`,
    );
    return { plan: thePlan, report };
  } finally {
    await target?.close();
    await state?.close();
    await release();
  }
}

/**
 * The validators for a conditional GET, when a 304 may stand for this run: the last run succeeded, the
 * state has the pipeline's items, and nothing but the feed could change the result (cacheFingerprints).
 */
async function conditional(
  state: RunState,
  spec: RunSpec,
  fingerprints: { plain: string; windowed: string },
) {
  const cache = await state.sourceCache(spec.name);
  if (!cache || cache.url !== spec.source.url) return undefined;
  if (cache.fingerprint !== fingerprints.plain && cache.fingerprint !== fingerprints.windowed)
    return undefined;
  if ((await state.interrupted(spec.name)) || (await state.lastRunFailed(spec.name))) return undefined;
  if (Object.values(await state.counts(spec.name)).every((n) => !n)) return undefined;
  return { etag: cache.etag, lastModified: cache.lastModified };
}

/**
 * bind-state.ts for a run: true when the state's items are to be taken as none. A dry run only asks, and
 * does not open a store not made yet (that would make the file; nothing the state knows is in it).
 */
async function bindRun(
  state: RunState,
  pipeline: string,
  open: () => Promise<Target>,
  options: RunOptions,
): Promise<boolean> {
  if (!options.dryRun) return bindState(state, await open(), options.targetIsNew ?? false);
  if (options.targetIsNew) return Object.values(await state.counts(pipeline)).some((n) => n);
  return describesAnotherStore(state, await open());
}

/**
 * The imports of `spec.leaveTo` the run leaves events to (shared.ts): none when what the state knew of the
 * store is forgotten (`forgotten`: by this run, or by a real one of this dry run), nor one whose events
 * written last the target no longer holds (a reset site: that import's own next run forgets them).
 */
async function importsToLeaveTo(
  spec: RunSpec,
  state: RunState | undefined,
  forgotten: boolean,
  open: () => Promise<Target>,
): Promise<string[]> {
  if (!state || forgotten) return [];
  const leaveTo: string[] = [];
  for (const other of spec.leaveTo ?? []) if (!(await siteLost(state, other, open))) leaveTo.push(other);
  return leaveTo;
}

/**
 * Whether the run can go in batches (stream.ts): the state knows the pipeline's items, or it knows none and
 * the target holds nothing it could take over (a first import into a new store). Otherwise the state is
 * first rebuilt from the target, which matches the whole source against it.
 */
async function streamable(
  state: RunState,
  pipeline: string,
  empty: boolean,
  open: () => Promise<Target>,
): Promise<boolean> {
  if (Object.values(await state.counts(pipeline)).some((n) => n)) return true;
  if (empty) return false;
  const target = await open();
  for (const kind of KIND_ORDER) for await (const _ of target.list(kind)) return false;
  return true;
}

/** The target's current version of each item (one GET each, through the writer's queue); null: gone. */
async function currentVersions(
  items: readonly StateItem[],
  open: () => Promise<Target>,
): Promise<Map<string, Remote | null>> {
  const found = new Map<string, Remote | null>();
  if (items.length === 0) return found;
  const target = await open();
  await Promise.all(
    items.map(async (item) => {
      found.set(`${item.kind}\n${item.key}`, await target.get(item.kind, item.remoteId));
    }),
  );
  return found;
}

const emptyPlanCounts = (): Plan['counts'] =>
  Object.fromEntries(
    Object.entries(emptyCounts()).map(([kind]) => [
      kind,
      { create: 0, update: 0, unchanged: 0, delete: 0, skip: 0, conflict: 0 },
    ]),
  ) as Plan['counts'];

/** The sync state, or a ConfigError naming the file (a file from a newer calsync, a damaged file). */
async function openState(backend: StateBackend, file: string): Promise<RunState> {
  try {
    return await backend.open(file);
  } catch (err) {
    throw new ConfigError(`sync state ${file}: ${(err as Error).message}`);
  }
}

/**
 * What the source failed to read. A source that lost anything — a file cut off mid-calendar, a row or
 * VEVENT it could not read, a header it could not map — cannot say which events are really gone: the
 * lost part may hold any of them, so then nothing is deleted at all (as after a failed download).
 */
function unreadable(problems: readonly SourceProblem[]): Policies['unreadable'] {
  return { uids: new Set(), unknown: incompleteReason(problems) !== undefined };
}

/** Why the source is incomplete, for the first line of the output; undefined when it was read whole. */
function incompleteReason(problems: readonly SourceProblem[]): string | undefined {
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length === 0) return undefined;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problems that dropped records)` : '';
  // A source cut short is the cause itself; a record that could not be read is listed with the problems
  // below, and is not repeated here (each problem is printed once).
  const cut = errors.find((p) => TRUNCATED.has(p.code));
  const first = errors[0].origin;
  const where = first?.file ? `${first.file}${first.line ? `:${first.line}` : ''}` : 'the source';
  const why = cut ? cut.message : `${where}: a record could not be read (listed below)`;
  return `the source was not read whole, so nothing was deleted: ${why}${more}`;
}

/** Problems that mean the rest of the source is lost, not one record. */
const TRUNCATED = new Set(['ics_truncated', 'csv_bad_row']);

function outcomeOf(failures: readonly unknown[], problems: SourceResult['problems'], guard?: string) {
  return failures.length > 0 || guard || problems.some((p) => p.severity === 'error') ? 'failed' : 'ok';
}

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
