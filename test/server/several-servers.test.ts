/**
 * Several API servers on one PostgreSQL database (issue 16 step 4; `npm run test:pg`): what one server
 * keeps in memory follows what the others do, through notices (LISTEN/NOTIFY). Two `npm run serve`
 * processes on one database: a write on one is in the other's answers within a second, its kept answers
 * and its rendered feed included; the failed-login throttle counts the failures of both, so guessing behind two servers gets no
 * more attempts than behind one — also after a server lost its listening connection and came back.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { benchEditor, type ServeProcess, startServe, stopServe } from '../../bench/serve-process.ts';
import { type Notices, openNotices } from '../../src/store/notices.ts';
import { openStore } from '../../src/store/open.ts';
import { type PostgresStores, postgresStoresAt } from '../helpers/postgres-store.ts';
import { within } from '../helpers/within.ts';
import { type Harness, makeApp } from './harness.ts';

const url = inject('postgresUrl');
const NS = '/calendar/events/v1';
const BAD = { authorization: `Basic ${Buffer.from('editor:wrong password').toString('base64')}` };

describe.skipIf(url === undefined)('several servers on one PostgreSQL', () => {
  let stores: PostgresStores;
  beforeAll(async () => {
    stores = await postgresStoresAt(url!);
  });
  afterAll(async () => stores?.stop());

  describe('two npm run serve processes', () => {
    let servers: ServeProcess[] = [];
    let authorization: string;
    afterEach(async () => {
      await Promise.all(servers.map((s) => stopServe(s.child)));
      servers = [];
    });

    async function twoServers(): Promise<[string, string]> {
      const database = await stores.newDatabase();
      const store = await openStore(database);
      try {
        authorization = (await benchEditor(store)).authorization;
      } finally {
        await store.close();
      }
      servers = await Promise.all([startServe({ dataFile: database }), startServe({ dataFile: database })]);
      return [servers[0].origin, servers[1].origin];
    }

    const send = async (origin: string, path: string, init: RequestInit = {}) => {
      const res = await fetch(`${origin}${NS}${path}`, init);
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const titles = async (origin: string) =>
      ((await send(origin, '/events?per_page=50')).json.events as { title: string }[]).map((e) => e.title);
    const write = (method: string, body: object) => ({
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

    /** The SUMMARYs of a server's feed, which it keeps rendered until its data changes (routes/feeds.ts). */
    const feedTitles = async (origin: string) => {
      const ics = await (await fetch(`${origin}/feeds/all.ics`)).text();
      return [...ics.matchAll(/^SUMMARY:(.*)\r?$/gm)].map((m) => m[1]);
    };

    it("a write on one is in the other's answers, kept ones and its feed included, within a second", async () => {
      const [a, b] = await twoServers();
      // Asked twice: the second answer comes from b's response cache, which a's writes must reach.
      expect(await titles(b)).toEqual([]);
      expect(await titles(b)).toEqual([]);
      expect(await feedTitles(b)).toEqual([]);
      const event = {
        title: 'Written on A',
        start_date: '2027-03-01 19:00:00',
        end_date: '2027-03-01 21:00:00',
      };
      const created = await send(a, '/events', write('POST', event));
      expect(created.status).toBe(201);
      expect(await within(1_000, async () => (await titles(b)).includes('Written on A'))).toBe(true);

      expect(await titles(b)).toEqual(['Written on A']);
      expect(
        (await send(a, `/events/${created.json.id}`, write('POST', { title: 'Renamed on A' }))).status,
      ).toBe(200);
      expect(await within(1_000, async () => (await titles(b)).includes('Renamed on A'))).toBe(true);
      expect(await within(1_000, async () => (await feedTitles(b)).includes('Renamed on A'))).toBe(true);
    }, 60_000);

    it('failed logins on one block the address on the other', async () => {
      const [a, b] = await twoServers();
      // serve's default: 10 failures per address in 10 minutes.
      for (let i = 0; i < 10; i++) expect((await send(a, '/events', { headers: BAD })).status).toBe(401);
      expect(
        await within(
          1_000,
          async () => (await send(b, '/events', { headers: { authorization } })).status === 429,
        ),
      ).toBe(true);
      expect((await send(b, '/events')).status).toBe(200);
    }, 60_000);
  });

  describe('the throttle of apps sharing notices', () => {
    const MAX = 3;
    const open: { app: Harness; notices: Notices }[] = [];
    let database: string;
    beforeAll(async () => {
      // Notices are per database: one of its own, so that no other test's reach these apps.
      database = await stores.newDatabase();
    });
    afterEach(async () => {
      for (const { app, notices } of open.splice(0)) {
        await app.app.close();
        await notices.close();
      }
    });

    async function server(): Promise<Harness> {
      const notices = await openNotices(database);
      const app = await makeApp({ authThrottle: { maxFailures: MAX, windowMs: 60_000 }, notices });
      open.push({ app, notices });
      return app;
    }
    const fail = async (h: Harness) => (await h.call('GET', '/events', { headers: BAD })).status;
    const rightPassword = async (h: Harness) => (await h.call('GET', '/events', { as: 'editor' })).status;

    it('failures spread over both servers add up', async () => {
      const [a, b] = [await server(), await server()];
      expect(await fail(a)).toBe(401);
      expect(await fail(b)).toBe(401);
      // Each notice arrives before the last failure, which is then the MAXth on both.
      await new Promise((r) => setTimeout(r, 200));
      expect(await fail(a)).toBe(401);
      expect(await within(1_000, async () => (await rightPassword(b)) === 429)).toBe(true);
      expect(await rightPassword(a)).toBe(429);
    });

    it('a server whose listening connection was cut hears the others again once it is back', async () => {
      const [a, b] = [await server(), await server()];
      const resynced = new Promise<void>((resolve) => open[1].notices.onResync(resolve));
      // The listening connections of this database, cut as a database restart would.
      const admin = new pg.Client({ connectionString: database });
      await admin.connect();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      await admin.end();
      await resynced;
      for (let i = 0; i < MAX; i++) expect(await fail(a)).toBe(401);
      expect(await within(1_000, async () => (await rightPassword(b)) === 429)).toBe(true);
    }, 20_000);
  });
});
