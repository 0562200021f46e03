/**
 * The plan (pure): desired entities against the sync state → one action per entity, before anything is
 * written (vdirsyncer computes every action before its first write). `apply` only executes it;
 * `--dry-run` and `npm run plan` print it.
 *
 * Deletions apply to events only: venues, organizers and terms may be shared with other pipelines and
 * with the site's own events, so they are never removed by a sync.
 */
import { localToUtc } from '../model/datetime.ts';
import type { Origin } from '../sources/record.ts';
import type { StateItem } from '../state/sync-state.ts';
import type { Kind, RemovalMode } from '../writer/target.ts';
import { canonical, type Desired, DRAFTED, KIND_ORDER } from './desired.ts';

export type Op = 'create' | 'update' | 'unchanged' | 'delete' | 'skip' | 'conflict';
export const OPS: readonly Op[] = ['create', 'update', 'unchanged', 'delete', 'skip', 'conflict'];

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
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
}

export interface Plan {
  actions: Action[];
  counts: Record<Kind, Record<Op, number>>;
  /** Set when the mass-delete guard held deletions back: the message says why and how to override. */
  guard?: string;
}

export function plan(desired: readonly Desired[], state: readonly StateItem[], policies: Policies): Plan {
  const known = new Map(state.map((item) => [`${item.kind}\n${item.key}`, item]));
  const actions: Action[] = [];
  const seen = new Set<string>();

  for (const d of desired) {
    const id = `${d.kind}\n${d.key}`;
    seen.add(id);
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
    } else {
      actions.push({ ...base, op: 'update', changes: diff(item.written, canonical(d)) });
    }
  }
  for (const item of state) {
    if (item.kind !== 'event' || item.hash === DRAFTED || seen.has(`${item.kind}\n${item.key}`)) continue;
    if (policies.keepBefore && startOf(item) < policies.keepBefore.getTime()) continue;
    const label = typeof item.written.title === 'string' ? item.written.title : item.key;
    const base = { kind: item.kind, key: item.key, label, item };
    const unread = unreadableReason(item.key, policies.unreadable);
    actions.push(
      unread ? { ...base, op: 'skip', reason: unread } : removal(base, policies, 'no longer in the source'),
    );
  }

  const result: Plan = { actions, counts: countActions(actions) };
  const guard = massDeleteGuard(actions, desired, state, policies);
  if (guard) {
    for (const action of actions) {
      if (action.op === 'delete')
        Object.assign(action, { op: 'skip', reason: `${action.reason}; held back: ${guard}` });
    }
    result.guard = guard;
    result.counts = countActions(actions);
  }
  return result;
}

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
  if (policies.delete === 'keep') return { ...base, op: 'skip', reason: `${why} (deletion policy keep)` };
  return { ...base, op: 'delete', removal: policies.delete, reason: why };
}

/**
 * vdirsyncer's guard: a source that comes back empty, or a run that would delete more than
 * `maxDeleteRatio` of the pipeline's events, is far likelier a broken feed than a real mass cancellation.
 */
function massDeleteGuard(
  actions: readonly Action[],
  desired: readonly Desired[],
  state: readonly StateItem[],
  policies: Policies,
): string | undefined {
  if (policies.forceDelete) return undefined;
  const deletes = actions.filter((a) => a.op === 'delete').length;
  if (deletes === 0) return undefined;
  const events = state.filter((i) => i.kind === 'event').length;
  if (!desired.some((d) => d.kind === 'event')) {
    return `the source has no events, so all ${deletes} would be deleted; run with --force-delete if that is right`;
  }
  if (deletes > policies.maxDeleteRatio * events) {
    const pct = Math.round(policies.maxDeleteRatio * 100);
    return `${deletes} of ${events} events would be deleted, more than the ${pct}% limit (max_delete_ratio); run with --force-delete if that is right`;
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
