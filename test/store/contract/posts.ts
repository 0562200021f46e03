/** Contract: single posts — ids, round trips, links, slugs, deletes, create-or-find, attachments. */
import { describe, expect, it } from 'vitest';
import type { EventRecord, OrganizerRecord, VenueRecord } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { mapInOrder, newEvent, newOrganizer, newVenue, type OpenStore, useStore } from './fixtures.ts';

const EVENT_KEYS = [
  'id',
  'author',
  'status',
  'slug',
  'date_utc',
  'modified_utc',
  'modified_set',
  'image_id',
  'kind',
  'title',
  'description',
  'excerpt',
  'timezone',
  'all_day',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'cost',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
  'organizer_ids',
  'category_ids',
  'tag_ids',
  'password',
];

export function postContract(open: OpenStore): void {
  describe('posts', () => {
    const store = useStore(open);

    it('events, venues, organizers and attachments draw ids from one sequence', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const event = await s.insertEvent(newEvent());
      const organizer = await s.insertLinked<OrganizerRecord>(newOrganizer());
      const image = await s.insertAttachment({
        kind: 'attachment',
        author: 1,
        url: 'https://cal.example.org/uploads/a.png',
        source_url: null,
        mime: 'image/png',
        sizes: {},
        width: 10,
        height: 20,
        filesize: 300,
        date_utc: '2027-01-01 09:00:00',
      });
      expect([event.id, organizer.id, image.id]).toEqual([venue.id + 1, venue.id + 2, venue.id + 3]);
      expect((await s.getPost(venue.id))?.kind).toBe('venue');
      expect((await s.getPost(event.id))?.kind).toBe('event');
      expect((await s.getPost(organizer.id))?.kind).toBe('organizer');
      expect(await s.getPost(image.id)).toEqual(image);
      expect(await s.getPost(image.id + 1)).toBeUndefined();
    });

    it('an event reads back exactly as written: plain keys, booleans as booleans, nulls kept', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const input = newEvent({
        title: 'Jazz',
        all_day: true,
        show_map: true,
        featured: true,
        sticky: true,
        modified_set: true,
        date_utc: null,
        cost: '"10"',
        currency_code: 'EUR',
        website: 'https://example.org/',
        venue_id: venue.id,
      });
      const inserted = await s.insertEvent(input);
      expect(inserted).toEqual({ id: inserted.id, ...input });
      const read = (await s.getEvent(inserted.id))!;
      expect(read).toEqual(inserted);
      expect(Object.keys(read).sort()).toEqual([...EVENT_KEYS].sort());
      expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
      expect(await s.getPost(inserted.id)).toEqual(read);
    });

    it('venues and organizers read back exactly as written, and getLinked checks the kind', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(
        newVenue({ venue: 'Hall', city: 'Lyon', show_map: false }),
      );
      const organizer = await s.insertLinked<OrganizerRecord>(
        newOrganizer({ organizer: 'Ann', email: 'a@x.org' }),
      );
      expect(await s.getLinked('venue', venue.id)).toEqual(venue);
      expect(venue.show_map).toBe(false);
      expect(await s.getLinked('organizer', organizer.id)).toEqual(organizer);
      expect(await s.getLinked('organizer', venue.id)).toBeUndefined();
      expect(await s.getLinked('venue', organizer.id)).toBeUndefined();
      const updated = await s.updateLinked({ ...venue, venue: 'Big Hall', status: 'trash' as const });
      expect(await s.getLinked('venue', venue.id)).toEqual(updated);
      expect([...(await s.getLinkedMany([venue.id, organizer.id, 9999])).keys()].sort()).toEqual([
        venue.id,
        organizer.id,
      ]);
    });

    it('organizer order is kept and duplicate link ids are dropped, first occurrence kept', async () => {
      const s = store();
      const [a, b, c] = await mapInOrder(
        ['A', 'B', 'C'],
        async (n) => await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const event = await s.insertEvent(newEvent({ organizer_ids: [c.id, a.id, c.id, b.id] }));
      expect(event.organizer_ids).toEqual([c.id, a.id, b.id]);
      expect((await s.getEvent(event.id))!.organizer_ids).toEqual([c.id, a.id, b.id]);
    });

    it('updateEvent writes the whole record, links included', async () => {
      const s = store();
      const [a, b] = await mapInOrder(
        ['A', 'B'],
        async (n) => await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const cat = await s.insertTerm(termRecord('categories', 'Music'));
      const tag = await s.insertTerm(termRecord('tags', 'Free'));
      const event = await s.insertEvent(newEvent({ organizer_ids: [a.id], category_ids: [cat.id] }));
      const next: EventRecord = {
        ...event,
        title: 'Renamed',
        hide_from_listings: true,
        venue_id: venue.id,
        organizer_ids: [b.id, a.id],
        category_ids: [],
        tag_ids: [tag.id],
      };
      expect(await s.updateEvent(next)).toEqual(next);
      expect(await s.getEvent(event.id)).toEqual(next);
      // Unchanged links stay as they are.
      const again = { ...next, title: 'Again' };
      await s.updateEvent(again);
      expect(await s.getEvent(event.id)).toEqual(again);
    });

    it('updating an unknown event or linked item throws', async () => {
      const s = store();
      const event = await s.insertEvent(newEvent());
      await expect(s.updateEvent({ ...event, id: event.id + 100 })).rejects.toThrow();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      await expect(s.updateLinked({ ...venue, id: venue.id + 100 })).rejects.toThrow();
    });

    it('findBySlug matches the exact current slug of that kind, any status; "" matches nothing', async () => {
      const s = store();
      const event = await s.insertEvent(newEvent({ slug: 'jazz-night', status: 'draft' }));
      const venue = await s.insertLinked<VenueRecord>(newVenue({ slug: 'jazz-night' }));
      const trashed = await s.insertEvent(newEvent({ slug: 'old__trashed', status: 'trash' }));
      await s.insertEvent(newEvent({ slug: '' }));
      expect((await s.findBySlug('event', 'jazz-night'))?.id).toBe(event.id);
      expect((await s.findBySlug('venue', 'jazz-night'))?.id).toBe(venue.id);
      expect(await s.findBySlug('organizer', 'jazz-night')).toBeUndefined();
      expect((await s.findBySlug('event', 'old__trashed'))?.id).toBe(trashed.id);
      expect(await s.findBySlug('event', 'Jazz-Night')).toBeUndefined();
      expect(await s.findBySlug('event', 'jazz')).toBeUndefined();
      expect(await s.findBySlug('event', '')).toBeUndefined();
    });

    it('slugTaken is per kind and can ignore the item itself', async () => {
      const s = store();
      const event = await s.insertEvent(newEvent({ slug: 'party' }));
      expect(await s.slugTaken('event', 'party')).toBe(true);
      expect(await s.slugTaken('event', 'party', event.id)).toBe(false);
      expect(await s.slugTaken('venue', 'party')).toBe(false);
      expect(await s.slugTaken('event', 'other')).toBe(false);
    });

    it('deletePost removes an event and its links; the linked venue and terms stay', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const cat = await s.insertTerm(termRecord('categories', 'Music'));
      const event = await s.insertEvent(newEvent({ venue_id: venue.id, category_ids: [cat.id] }));
      expect((await s.getTerm('categories', cat.id))!.count).toBe(1);
      await s.deletePost(event.id);
      expect(await s.getEvent(event.id)).toBeUndefined();
      expect(await s.getPost(event.id)).toBeUndefined();
      expect(await s.getLinked('venue', venue.id)).toEqual(venue);
      expect((await s.getTerm('categories', cat.id))!.count).toBe(0);
    });

    it('deleting a venue or organizer leaves its events without it', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const [a, b] = await mapInOrder(
        ['A', 'B'],
        async (n) => await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const event = await s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [a.id, b.id] }));
      await s.deletePost(venue.id);
      await s.deletePost(a.id);
      expect(await s.getEvent(event.id)).toMatchObject({ venue_id: null, organizer_ids: [b.id] });
    });

    it('unlinkFromEvents takes a venue or organizer off every event and keeps the others in order', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue());
      const [a, b, c] = await mapInOrder(
        ['A', 'B', 'C'],
        async (n) => await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const one = await s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [a.id, b.id, c.id] }));
      const two = await s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [b.id] }));
      await s.unlinkFromEvents('venue', venue.id);
      await s.unlinkFromEvents('organizer', b.id);
      expect(await s.getEvent(one.id)).toMatchObject({ venue_id: null, organizer_ids: [a.id, c.id] });
      expect(await s.getEvent(two.id)).toMatchObject({ venue_id: null, organizer_ids: [] });
      expect(await s.getLinked('venue', venue.id)).toEqual(venue);
    });

    it('findLinkedByName: trimmed, case-insensitive, not trashed, lowest id, description when given', async () => {
      const s = store();
      const trashed = await s.insertLinked<VenueRecord>(newVenue({ venue: 'Main Hall', status: 'trash' }));
      const first = await s.insertLinked<VenueRecord>(
        newVenue({ venue: ' Main Hall ', description: 'Ground floor' }),
      );
      const second = await s.insertLinked<VenueRecord>(
        newVenue({ venue: 'MAIN HALL', description: 'Upstairs' }),
      );
      await s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: 'Main Hall' }));
      expect(trashed.id).toBeLessThan(first.id);
      expect((await s.findLinkedByName('venue', 'main hall'))?.id).toBe(first.id);
      expect((await s.findLinkedByName('venue', '  main HALL'))?.id).toBe(first.id);
      expect((await s.findLinkedByName('venue', 'Main Hall', 'Upstairs'))?.id).toBe(second.id);
      expect(await s.findLinkedByName('venue', 'Main Hall', 'Basement')).toBeUndefined();
      expect(await s.findLinkedByName('venue', 'Main')).toBeUndefined();
      expect((await s.findLinkedByName('organizer', 'main hall'))?.kind).toBe('organizer');
      expect(await s.findLinkedByName('venue', 'ÉCOLE')).toBeUndefined();
      const ecole = await s.insertLinked<VenueRecord>(newVenue({ venue: 'École' }));
      expect((await s.findLinkedByName('venue', 'ÉCOLE'))?.id).toBe(ecole.id);
    });

    it('attachments are found by their URL or the URL they were sideloaded from', async () => {
      const s = store();
      const base = {
        kind: 'attachment' as const,
        author: 1,
        mime: 'image/jpeg',
        width: 1,
        height: 1,
        filesize: 1,
        sizes: {},
        date_utc: '2027-01-01 09:00:00',
      };
      const local = await s.insertAttachment({
        ...base,
        url: 'https://cal.example.org/u/a.jpg',
        source_url: null,
      });
      const loaded = await s.insertAttachment({
        ...base,
        url: 'https://cal.example.org/u/b.jpg',
        source_url: 'https://images.example.com/b.jpg',
      });
      expect(await s.getAttachment(local.id)).toEqual(local);
      expect(await s.findAttachmentByUrl('https://cal.example.org/u/a.jpg')).toEqual(local);
      expect(await s.findAttachmentByUrl('https://images.example.com/b.jpg')).toEqual(loaded);
      expect(await s.findAttachmentByUrl('https://cal.example.org/u/b.jpg')).toEqual(loaded);
      expect(await s.findAttachmentByUrl('https://images.example.com/c.jpg')).toBeUndefined();
      expect(await s.getAttachmentsMany([local.id, loaded.id, 999])).toEqual(
        new Map([
          [local.id, local],
          [loaded.id, loaded],
        ]),
      );
      expect(await s.getAttachment((await s.insertEvent(newEvent())).id)).toBeUndefined();
    });

    it('setEventPassword sets and clears the stored password', async () => {
      const s = store();
      const event = await s.insertEvent(newEvent());
      await s.setEventPassword(event.id, 'secret');
      expect((await s.getEvent(event.id))!.password).toBe('secret');
      await s.setEventPassword(event.id, null);
      expect((await s.getEvent(event.id))!.password).toBeNull();
    });
  });
}
