/**
 * Several API servers on one PostgreSQL database (issue 16 step 4): what one server holds in memory
 * follows what the others do, through notices (LISTEN/NOTIFY) on a real private cluster. The failed-login
 * throttle counts the failures of every server: guessing behind two servers gets no more attempts than
 * behind one, also after a server lost its listening connection and came back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Notices, openNotices } from '../../src/store/notices.ts';
import { type Postgres, postgresMissing, startPostgres } from '../helpers/postgres.ts';
import { type Harness, makeApp } from './harness.ts';

const missing = postgresMissing();
if (missing) console.warn(`test/server/several-servers.slow.test.ts skipped: ${missing}`);

const MAX = 3;
const BAD = { authorization: `Basic ${Buffer.from('editor:wrong password').toString('base64')}` };

/** Polls `probe` until it is true, for at most `ms`: what another process did arrives by notice. */
async function within(ms: number, probe: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(missing)('several servers on one PostgreSQL', () => {
  let pg: Postgres;
  const open: { app: Harness; notices: Notices }[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  afterEach(async () => {
    for (const { app, notices } of open.splice(0)) {
      await app.app.close();
      await notices.close();
    }
  });

  async function server(): Promise<Harness> {
    const notices = await openNotices(pg.url);
    const app = await makeApp({ authThrottle: { maxFailures: MAX, windowMs: 60_000 }, notices });
    open.push({ app, notices });
    return app;
  }

  const fail = async (h: Harness) => (await h.call('GET', '/events', { headers: BAD })).status;
  const rightPassword = async (h: Harness) => (await h.call('GET', '/events', { as: 'editor' })).status;

  it('failed logins on one server block the address on the other within a second', async () => {
    const [a, b] = [await server(), await server()];
    for (let i = 0; i < MAX; i++) expect(await fail(a)).toBe(401);
    expect(await within(1_000, async () => (await rightPassword(b)) === 429)).toBe(true);
    // Public reads go on on both.
    expect((await b.call('GET', '/events')).status).toBe(200);
  });

  it('failures spread over both servers add up', async () => {
    const [a, b] = [await server(), await server()];
    expect(await fail(a)).toBe(401);
    expect(await fail(b)).toBe(401);
    // Give each notice time to arrive before the last failure, which is then the MAXth on both.
    await new Promise((r) => setTimeout(r, 200));
    expect(await fail(a)).toBe(401);
    expect(await within(1_000, async () => (await rightPassword(b)) === 429)).toBe(true);
    expect(await rightPassword(a)).toBe(429);
  });

  it('a server whose listening connection was cut hears the others again once it is back', async () => {
    const [a, b] = [await server(), await server()];
    const resynced = new Promise<void>((resolve) => open[1].notices.onResync(resolve));
    // Every listening connection but the publishers' pools: cut them all, as a database restart would.
    const { Client } = (await import('pg')).default;
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
    );
    await admin.end();
    await resynced;
    for (let i = 0; i < MAX; i++) expect(await fail(a)).toBe(401);
    expect(await within(1_000, async () => (await rightPassword(b)) === 429)).toBe(true);
  }, 20_000);
});
