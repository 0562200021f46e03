/**
 * Issue 15 item 5: a file-backed server renders its feeds on a worker thread and answers a feed
 * request after a write with the feed it has (stale-while-revalidate) while the next render runs, so a
 * write never makes a feed request wait for a whole render on the event loop. Over a loopback socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, makeApp, NOW } from './harness.ts';

describe('feeds of a file-backed store', () => {
  let h: Harness;
  let origin: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calsync-feed-'));
    h = await makeApp({ path: join(dir, 'calendar.db'), now: () => NOW });
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (title: string) =>
    h.created('/events', {
      title,
      status: 'publish',
      start_date: '2026-12-01 10:00',
      end_date: '2026-12-01 11:00',
    });
  const feed = async () => {
    const res = await request(`${origin}/feeds/all.ics`);
    return { status: res.statusCode, etag: res.headers.etag, text: await res.body.text() };
  };

  it('answers with the kept feed right after a write, and with the new one once it is rendered', async () => {
    await create('First concert');
    const first = await feed();
    expect(first.status).toBe(200);
    expect(first.text).toContain('SUMMARY:First concert');

    await create('Second concert');
    const stale = await feed();
    expect(stale.status).toBe(200);
    // The feed as it was: the new render runs meanwhile.
    expect(stale.etag).toBe(first.etag);
    expect(stale.text).not.toContain('Second concert');

    let fresh = stale;
    for (let i = 0; i < 100 && !fresh.text.includes('Second concert'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      fresh = await feed();
    }
    expect(fresh.text).toContain('SUMMARY:Second concert');
    expect(fresh.text).toContain('SUMMARY:First concert');
    expect(fresh.etag).not.toBe(first.etag);
  });

  it('gzip is made once per render, for every request that asks at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await request(`${origin}/feeds/all.ics`, { headers: { 'accept-encoding': 'gzip' } });
        return {
          encoding: res.headers['content-encoding'],
          bytes: Buffer.from(await res.body.arrayBuffer()),
        };
      }),
    );
    for (const a of answers) expect(a.encoding).toBe('gzip');
    expect(new Set(answers.map((a) => a.bytes.toString('base64'))).size).toBe(1);
  });
});
