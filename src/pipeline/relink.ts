/**
 * Venues, organizers and terms deleted or trashed on the target after we wrote them: the sync state's ids
 * of them then point at nothing, or at an item in the trash, and every event written with them goes wrong.
 * Targets say so in different ways (contract B.6.2):
 * - a deleted venue or organizer: 400 `rest_invalid_param` naming `venue` / `organizer` (both);
 * - a trashed one: 400 on our server; TEC 6.2.6 links it all the same, and its answer shows it `trash`;
 * - a deleted category or tag: 400 on our server; TEC drops it in silence, and its answer lacks it.
 * `lostLinks` (pure) reads from an event's write which of its links look lost. `relinker` (I/O, for
 * apply.ts) looks each up, makes one that really is lost again once per run (a trashed one restored as the
 * site has it, a deleted one created from what the state last wrote of it), points the run's ids and the
 * state at it, and, once the run's own writes are done, links it again to the pipeline's other events the
 * target unlinked from it (not those an editor changed or removed).
 */
import type { Kind } from '../model/kind.ts';
import type { RunState } from '../state/backend.ts';
import { REF_OF, type StateItem } from '../state/sync-state.ts';
import { resendBody } from '../writer/resend-body.ts';
import type { Target } from '../writer/target.ts';
import type { Desired, Refs } from './desired.ts';
import { fieldHashes } from './local-edits.ts';

export type LinkKind = Exclude<Kind, 'event'>;
type Doc = Record<string, unknown>;

/** The field of an event body (contract B.6.2) that links each kind. */
const FIELD_OF = { venue: 'venue', organizer: 'organizer', category: 'categories', tag: 'tags' } as const;
type LinkField = (typeof FIELD_OF)[LinkKind];
export const LINK_KINDS = Object.keys(FIELD_OF) as LinkKind[];

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

/** The keys an event's `refs` (desired.ts, or as the state last wrote them) link of `kind`. */
export function linkKeys(refs: Refs | undefined, kind: LinkKind): string[] {
  const value = refs?.[REF_OF[kind] as keyof Refs];
  return Array.isArray(value) ? value : typeof value === 'string' && value ? [value] : [];
}

export interface RelinkContext {
  target: Target;
  state: RunState;
  pipeline: string;
  /** The run's id of a link (`kind`, key), if the run knows it. */
  idOf(kind: LinkKind, key: string): number | undefined;
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

/** An item made again this run: its keys, and its id before and now. */
interface Made {
  kind: LinkKind;
  keys: string[];
  name: string;
  was: number;
  now: number;
}

export interface Relinker {
  /** Makes again what of `lost` really is gone or trashed (once a run), for event `d`. */
  relink(d: Desired, lost: readonly Link[]): Promise<Relinked>;
  /** An item created again by the run after its own update found it gone: its events are linked again too. */
  madeAgain(made: Made): void;
  /**
   * At the end of the run, when its own writes are done: the pipeline's events that linked an item made
   * again and that the run did not write (`written`) get the link back. What was done, a line per item.
   */
  linkOthers(written: (key: string) => boolean): Promise<string[]>;
}

export function relinker(ctx: RelinkContext): Relinker {
  const { target, state, pipeline } = ctx;
  /** `kind\nid` → what was done (undefined: it was not lost), once a run. */
  const done = new Map<string, Promise<string | undefined>>();
  const made: Made[] = [];

  const remake = async (kind: LinkKind, id: number, keys: string[]): Promise<string | undefined> => {
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
      // A trashed one comes back as the site has it (an editor's rename stays); a deleted one as we wrote it.
      const remote = current
        ? await target.update(kind, id, { ...resendBody(kind, current.body), status: 'publish' })
        : await target.create(kind, written);
      for (const item of items) {
        state.put(pipeline, {
          ...item,
          remoteId: remote.id,
          slug: remote.slug,
          remoteModified: remote.modified ?? null,
          remoteFields: current ? item.remoteFields : fieldHashes(kind, remote.body),
        });
        ctx.setId(kind, item.key, remote.id);
      }
      made.push({ kind, keys, name, was: id, now: remote.id });
      const what = current ? 'in the trash on the target: restored' : 'deleted on the target: made again';
      return `its ${kind} "${name}" was ${what}`;
    } catch (err) {
      const e = err as Error & { code?: string };
      throw Object.assign(
        new Error(`its ${kind} "${name}" is gone from the target and could not be made again: ${e.message}`),
        { code: e.code ?? 'reference_failed' },
      );
    }
  };

  /**
   * Gives event `item` the link to `m` back, if the target still has it (not in its trash) and shows its
   * links of that kind as we wrote them but for the one that went (else an editor changed them: left so).
   * Only the link's own hash moves in the record: an editor's other edits there stay edits.
   */
  const relinkEvent = async (m: Made, item: StateItem): Promise<boolean> => {
    const current = await target.get('event', item.remoteId);
    if (!current || current.body.status === 'trash') return false;
    const field = FIELD_OF[m.kind];
    const body = resendBody('event', current.body);
    if (idsIn(body, field).includes(m.now)) return false;
    const shown = idsIn(body, field).filter((id) => id !== m.was);
    const others = linkKeys(item.written.refs as Refs, m.kind).filter((key) => !m.keys.includes(key));
    const expected = others.map((key) => ctx.idOf(m.kind, key));
    const same =
      expected.length === shown.length && expected.every((id) => id !== undefined && shown.includes(id));
    if (!same) return false;
    const answer = await target.update('event', item.remoteId, {
      ...body,
      [field]: field === 'venue' ? m.now : [...shown, m.now],
    });
    const ref = REF_OF[m.kind];
    const now = fieldHashes('event', answer.body)[ref];
    if (item.remoteFields && now !== undefined)
      state.put(pipeline, {
        ...item,
        remoteModified: answer.modified ?? null,
        remoteFields: { ...item.remoteFields, [ref]: now },
      });
    return true;
  };

  const events = (n: number) => `${n} event${n === 1 ? '' : 's'}`;

  return {
    async relink(d, lost) {
      const notes: string[] = [];
      const remade: Link[] = [];
      for (const { kind, id } of lost) {
        let once = done.get(`${kind}\n${id}`);
        if (once === undefined) {
          const keys = ctx.keysWith(kind, id);
          if (!linkKeys(d.refs, kind).some((key) => keys.includes(key))) continue;
          once = remake(kind, id, keys);
          done.set(`${kind}\n${id}`, once);
          const note = await once;
          if (note) notes.push(note);
        }
        if ((await once) !== undefined) remade.push({ kind, id });
      }
      return { remade, notes };
    },

    madeAgain(m) {
      made.push(m);
    },

    async linkOthers(written) {
      const lines: string[] = [];
      for (const m of made) {
        const linking = (await state.linking(pipeline, { kind: m.kind, keys: m.keys })).filter(
          (item) => !written(item.key),
        );
        const results = await Promise.allSettled(linking.map((item) => relinkEvent(m, item)));
        const linked = results.filter((r) => r.status === 'fulfilled' && r.value).length;
        const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
        if (linked === 0 && failed.length === 0) continue;
        const not = failed.length > 0 ? `; ${events(failed.length)} could not be (${failed[0].message})` : '';
        lines.push(
          `${m.kind} "${m.name}" made again: ${events(linked)} it had been unlinked from, linked to it again${not}`,
        );
      }
      return lines;
    },
  };
}
