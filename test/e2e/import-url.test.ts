/**
 * `npm run import -- <URL>`: a feed is imported like a file (webcal:// too), a CSV URL by its extension, a
 * re-run of an unchanged feed costs one conditional GET; and CALSYNC_STATE_DIR moves a remote target's
 * sync state.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { chooseTarget } from '../../src/cli/target.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { type FeedServer, feed, startFeedServer } from '../sources/remote/feed-server.ts';
import { tempDir } from '../writer/setup.ts';
import { readReport, runCli, SAMPLE_CSV, SAMPLE_ICS, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: FeedServer;

beforeAll(async () => {
  dir = await tempDir();
  const ics = await readFile(SAMPLE_ICS, 'utf8');
  const csv = await readFile(SAMPLE_CSV);
  server = await startFeedServer({
    '/club.ics': feed(() => ics, { etag: '"v1"' }),
    '/calendar': feed(() => ics),
    '/events.csv': feed(() => csv, { contentType: 'text/csv', encoding: 'gzip' }),
  });
});
afterAll(async () => {
  await server.close();
  await dir.remove();
});

const at = (name: string) => join(dir.dir, name);

async function importUrl(url: string, data: string) {
  const run = await runCli(importMain, [url, '--data', at(data), '--report', at('report.json')]);
  return { ...run, report: await readReport<RunReport>(at('report.json')) };
}

describe('npm run import -- <URL>', () => {
  it('imports a webcal:// feed like the file it serves, and an unchanged feed costs no writes', async () => {
    const fromFile = await importUrl(SAMPLE_ICS, 'file.db');
    expect(fromFile.code).toBe(0);

    const url = `${server.url.replace(/^http:/, 'webcal:')}/club.ics`;
    const first = await importUrl(url, 'url.db');
    expect(first.code, first.stderr).toBe(0);
    expect(first.report.counts).toEqual(fromFile.report.counts);
    // The same events; only the slugs differ, which carry the pipeline's name (import-<file or URL>).
    const titles = async (db: string) =>
      (await snapshotOf(at(db))).events.map((e) => `${e.start_date} ${e.title}`).sort();
    expect(await titles('url.db')).toEqual(await titles('file.db'));

    const again = await importUrl(url, 'url.db');
    expect(again.code).toBe(0);
    expect(writesOf(again.report)).toBe(0);
    expect(again.stdout + again.stderr).toMatch(/not modified/);
  });

  it('reads a URL without an extension as iCalendar and a .csv URL as CSV', async () => {
    const ics = await importUrl(`${server.url}/calendar`, 'plain.db');
    expect(ics.code, ics.stderr).toBe(0);
    expect(ics.report.counts.event.created).toBeGreaterThan(400);

    const csv = await importUrl(`${server.url}/events.csv`, 'csv.db');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.report.counts.event.created).toBeGreaterThan(50);
  });
});

describe('a feed saved as a file and imported too', () => {
  it("takes over the feed's import, and the feed's next run writes the feed's events back instead of a 304", async () => {
    const url = `${server.url}/club.ics`;
    expect((await importUrl(url, 'saved.db')).code).toBe(0);
    // An older copy of the feed, saved to disk: one event has another title.
    const saved = at('club.ics');
    await writeFile(
      saved,
      (await readFile(SAMPLE_ICS, 'utf8')).replace(/^SUMMARY:(.*)$/m, 'SUMMARY:$1 (old)'),
    );
    const file = await importUrl(saved, 'saved.db');
    expect(file.report.pipeline).toBe(`import-${url.replace(/^http:\/\//, '').replace(/[^a-z0-9]+/g, '-')}`);
    const changed = file.report.counts.event.updated; // the occurrences of the event, if it repeats
    expect(changed).toBeGreaterThan(0);

    const feedAgain = await importUrl(url, 'saved.db');
    expect(feedAgain.report.notModified).toBeUndefined();
    expect(feedAgain.report.counts.event.updated).toBe(changed);
    const titles = (await snapshotOf(at('saved.db'))).events.map((e) => e.title);
    expect(titles.filter((t) => t.endsWith(' (old)'))).toEqual([]);
  });
});

describe('CALSYNC_STATE_DIR', () => {
  it("puts a remote target's sync state where it says, and leaves the local target's beside its data", () => {
    const before = process.env.CALSYNC_STATE_DIR;
    process.env.CALSYNC_STATE_DIR = at('state');
    try {
      const remote = chooseTarget({
        url: 'https://site.example/wp-json',
        data: '',
        namespace: 'tribe/events/v1',
      });
      expect(remote.stateFile).toBe(join(at('state'), 'site.example-wp-json-tribe-events-v1.db'));
      const local = chooseTarget({ url: 'local', data: at('calendar.db'), namespace: '' });
      expect(local.stateFile).toBe(at('calendar.sync.db'));
    } finally {
      if (before === undefined) delete process.env.CALSYNC_STATE_DIR;
      else process.env.CALSYNC_STATE_DIR = before;
    }
  });
});
