/**
 * `npm run import` names its pipeline after the file, and a pipeline owns what it writes. A calendar
 * downloaded again comes with a new name ("club (1).ics", "club-2.ics"), so as a pipeline of its own it would
 * create every event a second time. Before a file's first import into a target, its events are looked up
 * among the earlier imports the target's sync state knows: when one of them and the file share at least
 * half of the events of each, the file is another copy of that calendar, and the run takes that import's
 * name (and so its events, slugs and history). The state remembers the match, so that later runs of the
 * file take that name without reading it twice.
 */
import { existsSync } from 'node:fs';
import { Mapper } from '../pipeline/map.ts';
import { openSource } from '../pipeline/read-source.ts';
import type { RunSpec } from '../pipeline/run.ts';
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
  if (!spec.source.path || !existsSync(spec.stateFile)) return undefined;
  const state = new SyncState(spec.stateFile);
  try {
    const others = state.pipelines().filter((p) => p !== spec.name && p.startsWith(IMPORT_PREFIX));
    if (others.length === 0 || Object.values(state.counts(spec.name)).some((n) => n)) return undefined;
    const recorded = state.importAlias(spec.name);
    if (recorded && others.includes(recorded)) return { name: recorded, same: true };
    const keys = await eventKeys(spec, now).catch(() => []);
    let best: EarlierImport | undefined;
    for (const name of others) {
      let found = 0;
      for (let i = 0; i < keys.length; i += BATCH)
        found += state.itemsOf(name, keys.slice(i, i + BATCH)).size;
      if (found > (best?.shared?.found ?? 0)) {
        const holds = state.counts(name).event ?? 0;
        best = {
          name,
          same: found * 2 >= keys.length && found * 2 >= holds,
          shared: { found, of: keys.length, holds },
        };
      }
    }
    if (best?.same && !dryRun) state.setImportAlias(spec.name, best.name);
    return best;
  } finally {
    state.close();
  }
}

/** The keys of the events the file maps to, as the run would map them. */
async function eventKeys(spec: RunSpec, now: Date): Promise<{ kind: 'event'; key: string }[]> {
  const window = {
    from: new Date(now.getTime() - spec.window.pastDays * 86_400_000),
    to: new Date(now.getTime() + spec.window.futureDays * 86_400_000),
  };
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
      : [new Mapper(mapping, opened.result.standalone), [opened.result.records]];
  const keys = new Set<string>();
  for await (const batch of batches) {
    for (const e of mapper.map(batch).entities) if (e.kind === 'event') keys.add(e.key);
  }
  return [...keys].map((key) => ({ kind: 'event', key }));
}
