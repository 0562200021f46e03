/** Contract: categories and tags (B.11) — counts, lookups, lists, deletes, descendants. */
import { describe, expect, it } from 'vitest';
import type { TermKind } from '../../../src/model/index.ts';
import type { Store, TermQuery } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { eventOn, ids, mapInOrder, type OpenStore, useStore } from './fixtures.ts';

async function addTerm(s: Store, kind: TermKind, name: string, parent = 0, slug = name.toLowerCase()) {
  return await s.insertTerm(termRecord(kind, name, slug, parent));
}

function termQuery(over: Partial<TermQuery> = {}): TermQuery {
  return {
    kind: 'categories',
    offset: 0,
    limit: 50,
    order: 'asc',
    orderby: 'name',
    hideEmpty: false,
    ...over,
  };
}

export function termContract(open: OpenStore): void {
  describe('terms', () => {
    const store = useStore(open);

    it('count is the number of published events linked, kept up to date', async () => {
      const s = store();
      const music = await addTerm(s, 'categories', 'Music');
      const free = await addTerm(s, 'tags', 'Free');
      expect(music).toEqual({
        id: music.id,
        kind: 'categories',
        name: 'Music',
        slug: 'music',
        description: '',
        parent: 0,
        count: 0,
      });
      const a = await s.insertEvent(eventOn(10, 10, { category_ids: [music.id], tag_ids: [free.id] }));
      await s.insertEvent(eventOn(11, 10, { category_ids: [music.id], status: 'draft' }));
      await s.insertEvent(eventOn(12, 10, { category_ids: [music.id], hide_from_listings: true }));
      expect((await s.getTerm('categories', music.id))!.count).toBe(2);
      expect((await s.getTerm('tags', free.id))!.count).toBe(1);
      await s.updateEvent({ ...a, status: 'draft' });
      expect((await s.getTerm('categories', music.id))!.count).toBe(1);
      expect((await s.getTerm('tags', free.id))!.count).toBe(0);
      await s.updateEvent({ ...a, status: 'publish', category_ids: [] });
      expect((await s.getTerm('categories', music.id))!.count).toBe(1);
      expect((await s.getTerm('tags', free.id))!.count).toBe(1);
      expect((await s.getTermsMany([music.id, free.id])).get(free.id)!.count).toBe(1);
    });

    it('count stays exact when status and links change together, and after deletes', async () => {
      const s = store();
      const [a, b] = [(await addTerm(s, 'tags', 'A')).id, (await addTerm(s, 'tags', 'B')).id];
      const count = async (id: number) => (await s.getTerm('tags', id))!.count;
      const draft = await s.insertEvent(eventOn(10, 10, { status: 'draft', tag_ids: [a] }));
      const published = await s.insertEvent(eventOn(11, 10, { tag_ids: [a] }));
      expect([await count(a), await count(b)]).toEqual([1, 0]);
      await s.updateEvent({ ...draft, status: 'publish', tag_ids: [b] });
      expect([await count(a), await count(b)]).toEqual([1, 1]);
      await s.updateEvent({ ...published, status: 'trash', tag_ids: [a, b] });
      expect([await count(a), await count(b)]).toEqual([0, 1]);
      await s.deletePost(published.id);
      await s.deletePost(draft.id);
      expect([await count(a), await count(b)]).toEqual([0, 0]);
      const again = await s.insertEvent(eventOn(12, 10, { tag_ids: [a, b] }));
      await s.deleteTerm('tags', b);
      expect((await s.getEvent(again.id))!.tag_ids).toEqual([a]);
      expect(await count(a)).toBe(1);
    });

    it('lookups: by id and kind, by exact slug, by name case-insensitively under a parent', async () => {
      const s = store();
      const rock = await addTerm(s, 'categories', 'Rock');
      const sub = await addTerm(s, 'categories', 'Indie', rock.id);
      const top = await addTerm(s, 'categories', 'INDIE', 0, 'indie-2');
      expect(await s.getTerm('categories', rock.id)).toEqual(rock);
      expect(await s.getTerm('tags', rock.id)).toBeUndefined();
      expect(await s.findTermBySlug('categories', 'indie-2')).toEqual(top);
      expect(await s.findTermBySlug('tags', 'indie-2')).toBeUndefined();
      expect(await s.findTermByName('categories', 'indie', rock.id)).toEqual(sub);
      expect(await s.findTermByName('categories', 'indie', 0)).toEqual(top);
      expect(await s.findTermByName('categories', 'indie')).toEqual(sub);
      expect(await s.findTermByName('categories', 'indie', 999)).toBeUndefined();
      // All at once, as findTermBySlug ?? findTermByName each: the slug first, then the name.
      expect(
        await s.findTermsByRef('categories', ['indie-2', 'INDIE', 'rock', 'ROCK', 'nothing', 'bad\u0000']),
      ).toEqual([top, sub, rock, rock, undefined, undefined]);
      expect(await s.findTermsByRef('tags', ['rock'])).toEqual([undefined]);
      expect(await s.findTermsByRef('categories', [])).toEqual([]);
      expect(await s.termSlugTaken('categories', 'rock')).toBe(true);
      expect(await s.termSlugTaken('categories', 'rock', rock.id)).toBe(false);
      expect(await s.termSlugTaken('tags', 'rock')).toBe(false);
      const renamed = await s.updateTerm({ ...sub, name: 'Indie Rock', slug: 'indie-rock' });
      expect(renamed).toEqual({ ...sub, name: 'Indie Rock', slug: 'indie-rock' });
      expect(await s.findTermBySlug('categories', 'indie-rock')).toEqual(renamed);
    });

    it('categoryDescendants: the category and every level below it', async () => {
      const s = store();
      const root = await addTerm(s, 'categories', 'Root');
      const child = await addTerm(s, 'categories', 'Child', root.id);
      const grandchild = await addTerm(s, 'categories', 'Grandchild', child.id);
      const other = await addTerm(s, 'categories', 'Other');
      const tag = await addTerm(s, 'tags', 'Tag');
      expect((await s.categoryDescendants(root.id)).sort()).toEqual(
        [root.id, child.id, grandchild.id].sort(),
      );
      expect(await s.categoryDescendants(grandchild.id)).toEqual([grandchild.id]);
      expect(await s.categoryDescendants(other.id)).toEqual([other.id]);
      expect(await s.categoryDescendants(tag.id)).toEqual([]);
    });

    it('deleteTerm moves its children to its parent and unlinks its events', async () => {
      const s = store();
      const root = await addTerm(s, 'categories', 'Root');
      const middle = await addTerm(s, 'categories', 'Middle', root.id);
      const leaf = await addTerm(s, 'categories', 'Leaf', middle.id);
      const event = await s.insertEvent(eventOn(10, 10, { category_ids: [middle.id, leaf.id] }));
      await s.deleteTerm('categories', middle.id);
      expect(await s.getTerm('categories', middle.id)).toBeUndefined();
      expect((await s.getTerm('categories', leaf.id))!.parent).toBe(root.id);
      expect((await s.getEvent(event.id))!.category_ids).toEqual([leaf.id]);
      expect((await s.categoryDescendants(root.id)).sort()).toEqual([root.id, leaf.id].sort());
    });

    it('listTerms: name order case-insensitive, both directions, paging total', async () => {
      const s = store();
      const [b, a, c] = await mapInOrder(
        ['banana', 'Apple', 'cherry'],
        async (n) => (await addTerm(s, 'categories', n)).id,
      );
      await addTerm(s, 'tags', 'Avocado');
      expect(ids((await s.listTerms(termQuery())).items)).toEqual([a, b, c]);
      expect(ids((await s.listTerms(termQuery({ order: 'desc' }))).items)).toEqual([c, b, a]);
      expect(await s.listTerms(termQuery({ offset: 1, limit: 1 }))).toMatchObject({
        total: 3,
        items: [{ id: b }],
      });
      expect(ids((await s.listTerms(termQuery({ orderby: 'id' }))).items)).toEqual([b, a, c]);
      expect(ids((await s.listTerms(termQuery({ orderby: 'slug', order: 'desc' }))).items)).toEqual([
        c,
        b,
        a,
      ]);
    });

    it('listTerms: hideEmpty, count order, include order, exclude', async () => {
      const s = store();
      const [one, two, none] = await mapInOrder(
        ['One', 'Two', 'None'],
        async (n) => (await addTerm(s, 'tags', n)).id,
      );
      await s.insertEvent(eventOn(10, 10, { tag_ids: [one, two] }));
      await s.insertEvent(eventOn(11, 10, { tag_ids: [two] }));
      await s.insertEvent(eventOn(12, 10, { tag_ids: [none], status: 'draft' }));
      const q = async (over: Partial<TermQuery>) =>
        ids((await s.listTerms(termQuery({ kind: 'tags', ...over }))).items);
      expect(await q({ hideEmpty: true })).toEqual([one, two]);
      expect((await s.listTerms(termQuery({ kind: 'tags', hideEmpty: true }))).total).toBe(2);
      expect(await q({ orderby: 'count', order: 'desc' })).toEqual([two, one, none]);
      expect(await q({ include: [two, none, one], orderby: 'include' })).toEqual([two, none, one]);
      expect(await q({ include: [two, none], orderby: 'name' })).toEqual([none, two]);
      expect(await q({ exclude: [one] })).toEqual([none, two]);
      expect(await q({ include: [] })).toEqual([]);
    });

    it('listTerms: search in name or slug, parent, event, exact slug', async () => {
      const s = store();
      const jazz = await addTerm(s, 'categories', 'Jazz', 0, 'jazz-music');
      const bebop = await addTerm(s, 'categories', 'Bebop', jazz.id);
      const opera = await addTerm(s, 'categories', 'Opéra', 0, 'opera');
      const event = await s.insertEvent(eventOn(10, 10, { category_ids: [bebop.id, opera.id] }));
      const q = async (over: Partial<TermQuery>) => ids((await s.listTerms(termQuery(over))).items);
      expect(await q({ search: 'MUSIC' })).toEqual([jazz.id]);
      expect(await q({ search: 'ebo' })).toEqual([bebop.id]);
      expect(await q({ search: 'OPÉ' })).toEqual([opera.id]);
      expect(await q({ search: '%' })).toEqual([]);
      expect(await q({ parent: jazz.id })).toEqual([bebop.id]);
      expect(await q({ parent: 0 })).toEqual([jazz.id, opera.id]);
      expect(await q({ eventId: event.id })).toEqual([bebop.id, opera.id]);
      expect(await q({ slug: 'opera' })).toEqual([opera.id]);
      expect(await q({ slug: 'oper' })).toEqual([]);
    });
  });
}
