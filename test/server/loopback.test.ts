/**
 * The server over real sockets and real files: requests over a loopback port with keep-alive,
 * data that survives a restart on the same SQLite file, and the `serve` and `users` commands run
 * for real on a temp folder (STYLE: "The CLI runs for real on a temp config").
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as usersMain } from '../../src/cli/users.ts';
import { buildApp } from '../../src/server/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { type Harness, makeApp, NS } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EVENT = { title: 'Loopback', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calsync-loopback-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A command's output, collected. */
function sink() {
  const chunks: string[] = [];
  return {
    write(s: string) {
      chunks.push(s);
      return true;
    },
    get text() {
      return chunks.join('');
    },
  };
}

describe('over a loopback socket', () => {
  let h: Harness;
  let origin: string;
  let agent: Agent;
  let connections: Socket[];

  beforeEach(async () => {
    h = await makeApp();
    connections = [];
    h.app.server.on('connection', (socket: Socket) => connections.push(socket));
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    agent = new Agent({ connections: 1, pipelining: 1 });
  });
  afterEach(async () => {
    await agent.close();
    await h.app.close();
  });

  it('creates with Basic auth, lists, and reuses one keep-alive connection', async () => {
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await request(`${origin}${NS}/events`, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...h.auth('editor'), 'content-type': 'application/json' },
      body: JSON.stringify(EVENT),
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=UTF-8');
    const event = (await created.body.json()) as { id: number; rest_url: string; author: string };
    expect(event.author).toBe(String(h.users.editor.id));
    expect(created.headers.location).toBe(event.rest_url);

    for (let i = 0; i < 3; i++) {
      const list = await request(`${origin}${NS}/events`, { dispatcher: agent });
      expect(list.statusCode).toBe(200);
      expect(list.headers['x-tec-total']).toBe('1');
      expect(list.headers.connection).not.toBe('close');
      const body = (await list.body.json()) as { events: { id: number }[] };
      expect(body.events.map((e) => e.id)).toEqual([event.id]);
    }
    const denied = await request(`${origin}${NS}/events`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: 'Basic Ym9iOm5vcGU=', 'content-type': 'application/json' },
      body: JSON.stringify(EVENT),
    });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['www-authenticate']).toContain('Basic realm="calsync"');
    await denied.body.dump();
    // Five requests, one TCP connection: keep-alive works, errors included.
    expect(connections).toHaveLength(1);
  });

  it('global fetch gets the same answers, ical included', async () => {
    await h.call('POST', '/events', { as: 'administrator', body: EVENT });
    const json = await fetch(`${origin}${NS}/events`);
    expect(json.status).toBe(200);
    expect(((await json.json()) as { total: number }).total).toBe(1);
    const ics = await fetch(`${origin}${NS}/events?ical=1`);
    expect(ics.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await ics.text()).toContain('SUMMARY:Loopback');
  });
});

describe('restart on the same SQLite file', () => {
  it('keeps events, venues, organizers, terms, users and ids', async () => {
    const path = join(dir, 'calendar.db');
    const first = await makeApp({ path });
    const venue = (await first.call('POST', '/venues', { as: 'administrator', body: { venue: 'Pier 7' } }))
      .json;
    const organizer = (
      await first.call('POST', '/organizers', { as: 'administrator', body: { organizer: 'Org' } })
    ).json;
    const category = (
      await first.call('POST', '/categories', { as: 'administrator', body: { name: 'Jazz' } })
    ).json;
    const event = (
      await first.call('POST', '/events', {
        as: 'administrator',
        body: {
          ...EVENT,
          timezone: 'Europe/Berlin',
          cost: ['10', '20'],
          venue: venue.id,
          organizer: [organizer.id],
          categories: [category.id],
          tags: ['Outdoor'],
        },
      })
    ).json;
    const draft = (
      await first.call('POST', '/events', { as: 'contributor', body: { ...EVENT, title: 'Draft' } })
    ).json;
    const trashed = (
      await first.call('POST', '/events', { as: 'administrator', body: { ...EVENT, title: 'Gone' } })
    ).json;
    await first.call('DELETE', `/events/${trashed.id}`, { as: 'administrator' });
    await first.store.setEventPassword(draft.id, 'pw');
    const paths = [
      `/events/${event.id}`,
      `/events/${draft.id}`,
      `/events/${trashed.id}`,
      `/venues/${venue.id}`,
      `/organizers/${organizer.id}`,
      `/categories/${category.id}`,
      '/events?status=publish,draft,trash',
      '/tags',
    ];
    const before = await Promise.all(paths.map((p) => first.call('GET', p, { as: 'administrator' })));
    const users = first.users;
    await first.app.close();

    const second = await makeApp({ path });
    try {
      expect(second.users).toEqual(users);
      for (const [i, p] of paths.entries()) {
        const res = await second.call('GET', p, { as: 'administrator' });
        expect(res.status, p).toBe(200);
        expect(res.json, p).toEqual(before[i].json);
      }
      expect((await second.store.getEvent(draft.id))?.password).toBe('pw');
      // The id sequence continues after the last id, shared by every post kind.
      const next = await second.call('POST', '/venues', { as: 'administrator', body: { venue: 'Next' } });
      expect(next.json.id).toBe(trashed.id + 1);
      // Application passwords made before the restart still work.
      const old = await second.app.inject({
        method: 'GET',
        url: `${NS}/events?status=draft`,
        headers: first.auth('contributor'),
      });
      expect(old.statusCode).toBe(200);
    } finally {
      await second.app.close();
    }
  });
});

describe('the serve command', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it('listens on the printed address, answers, and exits 0 on SIGTERM', async () => {
    const data = join(dir, 'serve.db');
    child = spawn(process.execPath, ['src/cli/serve.ts', '--port', '0', '--data', data], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c));
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address after 15 s; stderr: ${stderr}`)), 15_000);
      child!.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk;
        const m = /calsync serving (.+) at (http:\/\/127\.0\.0\.1:\d+)\/calendar\/events\/v1\n/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          expect(m[1]).toBe(data);
          resolve(m[2]);
        }
      });
      child!.once('exit', (code) => reject(new Error(`exited ${code} before listening; stderr: ${stderr}`)));
    });
    expect(address).not.toMatch(/:0$/);

    const res = await fetch(`${address}/calendar/events/v1/events`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tec-total')).toBe('0');
    expect(((await res.json()) as { events: unknown[] }).events).toEqual([]);

    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = await exit;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    // Pino writes one JSON object per line; the request was logged.
    const logs = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } });
    expect(logs.some((l) => l.req?.url === '/calendar/events/v1/events')).toBe(true);
    expect(stderr).toBe('');
    // The file outlives the server.
    const store = openSqliteStore(data);
    expect(await store.listUsers()).toEqual([]);
    await store.close();
  });

  it('prints help and exits 2 on a bad port, without listening', async () => {
    const out = sink();
    const err = sink();
    const { main } = await import('../../src/cli/serve.ts');
    expect(await main({ argv: ['--port', 'http'], env: {}, stdout: out, stderr: err })).toBe(2);
    expect(err.text).toContain('--port');
    expect(await main({ argv: ['--help'], env: {}, stdout: out, stderr: err })).toBe(0);
    expect(out.text).toContain('Usage: npm run serve');
  });

  it('takes --trust-proxy as true or a list of proxies, documents it in --help, and refuses an empty one', async () => {
    const { main, parseTrustProxy } = await import('../../src/cli/serve.ts');
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8')).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(parseTrustProxy('loopback')).toEqual(['loopback']);
    const out = sink();
    expect(await main({ argv: ['--help'], env: {}, stdout: out, stderr: sink() })).toBe(0);
    expect(out.text).toContain('--trust-proxy');
    const err = sink();
    expect(await main({ argv: ['--trust-proxy', ' , '], env: {}, stdout: sink(), stderr: err })).toBe(2);
    expect(err.text).toContain('--trust-proxy');
  });
});

describe('the users command', () => {
  it('adds a user whose printed application password authenticates against an app on that file', async () => {
    const data = join(dir, 'users.db');
    const out = sink();
    const err = sink();
    const code = await usersMain({
      argv: ['add', 'alice', '--role', 'editor', '--data', data],
      env: {},
      stdout: out,
      stderr: err,
    });
    expect(code).toBe(0);
    expect(err.text).toBe('');
    const m = /Application password \(shown once\): ((?:[A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4})\n/.exec(out.text);
    expect(m, out.text).not.toBeNull();
    const password = m![1];

    const again = sink();
    expect(
      await usersMain({
        argv: ['add', 'alice', '--role', 'author', '--data', data],
        env: {},
        stdout: sink(),
        stderr: again,
      }),
    ).toBe(1);
    expect(again.text).toContain('already exists');

    const store = openSqliteStore(data);
    const app = await buildApp({
      store,
      siteUrl: 'https://cal.example.org',
      now: () => new Date('2026-11-21T12:00:00Z'),
    });
    try {
      const basic = (login: string, pw: string) => ({
        authorization: `Basic ${Buffer.from(`${login}:${pw}`).toString('base64')}`,
      });
      for (const pw of [password, password.replace(/ /g, '')]) {
        const res = await app.inject({
          method: 'POST',
          url: '/calendar/events/v1/events',
          headers: { ...basic('alice', pw), 'content-type': 'application/json' },
          payload: JSON.stringify(EVENT),
        });
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().author).toBe(String((await store.findUser('alice'))!.id));
      }
      const wrong = await app.inject({
        method: 'GET',
        url: '/calendar/events/v1/events',
        headers: basic('alice', 'A'.repeat(24)),
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().code).toBe('incorrect_password');
    } finally {
      await app.close();
    }
  });
});
