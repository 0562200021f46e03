/**
 * The one way the CLIs open the store: `--data` (or `CALSYNC_DATABASE_URL`) is either a SQLite file or a
 * PostgreSQL URL (`postgres://…`, `postgresql://…`). Public: `isDatabaseUrl`, `openStore`, `storeName`.
 */
import { resolve } from 'node:path';
import { type OpenOptions, openSqliteStore } from './sqlite.ts';
import type { Store } from './store.ts';

/** Whether `data` names a PostgreSQL database rather than a SQLite file. */
export function isDatabaseUrl(data: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(data);
}

/**
 * Opens the store `data` names. `options` are the SQLite store's (a PostgreSQL database is never opened
 * read-only: a server whose role cannot write gets its errors per write). The PostgreSQL client is loaded
 * only for a URL, so SQLite users never load it.
 */
export async function openStore(data: string, options: OpenOptions = {}): Promise<Store> {
  if (!isDatabaseUrl(data)) return openSqliteStore(resolve(data), options);
  const { openPostgresStore } = await import('./postgres.ts');
  return openPostgresStore(data);
}

/** `data` as messages show it: the absolute file, or the URL without its password. */
export function storeName(data: string): string {
  if (!isDatabaseUrl(data)) return resolve(data);
  try {
    const u = new URL(data);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
