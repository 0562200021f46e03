/** Contract: categories and tags (B.11) — counts, lookups, lists, deletes, descendants. */
import { describe, expect, it } from 'vitest';
import type { TermKind } from '../../../src/model/index.ts';
import type { Store, TermQuery } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { eventOn, ids, type OpenStore, useStore } from './fixtures.ts';

function addTerm(s: Store, kind: TermKind, name: string, parent = 0, slug = name.toLowerCase()) {
  return s.insertTerm(termRecord(kind, name, slug, parent));
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

    it('count is the number of published events linked, kept up to date', () => {
      const s = store();
      const music = addTerm(s, 'categories', 'Music');
      const free = addTerm(s, 'tags', 'Free');
      expect(music).toEqual({
        id: music.id,
        kind: 'categories',
        name: 'Music',
        slug: 'music',
        description: '',
        parent: 0,
        count: 0,
      });
      const a = s.insertEvent(eventOn(10, 10, { category_ids: [music.id], tag_ids: [free.id] }));
      s.insertEvent(eventOn(11, 10, { category_ids: [music.id], status: 'draft' }));
      s.insertEvent(eventOn(12, 10, { category_ids: [music.id], hide_from_listings: true }));
      expect(s.getTerm('categories', music.id)!.count).toBe(2);
      expect(s.getTerm('tags', free.id)!.count).toBe(1);
      s.updateEvent({ ...a, status: 'draft' });
      expect(s.getTerm('categories', music.id)!.count).toBe(1);
      expect(s.getTerm('tags', free.id)!.count).toBe(0);
      s.updateEvent({ ...a, status: 'publish', category_ids: [] });
      expect(s.getTerm('categories', music.id)!.count).toBe(1);
      expect(s.getTerm('tags', free.id)!.count).toBe(1);
      expect(s.getTermsMany([music.id, free.id]).get(free.id)!.count).toBe(1);
    });

    it('count stays exact when status and links change together, and after deletes', () => {
      const s = store();
      const [a, b] = [addTerm(s, 'tags', 'A').id, addTerm(s, 'tags', 'B').id];
      const count = (id: number) => s.getTerm('tags', id)!.count;
      const draft = s.insertEvent(eventOn(10, 10, { status: 'draft', tag_ids: [a] }));
      const published = s.insertEvent(eventOn(11, 10, { tag_ids: [a] }));
      expect([count(a), count(b)]).toEqual([1, 0]);
      s.updateEvent({ ...draft, status: 'publish', tag_ids: [b] });
      expect([count(a), count(b)]).toEqual([1, 1]);
      s.updateEvent({ ...published, status: 'trash', tag_ids: [a, b] });
      expect([count(a), count(b)]).toEqual([0, 1]);
      s.deletePost(published.id);
      s.deletePost(draft.id);
      expect([count(a), count(b)]).toEqual([0, 0]);
      const again = s.insertEvent(eventOn(12, 10, { tag_ids: [a, b] }));
      s.deleteTerm('tags', b);
      expect(s.getEvent(again.id)!.tag_ids).toEqual([a]);
      expect(count(a)).toBe(1);
    });

    it('lookups: by id and kind, by exact slug, by name case-insensitively under a parent', () => {
      const s = store();
      const rock = addTerm(s, 'categories', 'Rock');
      const sub = addTerm(s, 'categories', 'Indie', rock.id);
      const top = addTerm(s, 'categories', 'INDIE', 0, 'indie-2');
      expect(s.getTerm('categories', rock.id)).toEqual(rock);
      expect(s.getTerm('tags', rock.id)).toBeUndefined();
      expect(s.findTermBySlug('categories', 'indie-2')).toEqual(top);
      expect(s.findTermBySlug('tags', 'indie-2')).toBeUndefined();
      expect(s.findTermByName('categories', 'indie', rock.id)).toEqual(sub);
      expect(s.findTermByName('categories', 'indie', 0)).toEqual(top);
      expect(s.findTermByName('categories', 'indie')).toEqual(sub);
      expect(s.findTermByName('categories', 'indie', 999)).toBeUndefined();
      expect(s.termSlugTaken('categories', 'rock')).toBe(true);
      expect(s.termSlugTaken('categories', 'rock', rock.id)).toBe(false);
      expect(s.termSlugTaken('tags', 'rock')).toBe(false);
      const renamed = s.updateTerm({ ...sub, name: 'Indie Rock', slug: 'indie-rock' });
      expect(renamed).toEqual({ ...sub, name: 'Indie Rock', slug: 'indie-rock' });
      expect(s.findTermBySlug('categories', 'indie-rock')).toEqual(renamed);
    });

    it('categoryDescendants: the category and every level below it', () => {
      const s = store();
      const root = addTerm(s, 'categories', 'Root');
      const child = addTerm(s, 'categories', 'Child', root.id);
      const grandchild = addTerm(s, 'categories', 'Grandchild', child.id);
      const other = addTerm(s, 'categories', 'Other');
      const tag = addTerm(s, 'tags', 'Tag');
      expect(s.categoryDescendants(root.id).sort()).toEqual([root.id, child.id, grandchild.id].sort());
      expect(s.categoryDescendants(grandchild.id)).toEqual([grandchild.id]);
      expect(s.categoryDescendants(other.id)).toEqual([other.id]);
      expect(s.categoryDescendants(tag.id)).toEqual([]);
    });

    it('deleteTerm moves its children to its parent and unlinks its events', () => {
      const s = store();
      const root = addTerm(s, 'categories', 'Root');
      const middle = addTerm(s, 'categories', 'Middle', root.id);
      const leaf = addTerm(s, 'categories', 'Leaf', middle.id);
      const event = s.insertEvent(eventOn(10, 10, { category_ids: [middle.id, leaf.id] }));
      s.deleteTerm('categories', middle.id);
      expect(s.getTerm('categories', middle.id)).toBeUndefined();
      expect(s.getTerm('categories', leaf.id)!.parent).toBe(root.id);
      expect(s.getEvent(event.id)!.category_ids).toEqual([leaf.id]);
      expect(s.categoryDescendants(root.id).sort()).toEqual([root.id, leaf.id].sort());
    });

    it('listTerms: name order case-insensitive, both directions, paging total', () => {
      const s = store();
      const [b, a, c] = ['banana', 'Apple', 'cherry'].map((n) => addTerm(s, 'categories', n).id);
      addTerm(s, 'tags', 'Avocado');
      expect(ids(s.listTerms(termQuery()).items)).toEqual([a, b, c]);
      expect(ids(s.listTerms(termQuery({ order: 'desc' })).items)).toEqual([c, b, a]);
      expect(s.listTerms(termQuery({ offset: 1, limit: 1 }))).toMatchObject({ total: 3, items: [{ id: b }] });
      expect(ids(s.listTerms(termQuery({ orderby: 'id' })).items)).toEqual([b, a, c]);
      expect(ids(s.listTerms(termQuery({ orderby: 'slug', order: 'desc' })).items)).toEqual([c, b, a]);
    });

    it('listTerms: hideEmpty, count order, include order, exclude', () => {
      const s = store();
      const [one, two, none] = ['One', 'Two', 'None'].map((n) => addTerm(s, 'tags', n).id);
      s.insertEvent(eventOn(10, 10, { tag_ids: [one, two] }));
      s.insertEvent(eventOn(11, 10, { tag_ids: [two] }));
      s.insertEvent(eventOn(12, 10, { tag_ids: [none], status: 'draft' }));
      const q = (over: Partial<TermQuery>) => ids(s.listTerms(termQuery({ kind: 'tags', ...over })).items);
      expect(q({ hideEmpty: true })).toEqual([one, two]);
      expect(s.listTerms(termQuery({ kind: 'tags', hideEmpty: true })).total).toBe(2);
      expect(q({ orderby: 'count', order: 'desc' })).toEqual([two, one, none]);
      expect(q({ include: [two, none, one], orderby: 'include' })).toEqual([two, none, one]);
      expect(q({ include: [two, none], orderby: 'name' })).toEqual([none, two]);
      expect(q({ exclude: [one] })).toEqual([none, two]);
      expect(q({ include: [] })).toEqual([]);
    });

    it('listTerms: search in name or slug, parent, event, exact slug', () => {
      const s = store();
      const jazz = addTerm(s, 'categories', 'Jazz', 0, 'jazz-music');
      const bebop = addTerm(s, 'categories', 'Bebop', jazz.id);
      const opera = addTerm(s, 'categories', 'Opéra', 0, 'opera');
      const event = s.insertEvent(eventOn(10, 10, { category_ids: [bebop.id, opera.id] }));
      const q = (over: Partial<TermQuery>) => ids(s.listTerms(termQuery(over)).items);
      expect(q({ search: 'MUSIC' })).toEqual([jazz.id]);
      expect(q({ search: 'ebo' })).toEqual([bebop.id]);
      expect(q({ search: 'OPÉ' })).toEqual([opera.id]);
      expect(q({ search: '%' })).toEqual([]);
      expect(q({ parent: jazz.id })).toEqual([bebop.id]);
      expect(q({ parent: 0 })).toEqual([jazz.id, opera.id]);
      expect(q({ eventId: event.id })).toEqual([bebop.id, opera.id]);
      expect(q({ slug: 'opera' })).toEqual([opera.id]);
      expect(q({ slug: 'oper' })).toEqual([]);
    });
  });
}
