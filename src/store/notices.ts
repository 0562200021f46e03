/**
 * Notices between the processes that share one PostgreSQL database: PostgreSQL's LISTEN/NOTIFY, so
 * that several API servers keep what they hold in memory (the failed-login throttle, kept answers)
 * in step with each other's writes (issue 16 step 4).
 *
 * A notice is a channel and a short text. Each process hears the notices of the others, not its own
 * (it acts on its own at once). Listening takes one dedicated connection; it reconnects with backoff
 * when the connection is lost, and then tells `onResync` listeners that notices may have been missed
 * while it was away (a cache should then treat everything as changed).
 *
 * Public: `Notices`, `openNotices(url, options)`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface Notices {
  /** Sends `text` on `channel` to every other process listening on it (at most ~7,900 bytes). */
  publish(channel: string, text: string): void;
  /**
   * Sends as `publish` does, but as part of the transaction open on `client`: PostgreSQL delivers it at
   * that transaction's COMMIT, and not at all when it rolls back (NOTIFY is transactional).
   */
  publishIn(client: pg.ClientBase, channel: string, text: string): Promise<void>;
  /** Calls `listener` with the text of every notice on `channel` from another process, once listening. */
  subscribe(channel: string, listener: (text: string) => void): Promise<void>;
  /** Called after the listening connection was lost and is back: notices in between are lost. */
  onResync(listener: () => void): void;
  close(): Promise<void>;
}

export interface NoticesOptions {
  /** Told of connection errors (they are retried); default none. */
  onError?: (err: Error) => void;
  /** Longest wait between reconnection attempts, ms; default 5,000. */
  maxBackoffMs?: number;
}

/** A channel name as PostgreSQL needs it in LISTEN: an identifier, quoted. */
const quoted = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

export async function openNotices(url: string, options: NoticesOptions = {}): Promise<Notices> {
  // A process's own notices come back to it too: each is tagged with who sent it.
  const self = randomUUID();
  const listeners = new Map<string, Set<(text: string) => void>>();
  const resyncs = new Set<() => void>();
  const maxBackoff = options.maxBackoffMs ?? 5_000;
  // Publishing runs on a pool of its own: the listening connection must stay free to hear.
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', (err) => options.onError?.(err));
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  async function listen(): Promise<void> {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      const payload = n.payload ?? '';
      const space = payload.indexOf(' ');
      if (payload.slice(0, space) === self) return;
      for (const l of listeners.get(n.channel) ?? []) l(payload.slice(space + 1));
    });
    c.on('error', (err) => {
      options.onError?.(err);
      lost(c);
    });
    c.on('end', () => lost(c));
    await c.connect();
    for (const channel of listeners.keys()) await c.query(`LISTEN ${quoted(channel)}`);
    client = c;
  }

  function lost(c: pg.Client, backoff = 100): void {
    if (closed || client !== c) return;
    client = null;
    c.end().catch(() => {});
    const attempt = (wait: number) => {
      retry = setTimeout(() => {
        listen().then(
          () => {
            for (const r of resyncs) r();
          },
          (err) => {
            options.onError?.(err);
            if (!closed) attempt(Math.min(wait * 2, maxBackoff));
          },
        );
      }, wait);
      retry.unref();
    };
    attempt(backoff);
  }

  await listen();
  return {
    publish(channel, text) {
      pool
        .query('SELECT pg_notify($1, $2)', [channel, `${self} ${text}`])
        .catch((err) => options.onError?.(err));
    },
    async publishIn(c, channel, text) {
      await c.query('SELECT pg_notify($1, $2)', [channel, `${self} ${text}`]);
    },
    async subscribe(channel, listener) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        // Without a connection now, the reconnection listens to every channel subscribed.
        await client?.query(`LISTEN ${quoted(channel)}`);
      }
      set.add(listener);
    },
    onResync(listener) {
      resyncs.add(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await Promise.allSettled([c?.end(), pool.end()]);
    },
  };
}
