/** Records and queries for the store contract, on fixed 2027 dates (never the current time). */
import { afterEach, beforeEach } from 'vitest';
import type {
  EventQuery,
  EventRecord,
  LinkedQuery,
  OrganizerRecord,
  Store,
  VenueRecord,
  Visibility,
} from '../../../src/store/store.ts';
import { eventRecord } from '../../server/fixtures.ts';

/** A new, empty store: at once (SQLite) or once created and connected (PostgreSQL). */
export type OpenStore = () => Store | Promise<Store>;

/** A fresh store for each test of the enclosing `describe`, closed after it. */
export function useStore(open: OpenStore): () => Store {
  let store: Store | undefined;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  return () => {
    if (!store) throw new Error('useStore: the store exists only inside a test');
    return store;
  };
}

export const PUBLIC: Visibility = { statuses: ['publish'], ownStatuses: [], ownerId: null };
export const EDITOR: Visibility = {
  statuses: ['publish', 'future', 'draft', 'pending', 'private'],
  ownStatuses: [],
  ownerId: null,
};

/** `2027-03-{day} {hour}:00:00`. */
export function march(day: number, hour = 10): string {
  return `2027-03-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`;
}

export function newEvent(over: Partial<Omit<EventRecord, 'id' | 'kind'>> = {}): Omit<EventRecord, 'id'> {
  return eventRecord({
    date_utc: '2027-01-01 09:00:00',
    modified_utc: '2027-01-01 09:00:00',
    title: 'An event',
    start_local: march(10),
    end_local: march(10, 12),
    start_utc: march(10),
    end_utc: march(10, 12),
    ...over,
  });
}

/** An event starting on March `day` at `hour` UTC, lasting two hours. */
export function eventOn(day: number, hour = 10, over: Partial<Omit<EventRecord, 'id' | 'kind'>> = {}) {
  return newEvent({
    start_local: march(day, hour),
    end_local: march(day, hour + 2),
    start_utc: march(day, hour),
    end_utc: march(day, hour + 2),
    ...over,
  });
}

export function newVenue(over: Partial<Omit<VenueRecord, 'id' | 'kind'>> = {}): Omit<VenueRecord, 'id'> {
  return {
    kind: 'venue',
    author: 1,
    status: 'publish',
    slug: '',
    date_utc: '2027-01-01 09:00:00',
    modified_utc: '2027-01-01 09:00:00',
    modified_set: false,
    image_id: null,
    venue: 'A venue',
    description: '',
    address: '',
    city: '',
    country: '',
    province: '',
    state: '',
    zip: '',
    phone: '',
    stateprovince: '',
    website: '',
    show_map: true,
    show_map_link: true,
    ...over,
  };
}

export function newOrganizer(
  over: Partial<Omit<OrganizerRecord, 'id' | 'kind'>> = {},
): Omit<OrganizerRecord, 'id'> {
  return {
    kind: 'organizer',
    author: 1,
    status: 'publish',
    slug: '',
    date_utc: '2027-01-01 09:00:00',
    modified_utc: '2027-01-01 09:00:00',
    modified_set: false,
    image_id: null,
    organizer: 'An organizer',
    description: '',
    phone: '',
    website: '',
    email: '',
    ...over,
  };
}

export function eventQuery(over: Partial<EventQuery> = {}): EventQuery {
  return { offset: 0, limit: 50, visibility: PUBLIC, ...over };
}

export function linkedQuery(over: Partial<LinkedQuery> = {}): LinkedQuery {
  return { offset: 0, limit: 50, visibility: PUBLIC, ...over };
}

export function ids(items: readonly { id: number }[]): number[] {
  return items.map((item) => item.id);
}

/** `items.map(fn)` one call after another: creation order is id order, on any store. */
export async function mapInOrder<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await fn(item));
  return out;
}
