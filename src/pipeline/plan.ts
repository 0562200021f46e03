/**
 * The plan (pure): desired entities against the sync state → one action per entity, before anything is
 * written (vdirsyncer computes every action before its first write). `apply` only executes it;
 * `--dry-run` and `npm run plan` print it.
 *
 * Deletions apply to events only: venues, organizers and terms may be shared with other pipelines and
 * with the site's own events, so they are never removed by a sync.
 *
 * Update policy `preserve-local-edits`: `policies.remote` holds the target's current version of every item
 * the source changed (read by run.ts before planning); fields edited there since our last write
 * (local-edits.ts) are kept, and where the source changed such a field too, the item is a `conflict` listing
 * both values — its other changes are still written, the conflicting ones never silently dropped.
 */
import { localToUtc } from '../model/datetime.ts';
import type { Kind } from '../model/kind.ts';
import type { Origin } from '../sources/record.ts';
import type { StateItem } from '../state/sync-state.ts';
import type { Remote, RemovalMode } from '../writer/target.ts';
import { canonical, type Desired, DRAFTED, KIND_ORDER } from './desired.ts';
import { editedFields, keptValues } from './local-edits.ts';

export type Op = 'create' | 'update' | 'unchanged' | 'delete' | 'skip' | 'conflict';
export const OPS: readonly Op[] = ['create', 'update', 'unchanged', 'delete', 'skip', 'conflict'];

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** A field the source changed that was also edited on the target: the target's value is kept. */
export interface Conflict {
  field: string;
  /** What we last wrote. */
  written: unknown;
  /** What the source says now (not written). */
  source: unknown;
  /** What the target has (kept), in write form; undefined when it cannot be told (`unknown` edits). */
  target: unknown;
}

export interface Action {
  op: Op;
  kind: Kind;
  key: string;
  label: string;
  origin?: Origin;
  uid?: string;
  /** What the source wants (absent for an item that left the source). */
  desired?: Desired;
  /** What the state knows (absent for a new item). */
  item?: StateItem;
  /** Updates: the fields that change, against what we last wrote. */
  changes?: FieldChange[];
  /** Deletes: how the item leaves the target (deletion policy). */
  removal?: RemovalMode;
  reason?: string;
  /** preserve-local-edits: canonical field → the target's value to keep (write form), for edited fields. */
  keep?: Record<string, unknown>;
  /** preserve-local-edits: source changes held back because the field was edited on the target. */
  conflicts?: Conflict[];
  /** A skip the run's report names in a warning line (an event kept removed on the target). */
  warn?: boolean;
}

export interface Policies {
  update: 'overwrite' | 'skip-existing' | 'preserve-local-edits';
  delete: 'keep' | RemovalMode;
  /** Mass-delete guard: refuse when deletes exceed this share of the pipeline's events (0..1). */
  maxDeleteRatio: number;
  /** `--force-delete`: the guard is off. */
  forceDelete: boolean;
  /**
   * Start of the recurrence window: events that began before it are history, not deletions — an
   * occurrence of a series that slid out of the window is no longer expanded, but it did happen.
   */
  keepBefore?: Date;
  /** Records the source could not read this time: their events are kept, not deleted (run.ts). */
  unreadable?: { uids: ReadonlySet<string>; unknown: boolean };
  /**
   * preserve-local-edits: the target's current item (`null`: gone) for each `kind\nkey` the source changed
   * (`changedItems`); an item missing here is updated as under `overwrite`, an event gone or trashed there
   * is skipped (`removedOnTarget`).
   */
  remote?: ReadonlyMap<string, Remote | null>;
}

export interface Plan {
  actions: Action[];
  counts: Record<Kind, Record<Op, number>>;
  /** Set when the mass-delete guard held deletions back: the message says why and how to override. */
  guard?: string;
}

/**
 * `sourceHasEvents`: for the mass-delete guard, when `desired` is not all the source gave (events left to
 * another import: shared.ts).
 */
export function plan(
  desired: readonly Desired[],
  state: readonly StateItem[],
  policies: Policies,
  sourceHasEvents = desired.some((d) => d.kind === 'event'),
): Plan {
  const known = new Map(state.map((item) => [idOf(item), item]));
  const actions = planEntities(desired, known, policies);
  const seen = new Set(desired.map(idOf));
  actions.push(...planDeletions(state, (item) => seen.has(idOf(item)), policies));
  const guard = massDeleteGuard(
    actions.filter((a) => a.op === 'delete').length,
    sourceHasEvents,
    state.filter((i) => i.kind === 'event').length,
    policies,
  );
  if (guard) holdBack(actions, guard);
  return { actions, counts: countActions(actions), ...(guard ? { guard } : {}) };
}

/** `kind\nkey`: how the plan and the state name an item. */
export const idOf = (item: { kind: Kind; key: string }) => `${item.kind}\n${item.key}`;

/**
 * The actions for desired entities (a whole source, or one batch of it: pipeline/stream.ts), against what
 * the state knows of them by `kind\nkey`. Deletions are planned apart (`planDeletions`): only the whole
 * source can tell what left it.
 */
export function planEntities(
  desired: readonly Desired[],
  known: ReadonlyMap<string, StateItem>,
  policies: Policies,
): Action[] {
  const actions: Action[] = [];
  for (const d of desired) {
    const id = idOf(d);
    const item = known.get(id);
    const base = { kind: d.kind, key: d.key, label: d.label, origin: d.origin, uid: d.uid, desired: d, item };
    if (d.cancelled) {
      const gone = !item || item.hash === DRAFTED;
      actions.push(
        gone
          ? { ...base, op: 'skip', reason: 'cancelled in the source' }
          : removal(base, policies, 'cancelled in the source'),
      );
    } else if (!item) {
      actions.push({ ...base, op: 'create' });
    } else if (item.hash === d.hash) {
      actions.push({ ...base, op: 'unchanged' });
    } else if (policies.update === 'skip-existing') {
      actions.push({ ...base, op: 'skip', reason: 'exists on the target (update policy skip-existing)' });
    } else if (policies.update === 'preserve-local-edits' && policies.remote?.has(id)) {
      const current = policies.remote.get(id) ?? null;
      const removed = d.kind === 'event' ? removedOnTarget(current) : undefined;
      if (removed) actions.push({ ...base, op: 'skip', reason: removedReason(removed), warn: true });
      else if (current) actions.push(preserving(base, item, d, current));
      else actions.push({ ...base, op: 'update', changes: diff(item.written, canonical(d)) });
    } else {
      actions.push({ ...base, op: 'update', changes: diff(item.written, canonical(d)) });
    }
  }
  return actions;
}

/**
 * The events of the state that the source no longer has (`seen` says which it has): deleted under the
 * deletion policy, kept when they are history (`keepBefore`) or when the source could not be read whole.
 */
export function planDeletions(
  state: Iterable<StateItem>,
  seen: (item: StateItem) => boolean,
  policies: Policies,
): Action[] {
  const actions: Action[] = [];
  for (const item of state) {
    if (item.kind !== 'event' || item.hash === DRAFTED || seen(item)) continue;
    if (policies.keepBefore && startOf(item) < policies.keepBefore.getTime()) continue;
    const label = typeof item.written.title === 'string' ? item.written.title : item.key;
    const base = { kind: item.kind, key: item.key, label, item };
    const unread = unreadableReason(item.key, policies.unreadable);
    actions.push(
      unread ? { ...base, op: 'skip', reason: unread } : removal(base, policies, 'no longer in the source'),
    );
  }
  return actions;
}

/** The mass-delete guard held the deletions back: they become skips that say why. */
export function holdBack(actions: Action[], guard: string): void {
  for (const action of actions) {
    if (action.op === 'delete')
      Object.assign(action, { op: 'skip', reason: `${action.reason}; held back: ${guard}` });
  }
}

/**
 * The items whose source changed, by `kind\nkey`: what preserve-local-edits must read from the target
 * before planning (one GET each; an unchanged item costs nothing).
 */
export function changedItems(desired: readonly Desired[], state: readonly StateItem[]): StateItem[] {
  const known = new Map(state.map((item) => [idOf(item), item]));
  return desired.flatMap((d) => {
    const item = known.get(idOf(d));
    return item && !d.cancelled && item.hash !== d.hash && item.hash !== DRAFTED ? [item] : [];
  });
}

/**
 * An event an editor trashed or deleted on the target is the strongest local edit there is: under
 * preserve-local-edits the source's changes do not bring it back (restoring it there, or one run with
 * `update: overwrite`, does).
 */
function removedOnTarget(current: Remote | null): 'trashed' | 'deleted' | undefined {
  if (current === null) return 'deleted';
  return current.body.status === 'trash' ? 'trashed' : undefined;
}

const removedReason = (removed: 'trashed' | 'deleted') =>
  `${removed} on the target, and kept so (update policy preserve-local-edits): the source's changes are not written`;

/** An update under preserve-local-edits: edited fields kept, conflicts listed, the rest written. */
function preserving(base: Omit<Action, 'op'>, item: StateItem, d: Desired, current: Remote): Action {
  const changes = diff(item.written, canonical(d));
  const edited = editedFields(item, current);
  if (edited === 'unknown') {
    return {
      ...base,
      op: 'conflict',
      changes: [],
      conflicts: changes.map((c) => ({ field: c.field, written: c.from, source: c.to, target: undefined })),
      reason:
        'changed on the target since the last write, by fields unknown (state from an older calsync); kept — run once with update: overwrite to take the source',
    };
  }
  if (edited.length === 0) return { ...base, op: 'update', changes };
  const keep = keptValues(d.kind, current, edited);
  const conflicts = changes
    .filter((c) => edited.includes(c.field))
    .map((c) => ({ field: c.field, written: c.from, source: c.to, target: keep[c.field] }));
  const written = changes.filter((c) => !edited.includes(c.field));
  const kept = keptReason(edited);
  return conflicts.length > 0
    ? { ...base, op: 'conflict', changes: written, keep, conflicts, reason: kept }
    : { ...base, op: 'update', changes: written, keep, reason: kept };
}

/** Why an update leaves `fields` as the target has them. */
export const keptReason = (fields: readonly string[]) => `kept, edited on the target: ${fields.join(', ')}`;

/** The instant an event we wrote starts (its wall time in its zone), for `keepBefore`. */
function startOf(item: StateItem): number {
  const { start_date: start, timezone } = item.written;
  if (typeof start !== 'string') return Number.POSITIVE_INFINITY;
  const utc = localToUtc(start, typeof timezone === 'string' && timezone ? timezone : 'UTC');
  return Date.parse(`${utc.replace(' ', 'T')}Z`);
}

/** Keys are the UID, or `UID@instance` for an occurrence (sources/ics). */
function unreadableReason(key: string, unreadable: Policies['unreadable']): string | undefined {
  if (!unreadable) return undefined;
  if (unreadable.unknown) return 'kept: a record of the source could not be read, and may be this one';
  const at = key.lastIndexOf('@');
  const uid = unreadable.uids.has(key)
    ? key
    : at > 0 && unreadable.uids.has(key.slice(0, at))
      ? key.slice(0, at)
      : undefined;
  return uid ? `kept: the source's VEVENT with UID ${uid} could not be read this time` : undefined;
}

function removal(base: Omit<Action, 'op'>, policies: Policies, why: string): Action {
  const reason = `${why} (deletion policy ${policies.delete})`;
  if (policies.delete === 'keep') return { ...base, op: 'skip', reason };
  return { ...base, op: 'delete', removal: policies.delete, reason };
}

/**
 * vdirsyncer's guard: a source that comes back empty, or a run that would delete more than
 * `maxDeleteRatio` of the pipeline's events (`stateEvents`), is far likelier a broken feed than a real
 * mass cancellation.
 */
export function massDeleteGuard(
  deletes: number,
  sourceHasEvents: boolean,
  stateEvents: number,
  policies: Policies,
): string | undefined {
  if (policies.forceDelete) return undefined;
  if (deletes === 0) return undefined;
  if (!sourceHasEvents) {
    return `the source has no events, so all ${deletes} would be deleted; run with --force-delete if that is right`;
  }
  if (deletes > policies.maxDeleteRatio * stateEvents) {
    const pct = Math.round(policies.maxDeleteRatio * 100);
    return `${deletes} of ${stateEvents} events would be deleted, more than the ${pct}% limit (max_delete_ratio); run with --force-delete if that is right`;
  }
  return undefined;
}

/** Field-level differences between what we last wrote and what we would write now. */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const flat = (o: Record<string, unknown>) => {
    const { refs, ...fields } = o as { refs?: Record<string, unknown> };
    return { ...fields, ...(refs ?? {}) } as Record<string, unknown>;
  };
  const a = flat(before);
  const b = flat(after);
  const changes: FieldChange[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field]))
      changes.push({ field, from: a[field], to: b[field] });
  }
  return changes;
}

export function countActions(actions: readonly Action[]): Record<Kind, Record<Op, number>> {
  const counts = Object.fromEntries(
    KIND_ORDER.map((k) => [k, Object.fromEntries(OPS.map((op) => [op, 0]))]),
  ) as Record<Kind, Record<Op, number>>;
  for (const a of actions) counts[a.kind][a.op]++;
  return counts;
}
