/**
 * The content area of the store: posts (events, venues, organizers, attachments) and terms (categories,
 * tags), as the routes read and write them.
 *
 * Records are the *stored* shapes: raw text as written (rendering to the wire happens in src/render),
 * UTC instants next to event-local wall times, ids of linked items. All date-times are
 * `YYYY-MM-DD HH:MM:SS` strings; `date_utc: null` is WordPress's `0000-00-00 00:00:00` (a draft never
 * published).
 */
import type { Status, TermKind } from '../model/index.ts';

export type PostKind = 'event' | 'venue' | 'organizer' | 'attachment';

interface PostRecord {
  id: number;
  author: number;
  status: Status;
  /** `""` for drafts and pending items created without a slug (A.0). */
  slug: string;
  /** Publication date in UTC; null until published for drafts created without `date`. */
  date_utc: string | null;
  modified_utc: string;
  /** Set the first time the item is updated; drafts show `0000-…` until then (A.0). */
  modified_set: boolean;
  image_id: number | null;
}

export interface EventRecord extends PostRecord {
  kind: 'event';
  title: string;
  description: string;
  excerpt: string;
  /** Canonical zone: IANA name, `UTC`, or `UTC±H[:MM]`. */
  timezone: string;
  all_day: boolean;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  /** The cost as written (string, number or array), JSON-serialised; `null` = no cost. */
  cost: string | null;
  /** ISO 4217 code of the cost's currency (`EUR`), `''` for none (TEC's `_EventCurrencyCode`). */
  currency_code: string;
  /** `null` = never set: the wire then shows the event URL (A.1). */
  website: string | null;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  venue_id: number | null;
  organizer_ids: number[];
  category_ids: number[];
  tag_ids: number[];
  /** Set in storage only (B.7): this API cannot set passwords. */
  password: string | null;
}

export interface VenueRecord extends PostRecord {
  kind: 'venue';
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
  show_map: boolean;
  show_map_link: boolean;
}

export interface OrganizerRecord extends PostRecord {
  kind: 'organizer';
  organizer: string;
  description: string;
  phone: string;
  website: string;
  email: string;
}

export interface AttachmentRecord {
  kind: 'attachment';
  id: number;
  author: number;
  /** Public URL of the stored file. */
  url: string;
  /** The URL it was sideloaded from, if any (B.6.2: reused on a second write). */
  source_url: string | null;
  mime: string;
  width: number;
  height: number;
  filesize: number;
  /** Intermediate sizes by name (`thumbnail`, `medium`, …), files beside the original (A.4). */
  sizes: Record<string, ImageSizeRecord>;
  date_utc: string;
}

export interface ImageSizeRecord {
  width: number;
  height: number;
  'mime-type': string;
  filesize: number;
  /** File name in the original's folder. */
  file: string;
}

export type AnyPost = EventRecord | VenueRecord | OrganizerRecord | AttachmentRecord;
export type LinkedKind = 'venue' | 'organizer';
export type LinkedRecord = VenueRecord | OrganizerRecord;

export interface TermRecord {
  id: number;
  kind: TermKind;
  name: string;
  slug: string;
  description: string;
  /** 0 for tags and top-level categories. */
  parent: number;
  /** Published events linked to the term. */
  count: number;
}

/** Who may see which unpublished items: `statuses` of anyone's, `ownStatuses` of `ownerId`'s. */
export interface Visibility {
  statuses: Status[];
  ownStatuses: Status[];
  ownerId: number | null;
}

/** An events list query, normalised by the route: instants in UTC, slugs resolved to ids. */
export interface EventQuery {
  offset: number;
  limit: number;
  /** Event start ≥ (B.5 `start_date`). */
  startFrom?: string;
  /** Event end ≤ (B.5 `end_date`). */
  endTo?: string;
  startsBefore?: string;
  startsAfter?: string;
  endsBefore?: string;
  endsAfter?: string;
  /** Every word must occur, case-insensitively, in title, description or excerpt. */
  searchWords?: string[];
  /** OR within a list; descendants of categories already included. */
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  /** Exactly these ids: date bounds are ignored and hidden events are listed. */
  include?: number[];
  /** Events hidden from listings (`hide_from_listings`) are listed too: a CSV export is data, not a listing. */
  withHidden?: boolean;
  /** `post_parent` was given: events have no parents, so nothing matches. */
  matchNothing?: boolean;
  visibility: Visibility;
  /**
   * Whose password-protected events a search matches by their text (A.10): `'all'` (editors), an
   * owner's (authors; contributors their unpublished ones), or none (absent). Other protected events
   * match by their title only, which every list shows: their text must not leak through search.
   */
  protectedText?: ProtectedTextAccess;
}

export type ProtectedTextAccess = 'all' | { ownerId: number; unpublishedOnly: boolean };

export interface LinkedQuery {
  offset: number;
  limit: number;
  searchWords?: string[];
  eventId?: number;
  /** true: linked to ≥ 1 published event; false: to none. */
  hasEvents?: boolean;
  /** Linked to ≥ 1 event visible under `upcomingVisibility` that ends after `now`. */
  upcomingAfter?: string;
  upcomingVisibility?: Visibility;
  visibility: Visibility;
}

export interface TermQuery {
  kind: TermKind;
  offset: number;
  limit: number;
  search?: string;
  include?: number[];
  exclude?: number[];
  order: 'asc' | 'desc';
  orderby: 'name' | 'id' | 'slug' | 'count' | 'include';
  hideEmpty: boolean;
  parent?: number;
  eventId?: number;
  slug?: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}

type NewPost<R> = Omit<R, 'id'>;

export interface ContentStore {
  // Posts: events, venues, organizers and attachments share one id sequence (A.0).
  getPost(id: number): Promise<AnyPost | undefined>;
  getEvent(id: number): Promise<EventRecord | undefined>;
  getLinked(kind: LinkedKind, id: number): Promise<LinkedRecord | undefined>;
  getAttachment(id: number): Promise<AttachmentRecord | undefined>;
  /** Current slug of that kind, any status (B.8). */
  findBySlug(kind: 'event' | LinkedKind, slug: string): Promise<EventRecord | LinkedRecord | undefined>;
  slugTaken(kind: 'event' | LinkedKind, slug: string, exceptId?: number): Promise<boolean>;

  insertEvent(rec: NewPost<EventRecord>): Promise<EventRecord>;
  updateEvent(rec: EventRecord): Promise<EventRecord>;
  insertLinked<R extends LinkedRecord>(rec: NewPost<R>): Promise<R>;
  updateLinked<R extends LinkedRecord>(rec: R): Promise<R>;
  insertAttachment(rec: NewPost<AttachmentRecord>): Promise<AttachmentRecord>;
  findAttachmentByUrl(url: string): Promise<AttachmentRecord | undefined>;
  /** Permanent delete; trashing a venue/organizer is an update, unlinking is `unlinkFromEvents`. */
  deletePost(id: number): Promise<void>;
  /** B.10.1: trashing or deleting a venue/organizer unlinks it from every event. */
  unlinkFromEvents(kind: LinkedKind, id: number): Promise<void>;
  /**
   * B.10.2 create-or-find: lowest non-trashed id with that name (case-insensitive, trimmed), among
   * the items `visibility` shows when given (so a caller never finds what it may not read).
   */
  findLinkedByName(
    kind: LinkedKind,
    name: string,
    description?: string,
    visibility?: Visibility,
  ): Promise<LinkedRecord | undefined>;
  /** Fixtures only (B.7). */
  setEventPassword(id: number, password: string | null): Promise<void>;
  /**
   * Publishes `future` events, venues and organizers whose date has come (B.1: they auto-publish
   * then); returns how many. Cheap when none is due: the server calls it on every request.
   */
  publishDue(nowUtc: string): Promise<number>;

  listEvents(q: EventQuery): Promise<Page<EventRecord>>;
  /**
   * The ids of every event `listEvents(q)` lists, in its order (`offset` and `limit` are not read): a
   * reader that loads a long list a page at a time by these ids sees each event once, whatever is
   * written meanwhile (pages by offset would shift under an insert).
   */
  listEventIds(q: EventQuery): Promise<number[]>;
  listLinked(kind: LinkedKind, q: LinkedQuery): Promise<Page<LinkedRecord>>;
  /** Batch loads for rendering a page without N+1 queries. */
  getLinkedMany(ids: number[]): Promise<Map<number, LinkedRecord>>;
  /**
   * The events of these ids that exist, by id, whatever their status: the caller says who may see them.
   * `partOf`: they are a page of a read of that many events (a feed read a page at a time); a store that
   * keeps the records it reads keeps none of a read larger than it holds, whose pages would only push
   * each other out.
   */
  getEventsMany(ids: number[], partOf?: number): Promise<Map<number, EventRecord>>;
  getAttachmentsMany(ids: number[]): Promise<Map<number, AttachmentRecord>>;
  getTermsMany(ids: number[]): Promise<Map<number, TermRecord>>;

  // Terms: categories and tags share one id sequence.
  getTerm(kind: TermKind, id: number): Promise<TermRecord | undefined>;
  findTermBySlug(kind: TermKind, slug: string): Promise<TermRecord | undefined>;
  /** Case-insensitive name match under `parent` (0 = top level); `undefined` = any parent. */
  findTermByName(kind: TermKind, name: string, parent?: number): Promise<TermRecord | undefined>;
  /**
   * The term each name refers to, in order: the one whose slug it is, else the first whose name it is
   * (`findTermBySlug(kind, n) ?? findTermByName(kind, n)` for all names at once: an event's terms in
   * one round trip on a server's database).
   */
  findTermsByRef(kind: TermKind, names: readonly string[]): Promise<(TermRecord | undefined)[]>;
  termSlugTaken(kind: TermKind, slug: string, exceptId?: number): Promise<boolean>;
  insertTerm(rec: Omit<TermRecord, 'id' | 'count'>): Promise<TermRecord>;
  updateTerm(rec: Omit<TermRecord, 'count'>): Promise<TermRecord>;
  /** Deletes the term, moves its children to its parent, unlinks it from events. */
  deleteTerm(kind: TermKind, id: number): Promise<void>;
  /** The category and all its descendants. */
  categoryDescendants(id: number): Promise<number[]>;
  listTerms(q: TermQuery): Promise<Page<TermRecord>>;
}
