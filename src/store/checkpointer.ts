/**
 * WAL checkpoints mostly off the event loop. SQLite's automatic checkpoint runs inside the COMMIT
 * that takes the WAL past 1,000 pages: it copies them into the database file and syncs twice.
 * Measured on event creates (~21 pages each), that was a COMMIT of ~11 ms on average and up to
 * ~200 ms every ~50 creates (~120–230 µs a create), during which the server answered nothing.
 *
 * So the server's connection turns it off (`wal_autocheckpoint = 0`), and every `COMMITS` commits a
 * worker thread with its own connection (checkpoint-worker.ts) copies the WAL: PASSIVE, so it neither
 * waits for nor blocks the server's reads and writes. The WAL starts over only at a write that finds
 * every frame copied, which a thread racing the writes never leaves behind (the WAL grew by every
 * write); so when the thread is done the connection copies the tail written meanwhile itself (~3 ms
 * every 200 creates, ~17 µs a create), and its next write starts the WAL over (~20 MB at most on the
 * bench). Measured on the bench's creates: ~980 against ~880 a second, p99 ~25 against ~28 ms.
 * Durability is SQLite's either way: the same checkpoints, partly by another connection.
 *
 * The thread starts at the first checkpoint wanted, so short-lived stores (tests, the CLI) never start
 * one. If it cannot start or fails, the connection checkpoints by itself again.
 */
import { Worker } from 'node:worker_threads';
import type { Connection } from './connection.ts';

/** Commits between checkpoints: ~4,000 WAL pages (16 MiB) of event creates. */
const COMMITS = 200;
/** SQLite's default, restored when the thread is not available. */
const AUTOCHECKPOINT_PAGES = 1000;
/** How long `close` waits for the thread to close its connection (the last one removes the WAL). */
const CLOSE_WAIT_MS = 5_000;

export class WalCheckpointer {
  readonly #db: Connection;
  readonly #path: string;
  #worker: Worker | undefined;
  /** Set to 1 by the thread once its connection is closed. */
  #workerClosed = new Int32Array(new SharedArrayBuffer(4));
  /** Commits since the last checkpoint was asked for. */
  #commits = 0;
  #inFlight = false;
  #failed = false;
  #closed = false;

  constructor(db: Connection, path: string) {
    this.#db = db;
    this.#path = path;
    db.db.exec('PRAGMA wal_autocheckpoint = 0');
  }

  /** A transaction committed (Connection calls this). */
  committed(): void {
    if (++this.#commits < COMMITS || this.#inFlight || this.#failed || this.#closed) return;
    this.#commits = 0;
    this.#inFlight = true;
    try {
      this.#thread().postMessage('checkpoint');
    } catch {
      this.#fallBack();
    }
  }

  close(): void {
    this.#closed = true;
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    worker.postMessage('close');
    // A thread that did not answer in time (dead, or stuck) is stopped rather than waited for.
    if (Atomics.wait(this.#workerClosed, 0, 0, CLOSE_WAIT_MS) === 'timed-out') void worker.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
      workerData: { path: this.#path, closed: this.#workerClosed },
    });
    worker.unref();
    worker.on('message', () => {
      this.#inFlight = false;
      // The tail: what was committed while the thread copied the rest.
      if (this.#closed || !this.#db.db.isOpen || this.#db.db.isTransaction) return;
      try {
        this.#db.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      } catch {
        // A full disk (SQLITE_FULL) or an I/O error: thrown here, in an event handler, it killed the
        // process (issue 15). The frames stay in the WAL, which is as durable; the next checkpoint tries
        // again, and the writes that fail meanwhile answer for themselves.
      }
    });
    // The thread's own errors (its connection failing to open, say) reach this handler, not the process.
    worker.on('error', () => this.#fallBack());
    worker.on('exit', () => {
      if (!this.#closed) this.#fallBack();
    });
    this.#worker = worker;
    return worker;
  }

  #fallBack(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#worker = undefined;
    if (!this.#closed && this.#db.db.isOpen) {
      try {
        this.#db.db.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      } catch {
        // Called from the thread's event handlers: nothing may escape them (see above).
      }
    }
  }
}
