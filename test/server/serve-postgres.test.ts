/**
 * `npm run users` and `npm run serve` for real on a PostgreSQL database (`npm run test:pg`: the run's
 * cluster, test/helpers/pg-global-setup.ts): a user added through CALSYNC_DATABASE_URL writes an event
 * through the server started with `--data postgres://…`, and the event is in the database afterwards.
 * The password in the URL is never printed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main as usersMain } from '../../src/cli/users.ts';
import { openStore } from '../../src/store/open.ts';
import { type PostgresStores, postgresStoresAt } from '../helpers/postgres-store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const url = inject('postgresUrl');

describe.skipIf(url === undefined)('serve and users on PostgreSQL', () => {
  let stores: PostgresStores;
  beforeAll(async () => {
    stores = await postgresStoresAt(url!);
  });
  afterAll(async () => stores?.stop());

  it('a user added with CALSYNC_DATABASE_URL creates an event through serve --data postgres://…', async () => {
    // Trust auth takes any password: one in the URL shows that it is hidden wherever the URL is printed.
    const database = (await stores.newDatabase()).replace('calsync@', 'calsync:hunter2@');
    const out: string[] = [];
    const err: string[] = [];
    const code = await usersMain({
      argv: ['add', 'alice', '--role', 'editor'],
      env: { CALSYNC_DATABASE_URL: database },
      stdout: { write: (s: string) => out.push(s) > 0 },
      stderr: { write: (s: string) => err.push(s) > 0 },
    });
    expect(code, err.join('')).toBe(0);
    const password = /Application password \(shown once\): ([A-Za-z0-9 ]+)\n/.exec(out.join(''))![1];

    const child = spawn(process.execPath, ['src/cli/serve.ts', '--port', '0', '--data', database], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c));
      const address = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          stdout += chunk;
          const m = /calsync serving (.+) at (http:\/\/127\.0\.0\.1:\d+)\/calendar\/events\/v1\n/.exec(
            stdout,
          );
          if (m) resolve(m[2]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening; stderr: ${stderr}`)));
      });
      expect(stdout).not.toContain('hunter2');
      expect(stdout).toContain('calsync:***@');
      const res = await fetch(`${address}/calendar/events/v1/events`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`,
          'content-type': 'application/json',
          connection: 'close',
        },
        body: JSON.stringify({
          title: 'On PostgreSQL',
          start_date: '2027-03-01 19:00:00',
          end_date: '2027-03-01 22:00:00',
          venue: { venue: 'Main Hall' },
          categories: ['Concerts'],
        }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const list = await fetch(`${address}/calendar/events/v1/events?search=postgres`, {
        headers: { connection: 'close' },
      });
      expect(((await list.json()) as { events: { title: string }[] }).events.map((e) => e.title)).toEqual([
        'On PostgreSQL',
      ]);
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      expect((await exit)[0]).toBe(0);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const store = await openStore(database);
    try {
      const { items } = await store.listEvents({
        visibility: { statuses: ['publish'], ownStatuses: [], ownerId: null },
        withHidden: true,
        offset: 0,
        limit: 10,
      } as Parameters<typeof store.listEvents>[0]);
      expect(items.map((e) => e.title)).toEqual(['On PostgreSQL']);
    } finally {
      await store.close();
    }
  });
});
