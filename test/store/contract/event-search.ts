/** Contract: event search words (B.5) — case-insensitive substrings, every word, kept up to date. */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { eventOn, eventQuery, ids, type OpenStore, useStore } from './fixtures.ts';

async function search(s: Store, ...words: string[]): Promise<number[]> {
  return ids((await s.listEvents(eventQuery({ searchWords: words }))).items);
}

export function eventSearchContract(open: OpenStore): void {
  describe('listEvents search', () => {
    const store = useStore(open);

    it('every word must occur, case-insensitively, as a substring of title, description or excerpt', async () => {
      const s = store();
      const title = await s.insertEvent(eventOn(10, 10, { title: 'Jazz Night' }));
      const description = await s.insertEvent(eventOn(11, 10, { description: 'An evening of JAZZY tunes' }));
      const excerpt = await s.insertEvent(
        eventOn(12, 10, { excerpt: 'bring your own jazz', title: 'Night out' }),
      );
      await s.insertEvent(eventOn(13, 10, { title: 'Opera' }));
      expect(await search(s, 'jazz')).toEqual([title.id, description.id, excerpt.id]);
      expect(await search(s, 'AZZ')).toEqual([title.id, description.id, excerpt.id]);
      expect(await search(s, 'jazz', 'night')).toEqual([title.id, excerpt.id]);
      expect(await search(s, 'jazz', 'opera')).toEqual([]);
      expect(await search(s, 'ght ou')).toEqual([excerpt.id]);
    });

    it('a word matches inside one field, never across two', async () => {
      const s = store();
      await s.insertEvent(eventOn(10, 10, { title: 'Jazz', description: 'night' }));
      expect(await search(s, 'jazznight')).toEqual([]);
      expect(await search(s, 'zzn')).toEqual([]);
    });

    it('words of one or two characters match too', async () => {
      const s = store();
      const a = await s.insertEvent(eventOn(10, 10, { title: 'Do it' }));
      const b = await s.insertEvent(eventOn(11, 10, { description: 'A to Z' }));
      expect(await search(s, 'IT')).toEqual([a.id]);
      expect(await search(s, 'z')).toEqual([b.id]);
      expect(await search(s, 'o', 'do')).toEqual([a.id]);
    });

    it('quotes and LIKE wildcards in words are plain characters', async () => {
      const s = store();
      const pct = await s.insertEvent(eventOn(10, 10, { title: '100% fun' }));
      const under = await s.insertEvent(eventOn(11, 10, { title: 'snake_case meetup' }));
      const quote = await s.insertEvent(eventOn(12, 10, { title: 'The "Big" Show' }));
      await s.insertEvent(eventOn(13, 10, { title: '1000 fun snakeXcase' }));
      expect(await search(s, '0%')).toEqual([pct.id]);
      expect(await search(s, '%')).toEqual([pct.id]);
      expect(await search(s, 'e_c')).toEqual([under.id]);
      expect(await search(s, '_')).toEqual([under.id]);
      expect(await search(s, '"big"')).toEqual([quote.id]);
      expect(await search(s, '"')).toEqual([quote.id]);
    });

    it('non-ASCII words match whatever their case', async () => {
      const s = store();
      const a = await s.insertEvent(eventOn(10, 10, { title: 'Concert à l’Église Saint-Étienne' }));
      expect(await search(s, 'église')).toEqual([a.id]);
      expect(await search(s, 'ÉTIENNE')).toEqual([a.id]);
    });

    it('search sees events written, changed and deleted since the last search', async () => {
      const s = store();
      expect(await search(s, 'salsa')).toEqual([]);
      const a = await s.insertEvent(eventOn(10, 10, { title: 'Salsa class' }));
      const b = await s.insertEvent(eventOn(11, 10, { title: 'Tango class' }));
      expect(await search(s, 'salsa')).toEqual([a.id]);
      await s.updateEvent({ ...b, title: 'Salsa social' });
      await s.updateEvent({ ...a, title: 'Bachata class' });
      expect(await search(s, 'salsa')).toEqual([b.id]);
      expect(await search(s, 'bachata')).toEqual([a.id]);
      await s.deletePost(b.id);
      expect(await search(s, 'salsa')).toEqual([]);
      expect(await search(s, 'class')).toEqual([a.id]);
    });

    it('common and rare words page and count alike', async () => {
      const s = store();
      const common: number[] = [];
      for (let day = 1; day <= 28; day++) {
        const title = day % 7 === 0 ? `Concert rare${day}` : `Concert ${day}`;
        common.push((await s.insertEvent(eventOn(day, 10, { title, hide_from_listings: day === 3 }))).id);
      }
      const listed = common.filter((_, i) => i !== 2);
      const page = async (words: string[], offset: number, limit: number) =>
        await s.listEvents(eventQuery({ searchWords: words, offset, limit }));
      expect(await page(['concert'], 0, 5)).toMatchObject({ total: 27 });
      expect(ids((await page(['concert'], 0, 5)).items)).toEqual(listed.slice(0, 5));
      expect(ids((await page(['CONCERT'], 20, 5)).items)).toEqual(listed.slice(20, 25));
      expect(ids((await page(['concert', 'rare'], 0, 2)).items)).toEqual([common[6], common[13]]);
      expect((await page(['concert', 'rare'], 0, 2)).total).toBe(4);
      expect(await page(['concert', 'nowhere'], 0, 2)).toEqual({ items: [], total: 0 });
      expect(await page(['RARE7'], 0, 5)).toEqual({ items: [await s.getEvent(common[6])], total: 1 });
    });

    it('search combines with date bounds and term filters', async () => {
      const s = store();
      const cat = await s.insertTerm(termRecord('categories', 'Music'));
      await s.insertEvent(eventOn(1, 10, { title: 'Jazz early', category_ids: [cat.id] }));
      const hit = await s.insertEvent(eventOn(15, 10, { title: 'Jazz', category_ids: [cat.id] }));
      await s.insertEvent(eventOn(16, 10, { title: 'Jazz without category' }));
      const q = eventQuery({
        searchWords: ['jazz'],
        startFrom: '2027-03-10 00:00:00',
        categoryIds: [cat.id],
      });
      expect(await s.listEvents(q)).toMatchObject({ total: 1, items: [{ id: hit.id }] });
    });
  });
}
