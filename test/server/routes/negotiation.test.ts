/**
 * Content negotiation and common headers through the API (contract B.12, D6, A.7, A.8, A.9;
 * checklist T150–T157): iCalendar read back with ical.js, CSV header rows, well-formed XML that
 * decodes to the JSON document, 406s, JSON errors under any Accept, Vary, HEAD and X-TEC-*.
 */
import ICAL from 'ical.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { decodeXml, parseXml } from '../../helpers/xml.ts';
import { type Harness, makeApp, NS } from '../harness.ts';

const EVENT = { title: 'Concert', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

const EVENT_COLUMNS =
  'event_name,event_description,event_excerpt,event_start_date,event_start_time,event_end_date,' +
  'event_end_time,event_timezone,event_all_day,event_hide,event_sticky,feature_event,event_venue_name,' +
  'event_organizer_name,event_show_map_link,event_show_map,event_cost,event_currency_code,' +
  'event_currency_symbol,event_currency_position,event_category,event_tags,event_website,featured_image';
const VENUE_COLUMNS =
  'venue_name,venue_description,venue_country,venue_address,venue_address2,venue_city,venue_state,' +
  'venue_zip,venue_phone,venue_url,featured_image';
const ORGANIZER_COLUMNS =
  'organizer_name,organizer_description,organizer_email,organizer_website,organizer_phone,featured_image';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const create = (body: Record<string, unknown>, path = '/events', as?: Role) => h.created(path, body, as);

const get = (path: string, accept?: string, as?: Role) =>
  h.call('GET', path, { as, headers: accept ? { accept } : {} });

// ---- Readers for the three formats ------------------------------------------------------------

interface VEvent {
  uid: string;
  /** ISO instant, or `YYYY-MM-DD` for dates. */
  start: string;
  end: string;
  isDate: boolean;
  tzid: string | undefined;
  summary: string;
  component: ICAL.Component;
}

/** Parses a VCALENDAR, resolving each TZID with the VTIMEZONE the calendar carries. */
function parseIcal(ics: string): { calendar: ICAL.Component; events: VEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const zones = new Map<string, ICAL.Timezone>();
  for (const vtz of calendar.getAllSubcomponents('vtimezone')) {
    const zone = new ICAL.Timezone(vtz);
    zones.set(zone.tzid, zone);
  }
  const instant = (t: ICAL.Time, tzid: string | undefined): string => {
    if (t.isDate) return t.toString();
    if (tzid) {
      const zone = zones.get(tzid);
      if (!zone) throw new Error(`no VTIMEZONE for ${tzid}`);
      // ical.js leaves an unregistered TZID floating; convert through the calendar's own VTIMEZONE.
      const zoned = t.clone();
      zoned.zone = zone;
      return zoned.toJSDate().toISOString();
    }
    return t.toJSDate().toISOString();
  };
  const events = calendar.getAllSubcomponents('vevent').map((component) => {
    const e = new ICAL.Event(component);
    const tzid = component.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined;
    return {
      uid: e.uid,
      start: instant(e.startDate, tzid),
      end: instant(e.endDate, tzid),
      isDate: e.startDate.isDate,
      tzid,
      summary: e.summary,
      component,
    };
  });
  return { calendar, events };
}

/** A wire UTC date-time as an ISO instant. */
const iso = (wire: string) => `${wire.replace(' ', 'T')}.000Z`;

/** RFC 4180 records (quoted fields, doubled quotes, CRLF ends). */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && csv[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length) throw new Error('last record without CRLF');
  return rows;
}

// ---- T150–T151: iCalendar ---------------------------------------------------------------------

describe('iCalendar (B.12)', () => {
  it('T150 Accept: text/calendar lists one VEVENT per listed event at the same instants and totals', async () => {
    const venue = await create({ venue: 'Main Hall', address: '1 Main St', city: 'Springfield' }, '/venues');
    const ny = await create({
      ...EVENT,
      timezone: 'America/New_York',
      venue: venue.id,
      categories: ['Jazz'],
    });
    const berlin = await create({
      ...EVENT,
      title: 'Berlin; Night, Out',
      timezone: 'Europe/Berlin',
      start_date: '2027-07-01 20:00:00',
      end_date: '2027-07-01 23:30:00',
      description: 'Line one\nline two',
    });
    const offset = await create({
      ...EVENT,
      title: 'Offset',
      timezone: 'UTC+2',
      start_date: '2027-05-01 10:00:00',
    });
    await create({ ...EVENT, title: 'Hidden', hide_from_listings: true });
    await create({ ...EVENT, title: 'Draft', status: 'draft' });

    const json = await get('/events?per_page=2');
    const ical = await get('/events?per_page=2', 'text/calendar');
    expect(ical.status).toBe(200);
    expect(ical.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(ical.headers['x-tec-total']).toBe('3');
    expect(ical.headers['x-tec-totalpages']).toBe('2');
    expect(ical.headers['x-tec-total']).toBe(json.headers['x-tec-total']);
    const { calendar, events } = parseIcal(ical.body);
    expect(calendar.getFirstPropertyValue('prodid')).toBe('-//calsync//calendar/events/v1//EN');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(events.map((e) => e.uid)).toEqual(
      json.json.events.map((e: { id: number }) => `${e.id}@cal.example.org`),
    );
    for (const [i, wire] of json.json.events.entries()) {
      expect(events[i].start).toBe(iso(wire.utc_start_date));
      expect(events[i].end).toBe(iso(wire.utc_end_date));
    }
    const first = events[0];
    expect(first.uid).toBe(`${ny.id}@cal.example.org`);
    expect(first.tzid).toBe('America/New_York');
    expect(first.start).toBe('2027-03-02T00:00:00.000Z');
    expect(first.summary).toBe('Concert');
    expect(first.component.getFirstPropertyValue('location')).toBe('Main Hall, 1 Main St, Springfield');
    expect(first.component.getFirstPropertyValue('url')).toBe(ny.url);

    const page2 = parseIcal((await get('/events?per_page=2&page=2', 'text/calendar')).body).events;
    expect(page2.map((e) => e.uid)).toEqual([`${berlin.id}@cal.example.org`]);
    expect(page2[0].start).toBe('2027-07-01T18:00:00.000Z');
    expect(page2[0].summary).toBe('Berlin; Night, Out');
    expect(page2[0].component.getFirstPropertyValue('description')).toBe('Line one\nline two');

    const forced = await get('/events?ical=1&per_page=2', 'application/json');
    expect(forced.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(parseIcal(forced.body).events.map((e) => e.uid)).toEqual(events.map((e) => e.uid));
    const offsetEvent = parseIcal((await get(`/events/${offset.id}`, 'text/calendar')).body).events[0];
    expect(offsetEvent.tzid).toBeUndefined();
    expect(offsetEvent.start).toBe('2027-05-01T08:00:00.000Z');
  });

  it('T150 a single event and its by-slug route answer one VEVENT', async () => {
    const e = await create({ ...EVENT, timezone: 'Europe/Berlin' });
    for (const path of [`/events/${e.id}`, `/events/by-slug/${e.slug}`, `/events/${e.id}?ical=1`]) {
      const res = await get(path, path.includes('ical') ? undefined : 'text/calendar');
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
      const { calendar, events } = parseIcal(res.body);
      expect(events).toHaveLength(1);
      expect(events[0].uid).toBe(`${e.id}@cal.example.org`);
      expect(events[0].start).toBe('2027-03-01T18:00:00.000Z');
      expect(calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'))).toEqual([
        'Europe/Berlin',
      ]);
    }
    expect(res2crlf((await get(`/events/${e.id}`, 'text/calendar')).body)).toBe(true);
  });

  it('T151 the UID stays <id>@<host> after rescheduling; all-day is VALUE=DATE with an exclusive DTEND', async () => {
    const e = await create({ ...EVENT, timezone: 'America/New_York' });
    const before = parseIcal((await get(`/events/${e.id}`, 'text/calendar')).body).events[0];
    const patched = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { start_date: '2027-04-10 08:00:00', end_date: '2027-04-10 09:00:00' },
    });
    expect(patched.status).toBe(200);
    const after = parseIcal((await get(`/events/${e.id}`, 'text/calendar')).body).events[0];
    expect(after.uid).toBe(`${e.id}@cal.example.org`);
    expect(after.uid).toBe(before.uid);
    expect(after.start).toBe('2027-04-10T12:00:00.000Z');
    expect(after.start).not.toBe(before.start);

    const allDay = await create({
      ...EVENT,
      all_day: true,
      timezone: 'Europe/Berlin',
      start_date: '2027-07-01',
      end_date: '2027-07-03',
    });
    const ics = (await get(`/events/${allDay.id}`, 'text/calendar')).body;
    const vevent = parseIcal(ics).events[0];
    expect(vevent.isDate).toBe(true);
    expect(vevent.start).toBe('2027-07-01');
    expect(vevent.end).toBe('2027-07-04');
    const lines = ics.replace(/\r\n[ \t]/g, '').split('\r\n');
    expect(lines).toContain('DTSTART;VALUE=DATE:20270701');
    expect(lines).toContain('DTEND;VALUE=DATE:20270704');
  });
});

function res2crlf(ics: string): boolean {
  return ics.endsWith('\r\n') && !ics.replace(/\r\n/g, '').includes('\n');
}

// ---- T152–T153: CSV and XML -------------------------------------------------------------------

describe('CSV and XML (B.12)', () => {
  it('T152 Accept: text/csv answers the B.12 header rows for events, venues and organizers', async () => {
    const venue = await create({ venue: 'Main Hall', state: 'IL', country: 'United States' }, '/venues');
    const organizer = await create({ organizer: 'Jane, Org', email: 'jane@example.org' }, '/organizers');
    const event = await create({
      ...EVENT,
      description: 'Say "hi", \n\n\nplease ',
      cost: ['10', '25'],
      venue: venue.id,
      organizer: [organizer.id],
      featured: true,
    });
    const events = await get('/events', 'text/csv');
    expect(events.status).toBe(200);
    expect(events.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(events.headers['x-tec-total']).toBe('1');
    const rows = parseCsv(events.body);
    expect(rows[0].join(',')).toBe(EVENT_COLUMNS);
    expect(rows).toHaveLength(2);
    const row = Object.fromEntries(rows[0].map((k, i) => [k, rows[1][i]]));
    expect(row).toMatchObject({
      event_name: 'Concert',
      event_description: 'Say "hi", \n\n\nplease ', // as stored: the HTML would lose the blanks
      event_start_date: '2027-03-01',
      event_start_time: '19:00:00',
      event_end_time: '22:00:00',
      event_timezone: 'UTC',
      event_all_day: 'false',
      feature_event: 'true',
      event_venue_name: 'Main Hall',
      event_organizer_name: '"Jane, Org"', // one name with a comma, quoted inside the list cell
      event_cost: '10 - 25',
    });
    expect(events.body.charCodeAt(0)).not.toBe(0xfeff);
    expect(parseCsv((await get(`/events/${event.id}`, 'text/csv')).body)).toEqual(rows);

    const venues = parseCsv((await get('/venues', 'text/csv')).body);
    expect(venues[0].join(',')).toBe(VENUE_COLUMNS);
    expect(venues[1][0]).toBe('Main Hall');
    expect(venues[1][6]).toBe('IL');
    const single = await get(`/venues/${venue.id}`, 'text/csv');
    expect(parseCsv(single.body)).toEqual(venues);
    const organizers = parseCsv((await get('/organizers', 'text/csv')).body);
    expect(organizers[0].join(',')).toBe(ORGANIZER_COLUMNS);
    expect(organizers[1][2]).toBe('jane@example.org');

    const empty = await makeApp();
    try {
      const none = await empty.call('GET', '/events', { headers: { accept: 'text/csv' } });
      expect(parseCsv(none.body)).toEqual([EVENT_COLUMNS.split(',')]);
      expect(none.headers['x-tec-total']).toBe('0');
    } finally {
      await empty.app.close();
    }
  });

  it('T153 Accept: application/xml on an event is well-formed and decodes to the JSON document', async () => {
    const venue = await create({ venue: 'Hall & Co <1>' }, '/venues');
    const e = await create({ ...EVENT, title: 'Rock & Roll', venue: venue.id, cost: 'Free' });
    const json = await get(`/events/${e.id}`);
    const xml = await get(`/events/${e.id}`, 'application/xml');
    expect(xml.status).toBe(200);
    expect(xml.headers['content-type']).toBe('application/xml; charset=UTF-8');
    expect(xml.body).toContain('<image type="boolean">false</image>');
    expect(xml.body).toContain(`<author>${h.users.administrator.id}</author>`);
    expect(xml.body).toContain('<field name="@type">Event</field>');
    const root = parseXml(xml.body);
    expect(root.name).toBe('response');
    expect(decodeXml(root)).toEqual(json.json);

    const textXml = await get(`/events/by-slug/${e.slug}`, 'text/xml');
    expect(textXml.status).toBe(200);
    expect(decodeXml(parseXml(textXml.body))).toEqual(json.json);

    const list = await get('/events', 'application/xml');
    expect(decodeXml(parseXml(list.body))).toEqual((await get('/events')).json);
    for (const path of ['/venues', '/organizers', '/categories?hide_empty=false', '/tags']) {
      const res = await get(path, 'application/xml');
      expect(res.status, path).toBe(200);
      expect(decodeXml(parseXml(res.body)), path).toEqual((await get(path)).json);
    }
  });
});

// ---- T154–T155: 406 and errors ----------------------------------------------------------------

describe('unacceptable types and errors (B.12, A.8)', () => {
  it('T154 Accept: image/png is 406 rest_not_acceptable in JSON; text/calendar on /venues is 406', async () => {
    const e = await create(EVENT);
    for (const [path, accept] of [
      ['/events', 'image/png'],
      [`/events/${e.id}`, 'image/png, text/html;q=0.9'],
      ['/venues', 'text/calendar'],
      ['/organizers', 'text/calendar'],
      ['/categories', 'text/csv'],
      ['/events', 'application/json;q=0, text/html'],
    ]) {
      const res = await get(path, accept);
      expect(res.status, `${path} ${accept}`).toBe(406);
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(res.json.code).toBe('rest_not_acceptable');
      expect(res.json.message).toBe('None of the requested media types is available.');
      expect(res.json.data.status).toBe(406);
      expect(Array.isArray(res.json.data.available)).toBe(true);
    }
    const venues = await get('/venues', 'text/calendar');
    expect(venues.json.data.available).not.toContain('text/calendar; charset=utf-8');
    expect(venues.json.data.available).toContain('application/json; charset=UTF-8');
    const events = await get('/events', 'image/png');
    expect(events.json.data.available).toContain('text/calendar; charset=utf-8');
    const ical = await get('/venues?ical=1');
    expect(ical.status).toBe(406);
  });

  it('T155 errors are JSON under any Accept; no Accept is JSON; Vary names Accept', async () => {
    const plain = await h.app.inject({ method: 'GET', url: `${NS}/events` });
    expect(plain.headers['content-type']).toBe('application/json; charset=UTF-8');
    for (const accept of ['*/*', 'application/*', '', 'application/json']) {
      expect((await get('/events', accept || undefined)).headers['content-type'], accept).toBe(
        'application/json; charset=UTF-8',
      );
    }
    // Unacceptable types are 406 before the route looks anything up (T154), so only offered ones here.
    for (const accept of ['text/calendar', 'text/csv', 'application/xml', 'text/xml']) {
      for (const [path, status, code] of [
        ['/events/999999', 404, 'event-not-found'],
        ['/events?page=0', 400, 'rest_invalid_param'],
        ['/events?status=draft', 401, 'rest_forbidden'],
        ['/events/by-slug/none', 404, 'event-not-found'],
        ['/nope', 404, 'rest_no_route'],
      ] as const) {
        const res = await get(path, accept);
        expect(res.status, `${accept} ${path}`).toBe(status);
        expect(res.headers['content-type'], `${accept} ${path}`).toBe('application/json; charset=UTF-8');
        expect(res.json.code).toBe(code);
        expect(res.json.data.status).toBe(status);
      }
    }
    const bad = await h.call('GET', '/events', {
      headers: { accept: 'text/calendar', authorization: 'Basic Ym9ndXM6Ym9ndXM=' },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers['content-type']).toBe('application/json; charset=UTF-8');

    for (const accept of [undefined, 'text/calendar', 'image/png']) {
      const res = await get('/events', accept);
      expect(String(res.headers.vary).split(/,\s*/)).toContain('Accept');
    }
  });
});

// ---- T156–T157: HEAD, totals, exposed headers -------------------------------------------------

const LISTS: [string, string[]][] = [
  ['/events', ['application/json', 'text/calendar', 'text/csv', 'application/xml']],
  ['/venues', ['application/json', 'text/csv', 'application/xml']],
  ['/organizers', ['application/json', 'text/csv', 'application/xml']],
  ['/categories', ['application/json', 'application/xml']],
  ['/tags', ['application/json', 'application/xml']],
];

describe('list headers (A.7, A.9)', () => {
  it('T156 HEAD /events is 200 without a body and with the X-TEC-* totals', async () => {
    await create(EVENT);
    await create({ ...EVENT, title: 'Second' });
    for (const accept of [undefined, 'text/calendar', 'text/csv']) {
      const res = await h.app.inject({
        method: 'HEAD',
        url: `${NS}/events?per_page=1`,
        headers: accept ? { accept } : {},
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['x-tec-total']).toBe('2');
      expect(res.headers['x-tec-totalpages']).toBe('2');
    }
    const single = await h.app.inject({ method: 'HEAD', url: `${NS}/events/by-slug/concert` });
    expect(single.statusCode).toBe(200);
    expect(single.body).toBe('');
    const missing = await h.app.inject({ method: 'HEAD', url: `${NS}/events/999999` });
    expect(missing.statusCode).toBe(404);
  });

  it('T156 every list, in every format, has both X-TEC-* headers, also when empty', async () => {
    for (const [path, types] of LISTS) {
      for (const accept of types) {
        const res = await get(path, accept);
        expect(res.status, `${path} ${accept}`).toBe(200);
        expect(res.headers['x-tec-total'], `${path} ${accept}`).toBe('0');
        expect(res.headers['x-tec-totalpages'], `${path} ${accept}`).toBe('0');
        const head = await h.app.inject({ method: 'HEAD', url: `${NS}${path}`, headers: { accept } });
        expect(head.headers['x-tec-total'], `HEAD ${path} ${accept}`).toBe('0');
      }
    }
    const venue = await create({ venue: 'Hall' }, '/venues');
    const organizer = await create({ organizer: 'Org' }, '/organizers');
    await create({
      ...EVENT,
      venue: venue.id,
      organizer: organizer.id,
      categories: ['Jazz'],
      tags: ['Outdoor'],
    });
    for (const [path, types] of LISTS) {
      for (const accept of types) {
        const res = await get(path, accept);
        expect(res.headers['x-tec-total'], `${path} ${accept}`).toBe('1');
        expect(res.headers['x-tec-totalpages'], `${path} ${accept}`).toBe('1');
      }
    }
    const past = await get('/categories?page=5');
    expect(past.status).toBe(200);
    expect(past.headers['x-tec-total']).toBe('1');
  });

  it('T157 Access-Control-Expose-Headers lists X-TEC-Total and X-TEC-TotalPages on every response', async () => {
    const e = await create(EVENT);
    for (const [path, accept] of [
      ['/events', undefined],
      ['/events', 'text/calendar'],
      [`/events/${e.id}`, 'application/xml'],
      ['/venues', 'text/csv'],
      ['/events/999999', undefined],
      ['/events', 'image/png'],
    ] as const) {
      const res = await get(path, accept);
      const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
      expect(exposed, `${path} ${accept}`).toEqual(
        expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages']),
      );
      expect(res.headers.link).toBe('<https://cal.example.org/api/>; rel="https://api.w.org/"');
    }
  });
});
