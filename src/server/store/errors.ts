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
  | 'store-group-misuse';

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
