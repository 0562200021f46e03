/** Contract: `listLinked` (B.10.3) — order, event links, has-events, upcoming, search, visibility. */
import { describe, expect, it } from 'vitest';
import type { OrganizerRecord, VenueRecord } from '../../../src/store/store.ts';
import {
  EDITOR,
  eventOn,
  ids,
  linkedQuery,
  mapInOrder,
  newOrganizer,
  newVenue,
  type OpenStore,
  useStore,
} from './fixtures.ts';

export function linkedListContract(open: OpenStore): void {
  describe('listLinked', () => {
    const store = useStore(open);

    it('orders by publication date descending, then id descending; unpublished drafts last', async () => {
      const s = store();
      const venue = async (date_utc: string | null, status: 'publish' | 'draft' = 'publish') =>
        (await s.insertLinked<VenueRecord>(newVenue({ date_utc, status }))).id;
      const old = await venue('2027-01-01 00:00:00');
      const draft = await venue(null, 'draft');
      const a = await venue('2027-02-01 00:00:00');
      const b = await venue('2027-02-01 00:00:00');
      const page = await s.listLinked('venue', linkedQuery({ visibility: EDITOR }));
      expect(ids(page.items)).toEqual([b, a, old, draft]);
      expect(page.total).toBe(4);
      expect(await s.listLinked('venue', linkedQuery({ offset: 1, limit: 2 }))).toMatchObject({ total: 3 });
      expect(ids((await s.listLinked('venue', linkedQuery({ offset: 1, limit: 2 }))).items)).toEqual([
        a,
        old,
      ]);
    });

    it('lists only the kind asked for, under the visibility given', async () => {
      const s = store();
      const venue = (await s.insertLinked<VenueRecord>(newVenue())).id;
      const draft = (await s.insertLinked<VenueRecord>(newVenue({ status: 'draft', author: 7 }))).id;
      await s.insertLinked<VenueRecord>(newVenue({ status: 'draft', author: 8 }));
      const organizer = (await s.insertLinked<OrganizerRecord>(newOrganizer())).id;
      expect(ids((await s.listLinked('venue', linkedQuery())).items)).toEqual([venue]);
      expect(ids((await s.listLinked('organizer', linkedQuery())).items)).toEqual([organizer]);
      const own = linkedQuery({ visibility: { statuses: ['publish'], ownStatuses: ['draft'], ownerId: 7 } });
      expect(ids((await s.listLinked('venue', own)).items)).toEqual([draft, venue]);
    });

    it('eventId lists the venue or the organizers of that event', async () => {
      const s = store();
      const [v1, v2] = await mapInOrder(
        [1, 2],
        async () => (await s.insertLinked<VenueRecord>(newVenue())).id,
      );
      const [o1, o2, o3] = await mapInOrder(
        [1, 2, 3],
        async () => (await s.insertLinked<OrganizerRecord>(newOrganizer())).id,
      );
      const event = await s.insertEvent(eventOn(10, 10, { venue_id: v2, organizer_ids: [o1, o3] }));
      await s.insertEvent(eventOn(11, 10, { venue_id: v1, organizer_ids: [o2] }));
      expect(ids((await s.listLinked('venue', linkedQuery({ eventId: event.id }))).items)).toEqual([v2]);
      expect(ids((await s.listLinked('organizer', linkedQuery({ eventId: event.id }))).items)).toEqual([
        o3,
        o1,
      ]);
      const bare = await s.insertEvent(eventOn(12));
      expect(await s.listLinked('venue', linkedQuery({ eventId: bare.id }))).toEqual({ items: [], total: 0 });
    });

    it('hasEvents: true needs a published event, false is every other item', async () => {
      const s = store();
      const [published, draftOnly, none] = await mapInOrder(
        [1, 2, 3],
        async () => (await s.insertLinked<VenueRecord>(newVenue())).id,
      );
      const [o1, o2] = await mapInOrder(
        [1, 2],
        async () => (await s.insertLinked<OrganizerRecord>(newOrganizer())).id,
      );
      await s.insertEvent(eventOn(10, 10, { venue_id: published, organizer_ids: [o1] }));
      await s.insertEvent(eventOn(11, 10, { venue_id: draftOnly, organizer_ids: [o2], status: 'draft' }));
      expect(ids((await s.listLinked('venue', linkedQuery({ hasEvents: true }))).items)).toEqual([published]);
      expect(ids((await s.listLinked('venue', linkedQuery({ hasEvents: false }))).items)).toEqual([
        none,
        draftOnly,
      ]);
      expect(ids((await s.listLinked('organizer', linkedQuery({ hasEvents: true }))).items)).toEqual([o1]);
      expect(ids((await s.listLinked('organizer', linkedQuery({ hasEvents: false }))).items)).toEqual([o2]);
    });

    it('upcomingAfter needs a linked event ending after it, visible under upcomingVisibility', async () => {
      const s = store();
      const [past, future, privateOnly] = await mapInOrder(
        [1, 2, 3],
        async () => (await s.insertLinked<VenueRecord>(newVenue())).id,
      );
      const [o1, o2] = await mapInOrder(
        [1, 2],
        async () => (await s.insertLinked<OrganizerRecord>(newOrganizer())).id,
      );
      await s.insertEvent(eventOn(1, 10, { venue_id: past, organizer_ids: [o1] }));
      await s.insertEvent(eventOn(20, 10, { venue_id: future, organizer_ids: [o2] }));
      await s.insertEvent(eventOn(21, 10, { venue_id: privateOnly, status: 'private' }));
      const now = '2027-03-10 00:00:00';
      const upcoming = linkedQuery({ upcomingAfter: now, upcomingVisibility: linkedQuery().visibility });
      expect(ids((await s.listLinked('venue', upcoming)).items)).toEqual([future]);
      expect(ids((await s.listLinked('organizer', upcoming)).items)).toEqual([o2]);
      const editor = { ...upcoming, upcomingVisibility: EDITOR };
      expect(ids((await s.listLinked('venue', editor)).items)).toEqual([privateOnly, future]);
      // An event ending exactly then is not upcoming.
      expect(
        ids((await s.listLinked('venue', { ...upcoming, upcomingAfter: '2027-03-20 12:00:00' })).items),
      ).toEqual([]);
    });

    it('venue search: every word, case-insensitive, in name, description or address fields', async () => {
      const s = store();
      const hall = (
        await s.insertLinked<VenueRecord>(newVenue({ venue: 'Main Hall', city: 'Lyon', zip: '69001' }))
      ).id;
      const club = (
        await s.insertLinked<VenueRecord>(newVenue({ venue: 'Club', description: 'Near the main square' }))
      ).id;
      const phone = (
        await s.insertLinked<VenueRecord>(
          newVenue({ venue: 'Bar', phone: '+33 4 72', stateprovince: 'Rhône' }),
        )
      ).id;
      await s.insertLinked<VenueRecord>(newVenue({ venue: 'Other', country: 'Lyon' }));
      const search = async (...searchWords: string[]) =>
        ids((await s.listLinked('venue', linkedQuery({ searchWords }))).items);
      expect(await search('MAIN')).toEqual([club, hall]);
      expect(await search('main', 'lyon')).toEqual([hall]);
      expect(await search('6900')).toEqual([hall]);
      expect(await search('+33')).toEqual([phone]);
      expect(await search('rhône')).toEqual([phone]);
      expect(await search('main', 'nowhere')).toEqual([]);
    });

    it('organizer search covers name, description, phone, email and website', async () => {
      const s = store();
      const ann = (
        await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: 'Ann', email: 'ann@example.org' }))
      ).id;
      const bob = (
        await s.insertLinked<OrganizerRecord>(
          newOrganizer({ organizer: 'Bob', website: 'https://bob.example' }),
        )
      ).id;
      const search = async (...searchWords: string[]) =>
        ids((await s.listLinked('organizer', linkedQuery({ searchWords }))).items);
      expect(await search('EXAMPLE')).toEqual([bob, ann]);
      expect(await search('ann@')).toEqual([ann]);
      expect(await search('100%')).toEqual([]);
    });
  });
}
