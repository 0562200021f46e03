/**
 * Records kept between list pages (src/store/row-memo.ts), with the response cache off so that every
 * page is made again: what a page shows is never older than the last write, by this server or another
 * process on the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VenueRecord } from '../../src/store/content.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { makeApp } from './harness.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-memo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const event = (title: string, venue: string, organizer: string) => ({
  title,
  start_date: '2026-12-01 19:00',
  end_date: '2026-12-01 21:00',
  status: 'publish',
  venue: { venue, city: 'Bremen' },
  organizer: [{ organizer }],
  categories: ['Music'],
});

interface Shown {
  title: string;
  venue: { venue: string };
  organizer: { organizer: string }[];
  categories: { name: string; count: number }[];
}

describe('records kept between list pages', () => {
  it('show every write at once: updates, renames, deletes, creates, and another process’s writes', async () => {
    const path = join(root, 'memo.db');
    const h = await makeApp({ path, responseCache: { maxEntries: 0, maxBytes: 0 } });
    const other = openSqliteStore(path);
    const page = async () =>
      ((await h.call('GET', '/events')).json.events as Shown[]).map((e) => ({
        title: e.title,
        venue: e.venue.venue,
        organizers: e.organizer.map((o) => o.organizer),
        categories: e.categories.map((c) => `${c.name} ${c.count}`),
      }));
    const first = await h.created('/events', event('First', 'Town Hall', 'Ann'));
    const second = await h.created('/events', event('Second', 'Old Mill', 'Bob'));
    expect(await page()).toEqual([
      { title: 'First', venue: 'Town Hall', organizers: ['Ann'], categories: ['Music 2'] },
      { title: 'Second', venue: 'Old Mill', organizers: ['Bob'], categories: ['Music 2'] },
    ]);
    const admin = { as: 'administrator' as const };
    expect(
      (await h.call('POST', `/events/${first.id}`, { ...admin, body: { title: 'First!' } })).status,
    ).toBe(200);
    expect((await page())[0].title).toBe('First!');
    await h.call('POST', `/venues/${first.venue.id}`, { ...admin, body: { venue: 'New Hall' } });
    expect((await page())[0].venue).toBe('New Hall');
    await h.call('POST', `/organizers/${second.organizer[0].id}`, { ...admin, body: { organizer: 'Bo' } });
    expect((await page())[1].organizers).toEqual(['Bo']);
    await h.call('POST', `/categories/${first.categories[0].id}`, { ...admin, body: { name: 'Jazz' } });
    expect((await page()).map((e) => e.categories)).toEqual([['Jazz 2'], ['Jazz 2']]);

    // A create only adds rows: the kept events stay, their category's count moves.
    await h.created('/events', { ...event('Third', 'Old Mill', 'Bob'), categories: ['Jazz'] });
    expect((await page()).map((e) => `${e.title} ${e.categories}`)).toEqual([
      'First! Jazz 3',
      'Second Jazz 3',
      'Third Jazz 3',
    ]);

    // Another process's writes: an event's title, a venue's name.
    await other.updateEvent({ ...(await other.getEvent(second.id))!, title: 'Second, elsewhere' });
    expect((await page())[1].title).toBe('Second, elsewhere');
    const hall = (await other.getLinked('venue', first.venue.id)) as VenueRecord;
    await other.updateLinked({ ...hall, venue: 'Hall elsewhere' });
    expect((await page())[0].venue).toBe('Hall elsewhere');

    expect((await h.call('DELETE', `/events/${first.id}`, admin)).status).toBe(200);
    expect((await page()).map((e) => e.title)).toEqual(['Second, elsewhere', 'Third']);
    await other.close();
    await h.app.close();
  });
});
