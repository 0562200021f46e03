/**
 * The sync state's ids are ids in one store. Bound to the store the target says it is (Target.instance), a
 * state left from a store that is gone (the data file deleted or replaced) forgets what it knew there, so
 * that the plan takes over what the store has by slug and name and creates the rest instead of calling it
 * unchanged. Public: bindState, describesAnotherStore.
 */
import type { RunState } from '../state/backend.ts';
import type { Target } from '../writer/target.ts';

/** How many of the state's last written items are looked up in a store no instance was recorded for. */
const PROBE = 20;

/**
 * Binds the state to the target's store; true when what it knew was forgotten. `isNew`: the store was
 * just made, so nothing the state knows is in it.
 */
export async function bindState(state: RunState, target: Target, isNew: boolean): Promise<boolean> {
  if (!target.instance) return false;
  return state.bind(target.instance, isNew || (await describesAnotherStore(state, target)));
}

/**
 * Whether the state's ids are ids in another store than the target's, without recording anything (a dry
 * run asks this). A state that recorded no store (one from before schema 4) is asked of the store itself:
 * its items written last are looked up there by id and slug, and a store that holds none of them is
 * another one.
 */
export async function describesAnotherStore(state: RunState, target: Target): Promise<boolean> {
  if (!target.instance) return false;
  const bound = await state.boundInstance();
  if (bound !== undefined) return bound !== target.instance;
  const recent = await state.recentItems(PROBE);
  for (const item of recent) {
    if ((await target.get(item.kind, item.remoteId))?.slug === item.slug) return false;
  }
  return recent.length > 0;
}
