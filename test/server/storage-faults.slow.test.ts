/**
 * Issue 15 item 1: storage faults are answers, never crashes. On a real 12 MB tmpfs the server fills
 * its disk under creates over a loopback socket: every write is 201 or 507 `rest_storage_full`, reads
 * go on, the process lives through the WAL checkpointer hitting the full disk, and every acknowledged
 * write is in the file afterwards. A read-only bind mount is served for reading (writes 503), and the
 * importer stops on an unusable data file with one line naming it and exit 2; on a disk that fills up
 * mid-run it ends with its summary, and run again with room it leaves every event once. Needs root (mount); CI
 * runs as root.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIcs } from '../../bench/generate-ics.ts';
import { buildApp } from '../../src/server/app.ts';
import { createAppPassword } from '../../src/server/auth/app-passwords.ts';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite.ts';
import { snapshotOf } from '../e2e/helpers.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const mounted: string[] = [];

async function sh(cmd: string, ...args: string[]) {
  await run(cmd, args);
}

async function tmpfs(sizeMb: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-full-'));
  await sh('mount', '-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir);
  mounted.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of mounted.reverse()) {
    await sh('umount', dir).catch(() => sh('umount', '-l', dir));
    rmSync(dir, { recursive: true, force: true });
  }
});

async function seedUser(store: ReturnType<typeof openSqliteStore>) {
  const user = await store.insertUser({
    login: 'admin',
    email: 'a@example.org',
    role: 'administrator',
    display_name: 'A',
  });
  const { password } = await createAppPassword(store, user, 'tests', '2026-01-01 00:00:00');
  return { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
}

describe('a full disk under the server', () => {
  it('answers 507 for writes it cannot keep, keeps reading, does not crash, loses no acknowledged write', async () => {
    const dir = await tmpfs(12);
    const file = join(dir, 'calendar.db');
    const store = openSqliteStore(file);
    const auth = await seedUser(store);
    const app = await buildApp({ store, authThrottle: false });
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(300); // ~17 KB
    const created: { id: number; title: string }[] = [];
    const refused: number[] = [];
    let fullInARow = 0;
    try {
      for (let i = 0; fullInARow < 30 && i < 3_000; i++) {
        const title = `Filler ${i}`;
        const res = await request(`${origin}/calendar/events/v1/events`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            title,
            description: `${i} ${filler}`,
            status: 'publish',
            start_date: '2027-02-01 10:00',
            end_date: '2027-02-01 11:00',
          }),
        });
        const body = (await res.body.json()) as { id?: number; code?: string };
        if (res.statusCode === 201) {
          created.push({ id: body.id!, title });
          fullInARow = 0;
        } else {
          expect(res.statusCode, JSON.stringify(body)).toBe(507);
          expect(body.code).toBe('rest_storage_full');
          refused.push(i);
          fullInARow++;
          // Reads go on while the disk is full.
          const read = await request(`${origin}/calendar/events/v1/events?per_page=5&start_date=2027-01-01`);
          expect(read.statusCode).toBe(200);
          await read.body.dump();
        }
      }
      // Enough creates to start the checkpointer (every 200 commits), and the disk did fill up.
      expect(created.length).toBeGreaterThan(200);
      expect(refused.length).toBeGreaterThanOrEqual(30);
      // Still alive and answering, a moment later too (the checkpointer's answer arrives asynchronously).
      await new Promise((r) => setTimeout(r, 500));
      const alive = await request(`${origin}/calendar/events/v1/events/${created.at(-1)!.id}`);
      expect(alive.statusCode).toBe(200);
      await alive.body.dump();
    } finally {
      await app.close();
    }
    // Every acknowledged create is in the file, opened again from scratch.
    const reopened = openSqliteStore(file) as SqliteStore;
    try {
      for (const { id, title } of created) expect((await reopened.getEvent(id))?.title).toBe(title);
    } finally {
      await reopened.close();
    }
  });
});

describe('a read-only data directory', () => {
  let ro: string;
  beforeAll(async () => {
    const src = mkdtempSync(join(tmpdir(), 'calsync-rw-'));
    const store = openSqliteStore(join(src, 'calendar.db'));
    const user = await store.insertUser({
      login: 'admin',
      email: 'a@example.org',
      role: 'administrator',
      display_name: 'A',
    });
    const app = await buildApp({ store, authThrottle: false, schemes: { test: async () => user } });
    const res = await app.inject({
      method: 'POST',
      url: '/calendar/events/v1/events',
      headers: { authorization: 'Test x', 'content-type': 'application/json' },
      payload: {
        title: 'Kept',
        status: 'publish',
        start_date: '2027-02-01 10:00',
        end_date: '2027-02-01 11:00',
      },
    });
    expect(res.statusCode).toBe(201);
    await app.close();
    ro = mkdtempSync(join(tmpdir(), 'calsync-ro-'));
    await sh('mount', '--bind', src, ro);
    mounted.push(ro);
    await sh('mount', '-o', 'remount,bind,ro', ro);
    mounted.push(src); // unmounted after ro (reverse order); src is a plain directory, removed then
    mounted.pop();
  });

  it('serve answers reads, and writes with 503 rest_storage_read_only and Retry-After', async () => {
    const store = openSqliteStore(join(ro, 'calendar.db'), { readOnlyFallback: true }) as SqliteStore;
    expect(store.readOnly).toBe(true);
    const user = (await store.findUser('admin'))!;
    const app = await buildApp({
      store,
      authThrottle: false,
      schemes: { test: async () => user },
      uploadsDir: join(ro, 'uploads'),
    });
    try {
      const list = await app.inject({
        method: 'GET',
        url: '/calendar/events/v1/events?start_date=2027-01-01',
      });
      expect(list.statusCode).toBe(200);
      expect(list.json().events.map((e: { title: string }) => e.title)).toEqual(['Kept']);
      const write = await app.inject({
        method: 'POST',
        url: '/calendar/events/v1/events',
        headers: { authorization: 'Test x', 'content-type': 'application/json' },
        payload: { title: 'No', start_date: '2027-02-02 10:00', end_date: '2027-02-02 11:00' },
      });
      expect(write.statusCode).toBe(503);
      expect(write.headers['retry-after']).toBe('60');
      expect(write.json().code).toBe('rest_storage_read_only');
    } finally {
      await app.close();
    }
  });

  it('the importer stops with one line naming the file, exit 2', async () => {
    const data = join(ro, 'calendar.db');
    const imported = await run(
      process.execPath,
      ['src/cli/import.ts', 'samples/community-calendar.ics', '--data', data],
      {
        cwd: ROOT,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain(ro);
    expect(imported.stderr).toMatch(/read-only|cannot be opened/);
    expect(imported.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(imported.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the importer on a disk that fills up', () => {
  it('ends with its run summary and one line naming the file it could not write, exit 2, instead of dying', {
    timeout: 180_000,
  }, async () => {
    const dir = await tmpfs(3);
    const data = join(dir, 'calendar.db');
    const work = mkdtempSync(join(tmpdir(), 'calsync-ics-'));
    const ics = join(work, 'big.ics');
    writeFileSync(ics, generateIcs({ events: 3_000, start: new Date('2027-01-01T00:00:00Z') }));
    mkdirSync(join(work, 'state'), { recursive: true });
    const res = await run(process.execPath, ['src/cli/import.ts', ics, '--data', data, '--quiet'], {
      cwd: ROOT,
      env: { ...process.env, CALSYNC_NOW: '2027-01-01T00:00:00Z' },
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(res.code, res.stderr.slice(-2000)).toBe(2);
    // Items the disk refused are failures with the server's storage code naming the file, not "network".
    expect(res.stderr).toContain(`rest_storage_full: the file ${data} is not usable: its disk is full`);
    expect(res.stderr).not.toMatch(/"code":"network"|\n\s+at /);
    // The last line says why the run stopped, naming the file it could not write.
    const last = res.stderr.trim().split('\n').at(-1)!;
    expect(last).toContain(dir);
    expect(last).toMatch(/disk is full/);
    // And the run's summary is printed all the same: what the target has now, written before the disk filled.
    expect(res.stdout).toMatch(/^import-big-ics: \d+ events \([^)]*\), \d+ failed → local /m);

    // Nothing lost, nothing doubled: the store and its sync state moved to a disk with room (as an operator
    // would after freeing space), the same import run again ends with the events of the same file imported
    // on a roomy disk from the start, each once. The writes the full disk refused or rolled back are made
    // again; those it kept are found, by the state or by slug.
    const roomy = join(work, 'roomy');
    const moved = join(work, 'moved');
    mkdirSync(roomy);
    mkdirSync(moved);
    for (const f of readdirSync(dir).filter((f) => /^calendar\.(sync\.)?db(-wal)?$/.test(f)))
      copyFileSync(join(dir, f), join(moved, f));
    const again = (data: string) =>
      run(process.execPath, ['src/cli/import.ts', ics, '--data', data, '--quiet'], {
        cwd: ROOT,
        env: { ...process.env, CALSYNC_NOW: '2027-01-01T00:00:00Z' },
        maxBuffer: 64 * 1024 * 1024,
      });
    await again(join(moved, 'calendar.db'));
    await again(join(roomy, 'calendar.db'));
    const events = async (data: string) =>
      (await snapshotOf(data)).events.map((e) => `${e.title} @ ${e.start_date}`).sort();
    // (The generated file has a few same-titled events at the same time: compared as lists, not sets.)
    expect(await events(join(moved, 'calendar.db'))).toEqual(await events(join(roomy, 'calendar.db')));
    rmSync(work, { recursive: true, force: true });
  });
});
