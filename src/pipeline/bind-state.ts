/**
 * The sync state's ids are ids in one store. Bound to the store the target says it is (Target.instance), a
 * state left from a store that is gone (the data file deleted or replaced) forgets what it knew there, so
 * that the plan takes over what the store has by slug and name and creates the rest instead of calling it
 * unchanged; a remote site, which has no id, is asked for what the state says it holds. Public: bindState,
 * describesAnotherStore, bindSite, siteLost.
 */
import { untrashedSlug } from '../model/slug.ts';
import type { RunState } from '../state/backend.ts';
import type { StateItem } from '../state/sync-state.ts';
import type { Target } from '../writer/target.ts';

/**
 * How many of the state's last written items are looked up in a store no instance was recorded for, and
 * of a pipeline's last written events on a remote site.
 */
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
  return holdsNone(target, await state.recentItems(PROBE));
}

/**
 * A remote site has no store id, and keeps its address when it is reset or put back from a backup: what the
 * state says a pipeline wrote there may be gone. Its events written last are looked up on the site by id and
 * slug before each run; when the site holds none of them, the pipeline's items and source validators are
 * forgotten (not by a dry run), so that the plan takes over what the site has by slug and name and creates
 * the rest instead of calling it unchanged. How many items were (or would be) forgotten, 0 if none.
 */
export async function bindSite(
  state: RunState,
  pipeline: string,
  target: () => Promise<Target>,
  dryRun: boolean,
): Promise<number> {
  if (!(await siteLost(state, pipeline, target))) return 0;
  if (dryRun) return Object.values(await state.counts(pipeline)).reduce((a, n) => a + (n ?? 0), 0);
  return state.forgetItems(pipeline);
}

/**
 * Whether the site holds none of the events `pipeline` wrote there last (bindSite's look), false when the
 * state knows none. Asked also of the pipelines a run leaves events to (shared.ts): a reset site does not
 * hold theirs either, and their own next run forgets them.
 */
export async function siteLost(
  state: RunState,
  pipeline: string,
  target: () => Promise<Target>,
): Promise<boolean> {
  // Events only: their slugs are the pipeline's own, where a venue's or a term's come from its name, and a
  // reset site gives the same name made again by another pipeline the same id as before.
  const recent = await state.recentItems(PROBE, { pipeline, kind: 'event' });
  return recent.length > 0 && (await holdsNone(await target(), recent));
}

/**
 * Whether `target` holds none of `items`, looked up by id, each checked by slug; false for no items. A
 * trashed one is held: trashed by hand, or by a site's cleanup of past events, it is not a reset.
 */
async function holdsNone(target: Target, items: readonly StateItem[]): Promise<boolean> {
  for (const item of items) {
    const found = await target.get(item.kind, item.remoteId);
    if (found !== null && untrashedSlug(found.slug) === item.slug) return false;
  }
  return items.length > 0;
}
