import { describe, expect, it } from 'vitest';
import { canonical, type Desired, DRAFTED, hashOf } from '../../src/pipeline/desired.ts';
import { type Policies, plan } from '../../src/pipeline/plan.ts';
import type { StateItem } from '../../src/state/sync-state.ts';

const policies: Policies = { update: 'overwrite', delete: 'trash', maxDeleteRatio: 0.25, forceDelete: false };

function event(key: string, title = key, cancelled = false): Desired {
  const fields = { title, start_date: '2027-01-01 10:00:00' };
  return {
    kind: 'event',
    key,
    origin: { file: 'a.ics', line: 1 },
    label: title,
    fields,
    refs: { categories: ['music'] },
    slug: `${key}-slug`,
    cancelled,
    hash: hashOf(canonical({ fields, refs: { categories: ['music'] } })),
  };
}

const stored = (d: Desired, remoteId = 1): StateItem => ({
  kind: d.kind,
  key: d.key,
  remoteId,
  slug: d.slug ?? d.key,
  hash: d.hash,
  written: canonical(d),
  remoteModified: null,
});

const ops = (p: ReturnType<typeof plan>) => Object.fromEntries(p.actions.map((a) => [a.key, a.op]));

describe('plan', () => {
  it('creates what is new, leaves what is unchanged, updates what changed with field diffs', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((k) => event(k));
    const result = plan([a, b, event('c', 'C renamed')], [stored(b), stored(c)], policies);
    expect(ops(result)).toEqual({ a: 'create', b: 'unchanged', c: 'update' });
    expect(result.actions.find((x) => x.key === 'c')?.changes).toEqual([
      { field: 'title', from: 'c', to: 'C renamed' },
    ]);
    expect(result.counts.event).toMatchObject({ create: 1, unchanged: 1, update: 1, delete: 0 });
  });

  it('deletes events that left the source or were cancelled, by the deletion policy', () => {
    const all = 'abcdefgh'.split('').map((k) => event(k));
    const desired = [...all.slice(0, 6), event('g', 'g', true)];
    const result = plan(
      desired,
      all.map((d) => stored(d)),
      policies,
    );
    expect(result.actions.filter((x) => x.op === 'delete').map((x) => [x.key, x.removal, x.reason])).toEqual([
      ['g', 'trash', 'cancelled in the source'],
      ['h', 'trash', 'no longer in the source'],
    ]);
    const kept = plan(
      desired,
      all.map((d) => stored(d)),
      { ...policies, delete: 'keep' },
    );
    expect(kept.counts.event.delete).toBe(0);
    expect(kept.counts.event.skip).toBe(2);
  });

  it('holds deletions back above the mass-delete threshold or on an empty source, unless forced', () => {
    const all = 'abcd'.split('').map((k) => event(k));
    const state = all.map((d) => stored(d));
    const many = plan(all.slice(0, 2), state, policies);
    expect(many.counts.event.delete).toBe(0);
    expect(many.guard).toMatch(/2 of 4 events would be deleted/);
    const empty = plan([], state, { ...policies, maxDeleteRatio: 1 });
    expect(empty.guard).toMatch(/no events/);
    expect(plan([], state, { ...policies, forceDelete: true }).counts.event.delete).toBe(4);
  });

  it('skips existing items under skip-existing, and never deletes venues or terms', () => {
    const a = event('a');
    const venue: StateItem = { ...stored(a), kind: 'venue', key: 'hall' };
    const result = plan([event('a', 'changed')], [stored(a), venue], {
      ...policies,
      update: 'skip-existing',
    });
    expect(result.actions.map((x) => [x.kind, x.op])).toEqual([['event', 'skip']]);
  });

  it('does not draft an event again that an earlier run drafted', () => {
    const a = event('a');
    const b = event('b');
    const result = plan([a], [stored(a), { ...stored(b), hash: DRAFTED }], { ...policies, delete: 'draft' });
    expect(ops(result)).toEqual({ a: 'unchanged' });
  });
});
