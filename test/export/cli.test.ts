/**
 * `npm run export` and the feeds of `npm run sync`, run for real on temp files: a valid .ics from the
 * local store, CSV with its venue and organizer files, a calendar API read page by page over a loopback
 * socket, and a pipeline's `feeds:` written after a sync.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as exportMain } from '../../src/cli/export.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { runCli, SAMPLE_ICS } from '../e2e/helpers.ts';
import { bodyOf, type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let data: string;

beforeAll(async () => {
  dir = await tempDir();
  data = join(dir.dir, 'calendar.db');
  const run = await runCli(importMain, [SAMPLE_ICS, '--data', data, '--quiet']);
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => dir.remove());

function vevents(ics: string): ICAL.Component[] {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  for (const tz of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
  return calendar.getAllSubcomponents('vevent');
}

describe('npm run export', () => {
  it('writes a feed of the local store that ical.js reads, every event with its zone', async () => {
    const out = join(dir.dir, 'events.ics');
    const run = await runCli(exportMain, [
      '--data',
      data,
      '--format',
      'ics',
      '--out',
      out,
      '--past-days',
      '400',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ics = await readFile(out, 'utf8');
    const events = vevents(ics);
    expect(events.length).toBeGreaterThan(400);
    expect(run.stderr).toContain(`${events.length} events`);
    for (const vevent of events) {
      const start = vevent.getFirstProperty('dtstart')!;
      const e = new ICAL.Event(vevent);
      // Every timed event is zoned (no floating times, spec/pipeline.md Feeds); all-day ones are dates.
      if (!e.startDate.isDate) expect(start.getParameter('tzid') ?? e.startDate.zone?.tzid).toBeTruthy();
      expect(e.endDate.compare(e.startDate)).toBeGreaterThanOrEqual(0);
    }
    // Standard output by default, byte-identical to the file.
    const again = await runCli(exportMain, ['--data', data, '--past-days', '400']);
    expect(again.stdout).toBe(ics);
  });

  it('writes CSV in TEC importer columns with the venue and organizer files beside it', async () => {
    const out = join(dir.dir, 'events.csv');
    const run = await runCli(exportMain, ['--data', data, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const [events, venues, organizers] = await Promise.all(
      ['events.csv', 'events.venues.csv', 'events.organizers.csv'].map((f) =>
        readFile(join(dir.dir, f), 'utf8'),
      ),
    );
    expect(events.split('\r\n')[0]).toMatch(/^event_name,event_description,event_excerpt,event_start_date,/);
    expect(venues.split('\r\n')[0]).toMatch(/^venue_name,/);
    expect(organizers.split('\r\n')[0]).toMatch(/^organizer_name,/);
    expect(venues.split('\r\n').length).toBeGreaterThan(3);
  });

  it('filters by category, by slug or by name', async () => {
    const all = await runCli(exportMain, ['--data', data]);
    const some = await runCli(exportMain, ['--data', data, '--category', 'music']);
    const byName = await runCli(exportMain, ['--data', data, '--category', 'Music']);
    expect(byName.stdout).toBe(some.stdout);
    for (const e of vevents(some.stdout)) {
      expect(e.getAllProperties('categories').flatMap((p) => p.getValues())).toContain('Music');
    }
    expect(vevents(some.stdout).length).toBeGreaterThan(0);
    expect(vevents(some.stdout).length).toBeLessThan(vevents(all.stdout).length);
    // A category the store does not have is a typo, not an empty calendar: exit 2, nothing written.
    const none = await runCli(exportMain, ['--data', data, '--category', 'no-such-category']);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('--category no-such-category: no category with that slug or name');
  });

  it('refuses a store that does not exist, a bad format, zone or day count, with exit code 2', async () => {
    const missing = await runCli(exportMain, ['--data', join(dir.dir, 'nope.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no calendar store');
    expect(existsSync(join(dir.dir, 'nope.db'))).toBe(false);
    expect((await runCli(exportMain, ['--format', 'pdf'])).code).toBe(2);
    expect((await runCli(exportMain, ['--data', data, '--timezone', 'Mars/Base'])).code).toBe(2);
    expect((await runCli(exportMain, ['--data', data, '--past-days', '-3'])).code).toBe(2);
  });
});

describe('npm run export --from an API', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startServer(join(dir.dir, 'remote.db'));
    const auth = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
    for (let n = 0; n < 120; n++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/calendar/events/v1/events',
        headers: { authorization: auth, 'content-type': 'application/json' },
        payload: JSON.stringify({
          ...bodyOf('event', n),
          start_date: `2027-03-01 ${String(n % 24).padStart(2, '0')}:00:00`,
          end_date: `2027-03-02 ${String(n % 24).padStart(2, '0')}:00:00`,
        }),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(() => server.close());

  it('reads every page of 50 over HTTP and writes them all', async () => {
    const out = join(dir.dir, 'remote.ics');
    const run = await runCli(exportMain, [
      '--from',
      server.url,
      '--namespace',
      'calendar/events/v1',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const events = vevents(await readFile(out, 'utf8'));
    expect(events).toHaveLength(120);
    expect(new Set(events.map((e) => e.getFirstPropertyValue('uid'))).size).toBe(120);
  });

  it('reports an API that answers no list with its URL and status, exit code 1', async () => {
    const run = await runCli(exportMain, ['--from', server.url, '--namespace', 'no/such/v1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('export-bad-response');
    expect(run.stderr).toContain('HTTP 404');
  });
});

describe('npm run sync with feeds:', () => {
  it('writes each feed that has a path after the run', async () => {
    const file = join(dir.dir, 'club.yaml');
    await writeFile(
      file,
      [
        'name: club',
        'source:',
        '  type: ics',
        `  path: ${SAMPLE_ICS}`,
        'target:',
        '  url: local',
        `  data: ${join(dir.dir, 'club.db')}`,
        'feeds:',
        '  - name: club',
        '    path: public/club.ics',
        '  - name: club-csv',
        '    format: csv',
        '    path: public/club.csv',
        '  - name: served-only',
      ].join('\n'),
    );
    const run = await runCli(syncMain, [file, '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const ics = await readFile(join(dir.dir, 'public', 'club.ics'), 'utf8');
    expect(vevents(ics).length).toBeGreaterThan(100);
    expect(existsSync(join(dir.dir, 'public', 'club.venues.csv'))).toBe(true);
    expect(existsSync(join(dir.dir, 'public', 'served-only.ics'))).toBe(false);
  });
});
