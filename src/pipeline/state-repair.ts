/**
 * `npm run state -- rebuild`: a pipeline's sync state rebuilt from the target, with nothing written there.
 * Public: rebuildPipelineState.
 *
 * The source is read and mapped as a run would (so that the keys, slugs and natural keys are the ones the
 * next run plans with), the target's items are recognised by slug and natural key (rebuild-state.ts), and
 * the pipeline's items in the state are replaced by what was found, under the pipeline's run lock. A run
 * does the same by itself when the state knows nothing of its pipeline; this command is for a state that
 * is wrong rather than missing (restored from an old backup, copied from another machine).
 */
import type { Logger } from 'pino';
import type { Kind } from '../model/kind.ts';
import { acquireLock } from '../state/lock.ts';
import { SyncState } from '../state/sync-state.ts';
import type { Target } from '../writer/target.ts';
import { bindState } from './bind-state.ts';
import { KIND_ORDER } from './desired.ts';
import { mapRecords } from './map.ts';
import { readSource } from './read-source.ts';
import { REBUILT, rebuildState } from './rebuild-state.ts';
import { type RunSpec, runWindow } from './run.ts';

export interface Rebuilt {
  /** Per kind: items the source has, and how many of them were found on the target. */
  counts: Record<Kind, { source: number; found: number; changed: number }>;
}

export async function rebuildPipelineState(
  spec: RunSpec,
  options: { openTarget: () => Promise<Target>; now?: Date; logger?: Logger },
): Promise<Rebuilt> {
  const now = options.now ?? new Date();
  const release = acquireLock(`${spec.stateFile}.${spec.name}.lock`);
  let target: Target | undefined;
  let state: SyncState | undefined;
  try {
    const window = runWindow(spec, now);
    const read = await readSource(spec, window);
    if (read.notModified) throw new Error('unexpected 304 to an unconditional GET');
    const mapped = mapRecords(read.result.records, {
      ...spec.mapping,
      pipeline: spec.name,
      timezone: spec.mapping.timezone ?? read.result.calendar.timezone,
    });
    target = await options.openTarget();
    await target.checkAccess();
    const items = await rebuildState(target, mapped.entities);
    state = new SyncState(spec.stateFile);
    // The rebuilt ids are ids in this store: a state bound to another forgets that one's first.
    await bindState(state, target, false);
    state.replaceItems(spec.name, items, now);
    const counts = Object.fromEntries(
      KIND_ORDER.map((kind) => [
        kind,
        {
          source: mapped.entities.filter((d) => d.kind === kind).length,
          found: items.filter((i) => i.kind === kind).length,
          changed: items.filter((i) => i.kind === kind && i.hash === REBUILT).length,
        },
      ]),
    ) as Rebuilt['counts'];
    options.logger?.info({ pipeline: spec.name, counts }, 'sync state rebuilt from the target');
    return { counts };
  } finally {
    await target?.close();
    state?.close();
    release();
  }
}
