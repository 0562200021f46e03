/**
 * Demo mode on PostgreSQL (issue 16 step 4; `npm run test:pg`): several servers on one database, each
 * with its demo reset, load the sample once per due time — on start and at 00:00 UTC, driven by injected
 * clocks and timers — and serve what the SQLite demo serves; a visitor's write is gone after the reset
 * on every server at once, users and their application passwords stay. Then two `npm run serve -- --demo`
 * processes for real.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { type ServeProcess, startServe, stopServe } from '../../bench/serve-process.ts';
import { DemoReset, type DemoResetResult } from '../../src/embedded/demo.ts';
import { loadIntoPostgres } from '../../src/embedded/demo-postgres.ts';
import { type Notices, openNotices } from '../../src/store/notices.ts';
import { openStore } from '../../src/store/open.ts';
import type { PostgresStore } from '../../src/store/postgres.ts';
import { type PostgresStores, postgresStoresAt } from '../helpers/postgres-store.ts';
import { within } from '../helpers/within.ts';
import { type Harness, makeApp } from '../server/harness.ts';

const url = inject('postgresUrl');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(ROOT, 'samples/community-calendar.ics');
const EXTRA = {
  title: 'Written by a visitor',
  start_date: '2026-12-01 19:00:00',
  end_date: '2026-12-01 21:00:00',
};

interface Server {
  h: Harness;
  demo: DemoReset;
  timers: { fn: () => void; ms: number }[];
  logs: string[];
  notices?: Notices;
}

describe.skipIf(url === undefined)('demo mode on PostgreSQL', () => {
  let stores: PostgresStores;
  let database: string;
  let clock: Date;
  let dir: string;
  const servers: Server[] = [];
  beforeAll(async () => {
    stores = await postgresStoresAt(url!);
  });
  afterAll(async () => stores?.stop());
  beforeEach(async () => {
    database = await stores.newDatabase();
    clock = new Date('2026-11-21T22:30:00Z');
    dir = await mkdtemp(join(tmpdir(), 'calsync-demo-pg-'));
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.demo.stop();
      await s.h.app.close();
      await s.notices?.close();
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** An app with its demo reset, on the test's database (PostgreSQL) or on a SQLite file. */
  async function server(on: 'postgres' | 'sqlite' = 'postgres'): Promise<Server> {
    const file = join(dir, 'demo.db');
    let notices: Notices | undefined;
    let store: PostgresStore | undefined;
    if (on === 'postgres') {
      store = (await openStore(database)) as PostgresStore;
      notices = await openNotices(database);
      await store.shareChanges(notices);
    }
    let reset: DemoReset | undefined;
    const h = await makeApp({
      ...(store ? { store, notices } : { path: file }),
      now: () => clock,
      demo: { nextReset: () => reset!.nextReset() },
    });
    const timers: Server['timers'] = [];
    const logs: string[] = [];
    reset = new DemoReset({
      dataFile: on === 'sqlite' ? file : undefined,
      store: h.store,
      sampleFile: SAMPLE,
      siteUrl: 'https://cal.example.org',
      apiBase: 'https://cal.example.org/api',
      now: () => clock,
      setTimer: (fn, ms) => {
        timers.push({ fn, ms });
        return { cancel: () => undefined };
      },
      logger: { info: (_, msg) => logs.push(msg), error: (_, msg) => logs.push(msg) },
    });
    const s = { h, demo: reset, timers, logs, notices };
    servers.push(s);
    return s;
  }

  async function sql<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      return (await client.query<R>(text)).rows;
    } finally {
      await client.end();
    }
  }

  const titles = async (s: Server) =>
    ((await s.h.call('GET', '/events?per_page=50')).json.events as { title: string }[]).map((e) => e.title);

  /** What a visitor sees of the calendar: every list's total, the first page of events, terms and counts. */
  async function seen(s: Server): Promise<unknown> {
    const total = async (path: string) => Number((await s.h.call('GET', path)).headers['x-tec-total']);
    const events = (await s.h.call('GET', '/events?per_page=50')).json.events.map(
      (e: Record<string, unknown>) => ({
        id: e.id,
        title: e.title,
        start: e.utc_start_date,
        venue: (e.venue as { id?: number } | undefined)?.id,
        organizers: (e.organizer as { id: number }[]).map((o) => o.id),
        categories: (e.categories as { id: number }[]).map((c) => c.id),
        tags: (e.tags as { id: number }[]).map((t) => t.id),
      }),
    );
    const terms = async (kind: string) =>
      (await s.h.call('GET', `/${kind}?per_page=100`)).json[kind].map(
        (t: { id: number; name: string; count: number }) => [t.id, t.name, t.count],
      );
    return {
      events: await total('/events?per_page=1'),
      venues: await total('/venues?per_page=1'),
      organizers: await total('/organizers?per_page=1'),
      page: events,
      categories: await terms('categories'),
      tags: await terms('tags'),
      search: (await s.h.call('GET', '/events?search=music&per_page=50')).json.events.map(
        (e: { id: number }) => e.id,
      ),
    };
  }

  it('serves what the SQLite demo serves, and a second server starting the same day keeps it', async () => {
    const a = await server();
    const b = await server();
    const loaded = await a.demo.resetOnStart();
    expect(loaded).toMatchObject({ loaded: true, failed: 0 });
    expect(loaded.events).toBeGreaterThan(400);
    const [{ n }] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM events');
    expect(n).toBe(loaded.events);

    // Another server starting the same day with the same sample leaves the data alone, a visitor's too.
    const extra = await a.h.created('/events', EXTRA, 'editor');
    expect(await b.demo.resetOnStart()).toMatchObject({ loaded: false, events: loaded.events });
    expect(b.logs).toContain(
      'demo reset already done by another server on the database; the data stays as it is',
    );
    expect((await b.h.call('GET', `/events/${extra.id}`)).status).toBe(200);
    await a.h.call('DELETE', `/events/${extra.id}?force=true`, { as: 'administrator' });

    const sqlite = await server('sqlite');
    await sqlite.demo.reset();
    const expected = await seen(sqlite);
    expect((expected as { search: number[] }).search.length).toBeGreaterThan(0);
    expect(await seen(a)).toEqual(expected);
    expect(await seen(b)).toEqual(expected);
  }, 60_000);

  it('a reset due on two servers at once loads the sample once; the visitor is gone on both, users stay', async () => {
    const [a, b] = [await server(), await server()];
    const start = await a.demo.resetOnStart();
    await b.demo.resetOnStart();
    a.demo.start();
    b.demo.start();
    expect(a.timers[0].ms).toBe(90 * 60_000);
    const [posts] = await sql<{ max: number }>('SELECT max(id) AS max FROM posts');

    const extra = await a.h.created('/events', EXTRA, 'editor');
    clock = new Date('2026-11-22T00:00:00Z');
    // Both have answered (and keep the answers) before the reset: whichever does not reset must hear of it.
    expect(await within(1_000, async () => (await titles(b)).includes(EXTRA.title))).toBe(true);
    for (const s of [a, b]) {
      expect(await titles(s)).toContain(EXTRA.title);
      expect((await s.h.call('GET', `/events/${extra.id}`)).status).toBe(200);
    }

    a.timers[0].fn();
    b.timers[0].fn();
    // The resets the timers started (reset() joins a running one).
    const results: DemoResetResult[] = await Promise.all([a.demo.reset(), b.demo.reset()]);
    expect(results.map((r) => r.loaded).sort()).toEqual([false, true]);
    expect(results.map((r) => r.events)).toEqual([start.events, start.events]);
    const logged = [...a.logs, ...b.logs];
    expect(logged.filter((m) => m === 'demo data reset to the sample calendar')).toHaveLength(2); // start + due
    const resets = await sql<{ due_utc: string; events: number }>(
      'SELECT due_utc, events FROM calsync_demo_resets ORDER BY due_utc',
    );
    expect(resets).toEqual([
      { due_utc: '2026-11-21 00:00:00', events: start.events },
      { due_utc: '2026-11-22 00:00:00', events: start.events },
    ]);
    const [{ n }] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM events');
    expect(n).toBe(start.events);

    for (const s of [a, b]) {
      expect(await within(1_000, async () => !(await titles(s)).includes(EXTRA.title))).toBe(true);
      expect((await s.h.call('GET', `/events/${extra.id}`)).status).toBe(404);
      // The editor and its application password survived the reset.
      expect((await s.h.call('GET', '/events?status=draft', { as: 'editor' })).status).toBe(200);
    }
    // New posts get new ids: none is handed out again (the sequences moved past every id).
    const next = await b.h.created('/events', { ...EXTRA, title: 'After the reset' }, 'editor');
    expect(next.id).toBeGreaterThan(Math.max(posts.max, extra.id));
    expect(a.timers.at(-1)!.ms).toBe(24 * 60 * 60_000);
    expect(b.timers.at(-1)!.ms).toBe(24 * 60 * 60_000);
  }, 60_000);

  it('refuses to replace a calendar the demo did not load', async () => {
    const a = await server();
    await a.h.created('/events', EXTRA, 'editor');
    await expect(a.demo.resetOnStart()).rejects.toThrow(/content that demo mode did not load/);
    expect(await titles(a)).toEqual([EXTRA.title]);
  });

  it("copies a later migration's table too, each value cast to its column's type", async () => {
    // A table the store does not have (yet), in the served database and in the sample's file alike.
    await sql(`CREATE TABLE extras (id serial PRIMARY KEY, flag boolean NOT NULL, at timestamptz,
      doc jsonb, raw bytea, author integer, shout text GENERATED ALWAYS AS (upper(doc->>'name')) STORED)`);
    await sql(`INSERT INTO extras (flag, doc) VALUES (true, '{"name": "visitor"}')`);
    const file = join(dir, 'sample.db');
    const sample = new DatabaseSync(file);
    sample.exec(`CREATE TABLE extras (id INTEGER PRIMARY KEY, flag INTEGER, at TEXT, doc TEXT, raw BLOB,
      author INTEGER, unknown TEXT);
      INSERT INTO extras VALUES (7, 0, '2026-11-22 00:30:00', '{"name": "café"}', x'00ff', 99, 'x'),
        (9, 1, NULL, NULL, NULL, 98, NULL);`);
    sample.close();
    const store = (await openStore(database)) as PostgresStore;
    try {
      const reset = { rule: 'now', due: clock, sample: '-', owner: 5, now: clock } as const;
      expect(await loadIntoPostgres(store, file, reset, 0)).toEqual({ loaded: true });
    } finally {
      await store.close();
    }
    const rows = await sql(
      `SELECT id, flag, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS at, doc, encode(raw, 'hex') AS raw,
        author, shout FROM extras ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        id: 7,
        flag: false,
        at: '2026-11-22 00:30',
        doc: { name: 'café' },
        raw: '00ff',
        author: 5,
        shout: 'CAFÉ',
      },
      { id: 9, flag: true, at: null, doc: null, raw: null, author: 5, shout: null },
    ]);
    // The serial moved past the copied ids; content tables the sample lacks were emptied.
    expect(await sql("SELECT nextval('extras_id_seq')::int AS id")).toEqual([{ id: 10 }]);
    expect(await sql('SELECT count(*)::int AS n FROM posts')).toEqual([{ n: 0 }]);
  });

  describe('two npm run serve -- --demo processes', () => {
    let processes: ServeProcess[] = [];
    afterEach(async () => {
      await Promise.all(processes.map((p) => stopServe(p.child)));
      processes = [];
    });

    it('serve the sample, loaded by the first', async () => {
      const printed: string[][] = [[], []];
      for (const i of [0, 1]) {
        processes.push(
          await startServe({
            dataFile: database,
            args: ['--demo'],
            onLine: (line) => printed[i].push(line),
          }),
        );
      }
      expect(printed[0].join('\n')).toMatch(
        /calsync demo: \d+ events from samples\/community-calendar\.ics;/,
      );
      expect(printed[1].join('\n')).toMatch(/\(loaded today by another server on the database\)/);
      const totals = [];
      for (const p of processes) {
        const res = await fetch(`${p.origin}/calendar/events/v1/events?per_page=1`);
        totals.push(Number(res.headers.get('x-tec-total')));
        expect(await (await fetch(`${p.origin}/`)).text()).toContain('demo-banner');
      }
      expect(totals[0]).toBeGreaterThan(100);
      expect(totals[1]).toBe(totals[0]);
    }, 60_000);
  });
});
