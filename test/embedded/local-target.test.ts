/**
 * The local target: our server app in-process over its own SQLite file, as `npm run import` uses by
 * default; and what makes it safe — its `Local` scheme exists only in-process.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { LOCAL_USER, openLocalTarget } from '../../src/embedded/local-target.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { createHttpTransport } from '../../src/writer/index.ts';
import { eventQuery } from '../store/contract/fixtures.ts';
import { targetContract } from '../writer/contract.ts';
import { bodyOf, startServer, tempDir } from '../writer/setup.ts';

targetContract('the local target', async () => {
  const tmp = await tempDir();
  const target = await openLocalTarget({ dataFile: join(tmp.dir, 'calendar.db') });
  return {
    target,
    async dispose() {
      await target.close();
      await tmp.remove();
    },
  };
});

describe('the local target', () => {
  it('writes into the file that the server then serves, as the administrator "calsync"', async () => {
    const tmp = await tempDir();
    const dataFile = join(tmp.dir, 'calendar.db');
    try {
      const target = await openLocalTarget({ dataFile });
      expect(target.label).toBe(`local ${dataFile}`);
      const created = await target.create('event', bodyOf('event', 1));
      await target.close();

      const reopened = await openLocalTarget({ dataFile });
      expect((await reopened.get('event', created.id))?.slug).toBe('event-1');
      await reopened.close();

      const store = openSqliteStore(dataFile);
      const user = await store.findUser(LOCAL_USER);
      await store.close();
      expect(user?.role).toBe('administrator');
      expect(created.body.author).toBe(String(user?.id));
    } finally {
      await tmp.remove();
    }
  });

  it('leaves the events it writes queued for search, for the server of the file to index', async () => {
    const tmp = await tempDir();
    const dataFile = join(tmp.dir, 'calendar.db');
    const raw = () => new DatabaseSync(dataFile, { readOnly: true });
    const queued = () => {
      const db = raw();
      try {
        return (db.prepare('SELECT count(*) AS n FROM events_fts_pending').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      const target = await openLocalTarget({ dataFile });
      for (let n = 1; n <= 3; n++) await target.create('event', bodyOf('event', n));
      // Past the quiet period after which the store would index its queue in the background (500 ms).
      await new Promise((done) => setTimeout(done, 800));
      expect(queued()).toBe(3);
      await target.close();

      const store = openSqliteStore(dataFile);
      const found = await store.listEvents(eventQuery({ searchWords: ['event'] }));
      expect(found.total).toBe(3);
      await expect.poll(queued, { timeout: 5000 }).toBe(0);
      await store.close();
    } finally {
      await tmp.remove();
    }
  });

  it('its Local scheme is refused by the server that listens on the network', async () => {
    const tmp = await tempDir();
    const server = await startServer(join(tmp.dir, 'calendar.db'));
    const transport = createHttpTransport({ url: server.url });
    try {
      const res = await fetch(`${server.url}/calendar/events/v1/events`, {
        method: 'POST',
        headers: { authorization: `Local ${LOCAL_USER}`, 'content-type': 'application/json' },
        body: JSON.stringify(bodyOf('event', 1)),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('rest_forbidden');
    } finally {
      await transport.close();
      await server.close();
      await tmp.remove();
    }
  });
});
