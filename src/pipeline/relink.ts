/**
 * Venues, organizers and terms deleted or trashed on the target after we wrote them: the sync state's ids
 * of them then point at nothing, or at an item in the trash, and every event written with them goes wrong.
 * Targets say so in different ways (contract B.6.2):
 * - a deleted venue or organizer: 400 `rest_invalid_param` naming `venue` / `organizer` (both);
 * - a trashed one: 400 on our server; TEC 6.2.6 links it all the same, and its answer shows it `trash`;
 * - a deleted category or tag: 400 on our server; TEC drops it in silence, and its answer lacks it.
 * `lostLinks` (pure) reads from an event's write which of its links look lost. `relinker` (I/O, for
 * apply.ts) looks each up, makes one that really is lost again once per run (a trashed one restored, a
 * deleted one created from what the state last wrote of it), points the run's ids and the state at it,
 * and links it again to the pipeline's other events the target unlinked from it.
 */
import type { Kind } from '../model/kind.ts';
import type { RunState } from '../state/backend.ts';
import { REF_OF } from '../state/sync-state.ts';
import { resendBody } from '../writer/resend-body.ts';
import type { Target } from '../writer/target.ts';
import type { Desired } from './desired.ts';
import { fieldHashes } from './local-edits.ts';

export type LinkKind = Exclude<Kind, 'event'>;
type Doc = Record<string, unknown>;

/** The field of an event body (contract B.6.2) that links each kind. */
const FIELD_OF = { venue: 'venue', organizer: 'organizer', category: 'categories', tag: 'tags' } as const;
type LinkField = (typeof FIELD_OF)[LinkKind];
const LINK_KINDS = Object.keys(FIELD_OF) as LinkKind[];

export interface Link {
  kind: LinkKind;
  id: number;
}

/** The ids an event body links in `field`: a venue is one id (or none), the others lists of ids. */
function idsIn(body: Doc, field: LinkField): number[] {
  const value = body[field];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((id): id is number => typeof id === 'number');
}

/** The linked items of an answer's `field`, as the API shows them (a venue object, lists of objects). */
function answered(answer: Doc, field: LinkField): Doc[] {
  const value = answer[field];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((item): item is Doc => typeof item === 'object' && item !== null);
}

/**
 * The links of `sent` (an event's write body) that the target's `error` names, or that its `answer` lacks
 * or shows in the trash. Fields in `skip` (kept as the target has them: preserve-local-edits) are not ours
 * to check.
 */
export function lostLinks(
  sent: Doc,
  result: { error: unknown } | { answer: Doc },
  skip: ReadonlySet<string> = new Set(),
): Link[] {
  const lost: Link[] = [];
  for (const kind of LINK_KINDS) {
    const field = FIELD_OF[kind];
    if (skip.has(field)) continue;
    const ids = idsIn(sent, field);
    if (ids.length === 0) continue;
    if ('error' in result) {
      if (rejectsParam(result.error, field)) for (const id of ids) lost.push({ kind, id });
      continue;
    }
    const shown = new Map(answered(result.answer, field).map((item) => [item.id, item.status]));
    for (const id of ids) if (!shown.has(id) || shown.get(id) === 'trash') lost.push({ kind, id });
  }
  return lost;
}

/** A 400 naming `param` among its invalid parameters (contract A.8: `data.params`). */
export function rejectsParam(err: unknown, param: string): boolean {
  const e = err as { status?: number; data?: { params?: Record<string, unknown> } };
  return e.status === 400 && e.data?.params !== undefined && param in e.data.params;
}

/** The keys of an event's links of `kind`. */
export function refKeys(d: Desired, kind: LinkKind): string[] {
  const { venue, organizers, categories, tags } = d.refs;
  if (kind === 'venue') return venue ? [venue] : [];
  return (kind === 'organizer' ? organizers : kind === 'category' ? categories : tags) ?? [];
}

export interface RelinkContext {
  target: Target;
  state: RunState;
  pipeline: string;
  /** The run's keys of `kind` whose remote id is `id` (create-or-find may have given two keys one item). */
  keysWith(kind: LinkKind, id: number): string[];
  /** Points the run's id of a key at `id`. */
  setId(kind: LinkKind, key: string, id: number): void;
}

export interface Relinked {
  /** The links of `lost` made again: the event is to be written again with the run's ids. */
  remade: Link[];
  /** What was done, said once a run, with the event that found it. */
  notes: string[];
}

/** `relink(d, lost)`: makes again what of `lost` really is gone or trashed (once a run), for event `d`. */
export function relinker(ctx: RelinkContext): (d: Desired, lost: readonly Link[]) => Promise<Relinked> {
  const { target, state, pipeline } = ctx;
  /** `kind\nid` → what was done (undefined: it was not lost), once a run. */
  const done = new Map<string, Promise<string | undefined>>();

  const remake = async (
    kind: LinkKind,
    id: number,
    keys: string[],
    except: string,
  ): Promise<string | undefined> => {
    const current = await target.get(kind, id);
    if (current && current.body.status !== 'trash') return undefined;
    const items = [
      ...(
        await state.itemsOf(
          pipeline,
          keys.map((key) => ({ kind, key })),
        )
      ).values(),
    ];
    if (items.length === 0) return undefined;
    const written = items[0].written;
    const name = String(written.venue ?? written.organizer ?? written.name ?? items[0].key);
    try {
      const remote = current
        ? await target.update(kind, id, { ...written, status: 'publish' })
        : await target.create(kind, written);
      for (const item of items) {
        state.put(pipeline, {
          ...item,
          remoteId: remote.id,
          slug: remote.slug,
          remoteModified: remote.modified ?? null,
          remoteFields: fieldHashes(kind, remote.body),
        });
        ctx.setId(kind, item.key, remote.id);
      }
      const others = await linkOthers(kind, keys, id, remote.id, except);
      const what = current ? 'in the trash on the target: restored' : 'deleted on the target: made again';
      const events = (n: number) => `${n} other event${n === 1 ? '' : 's'}`;
      const linked =
        others.linked > 0 ? `; ${events(others.linked)} it had been unlinked from, linked again` : '';
      const failed = others.failed > 0 ? `; ${events(others.failed)} could not be linked again` : '';
      return `its ${kind} "${name}" was ${what}${linked}${failed}`;
    } catch (err) {
      const e = err as Error & { code?: string };
      throw Object.assign(
        new Error(`its ${kind} "${name}" is gone from the target and could not be made again: ${e.message}`),
        {
          code: e.code ?? 'reference_failed',
        },
      );
    }
  };

  /**
   * The pipeline's other events that link the item (but `except`, being written): each still on the target,
   * not in its trash, and no longer linked to it, gets the link back in a write that keeps everything else
   * as the target has it. How many.
   */
  const linkOthers = async (kind: LinkKind, keys: string[], was: number, now: number, except: string) => {
    const field = FIELD_OF[kind];
    const linking = (await state.linking(pipeline, { kind, keys })).filter((item) => item.key !== except);
    const linked = await Promise.allSettled(
      linking.map(async (item) => {
        const current = await target.get('event', item.remoteId);
        if (!current || current.body.status === 'trash') return 0;
        const body = resendBody('event', current.body);
        const ids = idsIn(body, field);
        if (ids.includes(now)) return 0;
        if (field === 'venue' && ids.length > 0 && !ids.includes(was)) return 0; // moved to another venue there
        const patched = {
          ...body,
          [field]: field === 'venue' ? now : [...ids.filter((i) => i !== was), now],
        };
        const answer = await target.update('event', item.remoteId, patched);
        // Only the link's own hash moves: an editor's other changes there must still show as edits
        // (preserve-local-edits). A record from before per-field hashes is left as it is.
        if (item.remoteFields) {
          const ref = REF_OF[kind];
          const now = fieldHashes('event', answer.body)[ref];
          state.put(pipeline, {
            ...item,
            remoteModified: answer.modified ?? null,
            remoteFields: { ...item.remoteFields, ...(now === undefined ? {} : { [ref]: now }) },
          });
        }
        return 1;
      }),
    );
    const count = (n: number) => linked.filter((r) => r.status === 'fulfilled' && r.value === n).length;
    return { linked: count(1), failed: linked.filter((r) => r.status === 'rejected').length };
  };

  return async (d, lost) => {
    const notes: string[] = [];
    const remade: Link[] = [];
    for (const { kind, id } of lost) {
      let once = done.get(`${kind}\n${id}`);
      if (once === undefined) {
        const keys = ctx.keysWith(kind, id);
        if (!refKeys(d, kind).some((key) => keys.includes(key))) continue;
        once = remake(kind, id, keys, d.key);
        done.set(`${kind}\n${id}`, once);
        const note = await once;
        if (note) notes.push(note);
      }
      if ((await once) !== undefined) remade.push({ kind, id });
    }
    return { remade, notes };
  };
}
