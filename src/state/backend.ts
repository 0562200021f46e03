/**
 * Where a run keeps its sync state and takes its run lock: one SQLite file per target (the default, as
 * `npm run sync` has always done), or one PostgreSQL database shared by every worker (src/state/pg-state.ts),
 * so that workers on several hosts need no shared volume.
 *
 * `RunState` is what the pipeline asks of either (run.ts, stream.ts, apply.ts). Its reads answer a value or
 * a promise of one (`Awaitable`: the SQLite file answers at once, PostgreSQL over the network; callers
 * await either). `put` and `forget` return nothing: each is committed with the other records of its turn
 * of the event loop (sync-state.ts header), and a failed commit is thrown by the next read or `finishRun`.
 * Public: Awaitable, RunState, StateBackend, sqliteBackend.
 */
import { existsSync } from 'node:fs';
import type { Kind } from '../model/kind.ts';
import { acquireLock } from './lock.ts';
import { type SourceCache, type StateItem, SyncState } from './sync-state.ts';

export type Awaitable<T> = T | Promise<T>;

export interface RunState {
  items(pipeline: string): Awaitable<StateItem[]>;
  /** The `limit` items written last, of any pipeline or of `of` (one pipeline's of one kind). */
  recentItems(limit: number, of?: { pipeline: string; kind: Kind }): Awaitable<StateItem[]>;
  itemsOf(pipeline: string, ids: readonly { kind: Kind; key: string }[]): Awaitable<Map<string, StateItem>>;
  unseenEvents(pipeline: string): Awaitable<StateItem[]>;
  /** The pipeline's events whose last written body links one of `link.keys` (venues, organizers or terms). */
  linking(
    pipeline: string,
    link: { kind: Exclude<Kind, 'event'>; keys: readonly string[] },
  ): Awaitable<StateItem[]>;
  counts(pipeline: string): Awaitable<Partial<Record<Kind, number>>>;
  put(pipeline: string, item: StateItem, now?: Date): void;
  forget(pipeline: string, kind: Kind, key: string): void;
  /** A pipeline's items and source validators forgotten, its runs kept; how many items it knew. */
  forgetItems(pipeline: string): Awaitable<number>;
  /** sync-state.ts `bind`: the store the ids are in; true when what the state knew was forgotten. */
  bind(instance: string, gone: boolean): Awaitable<boolean>;
  boundInstance(): Awaitable<string | undefined>;
  sourceCache(pipeline: string): Awaitable<SourceCache | undefined>;
  setSourceCache(pipeline: string, cache: SourceCache | undefined, now?: Date): Awaitable<void>;
  startRun(id: string, pipeline: string, now?: Date): Awaitable<void>;
  interrupted(pipeline: string): Awaitable<boolean>;
  lastRunFailed(pipeline: string): Awaitable<boolean>;
  finishRun(id: string, pipeline: string, outcome: string, report: unknown, now?: Date): Awaitable<void>;
  close(): Awaitable<void>;
}

export interface StateBackend {
  /** Takes the run lock of `pipeline` on the target of `stateFile`, or throws LockedError at once. */
  lock(stateFile: string, pipeline: string): Promise<() => Awaitable<void>>;
  /** The target's state (created if need be). */
  open(stateFile: string): Promise<RunState>;
  /** Is there a state for this target yet? A dry run creates none. */
  exists(stateFile: string): Awaitable<boolean>;
}

/** One SQLite file per target, its lock a file beside it (lock.ts). */
export const sqliteBackend: StateBackend = {
  lock: async (stateFile, pipeline) => acquireLock(`${stateFile}.${pipeline}.lock`),
  open: async (stateFile) => new SyncState(stateFile),
  exists: (stateFile) => existsSync(stateFile),
};
