/**
 * `npm run import` names its pipeline after the file, and a pipeline owns what it writes. A calendar
 * downloaded again comes with a new name ("club (1).ics", "club-2.ics"), so as a pipeline of its own it would
 * create every event a second time. Before a file's first import into a target, its first events are looked
 * up among the earlier imports the target's sync state knows: when one of them already holds at least half
 * of them, the file is another copy of that calendar, and the run takes that import's name (and so its
 * events, slugs and history).
 */
import { existsSync } from 'node:fs';
import { Mapper } from '../pipeline/map.ts';
import { openSource, type SourceStream } from '../pipeline/read-source.ts';
import type { RunSpec } from '../pipeline/run.ts';
import { BATCH } from '../pipeline/stream.ts';
import { SyncState } from '../state/sync-state.ts';

export const IMPORT_PREFIX = 'import-';

export interface EarlierImport {
  /** The earlier import's pipeline name. */
  name: string;
  /** How many of the file's first events it holds, of how many. */
  found: number;
  of: number;
}

export async function earlierImport(spec: RunSpec, now: Date): Promise<EarlierImport | undefined> {
  if (!spec.source.path || !existsSync(spec.stateFile)) return undefined;
  const state = new SyncState(spec.stateFile);
  try {
    const others = state.pipelines().filter((p) => p !== spec.name && p.startsWith(IMPORT_PREFIX));
    if (others.length === 0 || Object.values(state.counts(spec.name)).some((n) => n)) return undefined;
    const window = {
      from: new Date(now.getTime() - spec.window.pastDays * 86_400_000),
      to: new Date(now.getTime() + spec.window.futureDays * 86_400_000),
    };
    const opened = await openSource(spec, window);
    if (opened.notModified) return undefined;
    const { calendar } = 'stream' in opened ? opened.stream : opened.result;
    const first =
      'stream' in opened ? await firstBatch(opened.stream) : opened.result.records.slice(0, BATCH);
    const mapper = new Mapper({
      ...spec.mapping,
      pipeline: spec.name,
      timezone: spec.mapping.timezone ?? calendar.timezone,
    });
    const keys = mapper
      .map(first)
      .entities.filter((e) => e.kind === 'event')
      .map((e) => ({ kind: e.kind, key: e.key }));
    if (keys.length === 0) return undefined;
    let best: EarlierImport | undefined;
    for (const name of others) {
      const found = state.itemsOf(name, keys).size;
      if (found > (best?.found ?? 0)) best = { name, found, of: keys.length };
    }
    return best && best.found * 2 >= keys.length ? best : undefined;
  } finally {
    state.close();
  }
}

async function firstBatch(stream: SourceStream) {
  for await (const batch of stream.records(BATCH)) return batch;
  return [];
}
