/**
 * A run in bounded batches (issue 17: memory that does not grow with the file). The source's records are
 * mapped, planned and handed to the writer a batch at a time: the sync state is asked only for the keys of
 * the batch (SyncState.itemsOf, which also marks them seen), and each record is let go once mapped, so
 * what the run holds is one batch and the writes in flight, not every record, entity and action at once.
 *
 * The same decisions as the whole plan (plan.ts, whose pieces these are): venues, organizers and terms go
 * before the events of the batch that first names them (the writer resolves references across batches);
 * deletions — events of the state the run never saw, and events cancelled in the source — are planned
 * after the last batch, with the mass-delete guard over all of them, and only then written.
 */
import type { EventRecord, SourceProblem, SourceResult } from '../sources/record.ts';
import type { RunState } from '../state/backend.ts';
import type { Remote, Target } from '../writer/target.ts';
import { applyEach, type ItemResult } from './apply.ts';
import { type MapOptions, Mapper } from './map.ts';
import {
  type Action,
  changedItems,
  countActions,
  holdBack,
  massDeleteGuard,
  type Plan,
  type Policies,
  planDeletions,
  planEntities,
} from './plan.ts';
import { type Left, leaveToOthers } from './shared.ts';

/** Records mapped and planned at a time. */
export const BATCH = 2000;

export interface StreamOptions {
  pipeline: string;
  /**
   * The source's records: read whole (consumed: each entry is let go once its batch is mapped; a later
   * record of a key replaces an earlier one, as map.ts does), or read in batches as the run goes (an .ics
   * file: sources/ics/stream.ts, whose keys are unique).
   */
  records: (EventRecord | undefined)[] | BatchSource;
  /** Policies known only once the source has been read to its end (what it failed to read): for deletions. */
  endOfSource?: () => Partial<Policies>;
  standalone?: SourceResult['standalone'];
  mapping: MapOptions;
  policies: Omit<Policies, 'remote'>;
  state: RunState;
  target: Target;
  recovering: boolean;
  /** preserve-local-edits: the target's current version of these items (run.ts currentVersions). */
  currentVersions?: (items: ReturnType<typeof changedItems>) => Promise<Map<string, Remote | null>>;
  onResult: (result: ItemResult, index: number) => void;
  /** apply.ts ApplyOptions.onNote. */
  onNote?: (line: string) => void;
  /** Records per batch (default BATCH; tests cross batch boundaries with small ones). */
  batch?: number;
  /** The actions planned so far, and the records not yet planned: a progress bar's total. */
  onPlanned?: (actions: number, recordsLeft: number) => void;
  /** Pipelines whose events this one leaves to them (run.ts RunSpec.leaveTo, shared.ts). */
  leaveTo?: readonly string[];
}

/** Records that come a batch at a time. */
export interface BatchSource {
  records(size: number): AsyncIterable<EventRecord[]>;
  /** A guess at the records still to come. */
  left(): number;
}

export interface Streamed {
  /** The plan's counts and guard; its actions are not kept. */
  plan: Plan;
  /** Problems the mapping found (duplicate keys, ends before starts). */
  problems: SourceProblem[];
  /** Events left to the pipelines of `leaveTo` that hold them. */
  left: Left;
}

export async function runInBatches(options: StreamOptions): Promise<Streamed> {
  const { records, state, pipeline, policies } = options;
  const size = options.batch ?? BATCH;
  const mapper = new Mapper(options.mapping, options.standalone, !Array.isArray(records));
  // The guard weighs deletions against the events the state had before this run wrote any.
  const stateEvents = (await state.counts(pipeline)).event ?? 0;
  const problems: SourceProblem[] = [];
  const held: { guard?: string } = {};
  const leftOut: Left = new Map();
  const counts = countActions([]);
  let sourceHasEvents = false;
  let actionCount = 0;

  const count = (actions: readonly Action[]) => {
    for (const a of actions) counts[a.kind][a.op]++;
    actionCount += actions.length;
  };

  async function* actions(): AsyncGenerator<Action> {
    // Deletions of events cancelled in the source wait for the guard, with those that left it.
    const cancelled: Action[] = [];
    for await (const { batch, superseded, left } of batchesOf(records, size)) {
      const mapped = mapper.map(batch, superseded);
      problems.push(...mapped.problems);
      sourceHasEvents ||= mapped.entities.some((d) => d.kind === 'event');
      const known = await state.itemsOf(pipeline, mapped.entities);
      const entities = await leaveToOthers(state, options.leaveTo ?? [], mapped.entities, known, leftOut);
      const remote =
        options.currentVersions && policies.update === 'preserve-local-edits'
          ? await options.currentVersions(changedItems(entities, [...known.values()]))
          : undefined;
      const batchActions = planEntities(entities, known, { ...policies, remote });
      options.onPlanned?.(actionCount + batchActions.length, left());
      for (const action of batchActions) {
        if (action.op === 'delete') cancelled.push(action);
        else {
          count([action]);
          yield action;
        }
      }
    }
    const atEnd = { ...policies, ...options.endOfSource?.() };
    const deletions = [
      ...cancelled,
      ...planDeletions(await state.unseenEvents(pipeline), () => false, atEnd),
    ];
    const deletes = deletions.filter((a) => a.op === 'delete').length;
    const guard = massDeleteGuard(deletes, sourceHasEvents, stateEvents, atEnd);
    if (guard) {
      holdBack(deletions, guard);
      held.guard = guard;
    }
    count(deletions);
    options.onPlanned?.(actionCount, 0);
    yield* deletions;
  }

  await applyEach(actions(), {
    pipeline,
    target: options.target,
    state,
    recovering: options.recovering,
    onResult: options.onResult,
    onNote: options.onNote,
  });
  return { plan: { actions: [], counts, ...held }, problems, left: leftOut };
}

interface Batch {
  batch: EventRecord[];
  /** Records of the batch a later batch replaces (mapped, not handed on). */
  superseded?: (index: number) => boolean;
  /** Records still to come after this batch (a guess for a stream). */
  left: () => number;
}

/** The source's batches; at least one (venues and organizers a source lists on their own come with the first). */
async function* batchesOf(records: StreamOptions['records'], size: number): AsyncGenerator<Batch> {
  if (!Array.isArray(records)) {
    let any = false;
    for await (const batch of records.records(size)) {
      any = true;
      yield { batch, left: () => records.left() };
    }
    if (!any) yield { batch: [], left: () => 0 };
    return;
  }
  const superseded = supersededOf(records);
  for (let from = 0; from < Math.max(records.length, 1); from += size) {
    const batch = records.slice(from, from + size) as EventRecord[];
    records.fill(undefined, from, from + size);
    const next = from + batch.length;
    yield {
      batch,
      superseded: (i) => superseded.has(from + i),
      left: () => Math.max(0, records.length - next),
    };
  }
}

/** Indexes of records a later record of the same key replaces (the later one is used: map.ts). */
function supersededOf(records: readonly (EventRecord | undefined)[]): Set<number> {
  const last = new Map<string, number>();
  records.forEach((r, i) => {
    if (r) last.set(r.key, i);
  });
  const superseded = new Set<number>();
  records.forEach((r, i) => {
    if (r && last.get(r.key) !== i) superseded.add(i);
  });
  return superseded;
}
