/**
 * Event creates through the API (contract B.6.1, B.6.2, A.1, A.6; checklist T060–T084), on a
 * real app and store. Images by URL are fetched from a loopback HTTP server started here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { JANE, seedAttachment, US_VENUE } from '../fixtures.ts';
import { BASE, type Harness, makeApp, SITE, snapshot } from '../harness.ts';

const NS_URL = `${BASE}/calendar/events/v1`;
const EVENT = { title: 'Minimal', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

let h: Harness;
let uploadsDir: string;
beforeEach(async () => {
  uploadsDir = await mkdtemp(join(tmpdir(), 'calsync-uploads-'));
  // The images are served on loopback, which a default server refuses to fetch from (SSRF).
  h = await makeApp({ uploadsDir, allowPrivateImageHosts: true });
});
afterEach(async () => {
  await h.app.close();
  await rm(uploadsDir, { recursive: true, force: true });
});

const create = (body: Record<string, unknown>, as?: Role) => h.created('/events', body, as);
const post = (path: string, body: Record<string, unknown>, as?: Role) => h.created(path, body, as);

// ---- Images served from a loopback HTTP server ------------------------------------------------

/** A real (decodable) RGB PNG of the given size. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x80)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 1×1 baseline JPEG (JFIF, one grey pixel). */
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const POSTER = png(40, 30);

let images: Server;
let imageBase: string;
let closedPort: number;
const hits: string[] = [];

beforeAll(async () => {
  images = createServer((req, res) => {
    hits.push(req.url ?? '');
    const send = (type: string, body: Buffer | string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    switch (req.url) {
      case '/poster.png':
      case '/again.png':
        return send('image/png', POSTER);
      case '/photo.jpg':
        return send('image/jpeg; charset=binary', JPEG);
      case '/notes.txt':
        return send('text/plain; charset=utf-8', 'not an image\n');
      case '/liar.png':
        return send('image/png', 'plain text pretending to be a PNG');
      case '/big.png':
        return send('image/png', png(400, 400));
      case '/wide.png':
        return send('image/png', png(800, 600));
      case '/moved.png':
        res.writeHead(302, { location: '/poster.png' });
        return res.end();
      case '/loop.png':
        res.writeHead(301, { location: '/loop.png' });
        return res.end();
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such file');
    }
  });
  await new Promise<void>((done) => images.listen(0, '127.0.0.1', done));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  // A port that was just open and is now closed: connections to it are refused.
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((done) => probe.close(() => done()));
});
afterAll(async () => {
  await new Promise<void>((done) => images.close(() => done()));
});

// ---- T060–T065: shape, minimal create, missing and malformed input -----------------------------

const A1_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
];

/** The A.1 example's related items, created through the API. */
async function fullEventFixture() {
  const category = await post('/categories', {
    name: 'Concerts',
    slug: 'concerts',
    description: 'Live music',
  });
  const tag = await post('/tags', { name: 'Outdoor', description: 'Outside events' });
  const venue = await post('/venues', { ...US_VENUE, show_map_link: false });
  const organizer = await post('/organizers', JANE);
  const event = await create({
    title: 'Full Event',
    description: 'Full description',
    excerpt: 'Short',
    start_date: '2027-03-01 19:00:00',
    end_date: '2027-03-01 22:00:00',
    timezone: 'America/New_York',
    cost: '$25',
    website: 'https://example.com/full',
    show_map: true,
    show_map_link: true,
    featured: true,
    categories: [category.id],
    tags: ['outdoor'],
    venue: venue.id,
    organizer: [organizer.id],
  });
  return { category, tag, venue, organizer, event };
}

describe('event representation (A.1)', () => {
  it('T060 a single GET has every A.1 key in order, json_ld included; list items have none', async () => {
    const { event, category, tag, venue, organizer } = await fullEventFixture();
    expect(Object.keys(event)).toEqual(A1_KEYS);

    const single = await h.call('GET', `/events/${event.id}`);
    expect(single.status).toBe(200);
    expect(Object.keys(single.json)).toEqual([...A1_KEYS, 'json_ld']);
    const id = event.id;
    expect(single.json).toMatchObject({
      id,
      global_id: `cal.example.org?id=${id}`,
      global_id_lineage: [`cal.example.org?id=${id}`],
      author: String(h.users.administrator.id),
      status: 'publish',
      date: '2026-11-21 12:00:00',
      date_utc: '2026-11-21 12:00:00',
      modified: '2026-11-21 12:00:00',
      modified_utc: '2026-11-21 12:00:00',
      url: `${SITE}/event/full-event/`,
      rest_url: `${NS_URL}/events/${id}`,
      title: 'Full Event',
      description: '<p>Full description</p>',
      excerpt: '<p>Short</p>',
      slug: 'full-event',
      image: false,
      all_day: false,
      start_date: '2027-03-01 19:00:00',
      start_date_details: { year: '2027', month: '03', day: '01', hour: '19', minutes: '00', seconds: '00' },
      end_date: '2027-03-01 22:00:00',
      utc_start_date: '2027-03-02 00:00:00',
      utc_start_date_details: {
        year: '2027',
        month: '03',
        day: '02',
        hour: '00',
        minutes: '00',
        seconds: '00',
      },
      utc_end_date: '2027-03-02 03:00:00',
      timezone: 'America/New_York',
      timezone_abbr: 'EST',
      cost: '$25',
      cost_details: { currency_symbol: '$', currency_code: '', currency_position: 'prefix', values: ['25'] },
      website: 'https://example.com/full',
      show_map: true,
      show_map_link: true,
      hide_from_listings: false,
      sticky: false,
      featured: true,
    });
    expect(single.json.categories).toEqual([
      {
        name: 'Concerts',
        slug: 'concerts',
        term_group: 0,
        term_taxonomy_id: category.id,
        taxonomy: 'tribe_events_cat',
        description: 'Live music',
        parent: 0,
        count: 1,
        filter: 'raw',
        id: category.id,
        urls: { self: `${NS_URL}/categories/${category.id}`, collection: `${NS_URL}/categories` },
      },
    ]);
    expect(single.json.tags).toMatchObject([{ id: tag.id, name: 'Outdoor', taxonomy: 'post_tag', count: 1 }]);
    expect(single.json.venue).toMatchObject({ id: venue.id, venue: 'Main Hall', stateprovince: 'IL' });
    expect(single.json.venue.json_ld).toMatchObject({ '@type': 'Place', name: 'Main Hall' });
    expect(single.json.organizer).toHaveLength(1);
    expect(single.json.organizer[0]).toMatchObject({ id: organizer.id, organizer: 'Jane Org' });
    expect(single.json.organizer[0].json_ld).toMatchObject({ '@type': 'Person', email: 'jane@example.com' });

    expect(single.json.json_ld).toEqual({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: 'Full Event',
      description: 'Short',
      url: `${SITE}/event/full-event/`,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: '2027-03-01T19:00:00-05:00',
      endDate: '2027-03-01T22:00:00-05:00',
      location: single.json.venue.json_ld,
      organizer: single.json.organizer[0].json_ld,
      offers: {
        '@type': 'Offer',
        price: '25',
        priceCurrency: 'USD',
        url: `${SITE}/event/full-event/`,
        category: 'primary',
        availability: 'inStock',
        validFrom: '2026-11-21T00:00:00+00:00',
      },
      performer: 'Organization',
    });

    const bySlug = await h.call('GET', '/events/by-slug/full-event');
    expect(bySlug.json).toEqual(single.json);

    const list = await h.call('GET', '/events');
    expect(list.json.events).toHaveLength(1);
    const item = list.json.events[0];
    expect(Object.keys(item)).toEqual(A1_KEYS);
    expect(item.venue).not.toHaveProperty('json_ld');
    expect(item.organizer[0]).not.toHaveProperty('json_ld');
    const { json_ld: _, ...rest } = single.json;
    expect(item).toEqual({
      ...rest,
      venue: (({ json_ld: _v, ...v }) => v)(single.json.venue),
      organizer: [(({ json_ld: _o, ...o }) => o)(single.json.organizer[0])],
    });
  });

  it('T061 author is a numeric string, date parts are zero-padded strings, nothing linked is false or []', async () => {
    const e = await create({ ...EVENT, start_date: '2027-01-02 03:04:05', end_date: '2027-01-02 06:07:08' });
    expect(e.author).toBe(String(h.users.administrator.id));
    expect(e.start_date_details).toEqual({
      year: '2027',
      month: '01',
      day: '02',
      hour: '03',
      minutes: '04',
      seconds: '05',
    });
    expect(e.end_date_details).toEqual({
      year: '2027',
      month: '01',
      day: '02',
      hour: '06',
      minutes: '07',
      seconds: '08',
    });
    for (const k of [
      'start_date_details',
      'end_date_details',
      'utc_start_date_details',
      'utc_end_date_details',
    ]) {
      for (const v of Object.values(e[k])) expect(typeof v).toBe('string');
    }
    expect(e.image).toBe(false);
    expect(e.venue).toEqual([]);
    expect(e.organizer).toEqual([]);
    expect(e.categories).toEqual([]);
    expect(e.tags).toEqual([]);
  });

  it('T062 an unknown id and the id of a venue are 404 event-not-found', async () => {
    const missing = await h.call('GET', '/events/999999');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      code: 'event-not-found',
      message: 'Event with ID 999999 does not exist.',
      data: { status: 404 },
    });
    const venue = await post('/venues', { venue: 'Not An Event' });
    const wrongKind = await h.call('GET', `/events/${venue.id}`, { as: 'administrator' });
    expect(wrongKind.status).toBe(404);
    expect(wrongKind.json.code).toBe('event-not-found');
  });
});

describe('POST /events', () => {
  it('T063 a minimal create is 201 publish with flags false, website = url and Location = rest_url', async () => {
    const res = await h.call('POST', '/events', { as: 'administrator', body: EVENT });
    expect(res.status).toBe(201);
    const e = res.json;
    expect(e).toMatchObject({
      status: 'publish',
      title: 'Minimal',
      slug: 'minimal',
      url: `${SITE}/event/minimal/`,
      website: `${SITE}/event/minimal/`,
      description: '',
      excerpt: '',
      cost: '',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
      timezone: 'UTC',
      timezone_abbr: 'UTC',
      all_day: false,
      show_map: false,
      show_map_link: false,
      hide_from_listings: false,
      sticky: false,
      featured: false,
    });
    expect(e).not.toHaveProperty('json_ld');
    expect(res.headers.location).toBe(e.rest_url);
    expect(e.rest_url).toBe(`${NS_URL}/events/${e.id}`);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect((await h.call('GET', `/events/${e.id}`)).status).toBe(200);
  });

  it('T064 a missing title or missing dates are rest_missing_callback_param naming them', async () => {
    const before = await snapshot(h.store);
    const noTitle = await h.call('POST', '/events', {
      as: 'administrator',
      body: { start_date: EVENT.start_date, end_date: EVENT.end_date },
    });
    expect(noTitle.status).toBe(400);
    expect(noTitle.json.code).toBe('rest_missing_callback_param');
    expect(noTitle.json.data).toEqual({ status: 400, params: ['title'] });

    const noDates = await h.call('POST', '/events', { as: 'administrator', body: { title: 'Dateless' } });
    expect(noDates.status).toBe(400);
    expect(noDates.json.message).toBe('Missing parameter(s): start_date, end_date');
    expect(noDates.json.data.params).toEqual(['start_date', 'end_date']);

    const emptyTitle = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, title: '  ' },
    });
    expect(emptyTitle.status).toBe(400);
    expect(emptyTitle.json.code).toBe('rest_invalid_param');
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T065 a malformed JSON body is 400 rest_invalid_json', async () => {
    const before = await snapshot(h.store);
    const res = await h.call('POST', '/events', { as: 'administrator', body: '{"title": "Broken",' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400 },
    });
    expect(await snapshot(h.store)).toBe(before);
  });
});

// ---- T066–T072: dates and time zones (B.6.1) --------------------------------------------------

describe('event dates and time zones (B.6.1)', () => {
  it('T066 a New York 19:00 start is 00:00 UTC the next day, abbreviated EST', async () => {
    const e = await create({ ...EVENT, timezone: 'America/New_York' });
    expect(e.start_date).toBe('2027-03-01 19:00:00');
    expect(e.utc_start_date).toBe('2027-03-02 00:00:00');
    expect(e.utc_end_date).toBe('2027-03-02 03:00:00');
    expect(e.timezone_abbr).toBe('EST');
    const summer = await create({
      ...EVENT,
      title: 'Summer',
      start_date: '2027-07-01 19:00:00',
      end_date: '2027-07-01 20:00:00',
      timezone: 'america/new_york',
    });
    expect(summer.timezone).toBe('America/New_York');
    expect(summer.timezone_abbr).toBe('EDT');
    expect(summer.utc_start_date).toBe('2027-07-01 23:00:00');
  });

  it('T067 an ISO date with an offset is an instant converted to the event zone (E5)', async () => {
    const iso = { start_date: '2027-06-01T10:00:00+02:00', end_date: '2027-06-01T12:00:00+02:00' };
    const berlin = await create({ ...EVENT, ...iso, timezone: 'Europe/Berlin' });
    expect(berlin.start_date).toBe('2027-06-01 10:00:00');
    expect(berlin.utc_start_date).toBe('2027-06-01 08:00:00');
    expect(berlin.end_date).toBe('2027-06-01 12:00:00');
    const ny = await create({ ...EVENT, ...iso, timezone: 'America/New_York' });
    expect(ny.start_date).toBe('2027-06-01 04:00:00');
    expect(ny.utc_start_date).toBe('2027-06-01 08:00:00');
    const zulu = await create({
      ...EVENT,
      start_date: '2027-06-01T08:00:00.500Z',
      end_date: '2027-06-01T09:00Z',
      timezone: 'Europe/Berlin',
    });
    expect(zulu.start_date).toBe('2027-06-01 10:00:00');
    expect(zulu.end_date).toBe('2027-06-01 11:00:00');
  });

  it('T068 free text dates and JSON numbers are 400; digit strings are Unix timestamps', async () => {
    const before = await snapshot(h.store);
    for (const bad of ['tomorrow 9am', '01/06/2027', '2027-13-01', '2027-02-30 10:00:00', '']) {
      const res = await h.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, start_date: bad },
      });
      expect(res.status, bad).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['start_date']);
    }
    const numeric = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, start_date: 1811844000 },
    });
    expect(numeric.status).toBe(400);
    expect(numeric.json.data.details.start_date.code).toBe('rest_invalid_type');
    expect(await snapshot(h.store)).toBe(before);

    // 1811844000 = 2027-06-01 10:00:00 UTC.
    const stamp = await create({
      ...EVENT,
      start_date: '1811844000',
      end_date: '1811847600',
      timezone: 'Europe/Berlin',
    });
    expect(stamp.utc_start_date).toBe('2027-06-01 10:00:00');
    expect(stamp.start_date).toBe('2027-06-01 12:00:00');
    expect(stamp.end_date).toBe('2027-06-01 13:00:00');
    const short = await create({ ...EVENT, start_date: '2027-06-01 10:30', end_date: '2027-06-02' });
    expect(short.start_date).toBe('2027-06-01 10:30:00');
    expect(short.end_date).toBe('2027-06-02 00:00:00');
  });

  it('T069 an unknown zone is 400; UTC+2 is two hours ahead and its own abbreviation', async () => {
    const before = await snapshot(h.store);
    for (const timezone of ['Mars/Olympus', 'UTC+15', 'EST5EDT-nonsense', 42]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, timezone } });
      expect(res.status, String(timezone)).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['timezone']);
    }
    expect(await snapshot(h.store)).toBe(before);

    const plus2 = await create({ ...EVENT, timezone: 'UTC+2' });
    expect(plus2.timezone).toBe('UTC+2');
    expect(plus2.timezone_abbr).toBe('UTC+2');
    expect(plus2.start_date).toBe('2027-03-01 19:00:00');
    expect(plus2.utc_start_date).toBe('2027-03-01 17:00:00');
    const offset = await create({ ...EVENT, timezone: '-03:30' });
    expect(offset.timezone).toBe('UTC-3:30');
    expect(offset.utc_start_date).toBe('2027-03-01 22:30:00');
    const site = await create({ ...EVENT, timezone: '' });
    expect(site.timezone).toBe('UTC');
    const nulled = await create({ ...EVENT, timezone: null });
    expect(nulled.timezone).toBe('UTC');
  });

  it('T070 an all-day Berlin event spans 00:00:00–23:59:59 of its days', async () => {
    const e = await create({
      ...EVENT,
      all_day: true,
      timezone: 'Europe/Berlin',
      start_date: '2027-07-01 09:00:00',
      end_date: '2027-07-03 11:00:00',
    });
    expect(e.all_day).toBe(true);
    expect(e.start_date).toBe('2027-07-01 00:00:00');
    expect(e.end_date).toBe('2027-07-03 23:59:59');
    expect(e.utc_start_date).toBe('2027-06-30 22:00:00');
    expect(e.utc_end_date).toBe('2027-07-03 21:59:59');
    expect(e.timezone_abbr).toBe('CEST');
  });

  it('T071 all_day "yes" is rest_invalid_param with a nested rest_invalid_type', async () => {
    const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, all_day: 'yes' } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('rest_invalid_param');
    expect(res.json.message).toBe('Invalid parameter(s): all_day');
    expect(res.json.data.params).toEqual({ all_day: 'all_day is not of type boolean.' });
    expect(res.json.data.details.all_day).toEqual({
      code: 'rest_invalid_type',
      message: 'all_day is not of type boolean.',
      data: { param: 'all_day' },
    });
    for (const ok of [true, 'true', '1', 1]) {
      expect((await create({ ...EVENT, all_day: ok })).all_day, String(ok)).toBe(true);
    }
    for (const ok of [false, 'false', '0', 0]) {
      expect((await create({ ...EVENT, all_day: ok })).all_day, String(ok)).toBe(false);
    }
  });

  it('T071 every bad parameter is reported at once', async () => {
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, all_day: 'yes', featured: 'maybe', website: 'nope' },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.data.params).sort()).toEqual(['all_day', 'featured', 'website']);
  });

  it('T072 an end before the start becomes the start, in local and UTC time, and the event is listed', async () => {
    const e = await create({
      ...EVENT,
      timezone: 'America/New_York',
      start_date: '2027-03-01 19:00:00',
      end_date: '2027-03-01 09:00:00',
    });
    expect(e.end_date).toBe('2027-03-01 19:00:00');
    expect(e.utc_end_date).toBe('2027-03-02 00:00:00');
    expect(e.utc_end_date).toBe(e.utc_start_date);
    const list = await h.call('GET', '/events');
    expect(list.json.events.map((x: { id: number }) => x.id)).toEqual([e.id]);
  });
});

// ---- T073: cost (A.6) -----------------------------------------------------------------------

const COST_ROWS: [unknown, string, string[], string, string][] = [
  ['25', '$25', ['25'], '', ''],
  [25, '$25', ['25'], '', ''],
  ['$25', '$25', ['25'], '$', 'prefix'],
  ['20$', '20$', ['20'], '$', 'postfix'],
  ['€6.50', '€6.50', ['6.50'], '€', 'prefix'],
  [['0', '20', '30'], 'Free – $30', ['0', '20', '30'], '', ''],
  [['0$', '20$', '30$'], 'Free – 30$', ['0', '20', '30'], '$', 'postfix'],
  ['Free', 'Free', ['free'], '', ''],
  ['$10 - $25', '$10 – $25', ['10', '25'], '$', 'prefix'],
  ['€10 - €20', '€10 – €20', ['10', '20'], '€', 'prefix'],
  ['0', 'Free', ['0'], '', ''],
  ['$1,234.56', '$1234.56', ['1234.56'], '$', 'prefix'],
];

describe('event cost (A.6)', () => {
  it.each(COST_ROWS)(
    'T073 cost %j is written %s with values %j, symbol %j %j',
    async (input, cost, values, symbol, position) => {
      const e = await create({ ...EVENT, cost: input });
      expect(e.cost).toBe(cost);
      expect(e.cost_details).toEqual({
        currency_symbol: symbol,
        currency_code: '',
        currency_position: position,
        values,
      });
      const read = await h.call('GET', `/events/${e.id}`);
      expect(read.json.cost).toBe(cost);
      expect(read.json.cost_details).toEqual(e.cost_details);
    },
  );

  it('T073 null, "" and [] are no cost; the numeric cost makes a JSON-LD offer', async () => {
    for (const cost of [null, '', []]) {
      const e = await create({ ...EVENT, cost });
      expect(e.cost, JSON.stringify(cost)).toBe('');
      expect(e.cost_details).toEqual({
        currency_symbol: '',
        currency_code: '',
        currency_position: '',
        values: [],
      });
    }
    const free = await create({ ...EVENT, cost: 'Free' });
    expect((await h.call('GET', `/events/${free.id}`)).json.json_ld).not.toHaveProperty('offers');
    const range = await create({ ...EVENT, cost: ['0', '20', '30'] });
    expect((await h.call('GET', `/events/${range.id}`)).json.json_ld.offers.price).toBe('0');
  });

  it('T073 a cost that is not a string, number or array of them is 400', async () => {
    const before = await snapshot(h.store);
    for (const cost of [{ amount: 5 }, true, [['1']]]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, cost } });
      expect(res.status, JSON.stringify(cost)).toBe(400);
      expect(res.json.data.params).toHaveProperty('cost');
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('keeps a currency code: in cost_details and JSON-LD, kept by updates that leave it out, cleared by null', async () => {
    const e = await create({ ...EVENT, cost: '€25', currency_code: 'eur' });
    expect(e.cost_details).toEqual({
      currency_symbol: '€',
      currency_code: 'EUR',
      currency_position: 'prefix',
      values: ['25'],
    });
    const read = await h.call('GET', `/events/${e.id}`);
    expect(read.json.json_ld.offers).toMatchObject({ price: '25', priceCurrency: 'EUR' });
    const list = await h.call('GET', `/events?include=${e.id}`);
    expect(list.json.events[0].cost_details.currency_code).toBe('EUR');

    const kept = await h.call('POST', `/events/${e.id}`, { as: 'administrator', body: { title: 'Renamed' } });
    expect(kept.json.cost_details.currency_code).toBe('EUR');
    const cleared = await h.call('POST', `/events/${e.id}`, {
      as: 'administrator',
      body: { currency_code: null },
    });
    expect(cleared.json.cost_details.currency_code).toBe('');

    const before = await snapshot(h.store);
    for (const currency_code of ['EURO', '€', 12]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, currency_code } });
      expect(res.status, String(currency_code)).toBe(400);
      expect(res.json.data.params).toHaveProperty('currency_code');
    }
    expect(await snapshot(h.store)).toBe(before);
  });
});

// ---- T074–T076: statuses and publication (B.1) ------------------------------------------------

describe('event statuses (B.1)', () => {
  it('T074 an unknown status or trash is 400 and writes nothing', async () => {
    const before = await snapshot(h.store);
    for (const status of ['bogus', 'trash', 'auto-draft', 'inherit', '']) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, status } });
      expect(res.status, status).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['status']);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T075 future needs a future date; publish with a future date is scheduled', async () => {
    const future = await create({ ...EVENT, status: 'future', date: '2027-01-01 09:00:00' });
    expect(future.status).toBe('future');
    expect(future.date_utc).toBe('2027-01-01 09:00:00');
    expect(future.url).toBe(`${SITE}/event/minimal/`);
    const alone = await create({ ...EVENT, status: 'future' });
    expect(alone.status).toBe('publish');
    expect(alone.date_utc).toBe('2026-11-21 12:00:00');
    const scheduled = await create({ ...EVENT, status: 'publish', date_utc: '2026-12-24 18:00:00' });
    expect(scheduled.status).toBe('future');
    const past = await create({ ...EVENT, status: 'publish', date: '2026-01-01 00:00:00' });
    expect(past.status).toBe('publish');
    expect(past.date).toBe('2026-01-01 00:00:00');
  });

  it('T075 date_utc wins over date; date is site-local', async () => {
    const site = await makeApp({ siteTimezone: 'Europe/Berlin' });
    try {
      const res = await site.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, date: '2026-06-01 12:00:00' },
      });
      expect(res.json.date).toBe('2026-06-01 12:00:00');
      expect(res.json.date_utc).toBe('2026-06-01 10:00:00');
      const both = await site.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, date: '2026-06-01 12:00:00', date_utc: '2026-05-01 12:00:00' },
      });
      expect(both.json.date_utc).toBe('2026-05-01 12:00:00');
      expect(both.json.date).toBe('2026-05-01 14:00:00');
    } finally {
      await site.app.close();
    }
  });

  it('T076 a draft without date or slug has zero dates, an empty slug and a ?p= url', async () => {
    const e = await create({ ...EVENT, status: 'draft' });
    expect(e.status).toBe('draft');
    expect(e.date_utc).toBe('0000-00-00 00:00:00');
    expect(e.modified_utc).toBe('0000-00-00 00:00:00');
    expect(e.slug).toBe('');
    expect(e.url).toBe(`${SITE}/?post_type=tribe_events&p=${e.id}`);
    expect(e.website).toBe(e.url);
    const pending = await create({ ...EVENT, status: 'pending', slug: 'Chosen Slug!' });
    expect(pending.slug).toBe('chosen-slug');
    expect(pending.url).toBe(`${SITE}/?post_type=tribe_events&p=${pending.id}`);
    const priv = await create({ ...EVENT, status: 'private' });
    expect(priv.slug).toBe('minimal');
    expect(priv.url).toBe(`${SITE}/event/minimal/`);
  });

  it('T017 statuses by role: contributor publish → pending, nothing → draft; author → publish', async () => {
    expect((await create({ ...EVENT, status: 'publish' }, 'contributor')).status).toBe('pending');
    expect((await create({ ...EVENT, status: 'private' }, 'contributor')).status).toBe('pending');
    expect((await create(EVENT, 'contributor')).status).toBe('draft');
    expect((await create(EVENT, 'author')).status).toBe('publish');
    const sub = await h.call('POST', '/events', { as: 'subscriber', body: EVENT });
    expect(sub.status).toBe(403);
    const anon = await h.call('POST', '/events', { body: EVENT });
    expect(anon.status).toBe(401);
    expect(anon.headers['www-authenticate']).toContain('Basic');
  });

  it('T024 author: an existing other user needs editor rights; an unknown user is 400', async () => {
    const before = await snapshot(h.store);
    const other = await h.call('POST', '/events', {
      as: 'author',
      body: { ...EVENT, author: h.users.editor.id },
    });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ code: 'rest_forbidden', data: { status: 403, params: ['author'] } });
    const unknown = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, author: 999999 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.params).toHaveProperty('author');
    expect(await snapshot(h.store)).toBe(before);
    const self = await create({ ...EVENT, author: String(h.users.author.id) }, 'author');
    expect(self.author).toBe(String(h.users.author.id));
    const byEditor = await create({ ...EVENT, author: h.users.author.id }, 'editor');
    expect(byEditor.author).toBe(String(h.users.author.id));
  });
});

// ---- T077–T080: venue, organizers and terms -------------------------------------------------

describe('linked venue, organizers and terms (B.6.2)', () => {
  it('T077 venue as 4, "4", {"id":4} or [4] links it; unknown, trashed and other-kind ids are 400', async () => {
    const venue = await post('/venues', { venue: 'Pier 7' });
    for (const ref of [venue.id, String(venue.id), { id: venue.id }, [venue.id], { ...venue }]) {
      const e = await create({ ...EVENT, venue: ref });
      expect(e.venue.id, JSON.stringify(ref)).toBe(venue.id);
      expect(e.venue.venue).toBe('Pier 7');
    }
    for (const none of [0, '', [], null, '0']) {
      expect((await create({ ...EVENT, venue: none })).venue, JSON.stringify(none)).toEqual([]);
    }

    const organizer = await post('/organizers', { organizer: 'Not A Venue' });
    const trashed = await post('/venues', { venue: 'Gone' });
    expect((await h.call('DELETE', `/venues/${trashed.id}`, { as: 'administrator' })).status).toBe(200);
    const before = await snapshot(h.store);
    for (const ref of [999999, organizer.id, trashed.id, [venue.id, venue.id]]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, venue: ref } });
      expect(res.status, JSON.stringify(ref)).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['venue']);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T078 inline venue and organizer objects are created and linked, published for publishers', async () => {
    const e = await create({
      ...EVENT,
      status: 'draft',
      venue: { venue: 'Inline Hall', city: 'Berlin', country: 'Germany' },
      organizer: [{ organizer: 'Inline Org', email: 'inline@example.org' }],
    });
    expect(e.venue).toMatchObject({
      venue: 'Inline Hall',
      city: 'Berlin',
      status: 'publish',
      slug: 'inline-hall',
    });
    expect(e.organizer).toHaveLength(1);
    expect(e.organizer[0]).toMatchObject({
      organizer: 'Inline Org',
      email: 'inline@example.org',
      status: 'publish',
    });
    // Create-or-find: the same names link the same items, unchanged (E8).
    const again = await create({
      ...EVENT,
      venue: { venue: 'inline hall', city: 'Elsewhere' },
      organizer: { organizer: 'INLINE ORG' },
    });
    expect(again.venue.id).toBe(e.venue.id);
    expect(again.venue.city).toBe('Berlin');
    expect(again.organizer.map((o: { id: number }) => o.id)).toEqual([e.organizer[0].id]);
  });

  it("T078 a contributor's inline venue is a draft", async () => {
    const e = await create({ ...EVENT, venue: { venue: 'Their Hall' } }, 'contributor');
    expect(e.venue).toMatchObject({
      venue: 'Their Hall',
      status: 'draft',
      author: String(h.users.contributor.id),
    });
  });

  it('T078 an inline venue without a name is 400 and nothing is created', async () => {
    const before = await snapshot(h.store);
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, venue: { city: 'X' } },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.params).toHaveProperty('venue');
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T079 organizers keep their order, drop duplicates, and take one id, one object or a CSV', async () => {
    const a = await post('/organizers', { organizer: 'First Org' });
    const b = await post('/organizers', { organizer: 'Second Org' });
    const ids = (e: { organizer: { id: number }[] }) => e.organizer.map((o) => o.id);
    expect(ids(await create({ ...EVENT, organizer: [b.id, a.id] }))).toEqual([b.id, a.id]);
    expect(ids(await create({ ...EVENT, organizer: [a.id, b.id, a.id] }))).toEqual([a.id, b.id]);
    expect(ids(await create({ ...EVENT, organizer: a.id }))).toEqual([a.id]);
    expect(ids(await create({ ...EVENT, organizer: `${b.id},${a.id}` }))).toEqual([b.id, a.id]);
    expect(ids(await create({ ...EVENT, organizer: { id: b.id } }))).toEqual([b.id]);
    expect(ids(await create({ ...EVENT, organizer: [{ id: a.id }, String(b.id)] }))).toEqual([a.id, b.id]);
    const x = await create({ ...EVENT, organizer: { organizer: 'X' } });
    expect(x.organizer).toHaveLength(1);
    expect(x.organizer[0].organizer).toBe('X');

    const before = await snapshot(h.store);
    for (const ref of [999999, [a.id, 999999], `${a.id},999999`]) {
      const res = await h.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, organizer: ref },
      });
      expect(res.status, JSON.stringify(ref)).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['organizer']);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T080 a new category name is created and linked; existing slugs and names are reused; unknown ids are 400', async () => {
    const e = await create({ ...EVENT, categories: ['New Name'] });
    expect(e.categories).toHaveLength(1);
    expect(e.categories[0]).toMatchObject({
      name: 'New Name',
      slug: 'new-name',
      taxonomy: 'tribe_events_cat',
    });
    const id = e.categories[0].id;
    for (const ref of [['new-name'], ['NEW NAME'], [id], [String(id)], 'new-name', String(id)]) {
      const again = await create({ ...EVENT, categories: ref });
      expect(
        again.categories.map((c: { id: number }) => c.id),
        JSON.stringify(ref),
      ).toEqual([id]);
    }
    const two = await create({ ...EVENT, categories: 'Zebra,new-name', tags: ['Outdoor', 'Indoor'] });
    expect(two.categories.map((c: { name: string }) => c.name)).toEqual(['New Name', 'Zebra']);
    expect(two.tags.map((t: { name: string }) => t.name)).toEqual(['Indoor', 'Outdoor']);
    for (const none of [[], '', null]) {
      expect((await create({ ...EVENT, categories: none })).categories).toEqual([]);
    }

    const before = await snapshot(h.store);
    for (const categories of [[999999], ['Brand New', 999999]]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, categories } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['categories']);
    }
    const tagAsCategory = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, categories: [two.tags[0].id] },
    });
    expect(tagAsCategory.status).toBe(400);
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T023 a contributor may link existing categories but not create one by name (403 naming it)', async () => {
    const concerts = await post('/categories', { name: 'Concerts' });
    const linked = await create({ ...EVENT, categories: [concerts.id] }, 'contributor');
    expect(linked.categories.map((c: { id: number }) => c.id)).toEqual([concerts.id]);
    const before = await snapshot(h.store);
    const res = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...EVENT, categories: ['Concerts', 'Brand New'] },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'rest_forbidden', data: { params: ['categories'] } });
    const tag = await h.call('POST', '/events', { as: 'author', body: { ...EVENT, tags: ['Fresh Tag'] } });
    expect(tag.status).toBe(403);
    expect(tag.json.data.params).toEqual(['tags']);
    expect(await snapshot(h.store)).toBe(before);
  });
});

// ---- T081–T082: images ----------------------------------------------------------------------

describe('event images (B.6.2, A.4)', () => {
  it('T081 an attachment id as string or integer gives image id, url, extension and dimensions', async () => {
    const a = await seedAttachment(h.store);
    for (const image of [String(a.id), a.id]) {
      const e = await create({ ...EVENT, image });
      expect(e.image).toMatchObject({
        url: `${SITE}/uploads/2026/11/poster.png`,
        id: a.id,
        extension: 'png',
        width: 800,
        height: 600,
        filesize: 2935,
      });
      // A.4: `sizes` is an object keyed by size name, never `full`, omitted when empty.
      if ('sizes' in e.image) {
        expect(Array.isArray(e.image.sizes)).toBe(false);
        expect(e.image.sizes).not.toHaveProperty('full');
      }
    }
    for (const none of ['', null, 0]) {
      expect((await create({ ...EVENT, image: none })).image, JSON.stringify(none)).toBe(false);
    }
  });

  it('T081 an unknown id, an event id, a venue id and a non-URL string are 400 and write nothing', async () => {
    const event = await create(EVENT);
    const venue = await post('/venues', { venue: 'Hall' });
    const before = await snapshot(h.store);
    for (const image of [999999, String(event.id), venue.id, 'poster.png', 'ftp://example.com/a.png', true]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, image } });
      expect(res.status, JSON.stringify(image)).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['image']);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T082 a PNG URL is sideloaded, served back under /uploads/, and reused by URL and source URL', async () => {
    const source = `${imageBase}/poster.png`;
    const e = await create({ ...EVENT, image: source });
    expect(e.image).toMatchObject({ extension: 'png', width: 40, height: 30, filesize: POSTER.length });
    expect(e.image.url).toMatch(new RegExp(`^${SITE}/uploads/2026/11/[^/]+\\.png$`));

    const served = await h.app.inject({ method: 'GET', url: new URL(e.image.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toMatch(/^image\/png/);
    expect(served.rawPayload.equals(POSTER)).toBe(true);

    const fetched = hits.filter((u) => u === '/poster.png').length;
    const bySource = await create({ ...EVENT, image: source });
    expect(bySource.image.id).toBe(e.image.id);
    const byUrl = await create({ ...EVENT, image: e.image.url });
    expect(byUrl.image.id).toBe(e.image.id);
    expect(hits.filter((u) => u === '/poster.png').length).toBe(fetched);
  });

  it('T081 a sideloaded 800×600 image gets WordPress sizes, each served beside the original', async () => {
    const e = await create({ ...EVENT, image: `${imageBase}/wide.png` }, 'author');
    expect(e.image).toMatchObject({ extension: 'png', width: 800, height: 600 });
    const sizes = e.image.sizes as Record<string, { width: number; height: number; url: string }>;
    expect(Object.keys(sizes).sort()).toEqual(['medium', 'medium_large', 'thumbnail']);
    expect(sizes.thumbnail).toMatchObject({ width: 150, height: 150, 'mime-type': 'image/png' });
    expect(sizes.medium).toMatchObject({ width: 300, height: 225 });
    expect(sizes.medium_large).toMatchObject({ width: 768, height: 576 });
    const folder = e.image.url.slice(0, e.image.url.lastIndexOf('/') + 1);
    for (const size of Object.values(sizes)) {
      expect(size.url.startsWith(folder)).toBe(true);
      const served = await h.app.inject({ method: 'GET', url: new URL(size.url).pathname });
      expect(served.statusCode, size.url).toBe(200);
      expect(served.headers['content-type']).toMatch(/^image\/png/);
    }
    // A 40×30 poster fits inside every size: no copies, and no `sizes` key (A.4).
    const small = await create({ ...EVENT, image: `${imageBase}/poster.png` }, 'author');
    expect(small.image).not.toHaveProperty('sizes');
  });

  it('T082 a JPEG URL is sideloaded with its size and served back', async () => {
    const e = await create({ ...EVENT, image: `${imageBase}/photo.jpg` }, 'author');
    expect(e.image).toMatchObject({ extension: 'jpg', width: 1, height: 1, filesize: JPEG.length });
    const served = await h.app.inject({ method: 'GET', url: new URL(e.image.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toMatch(/^image\/jpeg/);
    expect(served.rawPayload.equals(JPEG)).toBe(true);
  });

  it('T082 a text file, a fake PNG, a 404 and an unreachable URL are 400 and write nothing', async () => {
    const before = await snapshot(h.store);
    for (const image of [
      `${imageBase}/notes.txt`,
      `${imageBase}/liar.png`,
      `${imageBase}/missing.png`,
      `http://127.0.0.1:${closedPort}/poster.png`,
    ]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, image } });
      expect(res.status, image).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['image']);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('by default image URLs on loopback or private addresses are refused before any request', async () => {
    const guarded = await makeApp({ uploadsDir });
    try {
      const before = hits.length;
      for (const image of [
        `${imageBase}/poster.png`,
        'http://localhost:9/a.png',
        'http://[::1]:9/a.png',
        'http://10.0.0.1/a.png',
        // Documentation networks, IPv4-mapped private, NAT64, 6to4 (issue 15: the hand list missed some).
        'http://192.0.2.1/a.png',
        'http://198.51.100.7/a.png',
        'http://203.0.113.9/a.png',
        'http://[::ffff:192.168.1.1]/a.png',
        'http://[64:ff9b::a00:1]/a.png',
        'http://[2002:a00:1::1]/a.png',
        'http://[2001:db8::1]/a.png',
      ]) {
        const res = await guarded.call('POST', '/events', { as: 'administrator', body: { ...EVENT, image } });
        expect(res.status, image).toBe(400);
        expect(res.json.data.params.image, image).toMatch(/not a public address/);
      }
      expect(hits.length).toBe(before);
    } finally {
      await guarded.app.close();
    }
  });

  it('an image URL that redirects is followed, up to 3 redirects', async () => {
    const e = await create({ ...EVENT, image: `${imageBase}/moved.png` }, 'author');
    expect(e.image).toMatchObject({ extension: 'png', width: 40, height: 30 });
    const res = await h.call('POST', '/events', {
      as: 'author',
      body: { ...EVENT, image: `${imageBase}/loop.png` },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.params.image).toMatch(/too many redirects/);
  });

  it('T082 an image over the size limit is 400', async () => {
    const small = await makeApp({ uploadsDir, imageMaxBytes: 1024, allowPrivateImageHosts: true });
    try {
      const res = await small.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, image: `${imageBase}/big.png` },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['image']);
    } finally {
      await small.app.close();
    }
  });

  it('T024 a contributor giving an image URL is 403 naming image, and nothing is fetched', async () => {
    const before = await snapshot(h.store);
    const count = hits.length;
    const res = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...EVENT, image: `${imageBase}/again.png` },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'rest_forbidden', data: { status: 403, params: ['image'] } });
    expect(hits.length).toBe(count);
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.0 every invalid value (400) wins over value-dependent permissions (403), whatever the field', async () => {
    const before = await snapshot(h.store);
    const count = hits.length;
    const cases: [Role, Record<string, unknown>, string][] = [
      ['contributor', { image: `${imageBase}/again.png`, venue: 999999 }, 'venue'],
      ['contributor', { categories: ['Brand New'], tags: [999999] }, 'tags'],
      ['author', { author: h.users.editor.id, organizer: [999999] }, 'organizer'],
      ['author', { tags: ['Fresh Tag'], image: 999999 }, 'image'],
    ];
    for (const [as, body, param] of cases) {
      const res = await h.call('POST', '/events', { as, body: { ...EVENT, ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual([param]);
    }
    const denied = await h.call('POST', '/events', {
      as: 'author',
      body: { ...EVENT, author: h.users.editor.id, tags: ['Fresh Tag'] },
    });
    expect(denied.status).toBe(403);
    expect(denied.json.data.params).toEqual(['author']);
    expect(hits.length).toBe(count);
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.0 an image URL with a bad venue in the same body fetches and stores nothing', async () => {
    const before = await snapshot(h.store);
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      body: { ...EVENT, image: `${imageBase}/again.png`, venue: 999999 },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.data.params)).toEqual(['venue']);
    expect(await h.store.findAttachmentByUrl(`${imageBase}/again.png`)).toBeUndefined();
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.6.2 without an uploads folder an image URL is 400', async () => {
    const bare = await makeApp();
    try {
      const res = await bare.call('POST', '/events', {
        as: 'administrator',
        body: { ...EVENT, image: `${imageBase}/poster.png` },
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['image']);
    } finally {
      await bare.app.close();
    }
  });
});

// ---- T083–T084: website, slugs, form bodies -------------------------------------------------

describe('website, slug and form bodies', () => {
  it('T083 a website that is not an http(s) URL is 400; "" is kept empty', async () => {
    const before = await snapshot(h.store);
    for (const website of ['not a url', 'ftp://example.com', 'javascript:alert(1)', 42]) {
      const res = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, website } });
      expect(res.status, String(website)).toBe(400);
      expect(Object.keys(res.json.data.params)).toEqual(['website']);
    }
    expect(await snapshot(h.store)).toBe(before);
    expect((await create({ ...EVENT, website: '' })).website).toBe('');
    expect((await create({ ...EVENT, website: 'http://example.com/x' })).website).toBe(
      'http://example.com/x',
    );
  });

  it('T083 a repeated title gets slug -2, -3; slugs are sanitised and de-duplicated', async () => {
    expect((await create(EVENT)).slug).toBe('minimal');
    const second = await create(EVENT);
    expect(second.slug).toBe('minimal-2');
    expect(second.url).toBe(`${SITE}/event/minimal-2/`);
    expect((await create(EVENT)).slug).toBe('minimal-3');
    expect((await create({ ...EVENT, title: "Bob's & Co" })).slug).toBe('bobs-co');
    expect((await create({ ...EVENT, title: 'Café Crème' })).slug).toBe('cafe-creme');
    expect((await create({ ...EVENT, slug: 'minimal' })).slug).toBe('minimal-4');
    const empty = await h.call('POST', '/events', { as: 'administrator', body: { ...EVENT, slug: '' } });
    expect(empty.status).toBe(400);
  });

  it('A.0 titles are plain text with & escaped; descriptions are sanitised and rendered like wpautop', async () => {
    const e = await create({
      ...EVENT,
      title: '<b>Rock</b> & Roll',
      description: 'Line one\nline two\n\nPara two<script>alert(1)</script>',
    });
    expect(e.title).toBe('Rock &#038; Roll');
    expect(e.description).toBe('<p>Line one<br />\nline two</p>\n<p>Para two</p>');
    const read = await h.call('GET', `/events/${e.id}`);
    expect(read.json.json_ld.name).toBe('Rock & Roll');
  });

  it('T084 a form-encoded create with status=draft is a draft; rest_url and cost_details are ignored', async () => {
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      form: {
        title: 'Form Event',
        start_date: '2027-03-01 19:00:00',
        end_date: '2027-03-01 22:00:00',
        status: 'draft',
        show_map: '1',
        cost: '$5',
        rest_url: 'https://evil.example/x',
        cost_details: 'nonsense',
        url: 'https://evil.example/',
        timezone_abbr: 'XYZ',
        utc_start_date: '1999-01-01 00:00:00',
      },
    });
    expect(res.status, res.body).toBe(201);
    expect(res.json).toMatchObject({
      title: 'Form Event',
      status: 'draft',
      show_map: true,
      cost: '$5',
      rest_url: `${NS_URL}/events/${res.json.id}`,
      url: `${SITE}/?post_type=tribe_events&p=${res.json.id}`,
      timezone_abbr: 'UTC',
      utc_start_date: '2027-03-01 19:00:00',
    });
    expect(res.json.cost_details.values).toEqual(['5']);
  });

  it('B.0 read-only keys of a response are ignored when a JSON body sends them back', async () => {
    const first = await create({ ...EVENT, cost: '$5' });
    const { id: _id, image: _image, ...echo } = first;
    const copy = await create({ ...echo, title: 'Copy', slug: 'copy' });
    expect(copy.id).not.toBe(first.id);
    expect(copy.utc_start_date).toBe(first.utc_start_date);
    expect(copy.cost).toBe('$5');
    expect(copy.rest_url).toBe(`${NS_URL}/events/${copy.id}`);
  });
});
