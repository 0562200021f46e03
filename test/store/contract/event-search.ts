/** Contract: event search words (B.5) — case-insensitive substrings, every word, kept up to date. */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { eventOn, eventQuery, ids, type OpenStore, useStore } from './fixtures.ts';

function search(s: Store, ...words: string[]): number[] {
  return ids(s.listEvents(eventQuery({ searchWords: words })).items);
}

export function eventSearchContract(open: OpenStore): void {
  describe('listEvents search', () => {
    const store = useStore(open);

    it('every word must occur, case-insensitively, as a substring of title, description or excerpt', () => {
      const s = store();
      const title = s.insertEvent(eventOn(10, 10, { title: 'Jazz Night' }));
      const description = s.insertEvent(eventOn(11, 10, { description: 'An evening of JAZZY tunes' }));
      const excerpt = s.insertEvent(eventOn(12, 10, { excerpt: 'bring your own jazz', title: 'Night out' }));
      s.insertEvent(eventOn(13, 10, { title: 'Opera' }));
      expect(search(s, 'jazz')).toEqual([title.id, description.id, excerpt.id]);
      expect(search(s, 'AZZ')).toEqual([title.id, description.id, excerpt.id]);
      expect(search(s, 'jazz', 'night')).toEqual([title.id, excerpt.id]);
      expect(search(s, 'jazz', 'opera')).toEqual([]);
      expect(search(s, 'ght ou')).toEqual([excerpt.id]);
    });

    it('a word matches inside one field, never across two', () => {
      const s = store();
      s.insertEvent(eventOn(10, 10, { title: 'Jazz', description: 'night' }));
      expect(search(s, 'jazznight')).toEqual([]);
      expect(search(s, 'zzn')).toEqual([]);
    });

    it('words of one or two characters match too', () => {
      const s = store();
      const a = s.insertEvent(eventOn(10, 10, { title: 'Do it' }));
      const b = s.insertEvent(eventOn(11, 10, { description: 'A to Z' }));
      expect(search(s, 'IT')).toEqual([a.id]);
      expect(search(s, 'z')).toEqual([b.id]);
      expect(search(s, 'o', 'do')).toEqual([a.id]);
    });

    it('quotes and LIKE wildcards in words are plain characters', () => {
      const s = store();
      const pct = s.insertEvent(eventOn(10, 10, { title: '100% fun' }));
      const under = s.insertEvent(eventOn(11, 10, { title: 'snake_case meetup' }));
      const quote = s.insertEvent(eventOn(12, 10, { title: 'The "Big" Show' }));
      s.insertEvent(eventOn(13, 10, { title: '1000 fun snakeXcase' }));
      expect(search(s, '0%')).toEqual([pct.id]);
      expect(search(s, '%')).toEqual([pct.id]);
      expect(search(s, 'e_c')).toEqual([under.id]);
      expect(search(s, '_')).toEqual([under.id]);
      expect(search(s, '"big"')).toEqual([quote.id]);
      expect(search(s, '"')).toEqual([quote.id]);
    });

    it('non-ASCII words match whatever their case', () => {
      const s = store();
      const a = s.insertEvent(eventOn(10, 10, { title: 'Concert à l’Église Saint-Étienne' }));
      expect(search(s, 'église')).toEqual([a.id]);
      expect(search(s, 'ÉTIENNE')).toEqual([a.id]);
    });

    it('search sees events written, changed and deleted since the last search', () => {
      const s = store();
      expect(search(s, 'salsa')).toEqual([]);
      const a = s.insertEvent(eventOn(10, 10, { title: 'Salsa class' }));
      const b = s.insertEvent(eventOn(11, 10, { title: 'Tango class' }));
      expect(search(s, 'salsa')).toEqual([a.id]);
      s.updateEvent({ ...b, title: 'Salsa social' });
      s.updateEvent({ ...a, title: 'Bachata class' });
      expect(search(s, 'salsa')).toEqual([b.id]);
      expect(search(s, 'bachata')).toEqual([a.id]);
      s.deletePost(b.id);
      expect(search(s, 'salsa')).toEqual([]);
      expect(search(s, 'class')).toEqual([a.id]);
    });

    it('common and rare words page and count alike', () => {
      const s = store();
      const common: number[] = [];
      for (let day = 1; day <= 28; day++) {
        const title = day % 7 === 0 ? `Concert rare${day}` : `Concert ${day}`;
        common.push(s.insertEvent(eventOn(day, 10, { title, hide_from_listings: day === 3 })).id);
      }
      const listed = common.filter((_, i) => i !== 2);
      const page = (words: string[], offset: number, limit: number) =>
        s.listEvents(eventQuery({ searchWords: words, offset, limit }));
      expect(page(['concert'], 0, 5)).toMatchObject({ total: 27 });
      expect(ids(page(['concert'], 0, 5).items)).toEqual(listed.slice(0, 5));
      expect(ids(page(['CONCERT'], 20, 5).items)).toEqual(listed.slice(20, 25));
      expect(ids(page(['concert', 'rare'], 0, 2).items)).toEqual([common[6], common[13]]);
      expect(page(['concert', 'rare'], 0, 2).total).toBe(4);
      expect(page(['concert', 'nowhere'], 0, 2)).toEqual({ items: [], total: 0 });
      expect(page(['RARE7'], 0, 5)).toEqual({ items: [s.getEvent(common[6])], total: 1 });
    });

    it('search combines with date bounds and term filters', () => {
      const s = store();
      const cat = s.insertTerm(termRecord('categories', 'Music'));
      s.insertEvent(eventOn(1, 10, { title: 'Jazz early', category_ids: [cat.id] }));
      const hit = s.insertEvent(eventOn(15, 10, { title: 'Jazz', category_ids: [cat.id] }));
      s.insertEvent(eventOn(16, 10, { title: 'Jazz without category' }));
      const q = eventQuery({
        searchWords: ['jazz'],
        startFrom: '2027-03-10 00:00:00',
        categoryIds: [cat.id],
      });
      expect(s.listEvents(q)).toMatchObject({ total: 1, items: [{ id: hit.id }] });
    });
  });
}
