/**
 * Categories and tags in SQLite (B.11). `count` is kept in the row by triggers (migrations.ts), never
 * written here.
 */
import type { TermKind } from '../model/index.ts';
import type { Connection } from './connection.ts';
import { StoreError } from './errors.ts';
import { runList } from './list-page.ts';
import { TERM_SELECT, termListSql } from './list-sql.ts';
import { RowMemo } from './row-memo.ts';
import { nameKey, type TermRow, termRecord } from './rows.ts';
import type { Page, TermQuery, TermRecord } from './store.ts';

const SELECT = `SELECT ${TERM_SELECT} FROM terms t`;
/** Built once: event writes read each of their terms by id. */
const BY_ID = `${SELECT} WHERE t.id = ? AND t.kind = ?`;
const ANY_BY_ID = `${SELECT} WHERE t.id = ?`;
/** Up to this many ids, `getMany` looks each up on its own. */
const FEW = 4;

export const DESCENDANTS = `
  WITH RECURSIVE tree (id) AS (
    SELECT id FROM terms WHERE id = ? AND kind = 'categories'
    UNION
    SELECT t.id FROM terms t JOIN tree ON t.parent = tree.id WHERE t.kind = 'categories'
  )
  SELECT id FROM tree`;

export class SqliteTerms {
  readonly #db: Connection;
  /**
   * A list page's terms by id, kept while the table does not change (row-memo.ts): every event create
   * changes it (the counts), so this serves the pages read between writes.
   */
  readonly #kept: RowMemo<TermRecord>;

  constructor(db: Connection) {
    this.#db = db;
    this.#kept = new RowMemo(db, ['terms'], 'unchanged');
  }

  #one(where: string, params: (string | number)[]): TermRecord | undefined {
    const row = this.#db.get<TermRow>(`${SELECT} WHERE ${where} ORDER BY t.id LIMIT 1`, params);
    return row && termRecord(row);
  }

  get(kind: TermKind, id: number): TermRecord | undefined {
    const row = this.#db.get<TermRow>(BY_ID, [id, kind]);
    return row && termRecord(row);
  }

  getMany(ids: number[]): Map<number, TermRecord> {
    const found = new Map<number, TermRecord>();
    if (ids.length === 0) return found;
    if (ids.length <= FEW) {
      // An event's own few terms (every event write renders them): one lookup each costs less than
      // building and walking a json_each list (~5 µs against ~15 µs for two).
      for (const id of ids) {
        const row = this.#db.get<TermRow>(ANY_BY_ID, [id]);
        if (row) found.set(row.id, termRecord(row));
      }
      return found;
    }
    const sql = `${SELECT} WHERE t.id IN (SELECT value FROM json_each(?))`;
    return this.#kept.read(ids, (missing) =>
      this.#db.all<TermRow>(sql, [JSON.stringify(missing)]).map(termRecord),
    );
  }

  findBySlug(kind: TermKind, slug: string): TermRecord | undefined {
    return this.#one('t.kind = ? AND t.slug = ?', [kind, slug]);
  }

  findByName(kind: TermKind, name: string, parent?: number): TermRecord | undefined {
    if (parent === undefined) return this.#one('t.kind = ? AND t.name_key = ?', [kind, nameKey(name)]);
    return this.#one('t.kind = ? AND t.name_key = ? AND t.parent = ?', [kind, nameKey(name), parent]);
  }

  slugTaken(kind: TermKind, slug: string, exceptId = 0): boolean {
    const sql = 'SELECT 1 FROM terms WHERE kind = ? AND slug = ? AND id <> ? LIMIT 1';
    return this.#db.get(sql, [kind, slug, exceptId]) !== undefined;
  }

  insert(rec: Omit<TermRecord, 'id' | 'count'>): TermRecord {
    const { id } = this.#db.run(
      'INSERT INTO terms (kind, name, name_key, slug, description, parent) VALUES (?, ?, ?, ?, ?, ?)',
      [rec.kind, rec.name, nameKey(rec.name), rec.slug, rec.description, rec.parent],
    );
    return termRecord({ ...rec, id, count: 0 });
  }

  update(rec: Omit<TermRecord, 'count'>): TermRecord {
    const { changes } = this.#db.run(
      'UPDATE terms SET name = ?, name_key = ?, slug = ?, description = ?, parent = ? WHERE id = ? AND kind = ?',
      [rec.name, nameKey(rec.name), rec.slug, rec.description, rec.parent, rec.id, rec.kind],
    );
    if (changes === 0) {
      throw new StoreError('store-not-found', `updateTerm: no ${rec.kind} term with id ${rec.id}`);
    }
    return this.get(rec.kind, rec.id)!;
  }

  /** Inside a transaction: children move up to the term's parent; event links go by cascade. */
  delete(kind: TermKind, id: number): void {
    const term = this.#db.get<{ parent: number }>('SELECT parent FROM terms WHERE id = ? AND kind = ?', [
      id,
      kind,
    ]);
    if (!term) return;
    this.#db.run('UPDATE terms SET parent = ? WHERE parent = ? AND kind = ?', [term.parent, id, kind]);
    this.#db.run('DELETE FROM terms WHERE id = ?', [id]);
  }

  /** The category and all its descendants; `[]` when it is not a category. */
  descendants(id: number): number[] {
    return this.#db.all<{ id: number }>(DESCENDANTS, [id]).map((r) => r.id);
  }

  list(q: TermQuery): Page<TermRecord> {
    return runList(this.#db, termListSql(q), q, (rows: TermRow[]) => rows.map(termRecord));
  }
}
