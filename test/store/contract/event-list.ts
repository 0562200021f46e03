/** Contract: `listEvents` (B.5) — bounds, order, hidden events, include, visibility, filters, paging. */
import { describe, expect, it } from 'vitest';
import type { OrganizerRecord, VenueRecord } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import {
  EDITOR,
  eventOn,
  eventQuery,
  ids,
  mapInOrder,
  march,
  newEvent,
  newOrganizer,
  newVenue,
  type OpenStore,
  useStore,
} from './fixtures.ts';

export function eventListContract(open: OpenStore): void {
  describe('listEvents', () => {
    const store = useStore(open);

    it('orders by start instant, then publication date, then id', async () => {
      const s = store();
      const late = await s.insertEvent(eventOn(12));
      const b = await s.insertEvent(eventOn(11, 10, { date_utc: '2027-01-02 00:00:00' }));
      const a = await s.insertEvent(eventOn(11, 10, { date_utc: '2027-01-01 00:00:00' }));
      const c = await s.insertEvent(eventOn(11, 10, { date_utc: '2027-01-02 00:00:00' }));
      const early = await s.insertEvent(eventOn(11, 9));
      expect(ids((await s.listEvents(eventQuery())).items)).toEqual([early.id, a.id, b.id, c.id, late.id]);
    });

    it('start_date and end_date bounds are inclusive on UTC instants', async () => {
      const s = store();
      const before = await s.insertEvent(eventOn(9));
      const first = await s.insertEvent(eventOn(10, 0));
      const inside = await s.insertEvent(eventOn(15));
      const last = await s.insertEvent(eventOn(20, 21)); // ends 23:00
      await s.insertEvent(eventOn(20, 22)); // ends 24:00 = next day 00:00
      const q = eventQuery({ startFrom: march(10, 0), endTo: '2027-03-20 23:00:00' });
      expect(ids((await s.listEvents(q)).items)).toEqual([first.id, inside.id, last.id]);
      expect(ids((await s.listEvents(eventQuery({ endTo: march(9, 12) }))).items)).toEqual([before.id]);
    });

    it('starts_before/after and ends_before/after are strict', async () => {
      const s = store();
      const a = await s.insertEvent(eventOn(10)); // 10:00–12:00
      const b = await s.insertEvent(eventOn(11)); // 11th 10:00–12:00
      const c = await s.insertEvent(eventOn(12));
      expect(ids((await s.listEvents(eventQuery({ startsAfter: march(10) }))).items)).toEqual([b.id, c.id]);
      expect(ids((await s.listEvents(eventQuery({ startsBefore: march(11) }))).items)).toEqual([a.id]);
      expect(ids((await s.listEvents(eventQuery({ endsAfter: march(11, 12) }))).items)).toEqual([c.id]);
      expect(ids((await s.listEvents(eventQuery({ endsBefore: march(11, 12) }))).items)).toEqual([a.id]);
      const both = eventQuery({ startFrom: march(10, 11), endsBefore: march(12, 13) });
      expect(ids((await s.listEvents(both)).items)).toEqual([b.id, c.id]);
    });

    it('hidden events are never listed without include', async () => {
      const s = store();
      const shown = await s.insertEvent(eventOn(10));
      await s.insertEvent(eventOn(11, 10, { hide_from_listings: true }));
      const page = await s.listEvents(eventQuery());
      expect(ids(page.items)).toEqual([shown.id]);
      expect(page.total).toBe(1);
    });

    it('include lists exactly those ids, hidden ones too, ignoring dates, by publication date then id', async () => {
      const s = store();
      const hidden = await s.insertEvent(
        eventOn(1, 10, { hide_from_listings: true, date_utc: '2027-01-05 00:00:00' }),
      );
      const draft = await s.insertEvent(eventOn(2, 10, { status: 'draft', date_utc: null }));
      const late = await s.insertEvent(eventOn(3, 10, { date_utc: '2027-01-09 00:00:00' }));
      const same = await s.insertEvent(eventOn(4, 10, { date_utc: '2027-01-05 00:00:00' }));
      await s.insertEvent(eventOn(5));
      const q = eventQuery({
        include: [late.id, same.id, hidden.id, draft.id],
        startFrom: march(20),
        endTo: march(25),
        visibility: EDITOR,
      });
      expect(ids((await s.listEvents(q)).items)).toEqual([draft.id, hidden.id, same.id, late.id]);
      // Read rules still apply.
      expect(ids((await s.listEvents({ ...q, visibility: eventQuery().visibility })).items)).toEqual([
        hidden.id,
        same.id,
        late.id,
      ]);
      expect(await s.listEvents(eventQuery({ include: [] }))).toEqual({ items: [], total: 0 });
    });

    it('visibility: statuses of anyone, own statuses of the owner only', async () => {
      const s = store();
      const pub = await s.insertEvent(eventOn(10, 10, { author: 1 }));
      const mine = await s.insertEvent(eventOn(11, 10, { author: 2, status: 'draft' }));
      await s.insertEvent(eventOn(12, 10, { author: 3, status: 'draft' }));
      const pending = await s.insertEvent(eventOn(13, 10, { author: 3, status: 'pending' }));
      await s.insertEvent(eventOn(14, 10, { author: 2, status: 'trash' }));
      const q = eventQuery({
        visibility: { statuses: ['publish', 'pending'], ownStatuses: ['draft'], ownerId: 2 },
      });
      expect(ids((await s.listEvents(q)).items)).toEqual([pub.id, mine.id, pending.id]);
      const none = eventQuery({ visibility: { statuses: [], ownStatuses: ['draft'], ownerId: null } });
      expect(await s.listEvents(none)).toEqual({ items: [], total: 0 });
    });

    it('pages of a long list follow list order whatever the order of writes', async () => {
      const s = store();
      const days: number[] = [];
      for (let i = 0; i < 60; i++) days.push(((i * 37) % 60) + 1); // 1..60, shuffled
      const byDay = new Map<number, number>();
      for (const day of days) {
        const start = `2027-${day <= 31 ? '03' : '04'}-${String(day <= 31 ? day : day - 31).padStart(2, '0')} 10:00:00`;
        const id = (await s.insertEvent(newEvent({ start_utc: start, end_utc: start.replace('10:', '11:') })))
          .id;
        byDay.set(day, id);
      }
      const expected = [...byDay.keys()].sort((a, b) => a - b).map((day) => byDay.get(day)!);
      const pages = await mapInOrder(
        [0, 1, 2, 3],
        async (p) => await s.listEvents(eventQuery({ offset: p * 16, limit: 16 })),
      );
      expect(pages.flatMap((p) => ids(p.items))).toEqual(expected);
      expect(pages.map((p) => p.total)).toEqual([60, 60, 60, 60]);
    });

    it('listEventIds: the ids of every event the list lists, in its order, whatever the offset and limit', async () => {
      const s = store();
      const late = await s.insertEvent(eventOn(12));
      await s.insertEvent(eventOn(11, 10, { hide_from_listings: true }));
      const early = await s.insertEvent(eventOn(11, 9));
      const listed = await s.listEventIds(eventQuery({ offset: 1, limit: 1 }));
      expect(listed).toEqual([early.id, late.id]);
      expect(listed).toEqual(ids((await s.listEvents(eventQuery())).items));
      expect(await s.listEventIds(eventQuery({ matchNothing: true }))).toEqual([]);
      // The answer is the caller's: changing it changes no later answer.
      listed.push(-1);
      const added = await s.insertEvent(eventOn(13));
      expect(await s.listEventIds(eventQuery())).toEqual([early.id, late.id, added.id]);
    });

    it('getEventsMany: the events of the ids that exist, by id, whatever their status', async () => {
      const s = store();
      const shown = await s.insertEvent(eventOn(10));
      const draft = await s.insertEvent(eventOn(11, 10, { status: 'draft' }));
      const found = await s.getEventsMany([draft.id, shown.id, 999_999]);
      expect([...found.keys()].sort((a, b) => a - b)).toEqual([shown.id, draft.id].sort((a, b) => a - b));
      expect(found.get(draft.id)).toEqual(await s.getEvent(draft.id));
      expect(await s.getEventsMany([])).toEqual(new Map());
    });

    it('total counts every match whatever the offset and limit', async () => {
      const s = store();
      const all = await mapInOrder(
        [12, 13, 14, 15, 16],
        async (day) => (await s.insertEvent(eventOn(day))).id,
      );
      const page = async (offset: number, limit: number) => await s.listEvents(eventQuery({ offset, limit }));
      expect(await page(0, 2)).toMatchObject({ total: 5 });
      expect(ids((await page(2, 2)).items)).toEqual(all.slice(2, 4));
      expect((await page(2, 2)).total).toBe(5);
      expect(ids((await page(4, 2)).items)).toEqual(all.slice(4));
      expect((await page(4, 2)).total).toBe(5);
      expect((await page(3, 2)).total).toBe(5);
      expect(await page(10, 2)).toEqual({ items: [], total: 5 });
      expect((await page(0, 5)).total).toBe(5);
      expect((await page(0, 50)).total).toBe(5);
    });

    it('term filters are OR within a list and AND across categories and tags', async () => {
      const s = store();
      const term = async (kind: 'categories' | 'tags', name: string) =>
        (await s.insertTerm(termRecord(kind, name))).id;
      const [music, film] = [await term('categories', 'Music'), await term('categories', 'Film')];
      const free = await term('tags', 'Free');
      const a = await s.insertEvent(eventOn(10, 10, { category_ids: [music], tag_ids: [free] }));
      const b = await s.insertEvent(eventOn(11, 10, { category_ids: [film] }));
      const c = await s.insertEvent(eventOn(12, 10, { category_ids: [music, film] }));
      await s.insertEvent(eventOn(13, 10, { tag_ids: [free] }));
      expect(ids((await s.listEvents(eventQuery({ categoryIds: [music, film] }))).items)).toEqual([
        a.id,
        b.id,
        c.id,
      ]);
      expect(ids((await s.listEvents(eventQuery({ categoryIds: [music] }))).items)).toEqual([a.id, c.id]);
      expect(ids((await s.listEvents(eventQuery({ categoryIds: [music], tagIds: [free] }))).items)).toEqual([
        a.id,
      ]);
      expect(await s.listEvents(eventQuery({ categoryIds: [] }))).toEqual({ items: [], total: 0 });
    });

    it('rare and common terms page and count alike', async () => {
      const s = store();
      const term = async (kind: 'categories' | 'tags', name: string) =>
        (await s.insertTerm(termRecord(kind, name))).id;
      const [common, rare, tag] = [
        await term('categories', 'Common'),
        await term('categories', 'Rare'),
        await term('tags', 'Tag'),
      ];
      const all: number[] = [];
      for (let day = 1; day <= 30; day++) {
        const category_ids = day === 17 ? [common, rare] : [common];
        all.push(
          (await s.insertEvent(eventOn(day, 10, { category_ids, tag_ids: day > 25 ? [tag] : [] }))).id,
        );
      }
      const page = async (over: Parameters<typeof eventQuery>[0]) =>
        await s.listEvents(eventQuery({ limit: 4, ...over }));
      expect(await page({ categoryIds: [rare] })).toMatchObject({ total: 1, items: [{ id: all[16] }] });
      expect(ids((await page({ categoryIds: [common] })).items)).toEqual(all.slice(0, 4));
      expect(await page({ categoryIds: [common], offset: 24 })).toMatchObject({ total: 30 });
      expect(ids((await page({ categoryIds: [common], offset: 24 })).items)).toEqual(all.slice(24, 28));
      expect(ids((await page({ categoryIds: [common], tagIds: [tag] })).items)).toEqual(all.slice(25, 29));
      expect(await page({ categoryIds: [rare], tagIds: [tag] })).toEqual({ items: [], total: 0 });
    });

    it('venue and organizer filters are OR within a list; featured filters both ways', async () => {
      const s = store();
      const [v1, v2] = await mapInOrder(
        ['V1', 'V2'],
        async (venue) => await s.insertLinked<VenueRecord>(newVenue({ venue })),
      );
      const [o1, o2] = await mapInOrder(
        ['O1', 'O2'],
        async (o) => await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: o })),
      );
      const a = await s.insertEvent(
        eventOn(10, 10, { venue_id: v1.id, organizer_ids: [o1.id], featured: true }),
      );
      const b = await s.insertEvent(eventOn(11, 10, { venue_id: v2.id, organizer_ids: [o2.id, o1.id] }));
      const c = await s.insertEvent(eventOn(12, 10, { organizer_ids: [o2.id] }));
      expect(ids((await s.listEvents(eventQuery({ venueIds: [v1.id, v2.id] }))).items)).toEqual([a.id, b.id]);
      expect(ids((await s.listEvents(eventQuery({ organizerIds: [o1.id] }))).items)).toEqual([a.id, b.id]);
      expect(
        ids((await s.listEvents(eventQuery({ organizerIds: [o2.id], venueIds: [v2.id] }))).items),
      ).toEqual([b.id]);
      expect(ids((await s.listEvents(eventQuery({ featured: true }))).items)).toEqual([a.id]);
      expect(ids((await s.listEvents(eventQuery({ featured: false }))).items)).toEqual([b.id, c.id]);
    });

    it('matchNothing gives an empty page with total 0', async () => {
      const s = store();
      await s.insertEvent(eventOn(10));
      expect(await s.listEvents(eventQuery({ matchNothing: true }))).toEqual({ items: [], total: 0 });
    });

    it('listed events carry their links, as getEvent reads them', async () => {
      const s = store();
      const org = await s.insertLinked<OrganizerRecord>(newOrganizer());
      const cat = await s.insertTerm(termRecord('categories', 'Music'));
      const tag = await s.insertTerm(termRecord('tags', 'Free'));
      for (let day = 1; day <= 5; day++) {
        await s.insertEvent(
          eventOn(day, 10, { organizer_ids: day % 2 ? [org.id] : [], category_ids: [cat.id] }),
        );
      }
      await s.insertEvent(eventOn(6, 10, { tag_ids: [tag.id], category_ids: [cat.id] }));
      const page = await s.listEvents(eventQuery());
      expect(page.items).toHaveLength(6);
      for (const event of page.items) expect(event).toEqual(await s.getEvent(event.id));
    });
  });
}
