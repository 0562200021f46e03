/**
 * The thread of `WalCheckpointer` (checkpointer.ts): its own connection to the file, a PASSIVE
 * checkpoint on each `checkpoint` message (it copies committed WAL frames into the database file
 * without waiting for, or blocking, the server's connection), and a clean close on `close`.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { path, closed } = workerData as { path: string; closed: Int32Array };
const db = new DatabaseSync(path);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
interface Progress {
  busy: number;
  /** Frames in the WAL, and frames copied into the database (SQLite's `nBackfill`). */
  log: number;
  checkpointed: number;
}

parentPort!.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    try {
      db.close();
    } finally {
      // The server's close() waits on this: the last connection to close removes the WAL.
      Atomics.store(closed, 0, 1);
      Atomics.notify(closed, 0);
      parentPort!.close();
    }
    return;
  }
  let log = 0;
  try {
    log = (checkpoint.get() as unknown as Progress).log;
  } catch {
    // SQLITE_BUSY (another process is checkpointing), SQLITE_FULL, an I/O error: the next request
    // tries again.
  }
  parentPort!.postMessage({ log });
});
