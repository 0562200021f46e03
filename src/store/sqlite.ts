/**
 * The embedded store: `openSqliteStore(path)` opens (creating and migrating) a SQLite file, or a
 * private in-memory database for `':memory:'`, and returns a `Store`.
 *
 * One connection, synchronous underneath (`node:sqlite`'s DatabaseSync): a query is microseconds, so the
 * event loop is never held long, and one writer is what SQLite has anyway. The `Store` it implements is
 * asynchronous: each call does its work at once and returns a settled promise (`#call`), and async
 * transactions hold the connection one at a time (transactions.ts). Pragmas: WAL (readers of other
 * processes, such as a backup, do not block writes), synchronous=NORMAL (durable up to the last
 * checkpoint after a power cut, never corrupt; the WAL default for servers), foreign keys on, a busy
 * timeout for other processes holding the lock, and a 64 MiB page cache with reads through mmap (10,000
 * events with their search index take ~20 MB; the 2 MB default cache made creates ~10% slower). Temporary
 * files in memory: every write that fires a trigger inside a transaction keeps a statement journal, and
 * as a file that made each `event_terms` insert 3–4× slower (~20–80 µs against ~7 µs); they hold undo
 * data of one statement or savepoint, never committed data, so durability is unchanged. WAL
 * checkpoints run mostly on a worker thread (checkpointer.ts), not inside the COMMIT that fills the WAL.
 *
 * The per-kind work lives in sqlite-events.ts, sqlite-linked.ts, sqlite-terms.ts and sqlite-users.ts;
 * this file draws post ids and routes.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import type { TermKind } from '../model/index.ts';
import { WalCheckpointer } from './checkpointer.ts';
import { Connection } from './connection.ts';
import { describeFault, StoreError, storageFault } from './errors.ts';
import { migrate } from './migrations.ts';
import {
  ATTACHMENT,
  type AttachmentRow,
  attachmentRecord,
  SCHEDULED,
  TOMBSTONES_SINCE,
  type TombstoneRow,
  tombstoneRecord,
} from './rows.ts';
import { SqliteEvents } from './sqlite-events.ts';
import { SqliteLinked } from './sqlite-linked.ts';
import { SqliteOAuth } from './sqlite-oauth.ts';
import { SqliteTerms } from './sqlite-terms.ts';
import { SqliteUsers } from './sqlite-users.ts';
import type {
  AnyPost,
  AppPasswordRecord,
  AttachmentRecord,
  EventQuery,
  EventRecord,
  EventTombstone,
  LinkedKind,
  LinkedQuery,
  LinkedRecord,
  OAuthClientRecord,
  Page,
  PostKind,
  Store,
  TermQuery,
  TermRecord,
  UserRecord,
  Visibility,
} from './store.ts';
import { Transactions } from './transactions.ts';

/** How long a write waits for another process's lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/** Page cache of the connection, in KiB (SQLite's default is 2,000). */
const CACHE_KIB = 65_536;
/** Reads of the database file through mmap up to this size (0 turns it off). */
const MMAP_BYTES = 256 * 1024 * 1024;

/** How late a post scheduled by another process may be seen by publishDue (ms). */
const SCHEDULED_CHECK_MS = 100;

export interface OpenOptions {
  /**
   * When the file cannot be written (a read-only mount or directory), open it for reading instead of
   * failing: the server then answers reads, and writes with 503 (`serve`). Default false: a writer
   * (the importer) is told at once that it cannot write.
   */
  readOnlyFallback?: boolean;
  /** Open for reading only, beside a writer (a server's helper thread): nothing is created or migrated. */
  readOnly?: boolean;
  /**
   * Memory for pages: `cacheKiB` of page cache (default 65,536) and reads through mmap up to `mmapBytes`
   * (default 256 MiB; 0 reads through system calls). Both count in the process's RSS as they fill, so a
   * server that reads gains from them and an import, which writes each page about once, does not (the
   * local target's, src/embedded/local-target.ts). A read-only connection reads without mmap and takes
   * `cacheKiB` only.
   */
  pages?: { cacheKiB: number; mmapBytes: number };
  /**
   * Whether this connection indexes the events queued for search (search-index.ts) in the background.
   * Default true. False (the local import target): writes still queue their events, and searches through
   * this connection still find them (queued events are matched with LIKE), but the queue is left to the
   * server that serves the file, which indexes it on its next search or event write.
   */
  indexSearch?: boolean;
  /**
   * WAL checkpoints inside the commit that takes the WAL past this many pages, as SQLite does by default
   * (1,000), instead of on a worker thread (checkpointer.ts), which spares the event loop their syncs but
   * costs the process ~19 MB of memory (the local import target: issue 17).
   */
  checkpointEveryPages?: number;
}

/**
 * Opens, creating and migrating, the store at `path`. A file that cannot be used (disk full, read-only,
 * not openable) is a `StoreError` `store-unusable` naming the path, never SQLite's bare message.
 */
export function openSqliteStore(path: string, options: OpenOptions = {}): Store {
  return SqliteStore.open(path, options);
}

export class SqliteStore implements Store {
  readonly path: string;
  /** Opened for reading only (`readOnlyFallback`): every write fails with SQLITE_READONLY. */
  readonly readOnly: boolean;
  readonly #db: Connection;
  readonly #events: SqliteEvents;
  readonly #linked: SqliteLinked;
  readonly #terms: SqliteTerms;
  readonly #users: SqliteUsers;
  readonly #oauth: SqliteOAuth;
  readonly #checkpointer: WalCheckpointer | undefined;
  readonly #transactions: Transactions;

  static open(path: string, options: OpenOptions = {}): SqliteStore {
    try {
      if (options.readOnly) return SqliteStore.#openReadOnly(path, true, options.pages?.cacheKiB);
      return SqliteStore.#open(path, options);
    } catch (error) {
      const fault = storageFault(error);
      if (!fault) throw error;
      if (options.readOnlyFallback && path !== ':memory:' && !writable(path) && existsSync(path)) {
        try {
          return SqliteStore.#openReadOnly(path, false, options.pages?.cacheKiB);
        } catch (readError) {
          if (!storageFault(readError)) throw readError;
        }
      }
      throw new StoreError('store-unusable', describeFault(fault, path, error), { path, cause: error });
    }
  }

  static #open(path: string, options: OpenOptions): SqliteStore {
    const pages = options.pages ?? { cacheKiB: CACHE_KIB, mmapBytes: MMAP_BYTES };
    const memory = path === ':memory:';
    if (!memory) mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    let wal = false;
    try {
      if (!memory) {
        const mode = db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string };
        wal = mode.journal_mode === 'wal';
      }
      db.exec(
        `PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; ` +
          `PRAGMA cache_size = -${pages.cacheKiB}; PRAGMA mmap_size = ${pages.mmapBytes}; PRAGMA analysis_limit = 400; ` +
          'PRAGMA temp_store = MEMORY',
      );
      migrate(db, undefined, path);
      // Lets the planner gather statistics it lacks, cheaply (SQLite's advice for long-lived connections).
      db.exec('PRAGMA optimize = 0x10002');
      if (options.checkpointEveryPages)
        db.exec(`PRAGMA wal_autocheckpoint = ${options.checkpointEveryPages}`);
    } catch (error) {
      db.close();
      throw error;
    }
    const checkpointThread = wal && !options.checkpointEveryPages;
    return new SqliteStore(new Connection(db), path, {
      checkpointThread,
      readOnly: false,
      indexSearch: options.indexSearch ?? true,
    });
  }

  /**
   * A file on a read-only mount. A WAL database needs its `-shm` file to be read, and SQLite cannot
   * create one there: a cleanly closed file (no `-wal` left) is opened `immutable` (nothing can change it
   * anyway), one with a `-wal` left read-only as it is, so the writes in that WAL are not missed.
   */
  static #openReadOnly(path: string, live: boolean, cacheKiB = CACHE_KIB): SqliteStore {
    // `live`: another connection writes it now, so it is never `immutable`.
    const walLeft = live || (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0);
    const url = pathToFileURL(path);
    if (!walLeft) url.search = '?immutable=1';
    const db = new DatabaseSync(walLeft ? path : url, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
    try {
      db.exec(`PRAGMA foreign_keys = ON; PRAGMA cache_size = -${cacheKiB}; PRAGMA temp_store = MEMORY`);
      // Only checks the version: a file that needs migrating cannot be migrated here, and says so.
      migrate(db, undefined, path);
    } catch (error) {
      db.close();
      throw error;
    }
    // No background indexing: every attempt would fail with SQLITE_READONLY and be retried every 2 s.
    // Searches still find the queued events (LIKE), as on any connection.
    return new SqliteStore(new Connection(db), path, {
      checkpointThread: false,
      readOnly: true,
      indexSearch: false,
    });
  }

  private constructor(
    db: Connection,
    path: string,
    {
      checkpointThread,
      readOnly,
      indexSearch,
    }: { checkpointThread: boolean; readOnly: boolean; indexSearch: boolean },
  ) {
    this.#db = db;
    this.path = path;
    this.readOnly = readOnly;
    if (checkpointThread) {
      const checkpointer = new WalCheckpointer(db, path);
      this.#checkpointer = checkpointer;
      db.onCommit = () => checkpointer.committed();
    }
    this.#transactions = new Transactions(db);
    this.#events = new SqliteEvents(db, indexSearch);
    this.#linked = new SqliteLinked(db);
    this.#terms = new SqliteTerms(db);
    this.#users = new SqliteUsers(db);
    this.#oauth = new SqliteOAuth(db);
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactions.run(fn);
  }

  dataVersion(): Promise<number> {
    return this.#call(() => this.#db.dataVersion());
  }

  /**
   * With `onceThisTurn` (a request read from a socket), another process's commits are looked for once per
   * turn (Connection.lookThisTurn); without it, now (an injected request, made in the middle of a turn by
   * code that may have just written through another connection).
   */
  changeNumber(opts?: { onceThisTurn?: boolean }): Promise<number> {
    return this.#call(() => {
      if (opts?.onceThisTurn) this.#db.lookThisTurn();
      else this.#db.dataVersion(0, false);
      return this.#db.tables.now();
    });
  }

  changedSince(tables: Iterable<string>, since: number): Promise<boolean> {
    return this.#call(() => this.#db.tables.changedSince(tables, since));
  }

  collectReads<T>(into: Set<string>, fn: () => Promise<T>): Promise<T> {
    return this.#db.tables.collect(into, fn);
  }

  beginGroup(): Promise<void> {
    return this.#call(() => this.#db.beginGroup());
  }

  commitGroup(): Promise<void> {
    return this.#call(() => this.#db.commitGroup());
  }

  /** Indexes every event queued for search now, instead of in the background (search-index.ts). */
  drainSearchIndex(): void {
    this.#events.searchIndex.drain();
  }

  /** Closes at once, or once an open transaction of another caller has ended. */
  close(): Promise<void> {
    return this.#call(() => this.#close());
  }

  #close(): void {
    if (!this.#db.db.isOpen) return;
    this.#events.searchIndex.close();
    this.#checkpointer?.close();
    try {
      if (!this.readOnly) this.#db.db.exec('PRAGMA optimize');
    } catch (error) {
      // Statistics are an optimisation: a full or read-only disk must not stop the close.
      if (!storageFault(error)) throw error;
    }
    this.#db.close();
  }

  /**
   * `fn()`, the synchronous SQLite work of a call, as the call's promise: at once, unless another
   * caller's transaction holds the connection (transactions.ts); then when it has ended.
   */
  #call<T>(fn: () => T): Promise<T> {
    if (this.#transactions.busy) return this.#transactions.idle().then(fn);
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // Posts

  #newPostId(kind: PostKind): number {
    return this.#db.run('INSERT INTO posts (kind) VALUES (?)', [kind]).id;
  }

  #kindOf(id: number): PostKind | undefined {
    return this.#db.get<{ kind: PostKind }>('SELECT kind FROM posts WHERE id = ?', [id])?.kind;
  }

  getPost(id: number): Promise<AnyPost | undefined> {
    return this.#call(() => {
      const kind = this.#kindOf(id);
      if (kind === 'event') return this.#events.get(id);
      if (kind === 'attachment') return this.#attachment(id);
      return kind && this.#linked.get(kind, id);
    });
  }

  getEvent(id: number): Promise<EventRecord | undefined> {
    return this.#call(() => this.#events.get(id));
  }

  getLinked(kind: LinkedKind, id: number): Promise<LinkedRecord | undefined> {
    return this.#call(() => this.#linked.get(kind, id));
  }

  getAttachment(id: number): Promise<AttachmentRecord | undefined> {
    return this.#call(() => this.#attachment(id));
  }

  #attachment(id: number): AttachmentRecord | undefined {
    const row = this.#db.get<AttachmentRow>(`${ATTACHMENT} WHERE id = ?`, [id]);
    return row && attachmentRecord(row);
  }

  findBySlug(kind: 'event' | LinkedKind, slug: string): Promise<EventRecord | LinkedRecord | undefined> {
    return this.#call(() =>
      kind === 'event' ? this.#events.findBySlug(slug) : this.#linked.findBySlug(kind, slug),
    );
  }

  slugTaken(kind: 'event' | LinkedKind, slug: string, exceptId?: number): Promise<boolean> {
    return this.#call(() => {
      return kind === 'event'
        ? this.#events.slugTaken(slug, exceptId)
        : this.#linked.slugTaken(kind, slug, exceptId);
    });
  }

  insertEvent(rec: Omit<EventRecord, 'id'>): Promise<EventRecord> {
    return this.#call(() => this.#db.transaction(() => this.#events.insert(this.#newPostId('event'), rec)));
  }

  updateEvent(rec: EventRecord): Promise<EventRecord> {
    return this.#call(() => this.#db.transaction(() => this.#events.update(rec)));
  }

  insertLinked<R extends LinkedRecord>(rec: Omit<R, 'id'>): Promise<R> {
    return this.#call(() =>
      this.#db.transaction(() => this.#linked.insert<R>(this.#newPostId(rec.kind), rec)),
    );
  }

  updateLinked<R extends LinkedRecord>(rec: R): Promise<R> {
    return this.#call(() => this.#linked.update(rec));
  }

  insertAttachment(rec: Omit<AttachmentRecord, 'id'>): Promise<AttachmentRecord> {
    return this.#call(() => {
      return this.#db.transaction(() => {
        const id = this.#newPostId('attachment');
        this.#db.run(
          'INSERT INTO attachments (id, author, url, source_url, mime, width, height, filesize, sizes, date_utc) ' +
            'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [
            id,
            rec.author,
            rec.url,
            rec.source_url,
            rec.mime,
            rec.width,
            rec.height,
            rec.filesize,
            JSON.stringify(rec.sizes),
            rec.date_utc,
          ],
        );
        return { ...rec, id };
      });
    });
  }

  /** B.6.2: an image URL reuses the attachment stored at it or sideloaded from it; lowest id. */
  findAttachmentByUrl(url: string): Promise<AttachmentRecord | undefined> {
    return this.#call(() => {
      const row = this.#db.get<AttachmentRow>(
        `SELECT * FROM (${ATTACHMENT} WHERE url = ?1 UNION ${ATTACHMENT} WHERE source_url = ?1) ORDER BY id LIMIT 1`,
        [url],
      );
      return row && attachmentRecord(row);
    });
  }

  /**
   * The kind's row and its links go by cascade; events lose a deleted venue (SET NULL), organizer
   * links and image ids are dropped the same way.
   */
  deletePost(id: number): Promise<void> {
    return this.#call(() => {
      this.#db.run('DELETE FROM posts WHERE id = ?', [id]);
      // A deleted event leaves its text in the index until the queue is indexed.
      this.#events.searchIndex.schedule();
    });
  }

  unlinkFromEvents(kind: LinkedKind, id: number): Promise<void> {
    return this.#call(() => {
      this.#linked.unlinkFromEvents(kind, id);
    });
  }

  findLinkedByName(
    kind: LinkedKind,
    name: string,
    description?: string,
    visibility?: Visibility,
  ): Promise<LinkedRecord | undefined> {
    return this.#call(() => this.#linked.findByName(kind, name, description, visibility));
  }

  setEventPassword(id: number, password: string | null): Promise<void> {
    return this.#call(() => {
      this.#events.setPassword(id, password);
    });
  }

  publishDue(nowUtc: string): Promise<number> {
    return this.#call(() => {
      // The earliest scheduled date is remembered until the next write, so a request costs a compare; a
      // post another process schedules is seen within SCHEDULED_CHECK_MS (every request asks this first,
      // and looking for other processes' commits on each would double a kept answer's SQLite cost).
      const next = this.#db.remember(
        'next scheduled date',
        () => {
          const row = this.#db.get<{ at: string | null }>(
            `SELECT min(at) AS at FROM (${SCHEDULED.map((t) => `SELECT min(date_utc) AS at FROM ${t} WHERE status = 'future'`).join(' UNION ALL ')})`,
          );
          return row?.at ?? null;
        },
        undefined,
        SCHEDULED_CHECK_MS,
      );
      if (next === null || next > nowUtc) return 0;
      return this.#db.transaction(() => {
        let published = 0;
        for (const table of SCHEDULED) {
          const sql = `UPDATE ${table} SET status = 'publish' WHERE status = 'future' AND date_utc <= ?`;
          published += this.#db.run(sql, [nowUtc]).changes;
        }
        return published;
      });
    });
  }

  // Lists and batch loads

  listEvents(q: EventQuery): Promise<Page<EventRecord>> {
    return this.#call(() => this.#events.list(q));
  }

  listEventIds(q: EventQuery): Promise<number[]> {
    return this.#call(() => this.#events.ids(q));
  }

  getEventsMany(ids: number[], partOf?: number): Promise<Map<number, EventRecord>> {
    return this.#call(() => this.#events.getMany(ids, partOf));
  }

  listLinked(kind: LinkedKind, q: LinkedQuery): Promise<Page<LinkedRecord>> {
    return this.#call(() => this.#linked.list(kind, q));
  }

  getLinkedMany(ids: number[]): Promise<Map<number, LinkedRecord>> {
    return this.#call(() => this.#linked.getMany(ids));
  }

  eventSequences(ids: readonly number[]): Promise<Map<number, number>> {
    return this.#call(() => {
      const found = new Map<number, number>();
      if (ids.length === 0) return found;
      const sql =
        'SELECT event_id, sequence FROM event_sequences WHERE event_id IN (SELECT value FROM json_each(?))';
      for (const [id, sequence] of this.#db.tuples<[number, number]>(sql, [JSON.stringify(ids)])) {
        found.set(id, sequence);
      }
      return found;
    });
  }

  eventTombstones(sinceUtc: string): Promise<EventTombstone[]> {
    return this.#call(() => {
      return this.#db.all<TombstoneRow>(TOMBSTONES_SINCE, [sinceUtc]).map(tombstoneRecord);
    });
  }

  pruneEventTombstones(beforeUtc: string): Promise<number> {
    return this.#call(
      () => this.#db.run('DELETE FROM event_tombstones WHERE removed_utc < ?', [beforeUtc]).changes,
    );
  }

  getAttachmentsMany(ids: number[]): Promise<Map<number, AttachmentRecord>> {
    return this.#call(() => {
      const found = new Map<number, AttachmentRecord>();
      if (ids.length === 0) return found;
      const sql = `${ATTACHMENT} WHERE id IN (SELECT value FROM json_each(?))`;
      for (const row of this.#db.all<AttachmentRow>(sql, [JSON.stringify(ids)])) {
        found.set(row.id, attachmentRecord(row));
      }
      return found;
    });
  }

  getTermsMany(ids: number[]): Promise<Map<number, TermRecord>> {
    return this.#call(() => this.#terms.getMany(ids));
  }

  // Terms

  getTerm(kind: TermKind, id: number): Promise<TermRecord | undefined> {
    return this.#call(() => this.#terms.get(kind, id));
  }

  findTermBySlug(kind: TermKind, slug: string): Promise<TermRecord | undefined> {
    return this.#call(() => this.#terms.findBySlug(kind, slug));
  }

  findTermByName(kind: TermKind, name: string, parent?: number): Promise<TermRecord | undefined> {
    return this.#call(() => this.#terms.findByName(kind, name, parent));
  }

  findTermsByRef(kind: TermKind, names: readonly string[]): Promise<(TermRecord | undefined)[]> {
    return this.#call(() =>
      names.map((n) => this.#terms.findBySlug(kind, n) ?? this.#terms.findByName(kind, n)),
    );
  }

  termSlugTaken(kind: TermKind, slug: string, exceptId?: number): Promise<boolean> {
    return this.#call(() => this.#terms.slugTaken(kind, slug, exceptId));
  }

  insertTerm(rec: Omit<TermRecord, 'id' | 'count'>): Promise<TermRecord> {
    return this.#call(() => this.#terms.insert(rec));
  }

  updateTerm(rec: Omit<TermRecord, 'count'>): Promise<TermRecord> {
    return this.#call(() => this.#terms.update(rec));
  }

  deleteTerm(kind: TermKind, id: number): Promise<void> {
    return this.#call(() => {
      this.#db.transaction(() => this.#terms.delete(kind, id));
    });
  }

  categoryDescendants(id: number): Promise<number[]> {
    return this.#call(() => this.#terms.descendants(id));
  }

  listTerms(q: TermQuery): Promise<Page<TermRecord>> {
    return this.#call(() => this.#terms.list(q));
  }

  // Users

  insertUser(rec: Omit<UserRecord, 'id'>): Promise<UserRecord> {
    return this.#call(() => this.#users.insert(rec));
  }

  getUser(id: number): Promise<UserRecord | undefined> {
    return this.#call(() => this.#users.get(id));
  }

  findUser(loginOrEmail: string): Promise<UserRecord | undefined> {
    return this.#call(() => this.#users.find(loginOrEmail));
  }

  listUsers(): Promise<UserRecord[]> {
    return this.#call(() => this.#users.list());
  }

  insertAppPassword(rec: Omit<AppPasswordRecord, 'id' | 'last_used_utc'>): Promise<AppPasswordRecord> {
    return this.#call(() => this.#users.insertAppPassword(rec));
  }

  appPasswords(userId: number): Promise<AppPasswordRecord[]> {
    return this.#call(() => this.#users.appPasswords(userId));
  }

  appPasswordUser(id: number): Promise<UserRecord | undefined> {
    return this.#call(() => this.#users.appPasswordUser(id));
  }

  deleteAppPassword(id: number): Promise<void> {
    return this.#call(() => {
      this.#users.deleteAppPassword(id);
    });
  }

  touchAppPassword(id: number, at: string): Promise<void> {
    return this.#call(() => {
      this.#users.touchAppPassword(id, at);
    });
  }

  // OAuth clients
  insertOAuthClient(rec: Omit<OAuthClientRecord, 'id' | 'revoked'>): Promise<OAuthClientRecord> {
    return this.#call(() => this.#oauth.insert(rec));
  }

  findOAuthClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    return this.#call(() => this.#oauth.find(clientId));
  }

  listOAuthClients(): Promise<OAuthClientRecord[]> {
    return this.#call(() => this.#oauth.list());
  }

  revokeOAuthClient(clientId: string): Promise<boolean> {
    return this.#call(() => this.#oauth.revoke(clientId));
  }

  signingKey(name: string, generate: () => Uint8Array): Promise<Uint8Array> {
    return this.#call(() => this.#oauth.signingKey(name, generate));
  }

  /** The random id this database file was given when it was made (migration 7): which store this is. */
  instance(): Promise<string> {
    return this.#call(
      () => this.#db.get<{ value: string }>(`SELECT value FROM store_meta WHERE name = 'instance'`)!.value,
    );
  }
}

/** Whether the file (or, before it exists, its directory) can be written. */
function writable(path: string): boolean {
  try {
    accessSync(existsSync(path) ? path : dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
