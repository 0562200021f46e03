/** Runs a built list query (list-sql.ts): the page, then its total. */
import type { Connection } from './connection.ts';
import type { ListSql } from './list-sql.ts';
import type { Page } from './store.ts';

/** `tuples`: read the page as arrays (`Connection.tuples`) rather than objects. */
export function runList<R, T>(
  db: Connection,
  sql: ListSql | null,
  q: { offset: number; limit: number },
  toItems: (rows: R[]) => T[],
  tuples = false,
): Page<T> {
  if (!sql) return { items: [], total: 0 };
  const params = [...sql.params, q.limit, q.offset];
  const rows = tuples ? (db.tuples(sql.page, params) as R[]) : db.all<R>(sql.page, params);
  // A short, non-empty page (or an empty first page) already tells the total: no COUNT for the last
  // page or for small results.
  const total =
    rows.length < q.limit && (rows.length > 0 || q.offset === 0)
      ? q.offset + rows.length
      : db.count(sql.count, sql.params);
  return { items: toItems(rows), total };
}
