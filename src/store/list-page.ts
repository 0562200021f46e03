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
  const total = pageTotal(rows.length, q) ?? db.count(sql.count, sql.params);
  return { items: toItems(rows), total };
}

/**
 * The total a page of `n` rows already tells: a short, non-empty page (or an empty first page) needs no
 * COUNT, for the last page or for small results. Undefined when the COUNT must run.
 */
export function pageTotal(n: number, q: { offset: number; limit: number }): number | undefined {
  return n < q.limit && (n > 0 || q.offset === 0) ? q.offset + n : undefined;
}
