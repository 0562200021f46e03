/**
 * /feeds/<name>.ics as a calendar app sees it: parsed by ical.js (an independent parser), with events
 * in several zones, an all-day event across a DST change, cancellations as tombstones, SEQUENCE on
 * reschedules, filters, and the HTTP caching of a subscription (ETag, 304, HEAD, gzip, br) over a real
 * loopback socket.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import ICAL from 'ical.js';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { feedSpec, serverFeeds } from '../../src/export/feed-spec.ts';
import { type Harness, makeApp } from './harness.ts';

interface Parsed {
  uid: string;
  summary: string;
  start: string;
  end: string;
  tzid: string | undefined;
  isDate: boolean;
  status: string | null;
  sequence: number;
}

function parse(ics: string): { calendar: ICAL.Component; events: Parsed[] } {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  for (const tz of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
  const events = calendar.getAllSubcomponents('vevent').map((vevent) => {
    const e = new ICAL.Event(vevent);
    const instant = (t: ICAL.Time) => (t.isDate ? t.toString() : t.toJSDate().toISOString());
    return {
      uid: e.uid,
      summary: e.summary,
      start: instant(e.startDate),
      end: instant(e.endDate),
      tzid: vevent.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined,
      isDate: e.startDate.isDate,
      status: vevent.getFirstPropertyValue('status') as string | null,
      sequence: e.sequence,
    };
  });
  return { calendar, events };
}

let h: Harness;
const ids: Record<string, number> = {};

async function seed() {
  const ev = async (key: string, body: Record<string, unknown>) => {
    ids[key] = (await h.created('/events', body)).id;
  };
  await ev('ny', {
    title: 'Jazz night',
    start_date: '2027-03-13 19:00:00',
    end_date: '2027-03-13 22:00:00',
    timezone: 'America/New_York',
    venue: { venue: 'Main Hall', city: 'New York' },
    categories: ['Concerts'],
  });
  await ev('berlin', {
    title: 'Festival weekend',
    start_date: '2027-03-27',
    end_date: '2027-03-28',
    all_day: true,
    timezone: 'Europe/Berlin',
    categories: ['Festivals'],
  });
  await ev('kolkata', {
    title: 'Tabla workshop',
    start_date: '2027-01-10 10:30:00',
    end_date: '2027-01-10 12:00:00',
    timezone: 'Asia/Kolkata',
    categories: ['Concerts'],
    tags: ['workshop'],
  });
  await ev('gone', {
    title: 'Cancelled talk',
    start_date: '2027-02-01 18:00:00',
    end_date: '2027-02-01 19:00:00',
    timezone: 'Europe/London',
    categories: ['Talks'],
  });
  await ev('trashed', {
    title: 'Postponed picnic',
    start_date: '2027-05-01 12:00:00',
    end_date: '2027-05-01 15:00:00',
    timezone: 'Europe/Berlin',
    categories: ['Festivals'],
  });
}

beforeEach(async () => {
  h = await makeApp({
    feeds: [
      feedSpec({ name: 'all' }),
      feedSpec({ name: 'concerts', categories: ['concerts'], refreshMinutes: 30, color: 'steelblue' }),
      feedSpec({ name: 'workshops', tags: ['Workshop'] }),
    ],
  });
  await seed();
});
afterEach(async () => {
  await h.app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'GET', url, headers });

describe('a feed read by a calendar app', () => {
  it('lists every published event with its zone, and all-day events as dates with an exclusive end', async () => {
    const res = await get('/feeds/all.ics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const { calendar, events } = parse(res.body);
    const byUid = new Map(events.map((e) => [e.uid, e]));
    const ny = byUid.get(`${ids.ny}@cal.example.org`)!;
    expect(ny).toMatchObject({
      tzid: 'America/New_York',
      start: '2027-03-14T00:00:00.000Z',
      summary: 'Jazz night',
    });
    // 2027-03-28 is Berlin's spring-forward day; the end stays a date, the day after the last one.
    expect(byUid.get(`${ids.berlin}@cal.example.org`)).toMatchObject({
      isDate: true,
      start: '2027-03-27',
      end: '2027-03-29',
    });
    expect(byUid.get(`${ids.kolkata}@cal.example.org`)).toMatchObject({
      tzid: 'Asia/Kolkata',
      start: '2027-01-10T05:00:00.000Z',
    });
    const zones = calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'));
    expect(zones.sort()).toEqual(['America/New_York', 'Asia/Kolkata', 'Europe/Berlin', 'Europe/London']);
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('cal.example.org');
    expect(res.body).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n');
    expect(res.body).toContain('X-PUBLISHED-TTL:PT1H\r\n');
    expect(res.body).toContain('SOURCE;VALUE=URI:https://cal.example.org/feeds/all.ics\r\n');
    expect(res.body).toContain('X-WR-TIMEZONE:UTC\r\n');
  });

  it('renders byte-identically while nothing changes', async () => {
    const first = (await get('/feeds/all.ics')).body;
    // A write to another feed's data that leaves this one's events alone re-renders, same bytes.
    await h.store.insertTerm({ kind: 'tags', name: 'unused', slug: 'unused', description: '', parent: 0 });
    const second = (await get('/feeds/all.ics')).body;
    expect(second).toBe(first);
  });

  it('keeps the UID and raises SEQUENCE when an event is rescheduled', async () => {
    const before = parse((await get('/feeds/all.ics')).body).events.find((e) =>
      e.uid.startsWith(`${ids.ny}@`),
    )!;
    const res = await h.call('POST', `/events/${ids.ny}`, {
      as: 'administrator',
      body: { start_date: '2027-03-14 19:00:00', end_date: '2027-03-14 22:00:00' },
    });
    expect(res.status, res.body).toBe(200);
    const after = parse((await get('/feeds/all.ics')).body).events.find((e) =>
      e.uid.startsWith(`${ids.ny}@`),
    )!;
    expect(after.start).toBe('2027-03-14T23:00:00.000Z');
    expect(after.sequence).toBeGreaterThan(before.sequence);
    // A title change alone is no new version of the time (RFC 5545 §3.8.7.4).
    await h.call('POST', `/events/${ids.ny}`, { as: 'administrator', body: { title: 'Jazz night!' } });
    const renamed = parse((await get('/feeds/all.ics')).body).events.find((e) =>
      e.uid.startsWith(`${ids.ny}@`),
    )!;
    expect(renamed.sequence).toBe(after.sequence);
  });

  it('keeps deleted and trashed events as STATUS:CANCELLED with a higher SEQUENCE', async () => {
    const del = await h.call('DELETE', `/events/${ids.gone}?force=true`, { as: 'administrator' });
    expect(del.status, del.body).toBe(200);
    const trash = await h.call('DELETE', `/events/${ids.trashed}`, { as: 'administrator' });
    expect(trash.status, trash.body).toBe(200);
    const { events } = parse((await get('/feeds/all.ics')).body);
    const gone = events.find((e) => e.uid === `${ids.gone}@cal.example.org`)!;
    const trashed = events.find((e) => e.uid === `${ids.trashed}@cal.example.org`)!;
    expect(gone).toMatchObject({
      status: 'CANCELLED',
      tzid: 'Europe/London',
      start: '2027-02-01T18:00:00.000Z',
    });
    expect(gone.sequence).toBeGreaterThan(0);
    expect(trashed).toMatchObject({ status: 'CANCELLED', summary: 'Postponed picnic' });
    expect(events.filter((e) => e.status === 'CANCELLED')).toHaveLength(2);
    // Restored: published again, no longer cancelled.
    await h.call('POST', `/events/${ids.trashed}`, { as: 'administrator', body: { status: 'publish' } });
    const restored = parse((await get('/feeds/all.ics')).body).events.find((e) =>
      e.uid.startsWith(`${ids.trashed}@`),
    );
    expect(restored?.status).toBeNull();
  });

  it('filters by category (with its events only, cancellations included) and by tag name', async () => {
    await h.call('DELETE', `/events/${ids.gone}?force=true`, { as: 'administrator' });
    const concerts = await get('/feeds/concerts.ics');
    const { calendar, events } = parse(concerts.body);
    expect(events.map((e) => e.summary).sort()).toEqual(['Jazz night', 'Tabla workshop']);
    expect(concerts.body).toContain('COLOR:steelblue\r\n');
    expect(concerts.headers['cache-control']).toBe('public, max-age=1800');
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('cal.example.org – concerts');
    const workshops = parse((await get('/feeds/workshops.ics')).body).events;
    expect(workshops.map((e) => e.summary)).toEqual(['Tabla workshop']);
  });

  it('serves CSV in TEC importer columns, an Outlook variant without X-WR-CALNAME, and 404 for unknown feeds', async () => {
    const csv = await get('/feeds/all.csv');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.body.split('\r\n')[0]).toMatch(/^event_name,event_description,/);
    expect(csv.body).toContain('Jazz night');
    const outlook = await get('/feeds/all.ics?outlook=1');
    expect(outlook.body).not.toContain('X-WR-CALNAME');
    expect(outlook.body).toContain('NAME:cal.example.org\r\n');
    parse(outlook.body);
    expect((await get('/feeds/nope.ics')).statusCode).toBe(404);
    expect((await get('/feeds/all.txt')).statusCode).toBe(404);
  });
});

describe('a subscription over a loopback socket', () => {
  it('answers If-None-Match and If-Modified-Since with 304, HEAD with headers only, and gzip or br on request', async () => {
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${base}/feeds/all.ics`;
    const full = await request(url);
    const body = await full.body.text();
    expect(full.statusCode).toBe(200);
    const etag = full.headers.etag as string;
    const lastModified = full.headers['last-modified'] as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(new Date(lastModified).getTime()).toBeGreaterThan(0);
    expect(full.headers['cache-control']).toBe('public, max-age=3600');

    const byTag = await request(url, { headers: { 'if-none-match': etag } });
    expect(byTag.statusCode).toBe(304);
    expect(await byTag.body.text()).toBe('');
    expect(byTag.headers.etag).toBe(etag);
    const byDate = await request(url, { headers: { 'if-modified-since': lastModified } });
    expect(byDate.statusCode).toBe(304);
    await byDate.body.dump();
    const stale = await request(url, {
      headers: { 'if-none-match': '"other"', 'if-modified-since': lastModified },
    });
    expect(stale.statusCode).toBe(200); // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2)
    await stale.body.dump();

    const head = await request(url, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(etag);
    expect(await head.body.text()).toBe('');

    const gz = await request(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toContain('Accept-Encoding');
    expect(gunzipSync(Buffer.from(await gz.body.arrayBuffer())).toString()).toBe(body);
    const br = await request(url, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await br.body.arrayBuffer())).toString()).toBe(body);

    // A change to the feed's events gives a new ETag, and the old one no longer answers 304.
    await h.call('POST', `/events/${ids.ny}`, { as: 'administrator', body: { title: 'Jazz night, moved' } });
    const changed = await request(url, { headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(await changed.body.text()).toContain('Jazz night\\, moved');
  });
});

describe("the API's negotiated answers", () => {
  it('carry a strong ETag and answer If-None-Match with 304, for lists and single events, cached or not', async () => {
    for (const path of [
      '/api/calendar/events/v1/events?ical=1',
      `/api/calendar/events/v1/events/${ids.ny}`,
    ]) {
      const first = await get(path);
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      const again = await get(path, { 'if-none-match': etag }); // from the response cache
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect((await get(path, { 'if-none-match': '"x"' })).statusCode).toBe(200);
    }
    await h.app.close();
    h = await makeApp({ responseCache: { maxEntries: 0, maxBytes: 0 } });
    await seed();
    const path = '/api/calendar/events/v1/events';
    const etag = (await get(path, { accept: 'text/csv' })).headers.etag as string;
    expect((await get(path, { accept: 'text/csv', 'if-none-match': etag })).statusCode).toBe(304);
    // Another representation of the same list is another entity: its own tag.
    expect((await get(path, { 'if-none-match': etag })).statusCode).toBe(200);
  });
});

describe('feeds from a pipeline file (npm run serve -- --feeds file)', () => {
  it("serves the file's feeds with their filters and properties, and all beside them", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calsync-feeds-'));
    try {
      const file = join(dir, 'club.yaml');
      await writeFile(
        file,
        [
          'name: club',
          'source: { type: ics, path: club.ics }',
          'feeds:',
          '  - name: festivals',
          '    categories: [Festivals]',
          '    title: Club festivals',
          '    refresh_minutes: 15',
          '    past_days: 0',
        ].join('\n'),
      );
      const feeds = await serverFeeds([file], {});
      expect(feeds.map((f) => f.name)).toEqual(['festivals', 'all']);
      await h.app.close();
      h = await makeApp({ feeds });
      await seed();
      const res = await get('/feeds/festivals.ics');
      expect(res.headers['cache-control']).toBe('public, max-age=900');
      const { calendar, events } = parse(res.body);
      expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('Club festivals');
      expect(events.map((e) => e.summary).sort()).toEqual(['Festival weekend', 'Postponed picnic']);
      expect((await get('/feeds/all.ics')).statusCode).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
