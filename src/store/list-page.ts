/** Runs a built venue, organizer or term list query (list-sql.ts): the page, then its total. */
import type { Connection } from './connection.ts';
import type { ListSql } from './list-sql.ts';
import type { Page } from './store.ts';

export function runList<R, T>(
  db: Connection,
  sql: ListSql | null,
  q: { offset: number; limit: number },
  toItems: (rows: R[]) => T[],
): Page<T> {
  if (!sql) return { items: [], total: 0 };
  const rows = db.all<R>(sql.page, [...sql.params, q.limit, q.offset]);
  // A short, non-empty page (or an empty first page) already tells the total: no COUNT for the last
  // page or for small results.
  const total =
    rows.length < q.limit && (rows.length > 0 || q.offset === 0)
      ? q.offset + rows.length
      : db.count(sql.count, sql.params);
  return { items: toItems(rows), total };
}
