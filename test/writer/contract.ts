/**
 * The contract suite every `Target` runs (STYLE.md: "one contract suite every Target/Store runs; a
 * backend's own file only says how to build it", after vdirsyncer's storage tests).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/model/kind.ts';
import type { Remote, Target } from '../../src/writer/index.ts';
import { bodyOf, EDIT, KINDS } from './setup.ts';

/** A field set at creation that drafting must not lose (on TEC the draft is a full update, C.4). */
const KEPT = { event: 'timezone', venue: 'city', organizer: 'email' } as const;

export interface Built {
  target: Target;
  dispose(): Promise<void>;
}

export function targetContract(name: string, build: () => Promise<Built>): void {
  describe(`${name} meets the Target contract`, () => {
    let built: Built;
    let target: Target;
    beforeEach(async () => {
      built = await build();
      target = built.target;
    });
    afterEach(async () => {
      await built.dispose();
    });

    /** Creates an item of `kind`; an event gets a venue, an organizer and terms of its own. */
    async function make(kind: Kind, n: number | string): Promise<Remote> {
      if (kind !== 'event') return target.create(kind, bodyOf(kind, n));
      const [venue, organizer, category, tag] = await Promise.all([
        target.create('venue', bodyOf('venue', n)),
        target.create('organizer', bodyOf('organizer', n)),
        target.create('category', bodyOf('category', n)),
        target.create('tag', bodyOf('tag', n)),
      ]);
      return target.create(
        'event',
        bodyOf('event', n, {
          venue: venue.id,
          organizer: [organizer.id],
          categories: [category.id],
          tags: [tag.id],
        }),
      );
    }

    for (const kind of KINDS) {
      describe(kind, () => {
        it('a created item can be read back by id and by slug', async () => {
          const created = await make(kind, 1);
          expect(created.id).toBeGreaterThan(0);
          expect(created.slug).toBe(`${kind}-1`);
          const byId = await target.get(kind, created.id);
          expect(byId?.id).toBe(created.id);
          expect(byId?.slug).toBe(`${kind}-1`);
          const bySlug = await target.findBySlug(kind, `${kind}-1`);
          expect(bySlug?.id).toBe(created.id);
        });

        it('an update changes the item and keeps its id', async () => {
          const created = await make(kind, 2);
          const [field, value] = EDIT[kind];
          const updated = await target.update(kind, created.id, { ...bodyOf(kind, 2), [field]: value });
          expect(updated.id).toBe(created.id);
          const read = await target.get(kind, created.id);
          expect(read?.body[field]).toBe(value);
        });

        it('unknown ids and slugs read as null, not as errors', async () => {
          expect(await target.get(kind, 987_654)).toBeNull();
          expect(await target.findBySlug(kind, 'no-such-slug')).toBeNull();
        });

        it('deleting removes the item (or trashes it where DELETE only trashes), and deleting it again is not an error', async () => {
          const created = await make(kind, 3);
          await target.remove(kind, created.id, 'delete');
          const after = await target.get(kind, created.id);
          // C.16: TEC ignores `force` and trashes; term deletes are permanent everywhere.
          if (target.capabilities.permanentDelete || kind === 'category' || kind === 'tag')
            expect(after).toBeNull();
          else expect(after?.status).toBe('trash');
          await expect(target.remove(kind, created.id, 'delete')).resolves.toBeUndefined();
          await expect(target.remove(kind, created.id, 'trash')).resolves.toBeUndefined();
        });
      });
    }

    for (const kind of ['event', 'venue', 'organizer'] as const) {
      it(`a ${kind} removed as draft stays, as a draft with its fields`, async () => {
        const created = await make(kind, 4);
        await target.remove(kind, created.id, 'draft');
        const read = await target.get(kind, created.id);
        expect(read?.status).toBe('draft');
        const field = KEPT[kind];
        expect(read?.body[field]).toBeTruthy();
        expect(read?.body[field]).toEqual(created.body[field]);
      });

      it(`a trashed ${kind} is still readable as trash and leaves the lists`, async () => {
        const created = await make(kind, 5);
        await target.remove(kind, created.id, 'trash');
        expect((await target.get(kind, created.id))?.status).toBe('trash');
        const ids: number[] = [];
        for await (const r of target.list(kind)) ids.push(r.id);
        expect(ids).not.toContain(created.id);
        // Trashing twice (410 `*-is-in-trash`) is not an error.
        await expect(target.remove(kind, created.id, 'trash')).resolves.toBeUndefined();
      });
    }

    it('creating a term whose name exists resolves to the existing term', async () => {
      for (const kind of ['category', 'tag'] as const) {
        const first = await target.create(kind, { name: 'Jazz' });
        const again = await target.create(kind, { name: 'Jazz' });
        expect(again.id).toBe(first.id);
      }
      const names: string[] = [];
      for await (const r of target.list('category')) names.push(String(r.body.name));
      expect(names.filter((n) => n === 'Jazz')).toHaveLength(1);
    });

    it('a venue or organizer created twice by name is one item (create-or-find)', async () => {
      const a = await target.create('venue', bodyOf('venue', 6));
      const b = await target.create('venue', bodyOf('venue', 6));
      expect(b.id).toBe(a.id);
    });

    it('lists page through more than 50 items, every status, past and far-future events included', async () => {
      const made: number[] = [];
      for (let i = 0; i < 53; i++) {
        const status = i % 3 === 0 ? 'draft' : 'publish';
        const year = i % 2 === 0 ? 1950 : 2090;
        const e = await target.create('event', {
          ...bodyOf('event', `p${i}`),
          status,
          start_date: `${year}-06-01 10:00:00`,
          end_date: `${year}-06-01 11:00:00`,
        });
        made.push(e.id);
      }
      const tags = await Promise.all(
        Array.from({ length: 52 }, (_, i) => target.create('tag', bodyOf('tag', `p${i}`))),
      );
      const listed: number[] = [];
      for await (const r of target.list('event')) listed.push(r.id);
      expect(listed.sort((a, b) => a - b)).toEqual(made.sort((a, b) => a - b));
      const listedTags: number[] = [];
      for await (const r of target.list('tag')) listedTags.push(r.id);
      expect(new Set(listedTags)).toEqual(new Set(tags.map((t) => t.id)));
      expect(listedTags).toHaveLength(52);
    });

    it('an empty kind lists nothing', async () => {
      const items: Remote[] = [];
      for await (const r of target.list('organizer')) items.push(r);
      expect(items).toEqual([]);
    });

    it('counts requests by method', async () => {
      const before = { ...target.requests };
      const v = await target.create('venue', bodyOf('venue', 7));
      await target.get('venue', v.id);
      await target.remove('venue', v.id, 'trash');
      expect(target.requests.POST - before.POST).toBe(1);
      expect(target.requests.GET - before.GET).toBe(1);
      expect(target.requests.DELETE - before.DELETE).toBe(1);
    });

    it('a rejected write surfaces the API code and status', async () => {
      await expect(target.create('event', { title: 'No dates' })).rejects.toMatchObject({
        name: 'WriteError',
        code: 'rest_missing_callback_param',
        status: 400,
        retryable: false,
      });
    });
  });
}
