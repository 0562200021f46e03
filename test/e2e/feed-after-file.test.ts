/**
 * A calendar imported from a downloaded file, then from its live feed (`npm run import -- <url>`): the feed
 * is the same calendar, so its import takes the file import's name and keeps its events up to date, instead
 * of leaving them all to the file's one-off import (where the feed's changes never arrived). A feed that
 * shares only a few events is imported on its own.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { ics, type SmallEvent, smallEvents } from '../real-tec/calendar.ts';
import { type FeedServer, feed, startFeedServer } from '../sources/remote/feed-server.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: FeedServer;
let served: SmallEvent[] = [];
let etag = '"1"';
const at = (name: string) => join(dir.dir, name);

beforeAll(async () => {
  dir = await tempDir();
  server = await startFeedServer();
  server.route('/club.ics', (req, res) => feed(() => ics(served), { etag })(req, res));
});
afterAll(async () => {
  await server.close();
  await dir.remove();
});

async function imp(source: string, data: string) {
  const run = await runCli(importMain, [source, '--data', data, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return { ...run, report: JSON.parse(run.stdout) };
}

const feedRequests = () => server.requests.filter((r) => r.path === '/club.ics').length;

describe('npm run import of a feed after a file of the same calendar', () => {
  it('takes the file import over: the feed’s changes arrive, nothing is created twice', async () => {
    const data = at('club.db');
    const events = smallEvents(6);
    await writeFile(at('club.ics'), ics(events));
    expect((await imp(at('club.ics'), data)).report.counts.event.created).toBe(6);

    // The club's live feed: the same events, one of them moved since the download.
    served = events.map((e, i) => (i === 0 ? { ...e, title: `${e.title} (moved)` } : e));
    const url = `${server.url}/club.ics`;
    const first = await imp(url, data);
    expect(first.stderr).toMatch(/imported before as .*import-club-ics.*the same calendar/);
    expect(first.report.pipeline).toBe('import-club-ics');
    expect(first.report.counts.event).toMatchObject({ created: 0, updated: 1, unchanged: 5 });
    const titles = (await snapshotOf(data)).events.map((e) => e.title);
    expect(titles).toHaveLength(6);
    expect(titles).toContain(`${events[0].title} (moved)`);

    // Night after night: one GET each (a 304 while the feed is unchanged), its changes written.
    const before = feedRequests();
    const unchanged = await imp(url, data);
    expect(writesOf(unchanged.report)).toBe(0);
    served = served.map((e, i) => (i === 1 ? { ...e, title: `${e.title} (cancelled)` } : e));
    etag = '"2"';
    const changed = await imp(url, data);
    expect(changed.report.pipeline).toBe('import-club-ics');
    expect(changed.report.counts.event).toMatchObject({ created: 0, updated: 1 });
    expect(feedRequests() - before).toBe(2);
  });

  it('a feed that shares only a few events with the file is imported on its own, and leaves those to it', async () => {
    const data = at('city.db');
    const events = smallEvents(6);
    await writeFile(at('city.ics'), ics(events));
    await imp(at('city.ics'), data);
    served = [
      events[0],
      ...events.slice(1, 4).map((e, i) => ({ ...e, uid: `own-${i}@library.example`, title: `Library ${i}` })),
    ];
    etag = '"3"';
    const run = await imp(`${server.url}/club.ics`, data);
    expect(run.report.pipeline).toMatch(/^import-127-0-0-1/);
    expect(run.stderr).toMatch(/1 event was imported before as .*import-city-ics.*: left to that import/);
    expect(run.report.counts.event.created).toBe(3);
  });
});
