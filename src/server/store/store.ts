/**
 * The storage contract of the server. Routes talk only to this interface; the embedded
 * SQLite store implements it, and a PostgreSQL store can implement it later without
 * touching the routes.
 *
 * Records are the *stored* shapes: raw text as written (rendering to the wire happens in
 * src/server/render), UTC instants next to event-local wall times, ids of linked items.
 * All date-times are `YYYY-MM-DD HH:MM:SS` strings; `date_utc: null` is WordPress's
 * `0000-00-00 00:00:00` (a draft never published).
 */
import type { Role, Status, TermKind } from '../../model/index.ts';

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

export interface UserRecord {
  id: number;
  login: string;
  email: string;
  role: Role;
  display_name: string;
}

export interface AppPasswordRecord {
  id: number;
  user_id: number;
  name: string;
  /** argon2id hash; the password itself is shown once and never stored. */
  hash: string;
  created_utc: string;
  last_used_utc: string | null;
}

/** An OAuth client (B.2 client credentials), bound to one user. */
export interface OAuthClientRecord {
  id: number;
  /** Public, random; what the client sends as its `client_id`. */
  client_id: string;
  /** argon2id hash; the secret itself is shown once and never stored. */
  secret_hash: string;
  user_id: number;
  name: string;
  created_utc: string;
  revoked: boolean;
}

/**
 * What a feed still knows of an event that stopped being published or was deleted (migration 5): enough
 * for a STATUS:CANCELLED entry and for the feed's filters. `removed_utc` is when it left.
 */
export interface EventTombstone
  extends Pick<
    EventRecord,
    | 'id'
    | 'title'
    | 'timezone'
    | 'all_day'
    | 'start_local'
    | 'end_local'
    | 'start_utc'
    | 'end_utc'
    | 'date_utc'
    | 'venue_id'
    | 'featured'
    | 'organizer_ids'
  > {
  removed_utc: string;
  sequence: number;
  /** Categories and tags (one id sequence). */
  term_ids: number[];
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

export interface Store {
  /** Runs `fn` atomically; nested calls join the outer transaction. */
  transaction<T>(fn: () => T): T;
  /**
   * A number that moves whenever the stored data may have changed, by this store or by another
   * process on the same data: equal answers mean that any answer read in between is still good
   * (the server's response cache). Cheap enough to ask on every request.
   */
  dataVersion(): number;
  /**
   * Change numbers by table (table-changes.ts), for caches that depend on some tables only: the number
   * now (after looking for other processes' commits, which change every table), whether any of `tables`
   * changed after `since`, and `fn` run with the tables it and its async calls read added to `into`.
   */
  changeNumber(): number;
  changedSince(tables: Iterable<string>, since: number): boolean;
  collectReads<T>(into: Set<string>, fn: () => T): T;
  /**
   * Group commit, for a bulk writer in the same process (the local import target): every write until
   * `commitGroup` becomes durable at once, with one commit instead of one per request. A write that fails
   * inside the group still undoes only its own changes.
   */
  beginGroup(): void;
  commitGroup(): void;
  close(): void;

  // Posts: events, venues, organizers and attachments share one id sequence (A.0).
  getPost(id: number): AnyPost | undefined;
  getEvent(id: number): EventRecord | undefined;
  getLinked(kind: LinkedKind, id: number): LinkedRecord | undefined;
  getAttachment(id: number): AttachmentRecord | undefined;
  /** Current slug of that kind, any status (B.8). */
  findBySlug(kind: 'event' | LinkedKind, slug: string): EventRecord | LinkedRecord | undefined;
  slugTaken(kind: 'event' | LinkedKind, slug: string, exceptId?: number): boolean;

  insertEvent(rec: NewPost<EventRecord>): EventRecord;
  updateEvent(rec: EventRecord): EventRecord;
  insertLinked<R extends LinkedRecord>(rec: NewPost<R>): R;
  updateLinked<R extends LinkedRecord>(rec: R): R;
  insertAttachment(rec: NewPost<AttachmentRecord>): AttachmentRecord;
  findAttachmentByUrl(url: string): AttachmentRecord | undefined;
  /** Permanent delete; trashing a venue/organizer is an update, unlinking is `unlinkFromEvents`. */
  deletePost(id: number): void;
  /** B.10.1: trashing or deleting a venue/organizer unlinks it from every event. */
  unlinkFromEvents(kind: LinkedKind, id: number): void;
  /**
   * B.10.2 create-or-find: lowest non-trashed id with that name (case-insensitive, trimmed), among
   * the items `visibility` shows when given (so a caller never finds what it may not read).
   */
  findLinkedByName(
    kind: LinkedKind,
    name: string,
    description?: string,
    visibility?: Visibility,
  ): LinkedRecord | undefined;
  /** Fixtures only (B.7). */
  setEventPassword(id: number, password: string | null): void;
  /**
   * Publishes `future` events, venues and organizers whose date has come (B.1: they auto-publish
   * then); returns how many. Cheap when none is due: the server calls it on every request.
   */
  publishDue(nowUtc: string): number;

  listEvents(q: EventQuery): Page<EventRecord>;
  listLinked(kind: LinkedKind, q: LinkedQuery): Page<LinkedRecord>;
  /** SEQUENCE of each event (RFC 5545 §3.8.7.4): how often its time or status changed; 0 if never. */
  eventSequences(ids: readonly number[]): Map<number, number>;
  /** Tombstones of events removed at or after `sinceUtc` and not published again, oldest first. */
  eventTombstones(sinceUtc: string): EventTombstone[];
  /** Forgets tombstones removed before `beforeUtc`; returns how many. */
  pruneEventTombstones(beforeUtc: string): number;
  /** Batch loads for rendering a page without N+1 queries. */
  getLinkedMany(ids: number[]): Map<number, LinkedRecord>;
  getAttachmentsMany(ids: number[]): Map<number, AttachmentRecord>;
  getTermsMany(ids: number[]): Map<number, TermRecord>;

  // Terms: categories and tags share one id sequence.
  getTerm(kind: TermKind, id: number): TermRecord | undefined;
  findTermBySlug(kind: TermKind, slug: string): TermRecord | undefined;
  /** Case-insensitive name match under `parent` (0 = top level); `undefined` = any parent. */
  findTermByName(kind: TermKind, name: string, parent?: number): TermRecord | undefined;
  termSlugTaken(kind: TermKind, slug: string, exceptId?: number): boolean;
  insertTerm(rec: Omit<TermRecord, 'id' | 'count'>): TermRecord;
  updateTerm(rec: Omit<TermRecord, 'count'>): TermRecord;
  /** Deletes the term, moves its children to its parent, unlinks it from events. */
  deleteTerm(kind: TermKind, id: number): void;
  /** The category and all its descendants. */
  categoryDescendants(id: number): number[];
  listTerms(q: TermQuery): Page<TermRecord>;

  // Users and application passwords (B.2).
  insertUser(rec: Omit<UserRecord, 'id'>): UserRecord;
  getUser(id: number): UserRecord | undefined;
  /** By login or e-mail, case-insensitive. */
  findUser(loginOrEmail: string): UserRecord | undefined;
  listUsers(): UserRecord[];
  insertAppPassword(rec: Omit<AppPasswordRecord, 'id' | 'last_used_utc'>): AppPasswordRecord;
  appPasswords(userId: number): AppPasswordRecord[];
  /** The user an application password belongs to, while both exist (a revoked password has none). */
  appPasswordUser(id: number): UserRecord | undefined;
  deleteAppPassword(id: number): void;
  touchAppPassword(id: number, at: string): void;

  // OAuth clients and the token signing key (B.2).
  insertOAuthClient(rec: Omit<OAuthClientRecord, 'id' | 'revoked'>): OAuthClientRecord;
  findOAuthClient(clientId: string): OAuthClientRecord | undefined;
  /** Every client, revoked ones included, by id. */
  listOAuthClients(): OAuthClientRecord[];
  /** Marks the client revoked; false if there is no such client. Revoked clients stay listed. */
  revokeOAuthClient(clientId: string): boolean;
  /** The secret key named `name`, created from `generate` on first use and the same ever after. */
  signingKey(name: string, generate: () => Uint8Array): Uint8Array;
}
