/**
 * Apply (I/O): executes a plan through a Target, recording every success in the sync state at once.
 *
 * Dependency order without a global barrier: every entity's write is a promise of its remote id, and an
 * event goes to the writer's queue as soon as the venue, organizers and terms it references have ids —
 * not after all venues are done. The writer's queue bounds concurrency and rate.
 *
 * Crash safety (spec/pipeline.md): each success is recorded at once. If a run dies with creates in flight,
 * the next run knows (SyncState.interrupted) and looks every event it is about to create up by its
 * deterministic slug first, so a kill at any moment never duplicates an event.
 *
 * Each record keeps, besides the body we wrote, a hash per field of the item as the target answered it
 * (local-edits.ts), so that a later run can tell which fields were edited on the site. Fields kept under
 * `preserve-local-edits` are left out of the body (or sent back as the target has them, where updates
 * replace the whole item), and the record keeps our old value and old hash for them, so they stay kept.
 */

import type { Kind } from '../model/kind.ts';
import type { RunState } from '../state/backend.ts';
import { REF_OF, type StateItem } from '../state/sync-state.ts';
import type { Remote, Target } from '../writer/target.ts';
import { canonical, type Desired, DRAFTED, hashOf, type Refs } from './desired.ts';
import { fieldHashes, fieldOf, toWire, withField } from './local-edits.ts';
import { type Action, keptReason, type Plan } from './plan.ts';
import {
  LINK_KINDS,
  type Link,
  linkKeys,
  lostLinks,
  type Relinked,
  rejectsParam,
  relinker,
} from './relink.ts';

/**
 * Actions in progress at once: twice the local target's concurrency (64), so the writer's queue never runs
 * dry, and no more: an action's body waits in that queue, and what waits there through two young-generation
 * GCs is promoted, to be collected only by a full one. With 512, 448 bodies waited and the benchmark's first
 * import promoted ~430 MB in all; with 128, ~320–360 MB, with ~20% less scavenge time (bench/import.ts).
 */
const WINDOW = 128;

/** Tries of one write at most: a lost link, the item gone, a refused image, a link lost in the answer. */
const MAX_TRIES = 4;

export type Outcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'skipped' | 'failed';

export interface ItemError {
  code: string;
  message: string;
  status?: number;
}

export interface ItemResult {
  action: Action;
  outcome: Outcome;
  remoteId?: number;
  error?: ItemError;
  /** Written, but not quite as asked (e.g. without an image the target could not fetch). */
  warning?: string;
}

export interface ApplyOptions {
  pipeline: string;
  target: Target;
  state: RunState;
  /**
   * The last run was interrupted, or failed: an event create it sent may have landed without its answer
   * being recorded, so each create first looks for the event by its deterministic slug (one GET each).
   */
  recovering?: boolean;
  /** Called once per action as it settles (progress bars, logs). */
  /** `index`: the action's place in the plan (results settle out of order). */
  onResult?: (result: ItemResult, index: number) => void;
  /** What the run did besides its actions (events linked again to an item made again: relink.ts). */
  onNote?: (line: string) => void;
}

export async function apply(plan: Plan, options: ApplyOptions): Promise<ItemResult[]> {
  const results: ItemResult[] = [];
  await applyEach(plan.actions, {
    ...options,
    onResult: (result, index) => {
      results[index] = result;
      options.onResult?.(result, index);
    },
  });
  return results;
}

/**
 * Executes actions as they come (a plan, or the batches of a run read in batches: pipeline/stream.ts),
 * holding only those in progress: each result goes to `onResult` and is not kept.
 */
export async function applyEach(
  actions: Iterable<Action> | AsyncIterable<Action>,
  options: ApplyOptions,
): Promise<void> {
  const { target, state, pipeline } = options;
  const ids = new Map<string, Promise<number>>();
  /** The ids of `ids` that are known: references written (or unchanged) before. */
  const writtenIds = new Map<string, number>();
  const refKey = (kind: Kind, key: string) => `${kind}\n${key}`;

  const settle = (
    action: Action,
    outcome: Outcome,
    remoteId?: number,
    error?: ItemError,
    warning?: string,
    done: Action = action,
  ): ItemResult => {
    const result: ItemResult = { action: done, outcome, remoteId, error, warning };
    const index = places.get(action) ?? -1;
    places.delete(action);
    options.onResult?.(result, index);
    return result;
  };

  /** Records a write: `keep`, the fields it left as the target has them; `before`, what the state knew. */
  const remember = (keep: Action['keep'], d: Desired, remote: Remote, before: StateItem | undefined) => {
    let written = canonical(d);
    let remoteFields = fieldHashes(d.kind, remote.body);
    for (const field of Object.keys(keep ?? {})) {
      // Not written: the record keeps what we last wrote and how the target showed it then.
      if (before) written = withField(written, field, fieldOf(before.written, field));
      const old = before?.remoteFields?.[field];
      if (old === undefined) delete remoteFields[field];
      else remoteFields = { ...remoteFields, [field]: old };
    }
    state.put(pipeline, {
      kind: d.kind,
      key: d.key,
      remoteId: remote.id,
      slug: remote.slug,
      hash: keep ? hashOf(written) : d.hash,
      written,
      remoteModified: remote.modified ?? null,
      remoteFields,
    });
  };

  /** preserve-local-edits: kept fields out of the body, or sent back as they are where updates replace. */
  const keeping = (keep: Action['keep'], body: Doc): Doc => {
    if (!keep) return body;
    const out = { ...body };
    for (const [field, value] of Object.entries(keep)) {
      if (target.capabilities.updatesReplace && value !== undefined) out[toWire(field)] = value;
      else delete out[toWire(field)];
    }
    return out;
  };

  /** Resolves an event's references to remote ids, or throws naming the one that failed. */
  const resolveRefs = async (d: Desired): Promise<Record<string, unknown>> => {
    // Mostly every reference is written by now: its id is taken as it is, without a promise per reference.
    const written = (key: string) => writtenIds.get(key);
    const venueId = d.refs.venue ? written(refKey('venue', d.refs.venue)) : undefined;
    const organizerIds = (d.refs.organizers ?? []).map((k) => written(refKey('organizer', k)));
    const categoryIds = (d.refs.categories ?? []).map((k) => written(refKey('category', k)));
    const tagIds = (d.refs.tags ?? []).map((k) => written(refKey('tag', k)));
    if (
      (venueId !== undefined || !d.refs.venue) &&
      !organizerIds.includes(undefined) &&
      !categoryIds.includes(undefined) &&
      !tagIds.includes(undefined)
    ) {
      return {
        ...d.fields,
        venue: venueId ?? '',
        organizer: organizerIds,
        categories: categoryIds,
        tags: tagIds,
      };
    }
    const id = (kind: Kind, key: string) => {
      const p = ids.get(refKey(kind, key));
      if (!p) throw refError(kind, key, 'is not in the plan');
      return p.catch((err: Error) => {
        throw refError(kind, key, `could not be written: ${err.message}`);
      });
    };
    const [venue, organizer, categories, tags] = await Promise.all([
      d.refs.venue ? id('venue', d.refs.venue) : Promise.resolve(undefined),
      Promise.all((d.refs.organizers ?? []).map((k) => id('organizer', k))),
      Promise.all((d.refs.categories ?? []).map((k) => id('category', k))),
      Promise.all((d.refs.tags ?? []).map((k) => id('tag', k))),
    ]);
    // Every reference field is sent, empty ones too: TEC replaces the whole event on update (C.4).
    return { ...d.fields, venue: venue ?? '', organizer, categories, tags };
  };

  /** What a write sends: an event's references resolved. */
  const fieldsOf = async (d: Desired): Promise<Doc> => (d.kind === 'event' ? await resolveRefs(d) : d.fields);

  const create = async (d: Desired, body: Doc): Promise<Remote> => {
    if (d.kind === 'event' && d.slug && options.recovering) {
      const found = await target.findBySlug('event', d.slug);
      if (found) return target.update('event', found.id, body);
    }
    return target.create(d.kind, body);
  };

  const links = relinker({
    target,
    state,
    pipeline,
    idOf: (kind, key) => writtenIds.get(refKey(kind, key)),
    keysWith: (kind, id) =>
      [...writtenIds].flatMap(([key, known]) =>
        known === id && key.startsWith(`${kind}\n`) ? [key.slice(kind.length + 1)] : [],
      ),
    setId: (kind, key, id) => {
      writtenIds.set(refKey(kind, key), id);
      ids.set(refKey(kind, key), Promise.resolve(id));
    },
  });
  /** Keys of the events this run writes: the end's linkOthers leaves them to their own writes. */
  const writtenEvents = new Set<string>();

  /**
   * preserve-local-edits keeps a link field the target changed; a link it dropped because the item linked
   * went (trashed or deleted there) is no edit: the item is made again and the field written. Only where
   * the target shows what we wrote but for the links that went: anything else there is an editor's choice.
   */
  const unkeepLost = async (
    action: Action,
    d: Desired,
  ): Promise<{ keep?: Action['keep']; notes: string[] }> => {
    const keep = action.keep;
    if (!keep || d.kind !== 'event') return { keep, notes: [] };
    const missing: Link[] = [];
    for (const kind of LINK_KINDS) {
      if (!(REF_OF[kind] in keep)) continue;
      const kept = keep[REF_OF[kind]];
      const shown = (Array.isArray(kept) ? kept : [kept]).filter((id) => typeof id === 'number');
      const ours = linkKeys(action.item?.written.refs as Refs, kind).map((key) =>
        writtenIds.get(refKey(kind, key)),
      );
      const gone = ours.filter((id): id is number => id !== undefined && !shown.includes(id));
      if (ours.includes(undefined) || !shown.every((id) => ours.includes(id))) continue;
      for (const id of gone) missing.push({ kind, id });
    }
    if (missing.length === 0) return { keep, notes: [] };
    let again: Relinked;
    try {
      again = await links.relink(d, missing);
    } catch (err) {
      return { keep, notes: [(err as Error).message] }; // written as kept, and said
    }
    const { remade, notes } = again;
    if (remade.length === 0) return { keep, notes };
    const lost = new Set(remade.map((l) => REF_OF[l.kind]));
    const rest = Object.fromEntries(Object.entries(keep).filter(([field]) => !lost.has(field)));
    return { keep: Object.keys(rest).length > 0 ? rest : undefined, notes };
  };

  /**
   * Writes an action's entity, trying again (a few times at most) when the target says why it did not take
   * it as sent: a link it lost (relink.ts: made again, then written again, also after a write it answered
   * without that link), the item deleted there since (created again), an image it cannot fetch (written
   * without it). Each of those is said in the result's warning.
   */
  const write = async (action: Action): Promise<ItemResult> => {
    const desired = action.desired as Desired;
    if (desired.kind === 'event') writtenEvents.add(desired.key);
    let d = desired;
    const notes: string[] = [];
    try {
      const unkept = await unkeepLost(action, d);
      notes.push(...unkept.notes);
      let keep = unkept.keep;
      // The item's id on the target once it has one: the next try updates it.
      let id = action.op === 'create' ? undefined : (action.item?.remoteId as number);
      let outcome: Outcome = action.op === 'create' ? 'created' : 'updated';
      let remote: Remote | undefined;
      /** Its id before it was found deleted there and created again. */
      let gone: number | undefined;
      for (let tries = 1; ; tries++) {
        const fields = await fieldsOf(d);
        const body =
          id === undefined ? { ...fields, ...(d.slug ? { slug: d.slug } : {}) } : keeping(keep, fields);
        const kept = new Set(Object.keys(keep ?? {}).map(toWire));
        try {
          remote = id === undefined ? await create(d, body) : await target.update(d.kind, id, body);
        } catch (err) {
          if (tries >= MAX_TRIES) throw err;
          const lost = d.kind === 'event' ? lostLinks(body, { error: err }, kept) : [];
          const again = await links.relink(d, lost);
          notes.push(...again.notes);
          if (again.remade.length > 0) continue;
          if (id !== undefined && outcome === 'updated' && isGone(err)) {
            // Deleted on the site since we wrote it: the source still has it, so it is created again.
            notes.push(`it was deleted on the target (${(err as Error).message}); created again`);
            [gone, id, outcome, keep] = [id, undefined, 'created', undefined];
            continue;
          }
          if (d.fields.image && rejectsParam(err, 'image')) {
            // An image URL the target cannot fetch (offline, 404, not an image) must not cost the event: it
            // is written without the image. The state keeps the desired hash, so the next run does not retry
            // the image on every sync; a changed image URL in the source does.
            notes.push(`image ${d.fields.image} was refused (${(err as Error).message}); written without it`);
            d = { ...d, fields: { ...d.fields, image: '' } };
            continue;
          }
          throw err;
        }
        if (d.kind !== 'event' || tries >= MAX_TRIES) break;
        // Taken, but maybe without a link it lost (TEC 6.2.6 drops a deleted category in silence).
        const lost = lostLinks(body, { answer: remote.body }, kept);
        let again: Relinked | undefined;
        try {
          again = await links.relink(d, lost);
        } catch (err) {
          notes.push((err as Error).message); // written all the same: recorded, and said
        }
        notes.push(...(again?.notes ?? []));
        if (!again?.remade.length) break;
        id = remote.id;
      }
      // A site may accept an image URL and still attach nothing (TEC 6.2.6 does for a body that is no image).
      if (d.kind === 'event' && d.fields.image && !(keep && 'image' in keep) && !remote?.body.image)
        notes.push(`image ${d.fields.image} was not attached by the target (it answered without an image)`);
      remember(keep, desired, remote as Remote, action.item);
      // A venue, organizer or term created again: the site unlinked it from its events, which get it back.
      if (gone !== undefined && d.kind !== 'event' && remote)
        links.madeAgain({ kind: d.kind, keys: [d.key], name: d.label, was: gone, now: remote.id });
      const warning = notes.length > 0 ? notes.join('; ') : undefined;
      // What was kept in the end (a lost link is written after all: unkeepLost), as the report tells it.
      const done =
        keep === action.keep
          ? action
          : {
              ...action,
              keep,
              reason: keep ? keptReason(Object.keys(keep)) : undefined,
              conflicts: action.conflicts?.filter((c) => keep && c.field in keep),
            };
      return settle(action, outcome, remote?.id, undefined, warning, done);
    } catch (err) {
      return settle(action, 'failed', undefined, itemError(err));
    }
  };

  const remove = async (action: Action): Promise<ItemResult> => {
    const item = action.item;
    if (!item || !action.removal) return settle(action, 'skipped');
    try {
      await target.remove(action.kind, item.remoteId, action.removal);
      if (action.removal === 'draft') {
        state.put(pipeline, { ...item, hash: DRAFTED, written: { ...item.written, status: 'draft' } });
      } else {
        state.forget(pipeline, action.kind, action.key);
      }
      return settle(action, 'deleted', item.remoteId);
    } catch (err) {
      return settle(action, 'failed', item.remoteId, itemError(err));
    }
  };

  // Actions start in plan order (dependencies first) with at most WINDOW in progress: bodies are built
  // and held only for those, not for the whole plan at once. An action only ever waits on earlier ones,
  // so a full window always drains.
  const running = new Set<Promise<ItemResult>>();
  /** Place in the plan of each action in progress. */
  const places = new Map<Action, number>();
  let place = 0;
  const start = (task: Promise<ItemResult>) => {
    running.add(task);
    task.then(() => running.delete(task));
    return task;
  };
  try {
    for await (const action of actions) {
      places.set(action, place++);
      const key = refKey(action.kind, action.key);
      // A conflict whose other fields changed too is written (without the conflicting ones).
      const writes = action.op === 'create' || action.op === 'update' || (action.changes?.length ?? 0) > 0;
      switch (writes && action.op === 'conflict' ? 'update' : action.op) {
        case 'create':
        case 'update': {
          const task = start(write(action));
          // Only venues, organizers and terms are referenced (by events); an event's id is not kept.
          if (action.kind === 'event') break;
          ids.set(
            key,
            task.then((r) => {
              if (r.remoteId === undefined) throw new Error(r.error?.message ?? 'not written');
              writtenIds.set(key, r.remoteId);
              return r.remoteId;
            }),
          );
          // A failed reference is reported with the event that needed it, not as an unhandled rejection.
          ids.get(key)?.catch(() => {});
          break;
        }
        case 'unchanged':
        case 'skip':
        case 'conflict': {
          const remoteId = action.item?.remoteId;
          if (remoteId !== undefined && action.kind !== 'event') {
            ids.set(key, Promise.resolve(remoteId));
            writtenIds.set(key, remoteId);
          }
          settle(action, action.op === 'unchanged' ? 'unchanged' : 'skipped', remoteId);
          break;
        }
        case 'delete':
          start(remove(action));
          break;
      }
      if (running.size >= WINDOW) await Promise.race(running);
    }
    await Promise.allSettled(running);
    for (const line of await links.linkOthers((key) => writtenEvents.has(key))) options.onNote?.(line);
  } finally {
    // Also when the actions stop with an error (the sync state's disk filling up mid-run): the writes
    // already sent are seen to their end before the caller closes the target under them.
    await Promise.allSettled(running);
  }
}

type Doc = Record<string, unknown>;

/**
 * The item no longer exists on the target: 404, 410 (trashed), or TEC 6.2.6's 400 naming the id
 * (contract C.15).
 */
function isGone(err: unknown): boolean {
  const e = err as { status?: number };
  return e.status === 404 || e.status === 410 || rejectsParam(err, 'id');
}

function refError(kind: Kind, key: string, what: string): Error {
  return Object.assign(new Error(`its ${kind} "${key}" ${what}`), { code: 'reference_failed' });
}

function itemError(err: unknown): ItemError {
  const e = err as { code?: unknown; message?: string; status?: unknown };
  return {
    code: typeof e.code === 'string' ? e.code : 'error',
    message: e.message ?? String(err),
    status: typeof e.status === 'number' ? e.status : undefined,
  };
}
