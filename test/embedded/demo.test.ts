/**
 * Demo mode (issue 7, item 7): the sample calendar loaded through the real import pipeline into a real
 * SQLite file, the daily 00:00 UTC reset driven by an injected clock and timer (no waiting), resets that
 * readers never see half done, and `npm run serve -- --demo` run for real.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DemoReset, nextMidnightUtc } from '../../src/embedded/demo.ts';
import { createOAuthClient } from '../../src/server/auth/oauth-clients.ts';
import { type Harness, makeApp } from '../server/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(ROOT, 'samples/community-calendar.ics');
const EXTRA = {
  title: 'Not in the sample',
  start_date: '2026-12-01 19:00:00',
  end_date: '2026-12-01 21:00:00',
};

let dir: string;
let h: Harness;
let clock: Date;
let timers: { fn: () => void; ms: number; cancelled: boolean }[];
let demo: DemoReset;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calsync-demo-'));
  clock = new Date('2026-11-21T22:30:00Z');
  timers = [];
  const file = join(dir, 'demo.db');
  let reset: DemoReset | undefined;
  h = await makeApp({ path: file, now: () => clock, demo: { nextReset: () => reset!.nextReset() } });
  reset = new DemoReset({
    dataFile: file,
    store: h.store,
    sampleFile: SAMPLE,
    siteUrl: 'https://cal.example.org',
    apiBase: 'https://cal.example.org/api',
    now: () => clock,
    setTimer: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return { cancel: () => (t.cancelled = true) };
    },
  });
  demo = reset;
});
afterEach(async () => {
  demo.stop();
  await h.app.close();
  await rm(dir, { recursive: true, force: true });
});

/** Total published events the API lists, from the default list window. */
async function listed(): Promise<number> {
  const res = await h.call('GET', '/events?per_page=1');
  expect(res.status).toBe(200);
  return Number(res.headers['x-tec-total']);
}

describe('nextMidnightUtc', () => {
  it('is the next 00:00 UTC, a whole day ahead at exactly midnight, whatever the host zone', () => {
    expect(nextMidnightUtc(new Date('2026-11-21T22:30:00Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(nextMidnightUtc(new Date('2026-11-22T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    // 23:59:59.999 UTC is already the next day in Asia/Kolkata, where the tests run.
    expect(nextMidnightUtc(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });
});

describe('DemoReset', () => {
  it('loads the sample calendar through the import pipeline and keeps users and OAuth clients', async () => {
    const { record, secret } = await createOAuthClient(
      h.store,
      h.users.editor,
      'demo',
      '2026-11-21 12:00:00',
    );
    expect(await listed()).toBe(0);
    const result = await demo.reset();
    expect(result.events).toBeGreaterThan(400);
    expect(result.failed).toBe(0);
    // Events end within the window the pipeline expanded, so all but the past ones are listed.
    const total = await listed();
    expect(total).toBeGreaterThan(100);
    expect(total).toBeLessThanOrEqual(result.events);
    const venues = await h.call('GET', '/venues?per_page=1');
    expect(Number(venues.headers['x-tec-total'])).toBeGreaterThan(5);
    const categories = await h.call('GET', '/categories?per_page=50');
    expect(categories.json.categories.some((c: { count: number }) => c.count > 0)).toBe(true);
    // Users, their application passwords and OAuth clients survived.
    expect((await h.call('GET', '/events?status=draft', { as: 'editor' })).status).toBe(200);
    const token = await h.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      payload: `grant_type=client_credentials&client_id=${record.client_id}&client_secret=${secret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.statusCode).toBe(200);
  });

  it('resets at 00:00 UTC of the injected clock, undoing writes, and arms the next day', async () => {
    await demo.reset();
    const before = await listed();
    demo.start();
    expect(timers).toHaveLength(1);
    expect(timers[0].ms).toBe(90 * 60_000);
    expect(demo.nextReset().toISOString()).toBe('2026-11-22T00:00:00.000Z');

    const extra = await h.created('/events', EXTRA);
    const first = (await h.call('GET', '/events?per_page=1')).json.events[0];
    expect((await h.call('DELETE', `/events/${first.id}?force=true`, { as: 'administrator' })).status).toBe(
      200,
    );
    expect(await listed()).toBe(before); // one more, one less

    clock = new Date('2026-11-22T00:00:00Z');
    timers[0].fn();
    await demo.reset(); // joins the reset the timer started
    await new Promise((r) => setImmediate(r));

    expect((await h.call('GET', `/events/${extra.id}`)).status).toBe(404);
    const titles = (await h.call('GET', '/events?per_page=50')).json.events.map(
      (e: { title: string }) => e.title,
    );
    expect(titles).toContain(first.title);
    expect(titles).not.toContain(EXTRA.title);
    // The search index was emptied and refilled: a word of the title (the title itself is HTML-escaped).
    const word = first.title.split(' ').find((w: string) => /^\w{4,}$/.test(w));
    const found = await h.call('GET', `/events?search=${encodeURIComponent(word)}&per_page=50`);
    expect(found.json.events.map((e: { title: string }) => e.title)).toContain(first.title);
    expect((await h.call('GET', '/events?search=not%20in%20the%20sample')).json.events).toEqual([]);
    expect(timers).toHaveLength(2);
    expect(timers[1].ms).toBe(24 * 60 * 60_000);
    expect(demo.nextReset().toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect((await h.app.inject({ url: '/' })).body).toContain('2026-11-23 00:00 UTC');
  });

  it('does not reset when the timer fires before the due time, and arms again', async () => {
    demo.start();
    await h.created('/events', EXTRA);
    clock = new Date('2026-11-21T23:59:00Z');
    timers[0].fn();
    await new Promise((r) => setImmediate(r));
    expect(await listed()).toBe(1);
    expect(timers).toHaveLength(2);
    expect(timers[1].ms).toBe(60_000);
  });

  it('is atomic for readers: every list during a reset shows the old data or the new, never a mix', async () => {
    await demo.reset();
    const sample = await listed();
    await h.created('/events', EXTRA);
    const totals: number[] = [];
    let done = false;
    const resetting = demo.reset().finally(() => {
      done = true;
    });
    while (!done) {
      totals.push(await listed());
      await new Promise((r) => setImmediate(r));
    }
    await resetting;
    totals.push(await listed());
    expect(totals.length).toBeGreaterThan(2);
    expect(new Set(totals)).toEqual(new Set([sample + 1, sample]));
    expect(totals.at(-1)).toBe(sample);
  });

  it('keeps the current data when the sample does not import', async () => {
    await h.created('/events', EXTRA);
    const broken = join(dir, 'broken.ics');
    await writeFile(broken, 'this is not a calendar\n');
    const bad = new DemoReset({
      dataFile: join(dir, 'demo.db'),
      store: h.store,
      sampleFile: broken,
      now: () => clock,
    });
    await expect(bad.reset()).rejects.toThrow(/demo reset/);
    expect(await listed()).toBe(1);
  });
});

describe('npm run serve -- --demo', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('serves the sample calendar with the demo banner', async () => {
    child = spawn(
      process.execPath,
      ['src/cli/serve.ts', '--demo', '--data', join(dir, 'served.db'), '--port', '0'],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const address = await new Promise<string>((resolve, reject) => {
      child!.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      child!.stdout!.on('data', () => {
        const m = out.match(/at (http:\/\/\S+)\/calendar\/events\/v1/);
        if (m) resolve(m[1]);
      });
    });
    expect(out).toMatch(/calsync demo: \d+ events from samples\/community-calendar\.ics/);
    const landing = await fetch(`${address}/`);
    expect(await landing.text()).toContain('demo-banner');
    const list = await fetch(`${address}/calendar/events/v1/events?per_page=1`);
    expect(list.status).toBe(200);
    expect(Number(list.headers.get('x-tec-total'))).toBeGreaterThan(100);
  });
});
