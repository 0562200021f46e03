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
import type { Remote, Target } from '../writer/target.ts';
import { canonical, type Desired, DRAFTED, hashOf } from './desired.ts';
import { fieldHashes, fieldOf, toWire, withField } from './local-edits.ts';
import type { Action, Plan } from './plan.ts';
import { REBUILT } from './rebuild-state.ts';
import { type Link, type LinkKind, lostLinks, rejectsParam } from './relink.ts';

/**
 * Actions in progress at once: twice the local target's concurrency (64), so the writer's queue never runs
 * dry, and no more: an action's body waits in that queue, and what waits there through two young-generation
 * GCs is promoted, to be collected only by a full one. With 512, 448 bodies waited and the benchmark's first
 * import promoted ~430 MB in all; with 128, ~320–360 MB, with ~20% less scavenge time (bench/import.ts).
 */
const WINDOW = 128;

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
  ): ItemResult => {
    const result: ItemResult = { action, outcome, remoteId, error, warning };
    const index = places.get(action) ?? -1;
    places.delete(action);
    options.onResult?.(result, index);
    return result;
  };

  const remember = (action: Action, d: Desired, remote: Remote) => {
    let written = canonical(d);
    let remoteFields = fieldHashes(d.kind, remote.body);
    const before = action.item;
    for (const field of Object.keys(action.keep ?? {})) {
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
      hash: action.keep ? hashOf(written) : d.hash,
      written,
      remoteModified: remote.modified ?? null,
      remoteFields,
    });
  };

  /** preserve-local-edits: kept fields out of the body, or sent back as they are where updates replace. */
  const keeping = (action: Action, body: Doc): Doc => {
    if (!action.keep) return body;
    const out = { ...body };
    for (const [field, value] of Object.entries(action.keep)) {
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

  /** An event's body with its references resolved (and its slug, to create it). */
  const createBody = async (d: Desired): Promise<Doc> =>
    d.kind === 'event' ? { ...(await resolveRefs(d)), slug: d.slug } : d.fields;

  /** The body `action` writes: kept fields (preserve-local-edits) as the target has them. */
  const bodyOf = async (action: Action, d: Desired): Promise<Doc> =>
    action.op === 'create'
      ? createBody(d)
      : keeping(action, d.kind === 'event' ? await resolveRefs(d) : d.fields);

  const create = async (d: Desired, body?: Doc): Promise<Sent> => {
    const sent = body ?? (await createBody(d));
    if (d.kind === 'event' && d.slug && options.recovering) {
      const found = await target.findBySlug('event', d.slug);
      if (found)
        return { remote: await target.update('event', found.id, sent), outcome: 'created', body: sent };
    }
    return { remote: await target.create(d.kind, sent), outcome: 'created', body: sent };
  };

  const send = async (action: Action, d: Desired, body?: Doc): Promise<Sent> => {
    const sent = body ?? (await bodyOf(action, d));
    if (action.op === 'create') return create(d, sent);
    const remote = await target.update(d.kind, action.item?.remoteId as number, sent);
    return { remote, outcome: 'updated', body: sent };
  };

  /** Linked items found lost this run (relink.ts), each made again once: `kind\nid` → what was done, if anything. */
  const remade = new Map<string, Promise<string | undefined>>();

  /**
   * Makes again what `lost` names of the event's links that really is gone or trashed on the target (a
   * trashed one restored, a deleted one created from what we last wrote of it), and points the run's ids
   * at it. `relinked`: the event must be written again; `notes`: what this call did (each said once a run,
   * with the event that found it).
   */
  const relink = async (
    d: Desired,
    lost: readonly Link[],
  ): Promise<{ relinked: boolean; notes: string[] }> => {
    const notes: string[] = [];
    let relinked = false;
    for (const { kind, id } of lost) {
      let done = remade.get(refKey(kind, String(id)));
      if (done === undefined) {
        const key = refKeys(d, kind).find((k) => writtenIds.get(refKey(kind, k)) === id);
        if (key === undefined) continue;
        done = remake(kind, key, id);
        remade.set(refKey(kind, String(id)), done);
        const note = await done;
        if (note) notes.push(note);
      }
      if ((await done) !== undefined) relinked = true;
    }
    return { relinked, notes };
  };

  const remake = async (kind: LinkKind, key: string, id: number): Promise<string | undefined> => {
    const current = await target.get(kind, id);
    if (current && current.body.status !== 'trash') return undefined;
    const item = (await state.itemsOf(pipeline, [{ kind, key }])).get(refKey(kind, key));
    if (!item) return undefined;
    const remote = current
      ? await target.update(kind, id, { ...item.written, status: 'publish' })
      : await target.create(kind, item.written);
    state.put(pipeline, {
      ...item,
      remoteId: remote.id,
      slug: remote.slug,
      remoteModified: remote.modified ?? null,
      remoteFields: fieldHashes(kind, remote.body),
    });
    writtenIds.set(refKey(kind, key), remote.id);
    ids.set(refKey(kind, key), Promise.resolve(remote.id));
    // The target unlinked its other events when it was trashed or deleted: each is written again (by this
    // run when it comes later, else by the next), as a rebuilt state's items are.
    const linking = await state.markLinking(pipeline, { kind, key }, REBUILT, DRAFTED);
    const name = String(item.written.venue ?? item.written.organizer ?? item.written.name ?? key);
    const done = current ? 'in the trash on the target: restored' : 'deleted on the target: made again';
    return `its ${kind} "${name}" was ${done}, and the ${linking} events linking it are written again`;
  };

  /** The event's links the target lost, made again and the event written again; its result otherwise. */
  const relinked = async (
    action: Action,
    d: Desired,
    sent: Sent,
  ): Promise<{ sent: Sent; notes: string[] }> => {
    const lost = lostLinks(sent.body, { answer: sent.remote.body }, keptFields(action));
    const { relinked, notes } = lost.length > 0 ? await relink(d, lost) : { relinked: false, notes: [] };
    if (!relinked) return { sent, notes };
    const body = keeping(action, await resolveRefs(d));
    return { sent: { ...sent, remote: await target.update('event', sent.remote.id, body), body }, notes };
  };

  const write = async (action: Action): Promise<ItemResult> => {
    const d = action.desired as Desired;
    try {
      let warning: string | undefined;
      let sent: Sent;
      const body = await bodyOf(action, d);
      try {
        sent = await send(action, d, body);
      } catch (err) {
        const refused = d.kind === 'event' && (err as { status?: number }).status === 400;
        const lost = refused ? lostLinks(body, { error: err }, keptFields(action)) : [];
        const { relinked, notes } = lost.length > 0 ? await relink(d, lost) : { relinked: false, notes: [] };
        if (relinked) {
          if (notes.length > 0) warning = notes.join('; ');
          sent = await send(action, d);
        } else if (action.op !== 'create' && isGone(err)) {
          // Deleted on the site since we wrote it: the source still has it, so it is created again.
          warning = `it was deleted on the target (${(err as Error).message}); created again`;
          sent = await create(d);
        } else if (d.fields.image && rejectsParam(err, 'image')) {
          // An image URL the target cannot fetch (offline, 404, not an image) must not cost the event: it is
          // written without the image. The state keeps the desired hash, so the next run does not retry the
          // image on every sync; a changed image URL in the source does.
          warning = `image ${d.fields.image} was refused (${(err as Error).message}); written without it`;
          sent = await send(action, { ...d, fields: { ...d.fields, image: '' } });
        } else {
          throw err;
        }
      }
      if (d.kind === 'event' && !warning) {
        const again = await relinked(action, d, sent);
        sent = again.sent;
        if (again.notes.length > 0) warning = again.notes.join('; ');
      }
      // A site may accept an image URL and still attach nothing (TEC 6.2.6 does for a body that is no image).
      if (
        !warning &&
        d.kind === 'event' &&
        d.fields.image &&
        !('image' in (action.keep ?? {})) &&
        !sent.remote.body.image
      )
        warning = `image ${d.fields.image} was not attached by the target (it answered without an image)`;
      remember(sent.outcome === 'created' ? { ...action, keep: undefined } : action, d, sent.remote);
      return settle(action, sent.outcome, sent.remote.id, undefined, warning);
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
  } finally {
    // Also when the actions stop with an error (the sync state's disk filling up mid-run): the writes
    // already sent are seen to their end before the caller closes the target under them.
    await Promise.allSettled(running);
  }
}

type Doc = Record<string, unknown>;

/** A write as sent: the target's answer, and the body it answered. */
interface Sent {
  remote: Remote;
  outcome: Outcome;
  body: Doc;
}

/** The keys of an event's links of `kind`. */
function refKeys(d: Desired, kind: LinkKind): string[] {
  const { venue, organizers, categories, tags } = d.refs;
  if (kind === 'venue') return venue ? [venue] : [];
  return (kind === 'organizer' ? organizers : kind === 'category' ? categories : tags) ?? [];
}

/** The write fields of an action kept as the target has them (preserve-local-edits). */
const keptFields = (action: Action) => new Set(Object.keys(action.keep ?? {}).map(toWire));

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
