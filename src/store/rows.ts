/**
 * Stored rows ↔ records. Rows are what SQLite holds (booleans as 0/1, names with their `name_key`);
 * records are the plain objects of store.ts, built key by key so no row-only column leaks out.
 */
import type { Role, Status, TermKind } from '../model/index.ts';
import type { Param } from './connection.ts';
import type {
  AppPasswordRecord,
  AttachmentRecord,
  EventRecord,
  EventTombstone,
  OrganizerRecord,
  TermRecord,
  UserRecord,
  VenueRecord,
} from './store.ts';

type Row = Record<string, Param>;

/** The key create-or-find (B.10.2) and term names compare: trimmed, lower-cased. */
export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

const bit = (b: boolean): number => (b ? 1 : 0);

interface PostRow {
  id: number;
  author: number;
  status: string;
  slug: string;
  date_utc: string | null;
  modified_utc: string;
  modified_set: number;
  image_id: number | null;
}

export const POST_COLUMNS = [
  'id',
  'author',
  'status',
  'slug',
  'date_utc',
  'modified_utc',
  'modified_set',
  'image_id',
] as const;

// Events

export const EVENT_COLUMNS = [
  ...POST_COLUMNS,
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
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
  'password',
  'currency_code',
] as const;

/**
 * An event row as an array in `EVENT_COLUMNS` order: list pages read rows as arrays, which node:sqlite
 * builds at about half the cost of objects.
 */
export type EventTuple = [
  id: number,
  author: number,
  status: string,
  slug: string,
  date_utc: string | null,
  modified_utc: string,
  modified_set: number,
  image_id: number | null,
  title: string,
  description: string,
  excerpt: string,
  timezone: string,
  all_day: number,
  start_local: string,
  end_local: string,
  start_utc: string,
  end_utc: string,
  cost: string | null,
  website: string | null,
  show_map: number,
  show_map_link: number,
  hide_from_listings: number,
  sticky: number,
  featured: number,
  venue_id: number | null,
  password: string | null,
  currency_code: string,
];

export interface EventLinks {
  organizer_ids: number[];
  category_ids: number[];
  tag_ids: number[];
}

/**
 * The row of an event in `EVENT_COLUMNS` order, for writes with positional parameters: node:sqlite binds
 * an object of named ones at about twice the cost of the whole insert otherwise (~14 µs of ~32 µs).
 */
export function eventTuple(id: number, r: Omit<EventRecord, 'id'>): EventTuple {
  return [
    id,
    r.author,
    r.status,
    r.slug,
    r.date_utc,
    r.modified_utc,
    bit(r.modified_set),
    r.image_id,
    r.title,
    r.description,
    r.excerpt,
    r.timezone,
    bit(r.all_day),
    r.start_local,
    r.end_local,
    r.start_utc,
    r.end_utc,
    r.cost,
    r.website,
    bit(r.show_map),
    bit(r.show_map_link),
    bit(r.hide_from_listings),
    bit(r.sticky),
    bit(r.featured),
    r.venue_id,
    r.password,
    r.currency_code,
  ];
}

export function eventRecord(t: EventTuple, links: EventLinks): EventRecord {
  const [
    id,
    author,
    status,
    slug,
    date_utc,
    modified_utc,
    modified_set,
    image_id,
    title,
    description,
    excerpt,
    timezone,
    all_day,
    start_local,
    end_local,
    start_utc,
    end_utc,
    cost,
    website,
    show_map,
    show_map_link,
    hide_from_listings,
    sticky,
    featured,
    venue_id,
    password,
    currency_code,
  ] = t;
  return {
    id,
    author,
    status: status as Status,
    slug,
    date_utc,
    modified_utc,
    modified_set: modified_set === 1,
    image_id,
    kind: 'event',
    title,
    description,
    excerpt,
    timezone,
    all_day: all_day === 1,
    start_local,
    end_local,
    start_utc,
    end_utc,
    cost,
    website,
    show_map: show_map === 1,
    show_map_link: show_map_link === 1,
    hide_from_listings: hide_from_listings === 1,
    sticky: sticky === 1,
    featured: featured === 1,
    venue_id,
    organizer_ids: links.organizer_ids,
    category_ids: links.category_ids,
    tag_ids: links.tag_ids,
    password,
    currency_code,
  };
}

// Venues and organizers

export const VENUE_COLUMNS = [
  ...POST_COLUMNS,
  'venue',
  'name_key',
  'description',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'stateprovince',
  'website',
  'show_map',
  'show_map_link',
] as const;

export const ORGANIZER_COLUMNS = [
  ...POST_COLUMNS,
  'organizer',
  'name_key',
  'description',
  'phone',
  'website',
  'email',
] as const;

export interface VenueRow extends PostRow {
  venue: string;
  description: string;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  stateprovince: string;
  website: string;
  show_map: number;
  show_map_link: number;
}

export interface OrganizerRow extends PostRow {
  organizer: string;
  description: string;
  phone: string;
  website: string;
  email: string;
}

function postRow(id: number, r: Omit<VenueRecord | OrganizerRecord, 'id'>): Row {
  return {
    id,
    author: r.author,
    status: r.status,
    slug: r.slug,
    date_utc: r.date_utc,
    modified_utc: r.modified_utc,
    modified_set: bit(r.modified_set),
    image_id: r.image_id,
  };
}

export function venueRow(id: number, r: Omit<VenueRecord, 'id'>): Row {
  return {
    ...postRow(id, r),
    venue: r.venue,
    name_key: nameKey(r.venue),
    description: r.description,
    address: r.address,
    city: r.city,
    country: r.country,
    province: r.province,
    state: r.state,
    zip: r.zip,
    phone: r.phone,
    stateprovince: r.stateprovince,
    website: r.website,
    show_map: bit(r.show_map),
    show_map_link: bit(r.show_map_link),
  };
}

export function organizerRow(id: number, r: Omit<OrganizerRecord, 'id'>): Row {
  return {
    ...postRow(id, r),
    organizer: r.organizer,
    name_key: nameKey(r.organizer),
    description: r.description,
    phone: r.phone,
    website: r.website,
    email: r.email,
  };
}

export function venueRecord(r: VenueRow): VenueRecord {
  return {
    id: r.id,
    author: r.author,
    status: r.status as Status,
    slug: r.slug,
    date_utc: r.date_utc,
    modified_utc: r.modified_utc,
    modified_set: r.modified_set === 1,
    image_id: r.image_id,
    kind: 'venue',
    venue: r.venue,
    description: r.description,
    address: r.address,
    city: r.city,
    country: r.country,
    province: r.province,
    state: r.state,
    zip: r.zip,
    phone: r.phone,
    stateprovince: r.stateprovince,
    website: r.website,
    show_map: r.show_map === 1,
    show_map_link: r.show_map_link === 1,
  };
}

export function organizerRecord(r: OrganizerRow): OrganizerRecord {
  return {
    id: r.id,
    author: r.author,
    status: r.status as Status,
    slug: r.slug,
    date_utc: r.date_utc,
    modified_utc: r.modified_utc,
    modified_set: r.modified_set === 1,
    image_id: r.image_id,
    kind: 'organizer',
    organizer: r.organizer,
    description: r.description,
    phone: r.phone,
    website: r.website,
    email: r.email,
  };
}

// Attachments, terms, users

export const ATTACHMENT =
  'SELECT id, author, url, source_url, mime, width, height, filesize, sizes, date_utc FROM attachments';

export interface AttachmentRow {
  id: number;
  author: number;
  url: string;
  source_url: string | null;
  mime: string;
  width: number;
  height: number;
  filesize: number;
  /** JSON object of ImageSizeRecord by size name. */
  sizes: string;
  date_utc: string;
}

export function attachmentRecord(r: AttachmentRow): AttachmentRecord {
  return {
    kind: 'attachment',
    id: r.id,
    author: r.author,
    url: r.url,
    source_url: r.source_url,
    mime: r.mime,
    width: r.width,
    height: r.height,
    filesize: r.filesize,
    sizes: JSON.parse(r.sizes),
    date_utc: r.date_utc,
  };
}

export interface TermRow {
  id: number;
  kind: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  count: number;
}

export function termRecord(r: TermRow): TermRecord {
  return {
    id: r.id,
    kind: r.kind as TermKind,
    name: r.name,
    slug: r.slug,
    description: r.description,
    parent: r.parent,
    count: r.count,
  };
}

export function userRecord(r: UserRecord): UserRecord {
  return { id: r.id, login: r.login, email: r.email, role: r.role as Role, display_name: r.display_name };
}

export function appPasswordRecord(r: AppPasswordRecord): AppPasswordRecord {
  return {
    id: r.id,
    user_id: r.user_id,
    name: r.name,
    hash: r.hash,
    created_utc: r.created_utc,
    last_used_utc: r.last_used_utc,
  };
}

/** An event_tombstones row with the live SEQUENCE joined: 0/1 for booleans, id lists as JSON. */
export interface TombstoneRow
  extends Omit<EventTombstone, 'all_day' | 'featured' | 'organizer_ids' | 'term_ids'> {
  live_sequence: number;
  all_day: number;
  featured: number;
  organizer_ids: string;
  term_ids: string;
}

export function tombstoneRecord({ live_sequence, ...r }: TombstoneRow): EventTombstone {
  return {
    ...r,
    sequence: Math.max(live_sequence, r.sequence),
    all_day: r.all_day === 1,
    featured: r.featured === 1,
    organizer_ids: JSON.parse(r.organizer_ids) as number[],
    term_ids: JSON.parse(r.term_ids) as number[],
  };
}

/** Tombstones removed at or after `?`, oldest first. */
export const TOMBSTONES_SINCE =
  // A trashed event can still change (its SEQUENCE with it): the live number wins while it exists.
  'SELECT t.*, coalesce(s.sequence, t.sequence) AS live_sequence FROM event_tombstones t ' +
  'LEFT JOIN event_sequences s ON s.event_id = t.id WHERE t.removed_utc >= ? ORDER BY t.removed_utc, t.id';

/** Tables of posts that can be scheduled (`future`, B.1). */
export const SCHEDULED = ['events', 'venues', 'organizers'] as const;

/** Duplicates dropped, first occurrence kept (B.6.2: organizer order kept, duplicates dropped). */
export function normaliseLinks(rec: Omit<EventRecord, 'id'>): EventLinks {
  return {
    organizer_ids: [...new Set(rec.organizer_ids)],
    category_ids: [...new Set(rec.category_ids)],
    tag_ids: [...new Set(rec.tag_ids)],
  };
}

export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
