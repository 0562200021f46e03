/** Errors of the store room: a stable `code` for callers and tests, a plain message for people. */

export type StoreErrorCode =
  /** The database file was written by a newer calsync (its schema version is unknown here). */
  | 'store-schema-too-new'
  /** A migration step failed; the file stays at the last version that applied. */
  | 'store-migration-failed'
  /** An update or link named a record that does not exist. */
  | 'store-not-found'
  /** `transaction(fn)` got an async `fn`: its awaits would run after COMMIT. */
  | 'store-async-transaction'
  /** `beginGroup` with a transaction open, or `commitGroup` without a group. */
  | 'store-group-misuse'
  /** The file cannot be opened or written: its disk is full, it is read-only, or it is not a database. */
  | 'store-unusable';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  /** The database file, when the error is about one. */
  readonly path: string | undefined;

  constructor(code: StoreErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StoreError';
    this.code = code;
    this.path = options.path;
  }
}

/**
 * What went wrong with the storage under a failed operation, or null when it was not the storage.
 * SQLite's primary result codes (node:sqlite's `errcode`, extended codes carry them in the low byte),
 * PostgreSQL's SQLSTATEs (the `pg` client's `code`; a lost connection is Node's socket error) and Node's
 * file-system errors (uploads) all count.
 */
export type StorageFault = 'full' | 'read-only' | 'busy' | 'io' | 'cannot-open';

const SQLITE_FAULTS: Record<number, StorageFault> = {
  5: 'busy', // SQLITE_BUSY
  6: 'busy', // SQLITE_LOCKED
  8: 'read-only', // SQLITE_READONLY
  10: 'io', // SQLITE_IOERR
  13: 'full', // SQLITE_FULL
  14: 'cannot-open', // SQLITE_CANTOPEN
};
const FS_FAULTS: Record<string, StorageFault> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read-only',
  EIO: 'io',
};

/** PostgreSQL SQLSTATEs (Appendix A of its manual) that are the storage's fault, not the request's. */
const POSTGRES_FAULTS: Record<string, StorageFault> = {
  '53100': 'full', // disk_full
  '25006': 'read-only', // read_only_sql_transaction (a hot standby, default_transaction_read_only)
  '55P03': 'busy', // lock_not_available
  '57P01': 'io', // admin_shutdown
  '57P03': 'cannot-open', // cannot_connect_now (starting up)
  '08000': 'io', // connection_exception
  '08003': 'io', // connection_does_not_exist
  '08006': 'io', // connection_failure
  '3D000': 'cannot-open', // invalid_catalog_name: no such database
  ECONNREFUSED: 'cannot-open',
  ECONNRESET: 'io',
};

export function storageFault(err: unknown): StorageFault | null {
  const e = err as { code?: unknown; errcode?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return null;
  if (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number')
    return SQLITE_FAULTS[e.errcode & 0xff] ?? null;
  if (typeof e.code === 'string' && e.code in FS_FAULTS) return FS_FAULTS[e.code];
  if (typeof e.code === 'string' && e.code in POSTGRES_FAULTS) return POSTGRES_FAULTS[e.code];
  if (err instanceof StoreError && err.code === 'store-unusable') return storageFault(err.cause);
  return null;
}

const FAULT_TEXT: Record<StorageFault, string> = {
  full: 'its disk is full',
  'read-only': 'it is read-only',
  busy: 'another process holds it locked',
  io: 'reading or writing it failed (I/O error)',
  'cannot-open': 'it cannot be opened (missing directory, no permission, or a read-only directory)',
};

/** One line for people: `the data file /x/y.db is not usable: its disk is full (database or disk is full)`. */
export function describeFault(fault: StorageFault, path: string, err: unknown): string {
  const detail = (err as Error | undefined)?.message;
  return `the file ${path} is not usable: ${FAULT_TEXT[fault]}${detail ? ` (${detail})` : ''}`;
}
