/**
 * The PostgreSQL store: `openPostgresStore(url)` connects a pool to the database at `url`, migrates it
 * (postgres-schema.ts) and returns a `Store`, the SQLite store's contract on a server's database.
 *
 * What it shares with the SQLite store: the records ↔ rows mapping (rows.ts, the schema mirrors
 * SQLite's), the list queries (list-sql.ts with its `POSTGRES` dialect), the transaction order
 * (transactions.ts through postgres-connection.ts). What it does its own way:
 * - every call is a round trip, so writes batch their links (`unnest`) and id lists travel as one
 *   `int[]` parameter (`= ANY(?)`);
 * - lists read the ordered ids of the matches on each call (no kept lists: another process's writes
 *   would not be seen until step 4 of issue 16), then the page's rows by id;
 * - search is `ILIKE` on rows, served by pg_trgm indexes kept inside each write's transaction, so there
 *   is no index queue to drain;
 * - group commit (`beginGroup`/`commitGroup`) does nothing: it exists for SQLite, where a commit is an
 *   fsync of one writer; here each request's transaction commits on its own, as in any server.
 */
import pg, { type PoolClient } from 'pg';
import type { TermKind } from '../model/index.ts';
import { StoreError } from './errors.ts';
import { pageTotal } from './list-page.ts';
import { eventListSql, type ListSql, linkedListSql, POSTGRES, TERM_SELECT, termListSql } from './list-sql.ts';
import type { Notices } from './notices.ts';
import { storeName } from './open.ts';
import { PgConnection, type PgParam } from './postgres-connection.ts';
import { migratePostgres, postgresSchema } from './postgres-schema.ts';
import {
  ATTACHMENT,
  type AttachmentRow,
  appPasswordRecord,
  attachmentRecord,
  EVENT_COLUMNS,
  type EventLinks,
  type EventTuple,
  eventRecord,
  eventTuple,
  nameKey,
  normaliseLinks,
  SCHEDULED,
  sameIds,
  type TermRow,
  TOMBSTONES_SINCE,
  type TombstoneRow,
  termRecord,
  tombstoneRecord,
  userRecord,
} from './rows.ts';
import { linkedByNameSql, TABLES } from './sqlite-linked.ts';
import { CLIENT, type ClientRow, clientRecord } from './sqlite-oauth.ts';
import { DESCENDANTS } from './sqlite-terms.ts';
import { APP_PASSWORD, USER } from './sqlite-users.ts';
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
import type { SchemaFacts } from './table-changes.ts';

/** How late a post scheduled by another process may be seen by publishDue (ms), as in the SQLite store. */
const SCHEDULED_CHECK_MS = 100;
/** The notices of commits that wrote (`shareChanges`). */
const CHANGES_CHANNEL = 'calsync_changes';
/** Connections of the pool: a server's requests wait on the network, not on CPU. */
const POOL_SIZE = 10;

const EVENT_SELECT = `SELECT ${EVENT_COLUMNS.join(', ')} FROM events`;
const EVENT_INSERT = `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')})`;
// Parameters: the row without its id, then the id (`updateRow`).
const EVENT_UPDATE = `UPDATE events SET ${EVENT_COLUMNS.slice(1)
  .map((c) => `${c} = ?`)
  .join(', ')} WHERE id = ?`;
const ORGANIZERS_OF =
  'SELECT event_id, organizer_id FROM event_organizers WHERE event_id = ANY(?::int[]) ORDER BY event_id, position';
const TERMS_OF =
  'SELECT et.event_id, et.term_id, t.kind FROM event_terms et JOIN terms t ON t.id = et.term_id ' +
  'WHERE et.event_id = ANY(?::int[]) ORDER BY et.event_id, et.position';
/** Links in list order, one statement whatever their number: `position` is the index in the array. */
const LINK_ORGANIZERS =
  'INSERT INTO event_organizers (event_id, position, organizer_id) ' +
  'SELECT ?::int, o.n - 1, o.id FROM unnest(?::int[]) WITH ORDINALITY AS o (id, n)';
const LINK_TERMS =
  'INSERT INTO event_terms (event_id, position, term_id, published) ' +
  'SELECT ?::int, t.n - 1, t.id, ?::int FROM unnest(?::int[]) WITH ORDINALITY AS t (id, n)';

/** Opens (migrating) the store in the PostgreSQL database at `url` (`postgres://…`). */
export async function openPostgresStore(url: string): Promise<PostgresStore> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  // An idle client's lost connection is reported here; the next query gets a new one.
  pool.on('error', () => undefined);
  let schema: SchemaFacts;
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, storeName(url));
      schema = await postgresSchema(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    if (error instanceof StoreError) throw error;
    throw new StoreError(
      'store-unusable',
      `the database ${storeName(url)} is not usable: ${(error as Error).message}`,
      { path: storeName(url), cause: error },
    );
  }
  return new PostgresStore(new PgConnection(pool, schema), storeName(url));
}

/**
 * Whether `key` can be stored at all: PostgreSQL's text never holds NUL (SQLite's does), so a lookup
 * by a key with one (a slug `%00` in a URL, B.8) finds nothing instead of failing with 22021.
 */
const storable = (key: string): boolean => !key.includes('\u0000');

type OrganizerLink = [event_id: number, organizer_id: number];
type TermLink = [event_id: number, term_id: number, kind: string];

export class PostgresStore implements Store {
  /** The database, its password hidden. */
  readonly url: string;
  readonly #db: PgConnection;
  /** The earliest scheduled date, and when it was read (`publishDue`). */
  #scheduled: { at: string | null; version: number; readAt: number } | undefined;
  /** The other processes on the database, once `shareChanges` was called. */
  #notices: Notices | undefined;

  constructor(db: PgConnection, url: string) {
    this.#db = db;
    this.url = url;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#db.transactions.run(fn);
  }

  async dataVersion(): Promise<number> {
    return this.#db.version;
  }

  /** By table, as the SQLite store's (table-changes.ts); this process's writes only, for now (postgres-connection.ts). */
  async changeNumber(_opts?: { onceThisTurn?: boolean }): Promise<number> {
    return this.#db.tables.now();
  }

  async changedSince(tables: Iterable<string>, since: number): Promise<boolean> {
    return this.#db.tables.changedSince(tables, since);
  }

  collectReads<T>(into: Set<string>, fn: () => Promise<T>): Promise<T> {
    return this.#db.tables.collect(into, fn);
  }

  /**
   * Keeps this store in step with the other processes on the database (several servers, issue 16 step
   * 4): each commit that wrote is told to them, and theirs move this store's data version and change
   * numbers (every table: the notice does not say which), so their caches drop what may be stale. After
   * the listening connection was lost, everything counts as changed.
   */
  async shareChanges(notices: Notices): Promise<void> {
    await notices.subscribe(CHANGES_CHANNEL, () => this.#db.changedElsewhere());
    notices.onResync(() => this.#db.changedElsewhere());
    this.#db.committed = () => notices.publish(CHANGES_CHANNEL, '');
    this.#notices = notices;
  }

  /**
   * A rewrite of the whole content in one transaction on a connection of its own (the demo reset,
   * embedded/demo-postgres.ts): it holds the write lock of every process on the database, while readers
   * here and there see the data as it was until its COMMIT. When `fn` says it wrote, the other processes
   * are told as of any commit that wrote (the notice goes out in the transaction, so at its COMMIT), and
   * this store treats every table as changed.
   */
  rewrite<T>(fn: (client: PoolClient) => Promise<{ wrote: boolean; result: T }>): Promise<T> {
    return this.#db.apart(fn, async (client) => {
      await this.#notices?.publishIn(client, CHANGES_CHANNEL, '');
    });
  }

  async beginGroup(): Promise<void> {}

  async commitGroup(): Promise<void> {}

  close(): Promise<void> {
    return this.#db.close();
  }

  // Posts

  async #newPostId(kind: PostKind): Promise<number> {
    return (await this.#db.run<{ id: number }>('INSERT INTO posts (kind) VALUES (?) RETURNING id', [kind]))
      .rows[0].id;
  }

  async getPost(id: number): Promise<AnyPost | undefined> {
    const kind = (await this.#db.get<{ kind: PostKind }>('SELECT kind FROM posts WHERE id = ?', [id]))?.kind;
    if (kind === 'event') return this.getEvent(id);
    if (kind === 'attachment') return this.getAttachment(id);
    return kind && this.getLinked(kind, id);
  }

  async getEvent(id: number): Promise<EventRecord | undefined> {
    return (await this.#events(await this.#db.tuples<EventTuple>(`${EVENT_SELECT} WHERE id = ?`, [id])))[0];
  }

  /** Records for rows, with the links of all of them loaded in two queries. */
  async #events(rows: EventTuple[]): Promise<EventRecord[]> {
    if (rows.length === 0) return [];
    const links = await this.#links(rows.map((row) => row[0]));
    return rows.map((row) => eventRecord(row, links.get(row[0])!));
  }

  async #links(ids: number[]): Promise<Map<number, EventLinks>> {
    const links = new Map<number, EventLinks>();
    for (const id of ids) links.set(id, { organizer_ids: [], category_ids: [], tag_ids: [] });
    const [organizers, terms] = await Promise.all([
      this.#db.tuples<OrganizerLink>(ORGANIZERS_OF, [ids]),
      this.#db.tuples<TermLink>(TERMS_OF, [ids]),
    ]);
    for (const [eventId, organizerId] of organizers) links.get(eventId)!.organizer_ids.push(organizerId);
    for (const [eventId, termId, kind] of terms) {
      const l = links.get(eventId)!;
      (kind === 'categories' ? l.category_ids : l.tag_ids).push(termId);
    }
    return links;
  }

  async getLinked(kind: LinkedKind, id: number): Promise<LinkedRecord | undefined> {
    const t = TABLES[kind];
    const row = await this.#db.get<Parameters<typeof t.record>[0]>(t.byId, [id]);
    return row && t.record(row);
  }

  async getAttachment(id: number): Promise<AttachmentRecord | undefined> {
    const row = await this.#db.get<AttachmentRow>(`${ATTACHMENT} WHERE id = ?`, [id]);
    return row && attachmentRecord(row);
  }

  async findBySlug(
    kind: 'event' | LinkedKind,
    slug: string,
  ): Promise<EventRecord | LinkedRecord | undefined> {
    if (slug === '' || !storable(slug)) return undefined;
    if (kind === 'event') {
      const rows = await this.#db.tuples<EventTuple>(`${EVENT_SELECT} WHERE slug = ? ORDER BY id LIMIT 1`, [
        slug,
      ]);
      return (await this.#events(rows))[0];
    }
    const t = TABLES[kind];
    const sql = `SELECT ${t.select} FROM ${t.table} l WHERE l.slug = ? ORDER BY l.id LIMIT 1`;
    const row = await this.#db.get<Parameters<typeof t.record>[0]>(sql, [slug]);
    return row && t.record(row);
  }

  async slugTaken(kind: 'event' | LinkedKind, slug: string, exceptId = 0): Promise<boolean> {
    if (slug === '' || !storable(slug)) return false;
    const table = kind === 'event' ? 'events' : TABLES[kind].table;
    return (
      (await this.#db.get(`SELECT 1 FROM ${table} WHERE slug = ? AND id <> ? LIMIT 1`, [slug, exceptId])) !==
      undefined
    );
  }

  insertEvent(rec: Omit<EventRecord, 'id'>): Promise<EventRecord> {
    return this.transaction(async () => {
      const id = await this.#newPostId('event');
      const row = eventTuple(id, rec);
      const links = normaliseLinks(rec);
      await this.#db.run(EVENT_INSERT, row);
      await this.#writeLinks(id, rec.status, links);
      return eventRecord(row, links);
    });
  }

  /** Links are rewritten only when they differ from the stored ones. */
  updateEvent(rec: EventRecord): Promise<EventRecord> {
    return this.transaction(async () => {
      const row = eventTuple(rec.id, rec);
      if ((await this.#db.run(EVENT_UPDATE, [...row.slice(1), rec.id])).changes === 0) {
        throw new StoreError('store-not-found', `updateEvent: no event with id ${rec.id}`);
      }
      const links = normaliseLinks(rec);
      const stored = (await this.#links([rec.id])).get(rec.id)!;
      const organizers = !sameIds(stored.organizer_ids, links.organizer_ids);
      const terms =
        !sameIds(stored.category_ids, links.category_ids) || !sameIds(stored.tag_ids, links.tag_ids);
      if (organizers) await this.#db.run('DELETE FROM event_organizers WHERE event_id = ?', [rec.id]);
      if (terms) await this.#db.run('DELETE FROM event_terms WHERE event_id = ?', [rec.id]);
      await this.#writeLinks(rec.id, rec.status, {
        organizer_ids: organizers ? links.organizer_ids : [],
        category_ids: terms ? links.category_ids : [],
        tag_ids: terms ? links.tag_ids : [],
      });
      return eventRecord(row, links);
    });
  }

  async #writeLinks(id: number, status: string, links: EventLinks): Promise<void> {
    if (links.organizer_ids.length > 0) await this.#db.run(LINK_ORGANIZERS, [id, links.organizer_ids]);
    const terms = [...links.category_ids, ...links.tag_ids];
    if (terms.length > 0) await this.#db.run(LINK_TERMS, [id, status === 'publish' ? 1 : 0, terms]);
  }

  insertLinked<R extends LinkedRecord>(rec: Omit<R, 'id'>): Promise<R> {
    return this.transaction(async () => {
      const t = TABLES[rec.kind];
      const row = t.row(await this.#newPostId(rec.kind), rec);
      const columns = Object.keys(row);
      await this.#db.run(
        `INSERT INTO ${t.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        Object.values(row),
      );
      return t.record(row as never) as R;
    });
  }

  async updateLinked<R extends LinkedRecord>(rec: R): Promise<R> {
    const t = TABLES[rec.kind];
    const { id, ...row } = t.row(rec.id, rec);
    const columns = Object.keys(row);
    const sql = `UPDATE ${t.table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`;
    if ((await this.#db.run(sql, [...Object.values(row), id])).changes === 0) {
      throw new StoreError('store-not-found', `updateLinked: no ${rec.kind} with id ${rec.id}`);
    }
    return t.record({ id, ...row } as never) as R;
  }

  insertAttachment(rec: Omit<AttachmentRecord, 'id'>): Promise<AttachmentRecord> {
    return this.transaction(async () => {
      const id = await this.#newPostId('attachment');
      await this.#db.run(
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
  }

  /** B.6.2: an image URL reuses the attachment stored at it or sideloaded from it; lowest id. */
  async findAttachmentByUrl(url: string): Promise<AttachmentRecord | undefined> {
    if (!storable(url)) return undefined;
    const row = await this.#db.get<AttachmentRow>(
      `SELECT * FROM (${ATTACHMENT} WHERE url = ? UNION ${ATTACHMENT} WHERE source_url = ?) a ORDER BY id LIMIT 1`,
      [url, url],
    );
    return row && attachmentRecord(row);
  }

  async deletePost(id: number): Promise<void> {
    await this.#db.run('DELETE FROM posts WHERE id = ?', [id]);
  }

  /** B.10.1: a trashed or deleted venue/organizer leaves every event. */
  async unlinkFromEvents(kind: LinkedKind, id: number): Promise<void> {
    if (kind === 'venue') await this.#db.run('UPDATE events SET venue_id = NULL WHERE venue_id = ?', [id]);
    else await this.#db.run('DELETE FROM event_organizers WHERE organizer_id = ?', [id]);
  }

  /** B.10.2: lowest non-trashed id whose trimmed name matches case-insensitively (and description). */
  async findLinkedByName(
    kind: LinkedKind,
    name: string,
    description?: string,
    visibility?: Visibility,
  ): Promise<LinkedRecord | undefined> {
    if (!storable(name) || !storable(description ?? '')) return undefined;
    const { sql, params } = linkedByNameSql(kind, name, description, visibility, POSTGRES);
    const row = await this.#db.get<never>(sql, params);
    return row && TABLES[kind].record(row);
  }

  async setEventPassword(id: number, password: string | null): Promise<void> {
    if ((await this.#db.run('UPDATE events SET password = ? WHERE id = ?', [password, id])).changes === 0) {
      throw new StoreError('store-not-found', `setEventPassword: no event with id ${id}`);
    }
  }

  /**
   * The earliest scheduled date is kept until this process writes, or for SCHEDULED_CHECK_MS (another
   * process's scheduled post), as the SQLite store keeps it: every request asks this first.
   */
  async publishDue(nowUtc: string): Promise<number> {
    const kept = this.#scheduled;
    let next: string | null;
    if (kept && kept.version === this.#db.version && performance.now() - kept.readAt < SCHEDULED_CHECK_MS) {
      next = kept.at;
    } else {
      const version = this.#db.version;
      const readAt = performance.now();
      const row = await this.#db.get<{ at: string | null }>(
        `SELECT min(at) AS at FROM (${SCHEDULED.map((t) => `SELECT min(date_utc) AS at FROM ${t} WHERE status = 'future'`).join(' UNION ALL ')}) s`,
      );
      next = row?.at ?? null;
      this.#scheduled = { at: next, version, readAt };
    }
    if (next === null || next > nowUtc) return 0;
    return this.transaction(async () => {
      let published = 0;
      for (const table of SCHEDULED) {
        const sql = `UPDATE ${table} SET status = 'publish' WHERE status = 'future' AND date_utc <= ?`;
        published += (await this.#db.run(sql, [nowUtc])).changes;
      }
      return published;
    });
  }

  // Lists and batch loads

  /** The ordered ids of every match (the total is their number), then the page's rows by id. */
  async listEvents(q: EventQuery): Promise<Page<EventRecord>> {
    const ids = await this.listEventIds(q);
    const page = ids.slice(q.offset, q.offset + q.limit);
    if (page.length === 0) return { items: [], total: ids.length };
    const byId = await this.getEventsMany(page);
    return { items: page.map((id) => byId.get(id)!), total: ids.length };
  }

  async getEventsMany(ids: number[]): Promise<Map<number, EventRecord>> {
    const found = new Map<number, EventRecord>();
    if (ids.length === 0) return found;
    const rows = await this.#db.tuples<EventTuple>(`${EVENT_SELECT} WHERE id = ANY(?::int[])`, [ids]);
    for (const e of await this.#events(rows)) found.set(e.id, e);
    return found;
  }

  async listEventIds(q: EventQuery): Promise<number[]> {
    const sql = eventListSql(q, POSTGRES);
    if (!sql) return [];
    return (await this.#db.tuples<[number]>(sql.ordered, sql.params)).map((row) => row[0]);
  }

  listLinked(kind: LinkedKind, q: LinkedQuery): Promise<Page<LinkedRecord>> {
    const t = TABLES[kind];
    return this.#list(linkedListSql(kind, q, t.select, POSTGRES), q, (row: never) => t.record(row));
  }

  /** A venue, organizer or term list: the page, then its COUNT when the page does not tell it. */
  async #list<R, T>(
    sql: ListSql | null,
    q: { offset: number; limit: number },
    toItem: (row: R) => T,
  ): Promise<Page<T>> {
    if (!sql) return { items: [], total: 0 };
    const rows = await this.#db.all<R>(sql.page, [...sql.params, q.limit, q.offset]);
    const total =
      pageTotal(rows.length, q) ?? Number((await this.#db.get<{ n: string }>(sql.count, sql.params))!.n);
    return { items: rows.map(toItem), total };
  }

  async getLinkedMany(ids: number[]): Promise<Map<number, LinkedRecord>> {
    const found = new Map<number, LinkedRecord>();
    if (ids.length === 0) return found;
    for (const t of Object.values(TABLES)) {
      const sql = `SELECT ${t.select} FROM ${t.table} l WHERE l.id = ANY(?::int[])`;
      for (const row of await this.#db.all<never>(sql, [ids])) {
        const record = t.record(row);
        found.set(record.id, record);
      }
    }
    return found;
  }

  async eventSequences(ids: readonly number[]): Promise<Map<number, number>> {
    const found = new Map<number, number>();
    if (ids.length === 0) return found;
    const sql = 'SELECT event_id, sequence FROM event_sequences WHERE event_id = ANY(?::int[])';
    for (const [id, sequence] of await this.#db.tuples<[number, number]>(sql, [ids])) found.set(id, sequence);
    return found;
  }

  async eventTombstones(sinceUtc: string): Promise<EventTombstone[]> {
    return (await this.#db.all<TombstoneRow>(TOMBSTONES_SINCE, [sinceUtc])).map(tombstoneRecord);
  }

  async pruneEventTombstones(beforeUtc: string): Promise<number> {
    return (await this.#db.run('DELETE FROM event_tombstones WHERE removed_utc < ?', [beforeUtc])).changes;
  }

  async getAttachmentsMany(ids: number[]): Promise<Map<number, AttachmentRecord>> {
    const found = new Map<number, AttachmentRecord>();
    if (ids.length === 0) return found;
    for (const row of await this.#db.all<AttachmentRow>(`${ATTACHMENT} WHERE id = ANY(?::int[])`, [ids])) {
      found.set(row.id, attachmentRecord(row));
    }
    return found;
  }

  async getTermsMany(ids: number[]): Promise<Map<number, TermRecord>> {
    const found = new Map<number, TermRecord>();
    if (ids.length === 0) return found;
    const sql = `SELECT ${TERM_SELECT} FROM terms t WHERE t.id = ANY(?::int[])`;
    for (const row of await this.#db.all<TermRow>(sql, [ids])) found.set(row.id, termRecord(row));
    return found;
  }

  // Terms (B.11): `count` is kept by triggers (postgres-schema.ts), never written here.

  async #term(where: string, params: PgParam[]): Promise<TermRecord | undefined> {
    if (params.some((p) => typeof p === 'string' && !storable(p))) return undefined;
    const row = await this.#db.get<TermRow>(
      `SELECT ${TERM_SELECT} FROM terms t WHERE ${where} ORDER BY t.id LIMIT 1`,
      params,
    );
    return row && termRecord(row);
  }

  getTerm(kind: TermKind, id: number): Promise<TermRecord | undefined> {
    return this.#term('t.id = ? AND t.kind = ?', [id, kind]);
  }

  findTermBySlug(kind: TermKind, slug: string): Promise<TermRecord | undefined> {
    return this.#term('t.kind = ? AND t.slug = ?', [kind, slug]);
  }

  findTermByName(kind: TermKind, name: string, parent?: number): Promise<TermRecord | undefined> {
    if (parent === undefined) return this.#term('t.kind = ? AND t.name_key = ?', [kind, nameKey(name)]);
    return this.#term('t.kind = ? AND t.name_key = ? AND t.parent = ?', [kind, nameKey(name), parent]);
  }

  async findTermsByRef(kind: TermKind, names: readonly string[]): Promise<(TermRecord | undefined)[]> {
    const asked = names.filter(storable);
    if (asked.length === 0) return names.map(() => undefined);
    const rows = await this.#db.all<TermRow>(
      `SELECT ${TERM_SELECT} FROM terms t
        WHERE t.kind = ? AND (t.slug = ANY(?::text[]) OR t.name_key = ANY(?::text[])) ORDER BY t.id`,
      [kind, asked, asked.map(nameKey)],
    );
    const terms = rows.map(termRecord);
    return names.map((n) => {
      if (!storable(n)) return undefined;
      const key = nameKey(n);
      return terms.find((t) => t.slug === n) ?? terms.find((t) => nameKey(t.name) === key);
    });
  }

  async termSlugTaken(kind: TermKind, slug: string, exceptId = 0): Promise<boolean> {
    if (!storable(slug)) return false;
    const sql = 'SELECT 1 FROM terms WHERE kind = ? AND slug = ? AND id <> ? LIMIT 1';
    return (await this.#db.get(sql, [kind, slug, exceptId])) !== undefined;
  }

  async insertTerm(rec: Omit<TermRecord, 'id' | 'count'>): Promise<TermRecord> {
    const { rows } = await this.#db.run<{ id: number }>(
      'INSERT INTO terms (kind, name, name_key, slug, description, parent) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      [rec.kind, rec.name, nameKey(rec.name), rec.slug, rec.description, rec.parent],
    );
    return termRecord({ ...rec, id: rows[0].id, count: 0 });
  }

  async updateTerm(rec: Omit<TermRecord, 'count'>): Promise<TermRecord> {
    const { changes } = await this.#db.run(
      'UPDATE terms SET name = ?, name_key = ?, slug = ?, description = ?, parent = ? WHERE id = ? AND kind = ?',
      [rec.name, nameKey(rec.name), rec.slug, rec.description, rec.parent, rec.id, rec.kind],
    );
    if (changes === 0)
      throw new StoreError('store-not-found', `updateTerm: no ${rec.kind} term with id ${rec.id}`);
    return (await this.getTerm(rec.kind, rec.id))!;
  }

  /** Children move up to the term's parent; event links go by cascade. */
  deleteTerm(kind: TermKind, id: number): Promise<void> {
    return this.transaction(async () => {
      const term = await this.#db.get<{ parent: number }>(
        'SELECT parent FROM terms WHERE id = ? AND kind = ?',
        [id, kind],
      );
      if (!term) return;
      await this.#db.run('UPDATE terms SET parent = ? WHERE parent = ? AND kind = ?', [
        term.parent,
        id,
        kind,
      ]);
      await this.#db.run('DELETE FROM terms WHERE id = ?', [id]);
    });
  }

  async categoryDescendants(id: number): Promise<number[]> {
    return (await this.#db.all<{ id: number }>(DESCENDANTS, [id])).map((r) => r.id);
  }

  listTerms(q: TermQuery): Promise<Page<TermRecord>> {
    return this.#list(termListSql(q, POSTGRES), q, termRecord);
  }

  // Users and application passwords (B.2)

  async insertUser(rec: Omit<UserRecord, 'id'>): Promise<UserRecord> {
    const { rows } = await this.#db.run<{ id: number }>(
      'INSERT INTO users (login, email, role, display_name) VALUES (?, ?, ?, ?) RETURNING id',
      [rec.login, rec.email, rec.role, rec.display_name],
    );
    return userRecord({ ...rec, id: rows[0].id });
  }

  async getUser(id: number): Promise<UserRecord | undefined> {
    const row = await this.#db.get<UserRecord>(`${USER} WHERE id = ?`, [id]);
    return row && userRecord(row);
  }

  /** Login first, then e-mail; ASCII case-insensitive (lower() under the C collation), as SQLite's NOCASE. */
  async findUser(loginOrEmail: string): Promise<UserRecord | undefined> {
    if (!storable(loginOrEmail)) return undefined;
    const row = await this.#db.get<UserRecord>(
      `${USER} WHERE lower(login) = lower(?) OR lower(email) = lower(?) ORDER BY lower(login) = lower(?) DESC, id LIMIT 1`,
      [loginOrEmail, loginOrEmail, loginOrEmail],
    );
    return row && userRecord(row);
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.#db.all<UserRecord>(`${USER} ORDER BY id`)).map(userRecord);
  }

  async insertAppPassword(rec: Omit<AppPasswordRecord, 'id' | 'last_used_utc'>): Promise<AppPasswordRecord> {
    const { rows } = await this.#db.run<{ id: number }>(
      'INSERT INTO app_passwords (user_id, name, hash, created_utc) VALUES (?, ?, ?, ?) RETURNING id',
      [rec.user_id, rec.name, rec.hash, rec.created_utc],
    );
    return appPasswordRecord({ ...rec, id: rows[0].id, last_used_utc: null });
  }

  async appPasswords(userId: number): Promise<AppPasswordRecord[]> {
    const rows = await this.#db.all<AppPasswordRecord>(`${APP_PASSWORD} WHERE user_id = ? ORDER BY id`, [
      userId,
    ]);
    return rows.map(appPasswordRecord);
  }

  async appPasswordUser(id: number): Promise<UserRecord | undefined> {
    const row = await this.#db.get<UserRecord>(
      'SELECT u.id, u.login, u.email, u.role, u.display_name FROM app_passwords ap ' +
        'JOIN users u ON u.id = ap.user_id WHERE ap.id = ?',
      [id],
    );
    return row && userRecord(row);
  }

  async deleteAppPassword(id: number): Promise<void> {
    await this.#db.run('DELETE FROM app_passwords WHERE id = ?', [id]);
  }

  async touchAppPassword(id: number, at: string): Promise<void> {
    // Bookkeeping, not data any answer shows: it must not empty the response cache.
    await this.#db.run('UPDATE app_passwords SET last_used_utc = ? WHERE id = ?', [at, id], true);
  }

  // OAuth clients and the token signing key (B.2)

  async insertOAuthClient(rec: Omit<OAuthClientRecord, 'id' | 'revoked'>): Promise<OAuthClientRecord> {
    const { rows } = await this.#db.run<{ id: number }>(
      'INSERT INTO oauth_clients (client_id, secret_hash, user_id, name, created_utc) VALUES (?, ?, ?, ?, ?) RETURNING id',
      [rec.client_id, rec.secret_hash, rec.user_id, rec.name, rec.created_utc],
    );
    return { ...rec, id: rows[0].id, revoked: false };
  }

  async findOAuthClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    if (!storable(clientId)) return undefined;
    const row = await this.#db.get<ClientRow>(`${CLIENT} WHERE client_id = ?`, [clientId]);
    return row && clientRecord(row);
  }

  async listOAuthClients(): Promise<OAuthClientRecord[]> {
    return (await this.#db.all<ClientRow>(`${CLIENT} ORDER BY id`)).map(clientRecord);
  }

  async revokeOAuthClient(clientId: string): Promise<boolean> {
    return (
      (await this.#db.run('UPDATE oauth_clients SET revoked = 1 WHERE client_id = ?', [clientId])).changes > 0
    );
  }

  /** DO NOTHING: two servers starting at once on one database both end up with the first one's key. */
  async signingKey(name: string, generate: () => Uint8Array): Promise<Uint8Array> {
    const read = () => this.#db.get<{ key: Buffer }>('SELECT key FROM signing_keys WHERE name = ?', [name]);
    const found = await read();
    if (found) return new Uint8Array(found.key);
    await this.#db.run(
      'INSERT INTO signing_keys (name, key) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
      [name, generate()],
      true,
    );
    return new Uint8Array((await read())!.key);
  }
}
