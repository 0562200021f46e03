/**
 * The contract every write target meets (STYLE.md: vdirsyncer storages): our own server in-process
 * (`local`), our server over HTTP, or a real The Events Calendar site. What differs between them is
 * declared as data in `capabilities`, never as `if (isTec)` in the pipeline.
 */

import type { Kind } from '../model/kind.ts';

/** An item as the target holds it. `body` is the API's JSON representation (contract part A). */
export interface Remote {
  id: number;
  slug: string;
  status?: string;
  /** `modified_utc` for events, venues and organizers; absent for terms. */
  modified?: string;
  body: Record<string, unknown>;
}

export interface TargetCapabilities {
  /** Updates replace the whole item (TEC 6.2.6, contract C.4): the pipeline must send every field. */
  updatesReplace: boolean;
  /** Largest `per_page` the target honours (50 everywhere, C.13). */
  maxPerPage: number;
  /** `DELETE …?force=true` removes permanently (ours); TEC 6.2.6 ignores it and trashes (C.16). */
  permanentDelete: boolean;
  /**
   * The API's validators refuse `""` for some optional fields (TEC 6.2.6, contract C.21): the writer sends
   * those the way the site accepts and that means the same (empty-strings.ts).
   */
  refusesEmptyStrings: boolean;
  /**
   * Write fields the API has no parameter for, by kind: left out of every write body rather than sent to
   * be ignored (TEC 6.2.6's event routes take no `currency_code`; its CSV importer is what sets one).
   */
  unwritableFields?: Partial<Record<Kind, readonly string[]>>;
  /**
   * Where the API tells who the credentials belong to and what they may do (WordPress's
   * `/wp/v2/users/me`, C.2): checked before a run reads or writes anything, because a wrong password makes
   * WordPress answer as to an anonymous reader, and the first symptom would be a puzzling 400.
   */
  whoAmI?: string;
}

/** How an item leaves the target, by deletion policy (spec/pipeline.md, Policies). */
export type RemovalMode = 'draft' | 'trash' | 'delete';

export interface Target {
  /** For messages and the report: `local data/calendar.db`, `https://site/wp-json (tribe/events/v1)`. */
  readonly label: string;
  /**
   * Which store the target is (the local target: its database file's random id). The sync state's ids
   * are ids in one store; a state recorded for another instance is forgotten (pipeline/bind-state.ts).
   * Absent for a remote site, which has no such id.
   */
  readonly instance?: string;
  readonly capabilities: TargetCapabilities;
  /**
   * Creates an item; `body` is a complete write body (contract B.6.2, B.10.1, B.11) with ids for
   * references. Venues, organizers and terms are create-or-find on the server, so repeating one is safe
   * (a `term_exists` 400 resolves to the existing term). An event create whose answer was lost (timeout,
   * reset, 5xx after sending) is never resent blindly: the writer looks it up by `body.slug` first.
   */
  create(kind: Kind, body: Record<string, unknown>): Promise<Remote>;
  /** Updates item `id` with a complete body (always every field: C.4). */
  update(kind: Kind, id: number, body: Record<string, unknown>): Promise<Remote>;
  /** Drafts, trashes or deletes item `id`; an item already gone (404/400 C.15, 410) is not an error. */
  remove(kind: Kind, id: number, mode: RemovalMode): Promise<void>;
  /** One item by id, any status; `null` when it does not exist (404, or TEC's 400 for unknown ids, C.15). */
  get(kind: Kind, id: number): Promise<Remote | null>;
  /** One item by slug (events, venues, organizers: `/by-slug/`; terms: `?slug=`); `null` when none. */
  findBySlug(kind: Kind, slug: string): Promise<Remote | null>;
  /** Every item of a kind, all non-trash statuses, paged at `maxPerPage`, events in an explicit wide window (C.12). */
  list(kind: Kind): AsyncIterable<Remote>;
  /**
   * Fails with a clear error when the credentials are not accepted (401 `not_authenticated`) or their user
   * may not write events (403 `insufficient_role`); resolves at once where the API has no `whoAmI`.
   */
  checkAccess(): Promise<void>;
  /** Requests sent so far, by method (for the report and the benchmark: writes per entity). */
  readonly requests: Readonly<Record<'GET' | 'POST' | 'PUT' | 'DELETE', number>>;
  close(): Promise<void>;
}
