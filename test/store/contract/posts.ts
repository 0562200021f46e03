/** Contract: single posts — ids, round trips, links, slugs, deletes, create-or-find, attachments. */
import { describe, expect, it } from 'vitest';
import type { EventRecord, OrganizerRecord, VenueRecord } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { newEvent, newOrganizer, newVenue, type OpenStore, useStore } from './fixtures.ts';

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

    it('events, venues, organizers and attachments draw ids from one sequence', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue());
      const event = s.insertEvent(newEvent());
      const organizer = s.insertLinked<OrganizerRecord>(newOrganizer());
      const image = s.insertAttachment({
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
      expect(s.getPost(venue.id)?.kind).toBe('venue');
      expect(s.getPost(event.id)?.kind).toBe('event');
      expect(s.getPost(organizer.id)?.kind).toBe('organizer');
      expect(s.getPost(image.id)).toEqual(image);
      expect(s.getPost(image.id + 1)).toBeUndefined();
    });

    it('an event reads back exactly as written: plain keys, booleans as booleans, nulls kept', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue());
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
      const inserted = s.insertEvent(input);
      expect(inserted).toEqual({ id: inserted.id, ...input });
      const read = s.getEvent(inserted.id)!;
      expect(read).toEqual(inserted);
      expect(Object.keys(read).sort()).toEqual([...EVENT_KEYS].sort());
      expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
      expect(s.getPost(inserted.id)).toEqual(read);
    });

    it('venues and organizers read back exactly as written, and getLinked checks the kind', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue({ venue: 'Hall', city: 'Lyon', show_map: false }));
      const organizer = s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: 'Ann', email: 'a@x.org' }));
      expect(s.getLinked('venue', venue.id)).toEqual(venue);
      expect(venue.show_map).toBe(false);
      expect(s.getLinked('organizer', organizer.id)).toEqual(organizer);
      expect(s.getLinked('organizer', venue.id)).toBeUndefined();
      expect(s.getLinked('venue', organizer.id)).toBeUndefined();
      const updated = s.updateLinked({ ...venue, venue: 'Big Hall', status: 'trash' as const });
      expect(s.getLinked('venue', venue.id)).toEqual(updated);
      expect([...s.getLinkedMany([venue.id, organizer.id, 9999]).keys()].sort()).toEqual([
        venue.id,
        organizer.id,
      ]);
    });

    it('organizer order is kept and duplicate link ids are dropped, first occurrence kept', () => {
      const s = store();
      const [a, b, c] = ['A', 'B', 'C'].map((n) =>
        s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const event = s.insertEvent(newEvent({ organizer_ids: [c.id, a.id, c.id, b.id] }));
      expect(event.organizer_ids).toEqual([c.id, a.id, b.id]);
      expect(s.getEvent(event.id)!.organizer_ids).toEqual([c.id, a.id, b.id]);
    });

    it('updateEvent writes the whole record, links included', () => {
      const s = store();
      const [a, b] = ['A', 'B'].map((n) => s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })));
      const venue = s.insertLinked<VenueRecord>(newVenue());
      const cat = s.insertTerm(termRecord('categories', 'Music'));
      const tag = s.insertTerm(termRecord('tags', 'Free'));
      const event = s.insertEvent(newEvent({ organizer_ids: [a.id], category_ids: [cat.id] }));
      const next: EventRecord = {
        ...event,
        title: 'Renamed',
        hide_from_listings: true,
        venue_id: venue.id,
        organizer_ids: [b.id, a.id],
        category_ids: [],
        tag_ids: [tag.id],
      };
      expect(s.updateEvent(next)).toEqual(next);
      expect(s.getEvent(event.id)).toEqual(next);
      // Unchanged links stay as they are.
      const again = { ...next, title: 'Again' };
      s.updateEvent(again);
      expect(s.getEvent(event.id)).toEqual(again);
    });

    it('updating an unknown event or linked item throws', () => {
      const s = store();
      const event = s.insertEvent(newEvent());
      expect(() => s.updateEvent({ ...event, id: event.id + 100 })).toThrow();
      const venue = s.insertLinked<VenueRecord>(newVenue());
      expect(() => s.updateLinked({ ...venue, id: venue.id + 100 })).toThrow();
    });

    it('findBySlug matches the exact current slug of that kind, any status; "" matches nothing', () => {
      const s = store();
      const event = s.insertEvent(newEvent({ slug: 'jazz-night', status: 'draft' }));
      const venue = s.insertLinked<VenueRecord>(newVenue({ slug: 'jazz-night' }));
      const trashed = s.insertEvent(newEvent({ slug: 'old__trashed', status: 'trash' }));
      s.insertEvent(newEvent({ slug: '' }));
      expect(s.findBySlug('event', 'jazz-night')?.id).toBe(event.id);
      expect(s.findBySlug('venue', 'jazz-night')?.id).toBe(venue.id);
      expect(s.findBySlug('organizer', 'jazz-night')).toBeUndefined();
      expect(s.findBySlug('event', 'old__trashed')?.id).toBe(trashed.id);
      expect(s.findBySlug('event', 'Jazz-Night')).toBeUndefined();
      expect(s.findBySlug('event', 'jazz')).toBeUndefined();
      expect(s.findBySlug('event', '')).toBeUndefined();
    });

    it('slugTaken is per kind and can ignore the item itself', () => {
      const s = store();
      const event = s.insertEvent(newEvent({ slug: 'party' }));
      expect(s.slugTaken('event', 'party')).toBe(true);
      expect(s.slugTaken('event', 'party', event.id)).toBe(false);
      expect(s.slugTaken('venue', 'party')).toBe(false);
      expect(s.slugTaken('event', 'other')).toBe(false);
    });

    it('deletePost removes an event and its links; the linked venue and terms stay', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue());
      const cat = s.insertTerm(termRecord('categories', 'Music'));
      const event = s.insertEvent(newEvent({ venue_id: venue.id, category_ids: [cat.id] }));
      expect(s.getTerm('categories', cat.id)!.count).toBe(1);
      s.deletePost(event.id);
      expect(s.getEvent(event.id)).toBeUndefined();
      expect(s.getPost(event.id)).toBeUndefined();
      expect(s.getLinked('venue', venue.id)).toEqual(venue);
      expect(s.getTerm('categories', cat.id)!.count).toBe(0);
    });

    it('deleting a venue or organizer leaves its events without it', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue());
      const [a, b] = ['A', 'B'].map((n) => s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })));
      const event = s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [a.id, b.id] }));
      s.deletePost(venue.id);
      s.deletePost(a.id);
      expect(s.getEvent(event.id)).toMatchObject({ venue_id: null, organizer_ids: [b.id] });
    });

    it('unlinkFromEvents takes a venue or organizer off every event and keeps the others in order', () => {
      const s = store();
      const venue = s.insertLinked<VenueRecord>(newVenue());
      const [a, b, c] = ['A', 'B', 'C'].map((n) =>
        s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: n })),
      );
      const one = s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [a.id, b.id, c.id] }));
      const two = s.insertEvent(newEvent({ venue_id: venue.id, organizer_ids: [b.id] }));
      s.unlinkFromEvents('venue', venue.id);
      s.unlinkFromEvents('organizer', b.id);
      expect(s.getEvent(one.id)).toMatchObject({ venue_id: null, organizer_ids: [a.id, c.id] });
      expect(s.getEvent(two.id)).toMatchObject({ venue_id: null, organizer_ids: [] });
      expect(s.getLinked('venue', venue.id)).toEqual(venue);
    });

    it('findLinkedByName: trimmed, case-insensitive, not trashed, lowest id, description when given', () => {
      const s = store();
      const trashed = s.insertLinked<VenueRecord>(newVenue({ venue: 'Main Hall', status: 'trash' }));
      const first = s.insertLinked<VenueRecord>(
        newVenue({ venue: ' Main Hall ', description: 'Ground floor' }),
      );
      const second = s.insertLinked<VenueRecord>(newVenue({ venue: 'MAIN HALL', description: 'Upstairs' }));
      s.insertLinked<OrganizerRecord>(newOrganizer({ organizer: 'Main Hall' }));
      expect(trashed.id).toBeLessThan(first.id);
      expect(s.findLinkedByName('venue', 'main hall')?.id).toBe(first.id);
      expect(s.findLinkedByName('venue', '  main HALL')?.id).toBe(first.id);
      expect(s.findLinkedByName('venue', 'Main Hall', 'Upstairs')?.id).toBe(second.id);
      expect(s.findLinkedByName('venue', 'Main Hall', 'Basement')).toBeUndefined();
      expect(s.findLinkedByName('venue', 'Main')).toBeUndefined();
      expect(s.findLinkedByName('organizer', 'main hall')?.kind).toBe('organizer');
      expect(s.findLinkedByName('venue', 'ÉCOLE')).toBeUndefined();
      const ecole = s.insertLinked<VenueRecord>(newVenue({ venue: 'École' }));
      expect(s.findLinkedByName('venue', 'ÉCOLE')?.id).toBe(ecole.id);
    });

    it('attachments are found by their URL or the URL they were sideloaded from', () => {
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
      const local = s.insertAttachment({ ...base, url: 'https://cal.example.org/u/a.jpg', source_url: null });
      const loaded = s.insertAttachment({
        ...base,
        url: 'https://cal.example.org/u/b.jpg',
        source_url: 'https://images.example.com/b.jpg',
      });
      expect(s.getAttachment(local.id)).toEqual(local);
      expect(s.findAttachmentByUrl('https://cal.example.org/u/a.jpg')).toEqual(local);
      expect(s.findAttachmentByUrl('https://images.example.com/b.jpg')).toEqual(loaded);
      expect(s.findAttachmentByUrl('https://cal.example.org/u/b.jpg')).toEqual(loaded);
      expect(s.findAttachmentByUrl('https://images.example.com/c.jpg')).toBeUndefined();
      expect(s.getAttachmentsMany([local.id, loaded.id, 999])).toEqual(
        new Map([
          [local.id, local],
          [loaded.id, loaded],
        ]),
      );
      expect(s.getAttachment(s.insertEvent(newEvent()).id)).toBeUndefined();
    });

    it('setEventPassword sets and clears the stored password', () => {
      const s = store();
      const event = s.insertEvent(newEvent());
      s.setEventPassword(event.id, 'secret');
      expect(s.getEvent(event.id)!.password).toBe('secret');
      s.setEventPassword(event.id, null);
      expect(s.getEvent(event.id)!.password).toBeNull();
    });
  });
}
