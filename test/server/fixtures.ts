/**
 * Test data for the server tests: records written straight into a store (so that a test depends on
 * what it is about, not on event writes), and the request bodies of the A.1 example's venue and
 * organizer.
 */
import type { TermKind } from '../../src/model/index.ts';
import type { AttachmentRecord, EventRecord, Store, TermRecord } from '../../src/store/store.ts';

/**
 * A new event record: published by user 1 on 2026-11-01, 2027-03-01 19:00–22:00 UTC, every other
 * field empty or off; `over` sets the rest.
 */
export function eventRecord(over: Partial<Omit<EventRecord, 'id' | 'kind'>> = {}): Omit<EventRecord, 'id'> {
  return {
    kind: 'event',
    author: 1,
    status: 'publish',
    slug: '',
    date_utc: '2026-11-01 10:00:00',
    modified_utc: '2026-11-01 10:00:00',
    modified_set: false,
    image_id: null,
    title: '',
    description: '',
    excerpt: '',
    timezone: 'UTC',
    all_day: false,
    start_local: '2027-03-01 19:00:00',
    end_local: '2027-03-01 22:00:00',
    start_utc: '2027-03-01 19:00:00',
    end_utc: '2027-03-01 22:00:00',
    cost: null,
    currency_code: '',
    website: null,
    show_map: false,
    show_map_link: false,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    venue_id: null,
    organizer_ids: [],
    category_ids: [],
    tag_ids: [],
    password: null,
    ...over,
  };
}

let seq = 0;
/** An `eventRecord` straight into the store, with its own slug and title (`seeded-N`, `Seeded N`). */
export async function seedEvent(store: Store, over: Partial<EventRecord> = {}): Promise<EventRecord> {
  seq++;
  return await store.insertEvent(eventRecord({ slug: `seeded-${seq}`, title: `Seeded ${seq}`, ...over }));
}

/** A new top-level term with an empty description; the slug defaults to the lower-cased name. */
export function termRecord(
  kind: TermKind,
  name: string,
  slug = name.toLowerCase(),
  parent = 0,
): Omit<TermRecord, 'id' | 'count'> {
  return { kind, name, slug, description: '', parent };
}

/** An 800×600 PNG attachment (`poster.png`, 2935 bytes) straight into the store. */
export async function seedAttachment(
  store: Store,
  over: Partial<AttachmentRecord> = {},
): Promise<AttachmentRecord> {
  return await store.insertAttachment({
    kind: 'attachment',
    author: 1,
    url: 'https://cal.example.org/uploads/2026/11/poster.png',
    source_url: null,
    mime: 'image/png',
    width: 800,
    height: 600,
    filesize: 2935,
    sizes: {},
    date_utc: '2026-11-01 10:00:00',
    ...over,
  });
}

/** A.1's venue as a `POST /venues` body: a US address, so `stateprovince` comes from `state`. */
export const US_VENUE = {
  venue: 'Main Hall',
  description: 'The main hall',
  address: '1 Main St',
  city: 'Springfield',
  country: 'United States',
  state: 'IL',
  zip: '62701',
  phone: '+1 555 0100',
  website: 'https://example.com/hall',
};

/** A.1's organizer as a `POST /organizers` body. */
export const JANE = {
  organizer: 'Jane Org',
  description: 'Organizer bio',
  phone: '+1 555 0199',
  website: 'https://example.com/jane',
  email: 'jane@example.com',
};
