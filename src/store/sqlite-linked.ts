/**
 * Venues and organizers in SQLite (B.10): one table each, the same operations on both, chosen by
 * `LinkedKind`.
 */
import type { Connection, Param } from './connection.ts';
import { StoreError } from './errors.ts';
import { runList } from './list-page.ts';
import { type Dialect, linkedListSql, SQLITE, visibilitySql } from './list-sql.ts';
import { RowMemo } from './row-memo.ts';
import {
  nameKey,
  ORGANIZER_COLUMNS,
  type OrganizerRow,
  organizerRecord,
  organizerRow,
  VENUE_COLUMNS,
  type VenueRow,
  venueRecord,
  venueRow,
} from './rows.ts';
import type {
  LinkedKind,
  LinkedQuery,
  LinkedRecord,
  OrganizerRecord,
  Page,
  VenueRecord,
  Visibility,
} from './store.ts';

type LinkedRow = VenueRow | OrganizerRow;

export interface Table {
  table: string;
  /** Select list with alias `l`, without the stored-only `name_key`. */
  select: string;
  /** By id, built once: every event write reads its venue and organizers by id. */
  byId: string;
  insert: string;
  update: string;
  row(id: number, rec: Omit<LinkedRecord, 'id'>): Record<string, string | number | null>;
  record(row: LinkedRow): LinkedRecord;
}

function table(name: string, columns: readonly string[], row: Table['row'], record: Table['record']): Table {
  const select = columns
    .filter((c) => c !== 'name_key')
    .map((c) => `l.${c}`)
    .join(', ');
  return {
    table: name,
    select,
    byId: `SELECT ${select} FROM ${name} l WHERE l.id = ?`,
    insert: `INSERT INTO ${name} (${columns.join(', ')}) VALUES (${columns.map((c) => `:${c}`).join(', ')})`,
    update: `UPDATE ${name} SET ${columns
      .filter((c) => c !== 'id')
      .map((c) => `${c} = :${c}`)
      .join(', ')} WHERE id = :id`,
    row,
    record,
  };
}

/** The venue and organizer tables: their select lists and row mappers (the PostgreSQL store's too). */
export const TABLES: Record<LinkedKind, Table> = {
  venue: table(
    'venues',
    VENUE_COLUMNS,
    (id, rec) => venueRow(id, rec as Omit<VenueRecord, 'id'>),
    (row) => venueRecord(row as VenueRow),
  ),
  organizer: table(
    'organizers',
    ORGANIZER_COLUMNS,
    (id, rec) => organizerRow(id, rec as Omit<OrganizerRecord, 'id'>),
    (row) => organizerRecord(row as OrganizerRow),
  ),
};

/**
 * B.10.2's lookup: the lowest non-trashed id whose trimmed name matches case-insensitively (`name_key`),
 * and its description when given, among the items `visibility` shows.
 */
export function linkedByNameSql(
  kind: LinkedKind,
  name: string,
  description?: string,
  visibility?: Visibility,
  d: Dialect = SQLITE,
): { sql: string; params: Param[] } {
  const t = TABLES[kind];
  const params: Param[] = [nameKey(name)];
  let sql = `SELECT ${t.select} FROM ${t.table} l WHERE l.name_key = ? AND l.status <> 'trash'`;
  if (description !== undefined) {
    sql += ' AND l.description = ?';
    params.push(description);
  }
  if (visibility) sql += ` AND ${visibilitySql('l', visibility, params, d)}`;
  return { sql: `${sql} ORDER BY l.id LIMIT 1`, params };
}

export class SqliteLinked {
  readonly #db: Connection;
  /** Venues and organizers by id, kept while neither table changes (a list page's are read from here). */
  readonly #kept: RowMemo<LinkedRecord>;

  constructor(db: Connection) {
    this.#db = db;
    this.#kept = new RowMemo(db, ['venues', 'organizers'], 'unchanged');
  }

  get(kind: LinkedKind, id: number): LinkedRecord | undefined {
    const t = TABLES[kind];
    // Each event write reads its venue and organizers: kept while the group's transaction lasts.
    const row = this.#db.getInTransaction<LinkedRow>(`${kind} ${id}`, t.table, t.byId, [id]);
    return row && t.record(row);
  }

  /** Venues and organizers by id: those not kept (row-memo.ts) in two queries whatever their number. */
  getMany(ids: number[]): Map<number, LinkedRecord> {
    if (ids.length === 0) return new Map();
    return this.#kept.read(ids, (missing) => {
      const found: LinkedRecord[] = [];
      const json = JSON.stringify(missing);
      for (const t of Object.values(TABLES)) {
        const sql = `SELECT ${t.select} FROM ${t.table} l WHERE l.id IN (SELECT value FROM json_each(?))`;
        for (const row of this.#db.all<LinkedRow>(sql, [json])) found.push(t.record(row));
      }
      return found;
    });
  }

  findBySlug(kind: LinkedKind, slug: string): LinkedRecord | undefined {
    if (slug === '') return undefined;
    const t = TABLES[kind];
    const sql = `SELECT ${t.select} FROM ${t.table} l WHERE l.slug = ? ORDER BY l.id LIMIT 1`;
    const row = this.#db.get<LinkedRow>(sql, [slug]);
    return row && t.record(row);
  }

  slugTaken(kind: LinkedKind, slug: string, exceptId = 0): boolean {
    if (slug === '') return false;
    const sql = `SELECT 1 FROM ${TABLES[kind].table} WHERE slug = ? AND id <> ? LIMIT 1`;
    return this.#db.get(sql, [slug, exceptId]) !== undefined;
  }

  /** B.10.2: lowest non-trashed id whose trimmed name matches case-insensitively (and description). */
  findByName(
    kind: LinkedKind,
    name: string,
    description?: string,
    visibility?: Visibility,
  ): LinkedRecord | undefined {
    const { sql, params } = linkedByNameSql(kind, name, description, visibility);
    const row = this.#db.get<LinkedRow>(sql, params);
    return row && TABLES[kind].record(row);
  }

  /** Inside a transaction: `id` was just drawn from `posts`. */
  insert<R extends LinkedRecord>(id: number, rec: Omit<R, 'id'>): R {
    const t = TABLES[rec.kind];
    const row = t.row(id, rec);
    this.#db.run(t.insert, row);
    return t.record(row as unknown as LinkedRow) as R;
  }

  update<R extends LinkedRecord>(rec: R): R {
    const t = TABLES[rec.kind];
    const row = t.row(rec.id, rec);
    if (this.#db.run(t.update, row).changes === 0) {
      throw new StoreError('store-not-found', `updateLinked: no ${rec.kind} with id ${rec.id}`);
    }
    return t.record(row as unknown as LinkedRow) as R;
  }

  /** B.10.1: a trashed or deleted venue/organizer leaves every event. */
  unlinkFromEvents(kind: LinkedKind, id: number): void {
    if (kind === 'venue') this.#db.run('UPDATE events SET venue_id = NULL WHERE venue_id = ?', [id]);
    else this.#db.run('DELETE FROM event_organizers WHERE organizer_id = ?', [id]);
  }

  list(kind: LinkedKind, q: LinkedQuery): Page<LinkedRecord> {
    const t = TABLES[kind];
    return runList(this.#db, linkedListSql(kind, q, t.select), q, (rows: LinkedRow[]) => rows.map(t.record));
  }
}
