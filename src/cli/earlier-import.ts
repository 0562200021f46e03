/**
 * `npm run import` names its pipeline after the file, and a pipeline owns what it writes. A calendar
 * downloaded again comes with a new name ("club (1).ics", "club-2.ics"), or is later read from its feed's
 * URL, so as a pipeline of its own it would create every event a second time (or, leaving them to the
 * earlier import, never update them). Before a file's first import into a target, its events are looked up
 * among the earlier imports the target's sync state knows: when one of them holds at least half of the
 * file's events, and they are at least half of its events that have not ended yet, the file is another
 * copy of that calendar, and the run takes that import's name (and so its events, slugs and history). The
 * state remembers the match, so that later runs of the file take that name after a look at its first
 * events only.
 */
import { existsSync } from 'node:fs';
import { DAY } from '../model/civil-time.ts';
import { Mapper } from '../pipeline/map.ts';
import { openSource } from '../pipeline/read-source.ts';
import { type RunSpec, runWindow } from '../pipeline/run.ts';
import { BATCH } from '../pipeline/stream.ts';
import { SyncState } from '../state/sync-state.ts';

export const IMPORT_PREFIX = 'import-';

export interface EarlierImport {
  /** The earlier import's pipeline name. */
  name: string;
  /** The same calendar: the run is to take `name`. */
  same: boolean;
  /**
   * How many of the file's events the earlier import holds, of how many, and how many it holds in all;
   * absent when a match recorded before is taken again.
   */
  shared?: { found: number; of: number; holds: number };
}

/**
 * The earlier import that holds most of the file's events, if any holds one; `same` says whether that is
 * the same calendar. A match is recorded in the state unless `dryRun`. A source that cannot be read
 * answers undefined (the run reads it again and says why); a state that cannot be read throws.
 */
export async function earlierImport(
  spec: RunSpec,
  now: Date,
  dryRun: boolean,
): Promise<EarlierImport | undefined> {
  if (!existsSync(spec.stateFile)) return undefined;
  const state = new SyncState(spec.stateFile);
  try {
    const others = importsBesides(state, spec.name);
    if (others.length === 0 || Object.values(state.counts(spec.name)).some((n) => n)) return undefined;
    const window = runWindow(spec, now);
    // A match recorded before stands while the earlier import still holds most of the file's first
    // events: another calendar saved under the same name later is looked at afresh. A feed's address
    // names its calendar: its match stands, and costs no second download each night.
    const recorded = state.importAlias(spec.name);
    if (recorded && others.includes(recorded) && spec.source.url) return { name: recorded, same: true };
    if (recorded && others.includes(recorded)) {
      const first = await eventKeys(spec, window, BATCH).catch(() => []);
      if (state.itemsOf(recorded, first).size * 2 >= first.length && first.length > 0)
        return { name: recorded, same: true };
    }
    const keys = await eventKeys(spec, window).catch(() => []);
    let best: EarlierImport | undefined;
    for (const name of others) {
      let found = 0;
      for (let i = 0; i < keys.length; i += BATCH)
        found += state.itemsOf(name, keys.slice(i, i + BATCH)).size;
      if (found > (best?.shared?.found ?? 0)) {
        // What the earlier import holds that has not passed: a calendar downloaded again months later no
        // longer has the events that ended before its window.
        const holds = state.eventsEndingFrom(name, isoDay(window.from, -1));
        best = {
          name,
          same: found * 2 >= keys.length && found * 2 >= holds,
          shared: { found, of: keys.length, holds },
        };
      }
    }
    if (!dryRun) {
      if (best?.same) state.setImportAlias(spec.name, best.name);
      else if (recorded) state.setImportAlias(spec.name, undefined);
    }
    return best;
  } finally {
    state.close();
  }
}

/**
 * The other imports of files into the target the state knows: a file imported on its own leaves them the
 * events they hold (RunSpec.leaveTo, pipeline/shared.ts).
 */
export function otherImports(spec: RunSpec): string[] {
  if (!existsSync(spec.stateFile)) return [];
  const state = new SyncState(spec.stateFile);
  try {
    return importsBesides(state, spec.name);
  } finally {
    state.close();
  }
}

/** The imports of files the state knows, but `name`. */
const importsBesides = (state: SyncState, name: string) =>
  state.pipelines().filter((p) => p !== name && p.startsWith(IMPORT_PREFIX));

type Window = ReturnType<typeof runWindow>;

/** The UTC day `days` after `date`, as `YYYY-MM-DD` (a day's slack for the written times' zones). */
const isoDay = (date: Date, days: number) => new Date(date.getTime() + days * DAY).toISOString().slice(0, 10);

/** The keys of the events the file maps to, as the run would map them (of its first `limit` records). */
async function eventKeys(
  spec: RunSpec,
  window: Window,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ kind: 'event'; key: string }[]> {
  const opened = await openSource(spec, window);
  if (opened.notModified) return [];
  const { calendar } = 'stream' in opened ? opened.stream : opened.result;
  const mapping = {
    ...spec.mapping,
    pipeline: spec.name,
    timezone: spec.mapping.timezone ?? calendar.timezone,
  };
  const [mapper, batches] =
    'stream' in opened
      ? [new Mapper(mapping, undefined, true), opened.stream.records(BATCH)]
      : [new Mapper(mapping, opened.result.standalone), [opened.result.records.slice(0, limit)]];
  const keys = new Set<string>();
  let read = 0;
  for await (const batch of batches) {
    for (const e of mapper.map(batch).entities) if (e.kind === 'event') keys.add(e.key);
    read += batch.length;
    if (read >= limit) break;
  }
  return [...keys].map((key) => ({ kind: 'event', key }));
}
