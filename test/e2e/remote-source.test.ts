/**
 * `npm run sync` of pipelines whose source is a URL, served by a real loopback HTTP server: a feed that did
 * not change costs one conditional GET and nothing else; a feed that breaks (404, a login page, a download
 * cut short) stops the run with its code and URL and deletes nothing; a changed definition is not hidden
 * by a 304; CSV arrives gzipped.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as planMain } from '../../src/cli/plan.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { type FeedServer, feed, startFeedServer, status, truncated } from '../sources/remote/feed-server.ts';
import { tempDir } from '../writer/setup.ts';
import { readReport, runCli, SAMPLE_CSV, SAMPLE_ICS, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: FeedServer;
let ics: string;
let etag = '"1"';

beforeAll(async () => {
  dir = await tempDir();
  ics = await readFile(SAMPLE_ICS, 'utf8');
  const csv = await readFile(SAMPLE_CSV);
  server = await startFeedServer({
    '/csv': feed(() => csv, { contentType: 'text/csv', encoding: 'gzip' }),
  });
  // The ETag follows the test's `etag`, as a server's follows its file.
  server.route('/feed.ics', (req, res) => feed(() => ics, { etag })(req, res));
});
afterAll(async () => {
  await server.close();
  await dir.remove();
});

const at = (name: string) => join(dir.dir, name);

async function pipeline(name: string, url: string, extra = ''): Promise<string> {
  const file = at(`${name}.yaml`);
  const type = url.endsWith('csv') ? 'csv' : 'ics';
  await writeFile(
    file,
    `name: ${name}\nsource:\n  type: ${type}\n  url: ${url}\n  timeout_ms: 2000\ntarget:\n  data: ${at(`${name}.db`)}\n${extra}`,
  );
  return file;
}

async function sync(file: string, ...args: string[]) {
  const run = await runCli(syncMain, [file, '--report', at('report.json'), ...args]);
  const [report] = await readReport<RunReport[]>(at('report.json'));
  return { ...run, report };
}

describe('an .ics feed over HTTP', () => {
  let file: string;
  let events: number;

  it('is imported like a file, and a feed that did not change costs one conditional GET and no writes', async () => {
    file = await pipeline('feed', `${server.url}/feed.ics`);
    const first = await sync(file);
    expect(first.code).toBe(0);
    events = first.report.counts.event.created;
    expect(events).toBeGreaterThan(400);
    expect(first.report.source).toBe(`${server.url}/feed.ics`);

    const again = await sync(file);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('feed: source not modified (HTTP 304)');
    expect(again.report.notModified).toBe(true);
    expect(again.report.requests).toEqual({});
    expect(server.requests.at(-1)?.headers['if-none-match']).toBe('"1"');
    expect((await snapshotOf(at('feed.db'))).events).toHaveLength(events);
  });

  it('writes what changed once the feed changes, and the plan shows it first', async () => {
    ics = ics.replace(/^SUMMARY:(.*)$/m, 'SUMMARY:$1 (moved)');
    etag = '"2"';
    const plan = await runCli(planMain, [file]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^update {4}event ".+ \(moved\)"/m);
    const run = await sync(file);
    expect(run.code).toBe(0);
    // The first SUMMARY is a series': each of its occurrences in the window is one update, nothing else.
    const { updated, unchanged } = run.report.counts.event;
    expect(updated).toBeGreaterThan(0);
    expect(unchanged).toBe(events - updated);
    expect(writesOf(run.report)).toBe(updated);
  });

  it('is read again in full when the definition changed, even though the feed did not', async () => {
    const changed = await pipeline('feed', `${server.url}/feed.ics`, 'mapping:\n  categories: [Remote]\n');
    const run = await sync(changed);
    expect(run.code).toBe(0);
    expect(run.report.notModified).toBeUndefined();
    expect(run.report.counts.event.updated).toBe(events);
    expect(run.report.counts.category.created).toBe(1);
  });

  it.each([
    ['a 404', () => status(404), 'source_not_found', 'HTTP 404'],
    [
      'a login page',
      () => status(200, '<html><body>Please sign in</body></html>', 'text/html'),
      'source_not_calendar',
      'HTML page',
    ],
    ['a download cut short', () => truncated(ics, 20_000), 'source_truncated', 'cut short'],
  ])('stops with a clear error on %s and deletes nothing', async (_what, handler, code, words) => {
    const saved = ics;
    server.route('/broken.ics', handler());
    const broken = await pipeline('feed', `${server.url}/broken.ics`, 'mapping:\n  categories: [Remote]\n');
    const before = await snapshotOf(at('feed.db'));
    const run = await runCli(syncMain, [broken]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`GET ${server.url}/broken.ics`);
    expect(run.stderr).toContain(code);
    expect(run.stderr).toContain(words);
    expect(run.stderr).toContain('nothing was planned or written');
    expect(await snapshotOf(at('feed.db'))).toEqual(before);
    ics = saved;
  });
});

describe('when a 304 is not enough', () => {
  const conditional = (path: string) =>
    server.requests.filter((r) => r.path === path).at(-1)?.headers['if-none-match'];

  it('a calendar with recurring series is read in full on a new day: its window moved', async () => {
    server.route(
      '/daily.ics',
      feed(() => ics, { etag: '"d"' }),
    );
    const file = await pipeline('daily', `${server.url}/daily.ics`);
    expect((await sync(file)).code).toBe(0);
    expect((await sync(file)).report.notModified).toBe(true);
    const tomorrow = await runCli(syncMain, [file, '--report', at('report.json')], {
      CALSYNC_NOW: '2026-11-23T12:00:00Z',
    });
    expect(tomorrow.code).toBe(0);
    expect(conditional('/daily.ics')).toBeUndefined();
    const [report] = await readReport<RunReport[]>(at('report.json'));
    expect(report.notModified).toBeUndefined();
  });

  it('a run that held deletions back keeps no validators: the next run reads the feed again', async () => {
    let body = ics;
    let tag = '"a"';
    server.route('/shrinking.ics', (req, res) => feed(() => body, { etag: tag })(req, res));
    const file = await pipeline('shrinking', `${server.url}/shrinking.ics`);
    expect((await sync(file)).code).toBe(0);
    body = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n';
    tag = '"b"';
    const held = await sync(file);
    expect(held.code).toBe(1);
    expect(held.report.guard).toMatch(/the source has no events/);
    const again = await sync(file);
    expect(conditional('/shrinking.ics')).toBeUndefined();
    expect(again.report.guard).toMatch(/the source has no events/);
  });
});

describe('a server that closes the connection mid-calendar, with no Content-Length to tell', () => {
  it('is a truncated download, not a shorter calendar: nothing is deleted', async () => {
    // HTTP/1.1 without Content-Length or chunking: the body ends when the connection does (RFC 9112 6.3).
    const raw = createServer((socket) => {
      socket.once('data', () => {
        socket.end(
          `HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nConnection: close\r\n\r\n${ics.slice(0, 30_000)}`,
        );
      });
    });
    await new Promise<void>((done) => raw.listen(0, '127.0.0.1', done));
    const { port } = raw.address() as AddressInfo;
    try {
      const file = await pipeline(
        'feed',
        `http://127.0.0.1:${port}/feed.ics`,
        'mapping:\n  categories: [Remote]\n',
      );
      const before = await snapshotOf(at('feed.db'));
      const run = await runCli(syncMain, [file]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('source_truncated');
      expect(await snapshotOf(at('feed.db'))).toEqual(before);
    } finally {
      raw.close();
    }
  });
});

describe('a CSV over HTTP', () => {
  it('arrives gzipped and imports the same events as the file', async () => {
    const run = await sync(await pipeline('csv', `${server.url}/csv`));
    expect(run.code).toBe(0);
    expect(server.requests.find((r) => r.path === '/csv')?.headers['accept-encoding']).toContain('gzip');
    const local = at('csv-file.yaml');
    await writeFile(
      local,
      `name: csv-file\nsource:\n  type: csv\n  path: ${SAMPLE_CSV}\ntarget:\n  data: ${at('csv-file.db')}\n`,
    );
    const fromFile = await sync(local);
    expect(run.report.counts).toEqual(fromFile.report.counts);
    expect(run.report.counts.event.created).toBeGreaterThan(50);
  });
});
