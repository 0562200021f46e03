// Round trip of every .ics fixture (test/fixtures/ics): `npm run import` into a fresh local store, then the
// server's own export — the events list with `Accept: text/calendar`, page by page over a wide date range —
// parsed by ical.js: the same occurrences come back, with the same start and end instants, the same zone on
// timed events and all-day events on the same dates (issue 4: never a day off, on import and on export).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { wireToMs } from '../../src/model/civil-time.ts';
import { normalizeTimezone, wallToInstant, zoneInfo } from '../../src/model/timezone.ts';
import { eventTimes } from '../../src/pipeline/map.ts';
import { buildApp } from '../../src/server/app.ts';
import { readIcs } from '../../src/sources/ics/index.ts';
import type { EventRecord } from '../../src/sources/record.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { DEFAULT_ZONE, FIXTURES, fixtureFiles } from '../sources/ics/fixtures.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli } from './helpers.ts';

// The fixtures' year: the import's window (30 days back, 365 ahead) then covers 2027.
const NOW = '2027-01-31T00:00:00Z';
const DAY = 86_400_000;
const WINDOW = { from: new Date(Date.parse(NOW) - 30 * DAY), to: new Date(Date.parse(NOW) + 365 * DAY) };
const API = '/wp-json/calendar/events/v1';

/** An occurrence as a user sees it: instants (or dates when all-day) and the zone of a timed event. */
type Seen = string;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** What the import writes, from the records readIcs gives (cancelled ones are not written). */
function expected(records: EventRecord[], fallbackZone: string): Seen[] {
  return records
    .filter((r) => r.status !== 'cancelled')
    .map((r) => {
      const times = eventTimes(r.start, r.end, fallbackZone);
      if (times.allDay) {
        const end =
          r.end.kind === 'date' && r.start.kind === 'date' && r.end.date > r.start.date ? r.end.date : null;
        return `all-day ${times.start.slice(0, 10)} ${end ?? nextDay(times.start.slice(0, 10))}`;
      }
      const info = zoneInfo(times.timezone);
      const instant = (wall: string) => iso(wallToInstant(wireToMs(wall), info));
      // The export writes fixed offsets (`UTC+2`, WordPress's manual offsets) in UTC: iCalendar has no TZID
      // for them without a VTIMEZONE (src/export/ical.ts). The instants stay; the zone reads back as UTC.
      const zone = /^UTC[+-]/.test(times.timezone) ? 'UTC' : times.timezone;
      return `${instant(times.start)} ${instant(times.end)} ${zone}`;
    })
    .sort();
}

const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
const dateOf = (t: ICAL.Time) =>
  `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;

/** The VEVENTs of one exported page, as ical.js reads them with the page's own VTIMEZONEs. */
function exported(ics: string): Seen[] {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  return calendar.getAllSubcomponents('vevent').map((vevent) => {
    const event = new ICAL.Event(vevent);
    const start = event.startDate;
    const end = event.endDate;
    if (start.isDate) return `all-day ${dateOf(start)} ${dateOf(end)}`;
    const tzid = vevent.getFirstProperty('dtstart')?.getParameter('tzid');
    const zone = typeof tzid === 'string' ? (normalizeTimezone(tzid) ?? tzid) : 'UTC';
    const zoneName = typeof tzid === 'string' ? zone : undefined;
    return `${iso(firstInstant(start, zoneName))} ${iso(firstInstant(end, zoneName))} ${zone}`;
  });
}

/**
 * The instant of a zoned ical.js time in epoch ms, the first one when its wall time occurs twice (the night
 * the clocks go back): RFC 5545 §3.3.5 says so, ical.js takes the second (and converts back wrongly near
 * the change, so the wall time of the earlier candidate is read with Intl). Deliberate, as in
 * test/sources/ics/oracle.test.ts.
 */
function firstInstant(time: ICAL.Time, tzid: string | undefined): number {
  const ms = time.toUnixTime() * 1000;
  if (tzid === undefined) return ms;
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: tzid,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  const wall = (at: number) => format.format(at);
  for (const earlier of [3_600_000, 1_800_000]) if (wall(ms - earlier) === wall(ms)) return ms - earlier;
  return ms;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('import → export → parse of every .ics fixture', () => {
  for (const file of fixtureFiles()) {
    it(`gives back the instants, zones and all-day dates of ${file}`, async () => {
      const path = join(FIXTURES, file);
      const data = join(dir.dir, `${file}.db`);
      const run = await runCli(importMain, [path, '--data', data, '--timezone', DEFAULT_ZONE, '--quiet'], {
        CALSYNC_NOW: NOW,
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);

      const source = readIcs(readFileSync(path), { file, window: WINDOW, defaultZone: DEFAULT_ZONE });
      const fallbackZone = DEFAULT_ZONE;
      const want = expected(source.records, fallbackZone);

      const store = openSqliteStore(data);
      const app = await buildApp({ store, siteUrl: 'http://127.0.0.1', apiBase: 'http://127.0.0.1/wp-json' });
      try {
        const got: Seen[] = [];
        for (let page = 1, pages = 1; page <= pages; page++) {
          const res = await app.inject({
            method: 'GET',
            url: `${API}/events?start_date=2000-01-01&end_date=2100-12-31&per_page=50&page=${page}`,
            headers: { accept: 'text/calendar' },
          });
          expect(res.statusCode, res.body).toBe(200);
          expect(res.headers['content-type']).toMatch(/^text\/calendar/);
          pages = Number(res.headers['x-tec-totalpages']);
          got.push(...exported(res.body));
        }
        expect(got.sort()).toEqual(want);
        expect(want.length).toBeGreaterThan(0);
      } finally {
        await app.close();
      }
    });
  }
});
