import { describe, expect, it } from 'vitest';
import { canonical, type Desired, DRAFTED, hashOf } from '../../src/pipeline/desired.ts';
import { fieldHashes } from '../../src/pipeline/local-edits.ts';
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
      ['g', 'trash', 'cancelled in the source (deletion policy trash)'],
      ['h', 'trash', 'no longer in the source (deletion policy trash)'],
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

  it('keeps events that began before the window: a past occurrence of a series is history, not a deletion', () => {
    const past = {
      ...event('uid@20270101T100000Z'),
      fields: { title: 'past', start_date: '2027-01-01 10:00:00' },
    };
    const future = {
      ...event('uid@20270301T100000Z'),
      fields: { title: 'next', start_date: '2027-03-01 10:00:00' },
    };
    const state = [stored(past), stored(future), ...'abcdefgh'.split('').map((k) => stored(event(k)))];
    const desired = 'abcdefgh'.split('').map((k) => event(k));
    const result = plan(desired, state, { ...policies, keepBefore: new Date('2027-02-01T00:00:00Z') });
    expect(result.actions.filter((a) => a.op === 'delete').map((a) => a.key)).toEqual([
      'uid@20270301T100000Z',
    ]);
  });

  it('keeps the events of a VEVENT the source could not read this time, and all of them for a UID-less one', () => {
    const all = ['u1', 'u2@20270301T100000Z', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'].map((k) => event(k));
    const state = all.map((d) => stored(d));
    const desired = all.slice(2);
    const byUid = plan(desired, state, {
      ...policies,
      unreadable: { uids: new Set(['u1', 'u2']), unknown: false },
    });
    expect(byUid.counts.event).toMatchObject({ delete: 0, skip: 2 });
    expect(byUid.actions[byUid.actions.length - 1].reason).toMatch(/UID u2 could not be read/);
    const unknown = plan(desired, state, { ...policies, unreadable: { uids: new Set(), unknown: true } });
    expect(unknown.counts.event.delete).toBe(0);
    const none = plan(desired, state, { ...policies, unreadable: { uids: new Set(['u9']), unknown: false } });
    expect(none.counts.event.delete).toBe(2);
  });

  describe('preserve-local-edits', () => {
    /** The event as the target shows it: rendered title, ids for references. */
    const remoteBody = (title: string, start = '2027-01-01 10:00:00') => ({
      id: 1,
      slug: 'a-slug',
      title,
      start_date: start,
      categories: [{ id: 5, name: 'Music' }],
      modified_utc: '2027-01-01 00:00:00',
    });
    const written = (title = 'a') => ({
      ...stored(event('a', title)),
      remoteFields: fieldHashes('event', remoteBody(title)),
    });
    const moved = () => {
      const d = event('a', 'A renamed');
      d.fields = { ...d.fields, start_date: '2027-01-01 11:00:00' };
      d.hash = hashOf(canonical(d));
      return d;
    };
    const preserve = (
      current: (ReturnType<typeof remoteBody> & { status?: string }) | null,
      item: StateItem = written(),
    ) =>
      plan([moved()], [item], {
        ...policies,
        update: 'preserve-local-edits',
        remote: new Map([
          [
            'event\na',
            current && { id: 1, slug: current.slug, modified: current.modified_utc, body: current },
          ],
        ]),
      });

    it('keeps a field edited on the target, lists the conflict, and still writes the other changes', () => {
      const [action] = preserve(remoteBody('Edited on the site')).actions;
      expect(action.op).toBe('conflict');
      expect(action.changes).toEqual([
        { field: 'start_date', from: '2027-01-01 10:00:00', to: '2027-01-01 11:00:00' },
      ]);
      expect(action.conflicts).toEqual([
        { field: 'title', written: 'a', source: 'A renamed', target: 'Edited on the site' },
      ]);
      expect(action.keep).toEqual({ title: 'Edited on the site' });
    });

    it('updates as overwrite would when nothing was edited on the target', () => {
      const [action] = preserve(remoteBody('a')).actions;
      expect(action.op).toBe('update');
      expect(action.changes?.map((c) => c.field).sort()).toEqual(['start_date', 'title']);
      expect(action.conflicts).toBeUndefined();
    });

    it('leaves an event deleted or trashed on the target as it is, in a warning', () => {
      for (const [current, removed] of [
        [null, 'deleted'],
        [{ ...remoteBody('a'), status: 'trash', slug: 'a-slug__trashed' }, 'trashed'],
      ] as const) {
        const [action] = preserve(current).actions;
        expect(action).toMatchObject({ op: 'skip', warn: true });
        expect(action.reason).toMatch(new RegExp(`^${removed} on the target, and kept so`));
      }
    });

    it('keeps an edited field the source did not change without calling it a conflict', () => {
      const [action] = preserve(remoteBody('a', '2027-01-01 09:00:00')).actions;
      expect(action.op).toBe('conflict'); // start_date: edited there, changed here
      const [titleOnly] = plan([event('a', 'A renamed')], [written()], {
        ...policies,
        update: 'preserve-local-edits',
        remote: new Map([
          ['event\na', { id: 1, slug: 'a-slug', body: remoteBody('a', '2027-01-01 09:00:00') }],
        ]),
      }).actions;
      expect(titleOnly.op).toBe('update');
      expect(titleOnly.keep).toEqual({ start_date: '2027-01-01 09:00:00' });
      expect(titleOnly.changes?.map((c) => c.field)).toEqual(['title']);
    });

    it('holds back the whole item when a state from before per-field hashes meets a changed target', () => {
      const old = { ...stored(event('a')), remoteModified: '2026-12-01 00:00:00' };
      const [action] = preserve(remoteBody('Edited'), old).actions;
      expect(action.op).toBe('conflict');
      expect(action.changes).toEqual([]);
      expect(action.reason).toMatch(/update: overwrite/);
    });
  });
});
