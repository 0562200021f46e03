/**
 * The storage contract of the server. Routes talk only to this interface; the embedded SQLite store
 * implements it, and a PostgreSQL store can implement it later without touching the routes.
 *
 * It is the composition of three areas, each in its own file: content (posts and terms), identity (users,
 * passwords, OAuth clients, keys) and feed history (sequences and tombstones); a caller that needs one
 * area can ask for that one alone. Their record types are re-exported here for callers of the whole.
 */
import type { ContentStore } from './content.ts';
import type { FeedHistoryStore } from './feed-history.ts';
import type { IdentityStore } from './identity.ts';

export type {
  AnyPost,
  AttachmentRecord,
  ContentStore,
  EventQuery,
  EventRecord,
  ImageSizeRecord,
  LinkedKind,
  LinkedQuery,
  LinkedRecord,
  OrganizerRecord,
  Page,
  PostKind,
  ProtectedTextAccess,
  TermQuery,
  TermRecord,
  VenueRecord,
  Visibility,
} from './content.ts';
export type { EventTombstone, FeedHistoryStore } from './feed-history.ts';
export type { AppPasswordRecord, IdentityStore, OAuthClientRecord, UserRecord } from './identity.ts';

/**
 * The connection to the stored data: transactions, change detection, group commit, closing.
 *
 * Asynchronous end to end, so that a store over the network (PostgreSQL) can implement it; the embedded
 * SQLite store answers each call at once (its promises are already settled when returned).
 */
export interface StoreConnection {
  /**
   * Runs `fn` atomically: every call of this store made inside `fn` and the async calls it starts (its
   * async context, AsyncLocalStorage) is part of the transaction, and commits with it or, when `fn`
   * rejects, is undone. A nested call joins the outer transaction as a savepoint: its rejection undoes only
   * its own writes when its caller catches it. Transactions of different callers run one after another,
   * and calls from outside an open transaction wait for it to end, so nobody sees uncommitted writes.
   * `fn` should await nothing but this store: the connection is held until it settles.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A number that moves whenever the stored data may have changed, by this store or by another
   * process on the same data: equal answers mean that any answer read in between is still good
   * (the server's response cache). Cheap enough to ask on every request.
   */
  dataVersion(): Promise<number>;
  /**
   * Change numbers by table (table-changes.ts), for caches that depend on some tables only: the number
   * now (after looking for other processes' commits, which change every table), whether any of `tables`
   * changed after `since`, and `fn` run with the tables it and its async calls read added to `into`.
   * `onceThisTurn`: the caller answers requests read from sockets, which may share one look for other
   * processes' commits per turn of the event loop (they were all on their sockets when it was taken).
   */
  changeNumber(opts?: { onceThisTurn?: boolean }): Promise<number>;
  changedSince(tables: Iterable<string>, since: number): Promise<boolean>;
  collectReads<T>(into: Set<string>, fn: () => Promise<T>): Promise<T>;
  /**
   * Group commit, for a bulk writer in the same process (the local import target): every write until
   * `commitGroup` becomes durable at once, with one commit instead of one per request. A write that fails
   * inside the group still undoes only its own changes.
   */
  beginGroup(): Promise<void>;
  commitGroup(): Promise<void>;
  close(): Promise<void>;
}

export interface Store extends StoreConnection, ContentStore, IdentityStore, FeedHistoryStore {}
