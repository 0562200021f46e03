/**
 * Asynchronous transactions on the one synchronous SQLite connection (`Store.transaction`), and on the
 * PostgreSQL store's pool (postgres-connection.ts), which keeps the same order for the same contract.
 *
 * A transaction's body awaits, so other callers' code can run between its statements; on one connection
 * their statements would land inside its BEGIN…COMMIT — read its uncommitted writes, or be committed or
 * rolled back with it. So the connection is held by one transaction at a time:
 * - transactions run one after another, in the order they were asked for;
 * - a call of the store from outside the open transaction waits until it ends (`busy`, `idle`);
 * - which calls are inside is told by their async context (AsyncLocalStorage): every call made in the
 *   body and the async calls it starts, and nothing else — not a depth counter, which other callers'
 *   code would see move too. A nested transaction joins as a savepoint (Connection.transactionAsync);
 *   nested ones of one transaction run one at a time.
 *
 * Bodies that await only the store (SQLite answers at once) hold the connection for microtasks, never
 * across I/O, so in practice nobody waits; a body that awaits the network holds everybody up.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What runs the transactions: a connection whose transaction (or savepoint, when nested) wraps `fn`. */
export interface TransactionRunner {
  transactionAsync<T>(fn: () => Promise<T>): Promise<T>;
  /** Set while a transaction holds the connection (background upkeep must not join it). */
  held: boolean;
}

/** A transaction, or a savepoint of one, as seen from the calls inside it. */
interface Frame {
  /** The outermost transaction this frame is part of. */
  readonly root: Frame;
  /** Settles when the last savepoint asked for inside this frame has ended. */
  tail: Promise<void>;
}

export class Transactions {
  readonly #db: TransactionRunner;
  readonly #context = new AsyncLocalStorage<Frame>();
  /** The outermost transaction holding the connection, if any. */
  #open: Frame | undefined;
  /** Transactions asked for and not yet ended, and a promise that settles when the last of them has. */
  #pending = 0;
  #tail: Promise<void> = Promise.resolve();

  constructor(db: TransactionRunner) {
    this.#db = db;
  }

  /** Whether the caller must wait (`idle`) before using the connection: a transaction it is not part of holds it. */
  get busy(): boolean {
    return this.#open !== undefined && this.#context.getStore()?.root !== this.#open;
  }

  /** Whether the caller runs inside the open transaction (its statements belong to it). */
  get inside(): boolean {
    return this.#open !== undefined && this.#context.getStore()?.root === this.#open;
  }

  /** Settles when no transaction the caller is not part of holds the connection. */
  async idle(): Promise<void> {
    while (this.busy) await this.#tail;
  }

  /** Runs `fn` as a transaction of its own, or as a savepoint of the caller's transaction. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const frame = this.#context.getStore();
    if (frame !== undefined && frame.root === this.#open) return this.#savepoint(frame, fn);
    return this.#outermost(fn);
  }

  async #outermost<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Without others waiting it starts at once, in the caller's turn.
    if (this.#pending++ > 0) await previous;
    const frame = { tail: Promise.resolve() } as { root: Frame; tail: Promise<void> };
    frame.root = frame;
    this.#open = frame;
    this.#db.held = true;
    try {
      return await this.#context.run(frame, () => this.#db.transactionAsync(fn));
    } finally {
      this.#open = undefined;
      this.#db.held = false;
      this.#pending--;
      release();
    }
  }

  async #savepoint<T>(parent: Frame, fn: () => Promise<T>): Promise<T> {
    const previous = parent.tail;
    let release!: () => void;
    parent.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      const frame: Frame = { root: parent.root, tail: Promise.resolve() };
      return await this.#context.run(frame, () => this.#db.transactionAsync(fn));
    } finally {
      release();
    }
  }
}
