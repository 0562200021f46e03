/**
 * The feed render thread (src/server/feed-render.ts) ends when it has had no job for its idle time, so
 * that the memory of its renders goes back to the system, and a later render starts a new one that gives
 * the same bytes. On a real SQLite file, events written through the API of a real server in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFeeds } from '../../src/export/feed-spec.ts';
import { type FeedJob, FeedRenderer } from '../../src/server/feed-render.ts';
import { type Harness, makeApp, NOW } from './harness.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-feed-render-'));

describe('the feed render thread', () => {
  let h: Harness;
  const job: FeedJob = {
    spec: { ...defaultFeeds()[0], format: 'ics' },
    outlook: false,
    source: 'https://cal.example.org/feeds/all.ics',
    nowMs: NOW.getTime(),
  };

  beforeAll(async () => {
    h = await makeApp({ path: join(root, 'feeds.db') });
    for (let i = 1; i <= 3; i++) {
      await h.created('/events', {
        title: `Concert ${i}`,
        status: 'publish',
        start_date: `2026-12-0${i} 19:00`,
        end_date: `2026-12-0${i} 21:00`,
        timezone: 'Europe/Berlin',
      });
    }
  });
  afterAll(async () => {
    await h.app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('ends after its idle time, and a later render starts it again with the same bytes', async () => {
    const renderer = new FeedRenderer(h.store, h.app.config, { idleMs: 50 });
    try {
      expect(renderer.offLoop).toBe(true);
      const first = await renderer.render(job);
      expect(first.body.toString()).toContain('SUMMARY:Concert 3');
      expect(renderer.threadRunning).toBe(true);
      await expect.poll(() => renderer.threadRunning, { timeout: 5_000 }).toBe(false);

      const again = await renderer.render(job);
      expect(renderer.offLoop).toBe(true);
      expect(again.etag).toBe(first.etag);
      expect(renderer.threadRunning).toBe(true);
    } finally {
      await renderer.close();
    }
  });

  it('stays while renders keep coming', async () => {
    const renderer = new FeedRenderer(h.store, h.app.config, { idleMs: 400 });
    try {
      for (let i = 0; i < 4; i++) {
        await renderer.render(job);
        expect(renderer.threadRunning).toBe(true);
        await new Promise((done) => setTimeout(done, 100));
      }
      expect(renderer.threadRunning).toBe(true);
    } finally {
      await renderer.close();
    }
  });
});
