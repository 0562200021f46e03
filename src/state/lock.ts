/**
 * The run lock: two runs of one pipeline must never overlap (a nightly job that runs long meets the next
 * one). The lock is SQLite's own exclusive lock on a small file beside the sync state, held for the run:
 * the operating system releases it when the process ends however it ends (a kill, a crash, a reboot), so
 * there is no stale lock to detect and no pid to trust after a reboot.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describeFault, StoreError, storageFault } from '../store/errors.ts';

export class LockedError extends Error {
  readonly code = 'pipeline_locked';
  readonly file: string;
  constructor(file: string) {
    super(`another run of this pipeline holds the lock ${file}; wait for it to finish`);
    this.file = file;
  }
}

/** Takes the lock at `file` or throws LockedError at once; returns the release function. */
export function acquireLock(file: string): () => void {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    db = new DatabaseSync(file, { timeout: 0 });
    // EXCLUSIVE locking mode keeps the lock after the transaction too, until the connection closes.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE');
  } catch (err) {
    db?.close();
    if ((err as { errcode?: number }).errcode === 5 /* SQLITE_BUSY */) throw new LockedError(file);
    // A read-only or full disk: SQLite's bare "unable to open database file" named no file.
    const fault = storageFault(err);
    if (fault)
      throw new StoreError('store-unusable', describeFault(fault, file, err), { path: file, cause: err });
    throw err;
  }
  const held = db;
  return () => {
    if (held.isOpen) held.close();
  };
}
