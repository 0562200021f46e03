/**
 * Events in SQLite: the `events` row plus ordered links to organizers (`event_organizers`) and terms
 * (`event_terms`). A list reads the ordered ids of its matches in one indexed query (remembered until
 * the next write), then loads the page's rows and their links in three batch queries.
 */
import type { Connection } from './connection.ts';
import { StoreError } from './errors.ts';
import { type EventListSql, eventListSql } from './list-sql.ts';
import { RowMemo } from './row-memo.ts';
import {
  EVENT_COLUMNS,
  type EventLinks,
  type EventTuple,
  eventRecord,
  eventTuple,
  normaliseLinks,
  sameIds,
} from './rows.ts';
import { SearchIndexQueue } from './search-index.ts';
import type { EventQuery, EventRecord, Page } from './store.ts';

const COLUMNS = EVENT_COLUMNS.join(', ');
const SELECT = `SELECT ${COLUMNS} FROM events`;
/**
 * Bounds of the kept lists: how many, and their ids summed (1,000,000 ids is about 8 MB), as
 * Connection.remember bounds what it keeps. The oldest list goes first.
 */
const MAX_KEPT_LISTS = 100;
const MAX_KEPT_IDS = 1_000_000;
const BY_ID = `${SELECT} WHERE id = ?`;
// Positional parameters (rows.ts eventTuple): `?NNN` numbers them in EVENT_COLUMNS order, `id` being ?1.
const INSERT = `INSERT INTO events (${COLUMNS}) VALUES (${EVENT_COLUMNS.map((_, i) => `?${i + 1}`).join(', ')})`;
const UPDATE = `UPDATE events SET ${EVENT_COLUMNS.map((c, i) => `${c} = ?${i + 1}`)
  .filter((_, i) => i > 0)
  .join(', ')} WHERE id = ?1`;

const ORGANIZERS_OF =
  'SELECT event_id, organizer_id FROM event_organizers WHERE event_id = ? ORDER BY position';
const TERMS_OF =
  'SELECT et.event_id, et.term_id, t.kind FROM event_terms et JOIN terms t ON t.id = et.term_id ' +
  'WHERE et.event_id = ? ORDER BY et.position';
const ORGANIZERS_OF_MANY =
  'SELECT event_id, organizer_id FROM event_organizers WHERE event_id IN (SELECT value FROM json_each(?)) ' +
  'ORDER BY event_id, position';
const TERMS_OF_MANY =
  'SELECT et.event_id, et.term_id, t.kind FROM event_terms et JOIN terms t ON t.id = et.term_id ' +
  'WHERE et.event_id IN (SELECT value FROM json_each(?)) ORDER BY et.event_id, et.position';

type OrganizerLink = [event_id: number, organizer_id: number];

/** A list's ids kept across writes: the change number they are good at, the tables read, the sort keys seen. */
interface KeptList {
  ids: number[];
  at: number;
  tables: Set<string>;
  keys: Map<number, [start_utc: string, date_utc: string]>;
}
type TermLink = [event_id: number, term_id: number, kind: string];

export class SqliteEvents {
  readonly #db: Connection;
  /** Writes queue events for the search index (a trigger); this indexes the queue in the background. */
  readonly searchIndex: SearchIndexQueue;
  /** Lists' ids by query, with the change number they are good at and the tables they read. */
  readonly #lists = new Map<string, KeptList>();
  #keptIds = 0;
  /** A list page's records by id, kept while only other events are inserted (row-memo.ts). */
  readonly #kept: RowMemo<EventRecord>;

  constructor(db: Connection, indexSearch = true) {
    this.#db = db;
    this.#kept = new RowMemo(db, ['events', 'event_organizers', 'event_terms', 'terms'], 'insertsOnly');
    this.searchIndex = new SearchIndexQueue(db, indexSearch);
  }

  get(id: number): EventRecord | undefined {
    return this.records(this.#db.tuples<EventTuple>(BY_ID, [id]))[0];
  }

  /** Records for rows, with the links of all of them loaded in two queries. */
  records(rows: EventTuple[]): EventRecord[] {
    if (rows.length === 0) return [];
    const links = this.#links(rows.map((row) => row[0]));
    return rows.map((row) => eventRecord(row, links.get(row[0])!));
  }

  #links(ids: number[]): Map<number, EventLinks> {
    const links = new Map<number, EventLinks>();
    for (const id of ids) links.set(id, { organizer_ids: [], category_ids: [], tag_ids: [] });
    const one = ids.length === 1;
    const param = one ? ids[0] : JSON.stringify(ids);
    const organizers = this.#db.tuples<OrganizerLink>(one ? ORGANIZERS_OF : ORGANIZERS_OF_MANY, [param]);
    for (const [eventId, organizerId] of organizers) links.get(eventId)!.organizer_ids.push(organizerId);
    const terms = this.#db.tuples<TermLink>(one ? TERMS_OF : TERMS_OF_MANY, [param]);
    for (const [eventId, termId, kind] of terms) {
      const l = links.get(eventId)!;
      (kind === 'categories' ? l.category_ids : l.tag_ids).push(termId);
    }
    return links;
  }

  /** Any status; `""` (a slug-less draft) is nobody's slug (B.8). */
  findBySlug(slug: string): EventRecord | undefined {
    if (slug === '') return undefined;
    return this.records(
      this.#db.tuples<EventTuple>(`${SELECT} WHERE slug = ? ORDER BY id LIMIT 1`, [slug]),
    )[0];
  }

  slugTaken(slug: string, exceptId = 0): boolean {
    if (slug === '') return false;
    return (
      this.#db.get('SELECT 1 FROM events WHERE slug = ? AND id <> ? LIMIT 1', [slug, exceptId]) !== undefined
    );
  }

  /** Inside a transaction: `id` was just drawn from `posts`. */
  insert(id: number, rec: Omit<EventRecord, 'id'>): EventRecord {
    const row = eventTuple(id, rec);
    const links = normaliseLinks(rec);
    this.#db.tables.asEventInsert(id, () => {
      this.#db.run(INSERT, row);
      this.#writeOrganizers(id, links.organizer_ids);
      this.#writeTerms(id, rec.status, links);
    });
    this.searchIndex.schedule();
    return eventRecord(row, links);
  }

  /** Inside a transaction. Links are rewritten only when they differ from the stored ones. */
  update(rec: EventRecord): EventRecord {
    const row = eventTuple(rec.id, rec);
    // The events_published trigger re-flags the kept term links if the status crossed `publish`.
    if (this.#db.run(UPDATE, row).changes === 0) {
      throw new StoreError('store-not-found', `updateEvent: no event with id ${rec.id}`);
    }
    const links = normaliseLinks(rec);
    const stored = this.#links([rec.id]).get(rec.id)!;
    if (!sameIds(stored.organizer_ids, links.organizer_ids)) {
      this.#db.run('DELETE FROM event_organizers WHERE event_id = ?', [rec.id]);
      this.#writeOrganizers(rec.id, links.organizer_ids);
    }
    if (!sameIds(stored.category_ids, links.category_ids) || !sameIds(stored.tag_ids, links.tag_ids)) {
      this.#db.run('DELETE FROM event_terms WHERE event_id = ?', [rec.id]);
      this.#writeTerms(rec.id, rec.status, links);
    }
    this.searchIndex.schedule();
    return eventRecord(row, links);
  }

  /** One INSERT for all of an event's organizers (a statement per list length, kept by the connection). */
  #writeOrganizers(id: number, organizerIds: number[]): void {
    if (organizerIds.length === 0) return;
    const params: number[] = [];
    organizerIds.forEach((organizerId, position) => {
      params.push(id, position, organizerId);
    });
    this.#db.run(
      `INSERT INTO event_organizers (event_id, position, organizer_id) VALUES ${rows(organizerIds.length, '(?, ?, ?)')}`,
      params,
    );
  }

  /** One INSERT for all of an event's term links; the counting trigger still runs for each row. */
  #writeTerms(id: number, status: string, links: EventLinks): void {
    const termIds = [...links.category_ids, ...links.tag_ids];
    if (termIds.length === 0) return;
    const published = status === 'publish' ? 1 : 0;
    const params: number[] = [];
    termIds.forEach((termId, position) => {
      params.push(id, position, termId, published);
    });
    this.#db.run(
      `INSERT INTO event_terms (event_id, position, term_id, published) VALUES ${rows(termIds.length, '(?, ?, ?, ?)')}`,
      params,
    );
  }

  setPassword(id: number, password: string | null): void {
    if (this.#db.run('UPDATE events SET password = ? WHERE id = ?', [password, id]).changes === 0) {
      throw new StoreError('store-not-found', `setEventPassword: no event with id ${id}`);
    }
  }

  /**
   * The ordered ids of every match are read in one query and kept across writes that cannot change
   * them (#orderedIds): its length is the total, and any page is a slice of it loaded by id.
   * That query costs about what a COUNT would; paging then costs the same on page 200 as on page 1,
   * where OFFSET would walk every row before the page.
   */
  list(q: EventQuery): Page<EventRecord> {
    const ids = this.#listIds(q);
    return { items: this.#byIds(ids.slice(q.offset, q.offset + q.limit)), total: ids.length };
  }

  /** Every match's id in list order (a copy: the kept list changes with later inserts). */
  ids(q: EventQuery): number[] {
    return this.#listIds(q).slice();
  }

  #listIds(q: EventQuery): number[] {
    const sql = eventListSql(q);
    if (!sql) return [];
    // Queued events are searched without the index (list-sql.ts); events another process queued
    // are indexed here too, in the background.
    if (sql.usesSearchIndex) this.searchIndex.scheduleIfPending();
    return this.#orderedIds(sql);
  }

  /**
   * The ids of a list, kept across writes: when all that changed the tables it reads since is events
   * inserted (a stream of creates), the new ones that match are put in their places — a few indexed
   * lookups instead of reading 10,000 ids again after every create (issue 15). Any other change, or a
   * commit of another process, reads it again.
   */
  #orderedIds(sql: EventListSql): number[] {
    const key = `${JSON.stringify(sql.params)} ${sql.ids}`;
    const changes = this.#db.tables;
    this.#db.dataVersion(); // another process's commit changes everything
    const now = changes.now();
    const kept = this.#lists.get(key);
    if (kept) {
      const inserted = changes.insertsOnlySince(kept.tables, kept.at);
      if (inserted) {
        changes.readTables(kept.tables);
        if (inserted.length > 0) {
          this.#keptIds -= kept.ids.length;
          kept.ids = this.#withInserted(kept, inserted, sql);
          this.#keptIds += kept.ids.length;
        }
        kept.at = now;
        return kept.ids;
      }
    }
    const tables = new Set<string>();
    const ids = changes.collectWhile(
      tables,
      () => JSON.parse(this.#db.get<{ ids: string }>(sql.ids, sql.params)!.ids) as number[],
    );
    this.#keep(key, { ids, at: now, tables, keys: new Map() });
    return ids;
  }

  #keep(key: string, list: KeptList): void {
    const old = this.#lists.get(key);
    if (old) {
      this.#lists.delete(key);
      this.#keptIds -= old.ids.length;
    }
    this.#lists.set(key, list);
    this.#keptIds += list.ids.length;
    for (const [oldKey, oldList] of this.#lists) {
      if (this.#lists.size <= MAX_KEPT_LISTS && this.#keptIds <= MAX_KEPT_IDS) break;
      this.#lists.delete(oldKey);
      this.#keptIds -= oldList.ids.length;
    }
  }

  /** The list's ids with those of `inserted` that match the list, each in its place. */
  #withInserted(list: KeptList, inserted: number[], sql: EventListSql): number[] {
    const { ids, keys } = list;
    const members = sql.members();
    const rows = this.#db.tuples<[number, string, string]>(members.sql, [
      JSON.stringify(inserted),
      ...members.params,
    ]);
    if (rows.length === 0) return ids;
    // The binary search probes the same middles each time: their keys are kept with the list (an event
    // whose start moves is an update, after which the list is read again, keys and all).
    if (keys.size > ids.length) keys.clear();
    const keyOf = (id: number) => {
      let k = keys.get(id);
      if (!k) {
        k = this.#db.tuples<[string, string]>('SELECT start_utc, date_utc FROM events WHERE id = ?', [id])[0];
        keys.set(id, k);
      }
      return k;
    };
    const before = (a: number, b: number) => {
      const [aStart, aDate] = keyOf(a);
      const [bStart, bDate] = keyOf(b);
      if (sql.order === 'start' && aStart !== bStart) return aStart < bStart;
      return aDate !== bDate ? aDate < bDate : a < b;
    };
    // In place: the kept array is only ever sliced, synchronously, by the list that asked for it.
    for (const [id, start, date] of rows) {
      keys.set(id, [start, date]);
      let lo = 0;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (before(ids[mid], id)) lo = mid + 1;
        else hi = mid;
      }
      // An id sorts to its own place: one already there (inserted twice since) is not added again.
      if (ids[lo] !== id) ids.splice(lo, 0, id);
    }
    return ids;
  }

  /** The events of these ids that exist, by id; `partOf` as in RowMemo.read. */
  getMany(ids: readonly number[], partOf?: number): Map<number, EventRecord> {
    return this.#read(ids, false, partOf);
  }

  /** Events with these ids, in this order (#orderedIds has just looked for other processes' commits). */
  #byIds(ids: number[]): EventRecord[] {
    if (ids.length === 0) return [];
    const found = this.#read(ids, true);
    return ids.map((id) => found.get(id)!);
  }

  /** Through the memo; `looked`: the caller has just looked for other processes' commits. */
  #read(ids: readonly number[], looked: boolean, partOf?: number): Map<number, EventRecord> {
    return this.#kept.read(
      ids,
      (missing) =>
        this.records(
          this.#db.tuples<EventTuple>(`${SELECT} WHERE id IN (SELECT value FROM json_each(?))`, [
            JSON.stringify(missing),
          ]),
        ),
      looked,
      partOf,
    );
  }
}

/** `n` copies of a VALUES row, for a multi-row INSERT. */
function rows(n: number, row: string): string {
  return n === 1 ? row : Array.from({ length: n }, () => row).join(', ');
}
