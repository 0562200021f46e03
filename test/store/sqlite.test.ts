import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.ts';
import { MIGRATIONS, type Migration, migrate, schemaVersion } from '../../src/store/migrations.ts';
import { openSqliteStore, SqliteStore } from '../../src/store/sqlite.ts';
import { eventOn, eventQuery } from './contract/fixtures.ts';
import { describeStoreContract } from './store-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
/** A path in a folder that does not exist yet. */
function newPath(): string {
  files++;
  return join(root, `case-${files}`, 'data', 'calsync.db');
}

describeStoreContract('SQLite file', () => openSqliteStore(newPath()));
describeStoreContract('SQLite in-memory', () => openSqliteStore(':memory:'));

function errorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a StoreError, got none');
}

describe('SQLite store files', () => {
  it('data survives closing and reopening the file', async () => {
    const path = newPath();
    const first = openSqliteStore(path);
    const event = await first.insertEvent(eventOn(10, 10, { title: 'Kept' }));
    await first.close();
    const again = openSqliteStore(path);
    expect(await again.getEvent(event.id)).toEqual(event);
    expect((await again.listEvents(eventQuery({ searchWords: ['kept'] }))).total).toBe(1);
    // The id sequence goes on where it stopped.
    expect((await again.insertEvent(eventOn(11))).id).toBe(event.id + 1);
    await again.close();
  });

  it('read-only, a file whose events wait for the search index: searches find them', async () => {
    const path = newPath();
    // As the import leaves it: events queued for the index, none indexed.
    const importer = SqliteStore.open(path, { indexSearch: false });
    await importer.insertEvent(eventOn(10, 10, { title: 'Queued lantern walk' }));
    await importer.close();
    const reader = SqliteStore.open(path, { readOnly: true });
    const found = () => reader.listEvents(eventQuery({ searchWords: ['lantern'] }));
    expect((await found()).total).toBe(1);
    // Still, after the time background indexing would have taken (it cannot write here).
    await new Promise((done) => setTimeout(done, 700));
    expect((await found()).total).toBe(1);
    await reader.close();
  });

  it('a fresh file is migrated to the latest schema version, in WAL mode', async () => {
    const path = newPath();
    openSqliteStore(path).close();
    const db = new DatabaseSync(path);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    await db.close();
  });

  it('each file has an id of its own, kept across reopening and made for files of an older schema', async () => {
    const path = newPath();
    const first = SqliteStore.open(path);
    const id = await first.instance();
    await first.close();
    const again = SqliteStore.open(path);
    expect(await again.instance()).toBe(id);
    await again.close();
    const other = SqliteStore.open(newPath());
    expect(await other.instance()).not.toBe(id);
    await other.close();
    // A file from before migration 7 gets one when upgraded.
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE store_meta; PRAGMA user_version = 6');
    db.close();
    const upgraded = SqliteStore.open(path);
    expect(await upgraded.instance()).toMatch(/^[0-9a-f-]{36}$/);
    expect(await upgraded.instance()).not.toBe(id);
    await upgraded.close();
  });

  it('a file written by a newer calsync is refused with store-schema-too-new', async () => {
    const path = newPath();
    openSqliteStore(path).close();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.at(-1)!.version + 1}`);
    await db.close();
    const error = errorOf(() => openSqliteStore(path));
    expect(error.code).toBe('store-schema-too-new');
    expect(error.path).toBe(path);
  });

  it('an old file is upgraded step by step; a failing step rolls back and keeps the old version', async () => {
    const db = new DatabaseSync(':memory:');
    const steps: Migration[] = [
      { version: 1, description: 'table a', up: (d) => d.exec('CREATE TABLE a (x INTEGER)') },
      { version: 2, description: 'table b', up: (d) => d.exec('CREATE TABLE b (y INTEGER)') },
    ];
    expect(migrate(db, steps.slice(0, 1))).toEqual([1]);
    expect(migrate(db, steps)).toEqual([2]);
    expect(migrate(db, steps)).toEqual([]);
    const broken: Migration = {
      version: 3,
      description: 'broken',
      up: (d) => {
        d.exec('CREATE TABLE c (z INTEGER)');
        throw new Error('disk on fire');
      },
    };
    expect(errorOf(() => migrate(db, [...steps, broken])).code).toBe('store-migration-failed');
    expect(schemaVersion(db)).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'c'").get()).toBeUndefined();
    await db.close();
  });

  it('a version 1 file gains image sizes: its attachments read back with none', async () => {
    const path = newPath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    migrate(db, MIGRATIONS.slice(0, 1));
    db.exec("INSERT INTO posts (id, kind) VALUES (7, 'attachment')");
    db.exec(
      'INSERT INTO attachments (id, author, url, source_url, mime, width, height, filesize, date_utc) ' +
        "VALUES (7, 1, 'https://cal.example.org/uploads/a.png', NULL, 'image/png', 800, 600, 2935, '2026-01-01 00:00:00')",
    );
    await db.close();
    const store = openSqliteStore(path);
    expect(await store.getAttachment(7)).toMatchObject({ id: 7, width: 800, sizes: {} });
    await store.close();
  });

  it('a version 3 file gains OAuth clients: its users keep their ids and can get clients', async () => {
    const path = newPath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    migrate(db, MIGRATIONS.slice(0, 3));
    db.exec(
      "INSERT INTO users (id, login, email, role, display_name) VALUES (5, 'ann', 'a@x.org', 'editor', 'Ann')",
    );
    await db.close();
    const store = openSqliteStore(path);
    expect(await store.listOAuthClients()).toEqual([]);
    const client = await store.insertOAuthClient({
      client_id: 'cs_a',
      secret_hash: 'h',
      user_id: 5,
      name: 'n',
      created_utc: '2027-01-01 00:00:00',
    });
    expect(await store.findOAuthClient('cs_a')).toEqual(client);
    await store.close();
  });

  it('writes by another connection are seen at once, remembered totals included', async () => {
    const path = newPath();
    const reader = openSqliteStore(path);
    const writer = openSqliteStore(path);
    await writer.insertEvent(eventOn(10));
    await writer.insertEvent(eventOn(11));
    const q = eventQuery({ limit: 1 });
    expect((await reader.listEvents(q)).total).toBe(2);
    await writer.insertEvent(eventOn(12, 10, { title: 'Late' }));
    expect((await reader.listEvents(q)).total).toBe(3);
    expect((await reader.listEvents(eventQuery({ searchWords: ['late'] }))).total).toBe(1);
    await reader.close();
    await writer.close();
  });

  it('close is idempotent', async () => {
    const store = openSqliteStore(':memory:');
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });
});

describe('SQLite search index queue', () => {
  const search = async (s: SqliteStore, ...words: string[]) =>
    (await s.listEvents(eventQuery({ searchWords: words }))).items.map((e) => e.id);

  it('search answers the same with events queued for the index, indexed, or changed after indexing', async () => {
    const s = SqliteStore.open(':memory:');
    const a = await s.insertEvent(
      eventOn(10, 10, { title: 'Salsa class', description: 'Église Saint-Étienne' }),
    );
    const b = await s.insertEvent(eventOn(11, 10, { title: 'Tango class', excerpt: '100% fun' }));
    const c = await s.insertEvent(eventOn(12, 10, { title: 'Opera' }));
    const answers = async () => [
      await search(s, 'salsa'),
      await search(s, 'CLASS'),
      await search(s, 'église', 'ÉTIENNE'),
      await search(s, '0% f'),
      await search(s, 'class', 'GO'),
      await search(s, 'opera'),
    ];
    const queued = await answers();
    expect(queued).toEqual([[a.id], [a.id, b.id], [a.id], [b.id], [b.id], [c.id]]);
    s.drainSearchIndex();
    expect(await answers()).toEqual(queued);
    // Changed and deleted after indexing: the index holds old text until the queue is indexed again.
    await s.updateEvent({ ...b, title: 'Salsa social' });
    await s.deletePost(c.id);
    const changed = [[a.id, b.id], [a.id], [a.id], [b.id], [], []];
    expect([await search(s, 'salsa'), ...(await answers()).slice(1)]).toEqual(changed);
    s.drainSearchIndex();
    expect([await search(s, 'salsa'), ...(await answers()).slice(1)]).toEqual(changed);
    await s.close();
  });

  it('indexing the queue leaves the data version alone; writes move it', async () => {
    const s = SqliteStore.open(':memory:');
    const v0 = await s.dataVersion();
    expect(await s.dataVersion()).toBe(v0);
    await s.insertEvent(eventOn(10, 10, { title: 'Salsa class' }));
    const v1 = await s.dataVersion();
    expect(v1).not.toBe(v0);
    s.drainSearchIndex();
    expect(await s.dataVersion()).toBe(v1);
    await s.close();
  });

  it('the queue is indexed in the background after writes', async () => {
    const path = newPath();
    const s = SqliteStore.open(path);
    for (let day = 1; day <= 5; day++) await s.insertEvent(eventOn(day, 10, { title: `Salsa ${day}` }));
    const raw = new DatabaseSync(path);
    const queued = () =>
      (raw.prepare('SELECT count(*) AS n FROM events_fts_pending').get() as { n: number }).n;
    expect(queued()).toBe(5);
    await expect.poll(queued, { timeout: 5000 }).toBe(0);
    expect(await search(s, 'salsa')).toHaveLength(5);
    raw.close();
    await s.close();
  });

  it('with indexSearch false the queue is left to another connection: searches still find it', async () => {
    const path = newPath();
    const s = SqliteStore.open(path, { indexSearch: false });
    for (let day = 1; day <= 3; day++) await s.insertEvent(eventOn(day, 10, { title: `Salsa ${day}` }));
    const raw = new DatabaseSync(path);
    const queued = () =>
      (raw.prepare('SELECT count(*) AS n FROM events_fts_pending').get() as { n: number }).n;
    expect(await search(s, 'salsa')).toHaveLength(3);
    // Past the quiet period after which a store indexes in the background (search-index.ts, 500 ms).
    await new Promise((done) => setTimeout(done, 800));
    expect(queued()).toBe(3);
    await s.close();
    // The server of the file indexes what it finds queued on its first search.
    const server = SqliteStore.open(path);
    expect(await search(server, 'salsa')).toHaveLength(3);
    await expect.poll(queued, { timeout: 5000 }).toBe(0);
    expect(await search(server, 'salsa')).toHaveLength(3);
    raw.close();
    await server.close();
  });

  it("another process's writes move the data version", async () => {
    const path = newPath();
    const reader = openSqliteStore(path);
    const writer = openSqliteStore(path);
    const v0 = await reader.dataVersion();
    await writer.insertEvent(eventOn(10));
    expect(await reader.dataVersion()).not.toBe(v0);
    await reader.close();
    await writer.close();
  });
});

describe('SQLite WAL checkpoints', () => {
  it('with checkpoints left to a thread, the WAL still starts over; closing removes it', async () => {
    const path = newPath();
    const s = SqliteStore.open(path);
    // Frames in the WAL now: `mxFrame` of the wal-index header (https://sqlite.org/walformat.html,
    // offset 16, native byte order), read from the file so that no checkpoint of ours interferes.
    const frames = () => readFileSync(`${path}-shm`).readUInt32LE(16);
    let written = 0;
    const write = async () =>
      await s.insertEvent(eventOn(1 + (written % 28), 10, { title: `Event ${written++}` }));
    for (let i = 0; i < 600; i++) {
      await write();
      // Between requests, as in the server: the thread's answers are handled here.
      if (i % 20 === 0) await new Promise((done) => setTimeout(done, 2));
    }
    // ~10 pages a write: without the WAL starting over it holds thousands of frames for good.
    await expect
      .poll(
        async () => {
          await write();
          await new Promise((done) => setTimeout(done, 10));
          return frames();
        },
        { timeout: 15_000, interval: 0 },
      )
      .toBeLessThan(200);
    expect((await s.listEvents(eventQuery({ limit: 1 }))).total).toBe(written);
    await s.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const again = SqliteStore.open(path);
    expect((await again.listEvents(eventQuery({ limit: 1 }))).total).toBe(written);
    await again.close();
  });

  it('the WAL starts over under writes that never pause', async () => {
    const path = newPath();
    const s = SqliteStore.open(path);
    const frames = () => readFileSync(`${path}-shm`).readUInt32LE(16);
    let i = 0;
    const write = async () => {
      await s.insertEvent(eventOn(1 + (i % 28), 10, { title: `Event ${i++}` }));
      // The thread copies while writes go on; only a turn of the event loop between them.
      await new Promise((done) => setImmediate(done));
    };
    // First until the WAL has started over once: the thread starts with the first checkpoint wanted,
    // which on a busy machine can take longer than a few thousand writes.
    let before = 0;
    let restarted = false;
    for (const until = Date.now() + 15_000; !restarted && Date.now() < until; ) {
      await write();
      restarted = frames() < before;
      before = frames();
    }
    expect(restarted, `the WAL never started over in ${i} writes`).toBe(true);
    let most = 0;
    for (let n = 0; n < 1000; n++) {
      await write();
      most = Math.max(most, frames());
    }
    await s.close();
    // ~10 pages a write: a WAL that never started over would hold 30,000–40,000 frames over the last
    // thousand writes. The bound leaves room for a checkpoint thread slowed by a busy machine (it once
    // reached ~10,000 with two other test runs on the same two cores).
    expect(most).toBeLessThan(20_000);
  });

  it('checkpointed inside the commits (the import target), the WAL stays within its pages with no thread', async () => {
    const path = newPath();
    const s = SqliteStore.open(path, { checkpointEveryPages: 100 });
    const frames = () => readFileSync(`${path}-shm`).readUInt32LE(16);
    let most = 0;
    for (let i = 0; i < 300; i++) {
      await s.insertEvent(eventOn(1 + (i % 28), 10, { title: `Event ${i}` }));
      most = Math.max(most, frames());
    }
    // ~10 pages a write: 300 writes without a checkpoint hold ~3,000 frames. Each checkpoint here is the
    // commit's own, so the WAL starts over at the next write: at most 100 pages plus one write's.
    expect(most).toBeLessThan(150);
    expect(most).toBeGreaterThan(50);
    expect((await s.listEvents(eventQuery({ limit: 1 }))).total).toBe(300);
    await s.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
