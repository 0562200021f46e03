/**
 * `GET /events` (contract A.7, B.5; checklist T030–T050): the envelope and headers, the default
 * window, inclusive and strict dates, paging, order, filters, `include`, statuses per role,
 * search and password redaction (A.10).
 *
 * Events are seeded straight into the store with fixed publication dates, so that these tests
 * depend on the list alone, not on event writes or insertion timing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localToUtc } from '../../../src/model/datetime.ts';
import type { EventRecord, TermRecord } from '../../../src/store/store.ts';
import { eventRecord, termRecord } from '../fixtures.ts';
import { BASE, type Harness, makeApp } from '../harness.ts';

type Res = Awaited<ReturnType<Harness['call']>>;

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const NSURL = `${BASE}/calendar/events/v1`;
const LIST = `${NSURL}/events/`;
/** The default window on 2026-11-21 (UTC site), encoded as in `rest_url`. */
const DEFAULT_WINDOW = 'start_date=2026-11-20%2000%3A00%3A00&end_date=2028-11-21%2023%3A59%3A59';

interface Seed extends Partial<EventRecord> {
  title: string;
  /** Event-local wall times. */
  start: string;
  end: string;
}

let seq = 0;
/** An event straight into the store, its UTC instants computed from the wall times. */
async function seed(s: Seed, harness: Harness = h): Promise<EventRecord> {
  seq++;
  const { title, start, end, ...over } = s;
  const timezone = over.timezone ?? 'UTC';
  return await harness.store.insertEvent(
    eventRecord({
      author: harness.users.administrator.id,
      slug: `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${seq}`,
      title,
      timezone,
      start_local: start,
      end_local: end,
      start_utc: localToUtc(start, timezone),
      end_utc: localToUtc(end, timezone),
      ...over,
    }),
  );
}

async function term(
  kind: 'categories' | 'tags',
  name: string,
  slug: string,
  parent = 0,
): Promise<TermRecord> {
  return await h.store.insertTerm(termRecord(kind, name, slug, parent));
}

async function linked(kind: 'venues' | 'organizers', body: Record<string, unknown>): Promise<number> {
  return (await h.created(`/${kind}`, body)).id;
}

const ids = (res: Res) => res.json.events.map((e: { id: number }) => e.id);

/** A list link as a path for `h.call`: the links must work as given. */
const follow = (url: string) => {
  expect(url.startsWith(NSURL)).toBe(true);
  return url.slice(NSURL.length);
};

function expectInvalid(res: Res, param: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(res.json.code).toBe('rest_invalid_param');
  expect(Object.keys(res.json.data.params)).toEqual([param]);
}

describe('envelope and headers', () => {
  it('T030 an empty store lists [] with totals 0, X-TEC-* 0 and no link keys', async () => {
    const res = await h.call('GET', '/events');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json).toEqual({ events: [], rest_url: res.json.rest_url, total: 0, total_pages: 0 });
    expect(Object.keys(res.json)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(res.headers['x-tec-total']).toBe('0');
    expect(res.headers['x-tec-totalpages']).toBe('0');
  });

  it('T031 the default rest_url echoes page, per_page, yesterday 00:00:00 … today + 2 years 23:59:59 and status=publish', async () => {
    const res = await h.call('GET', '/events');
    expect(res.json.rest_url).toBe(`${LIST}?page=1&per_page=10&${DEFAULT_WINDOW}&status=publish`);
  });

  it("T031 an editor's default rest_url echoes every non-trash status they see", async () => {
    const res = await h.call('GET', '/events', { as: 'editor' });
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&${DEFAULT_WINDOW}&status=publish%2Cfuture%2Cdraft%2Cpending%2Cprivate`,
    );
  });

  it('lists expose X-TEC-Total, X-TEC-TotalPages and Link to browsers, and send the API Link header', async () => {
    await seed({ title: 'Jazz Night', start: '2027-03-01 19:00:00', end: '2027-03-01 22:00:00' });
    const res = await h.call('GET', '/events');
    const exposed = String(res.headers['access-control-expose-headers'])
      .split(',')
      .map((s) => s.trim().toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining(['x-tec-total', 'x-tec-totalpages', 'link']));
    expect(res.headers.link).toBe(`<${BASE}/>; rel="https://api.w.org/"`);
    expect(res.headers['x-tec-total']).toBe('1');
    expect(res.headers['x-tec-totalpages']).toBe('1');
  });

  it('list items carry no json_ld', async () => {
    await seed({ title: 'Jazz Night', start: '2027-03-01 19:00:00', end: '2027-03-01 22:00:00' });
    const res = await h.call('GET', '/events');
    expect(res.json.events).toHaveLength(1);
    expect(res.json.events[0]).not.toHaveProperty('json_ld');
    expect(res.json.events[0].title).toBe('Jazz Night');
  });
});

describe('the default window', () => {
  it('T032 an event running since last month is absent by default and present with only ends_after=<today>', async () => {
    const running = await seed({
      title: 'Winter Exhibition',
      start: '2026-10-15 10:00:00',
      end: '2027-01-15 18:00:00',
    });
    const upcoming = await seed({
      title: 'Jazz Night',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
    });
    expect(ids(await h.call('GET', '/events'))).toEqual([upcoming.id]);
    const res = await h.call('GET', '/events?ends_after=2026-11-21');
    expect(ids(res)).toEqual([running.id, upcoming.id]);
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&status=publish&ends_after=2026-11-21%2023%3A59%3A59`,
    );
  });

  it('T032 the window starts yesterday at 00:00:00: an event of yesterday is listed, one of the day before is not', async () => {
    const yesterday = await seed({
      title: 'Yesterday Market',
      start: '2026-11-20 00:00:00',
      end: '2026-11-20 06:00:00',
    });
    await seed({ title: 'Late Show', start: '2026-11-19 23:00:00', end: '2026-11-20 01:00:00' });
    expect(ids(await h.call('GET', '/events'))).toEqual([yesterday.id]);
  });

  it('T033 an event in three years is absent by default and present with end_date=2100-12-31', async () => {
    const far = await seed({
      title: 'Jubilee Gala',
      start: '2029-11-21 19:00:00',
      end: '2029-11-21 23:00:00',
    });
    const edge = await seed({
      title: 'Edge Night',
      start: '2028-11-21 20:00:00',
      end: '2028-11-21 23:59:59',
    });
    expect(ids(await h.call('GET', '/events'))).toEqual([edge.id]);
    const res = await h.call('GET', '/events?end_date=2100-12-31');
    expect(ids(res)).toEqual([edge.id, far.id]);
    // The start keeps its default.
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&start_date=2026-11-20%2000%3A00%3A00&end_date=2100-12-31%2023%3A59%3A59&status=publish`,
    );
  });

  it('the default window follows a non-UTC site time zone (Pacific/Auckland is already on 2026-11-22)', async () => {
    const nz = await makeApp({ siteTimezone: 'Pacific/Auckland' });
    try {
      // 2026-11-20 23:30 in Auckland: the day before yesterday there, although "yesterday" in UTC.
      await seed({ title: 'Too Early', start: '2026-11-20 10:30:00', end: '2026-11-20 11:30:00' }, nz);
      // 2028-11-22 18:00 in Auckland: inside its window, after the end of a UTC window.
      const late = await seed(
        { title: 'Late Edge', start: '2028-11-22 05:00:00', end: '2028-11-22 06:00:00' },
        nz,
      );
      const res = await nz.call('GET', '/events');
      expect(res.json.rest_url).toBe(
        `${LIST}?page=1&per_page=10&start_date=2026-11-21%2000%3A00%3A00&end_date=2028-11-22%2023%3A59%3A59&status=publish`,
      );
      expect(ids(res)).toEqual([late.id]);
    } finally {
      await nz.app.close();
    }
  });

  it('T044 date parameters are site-local: on an Auckland site start_date=2027-03-02 begins at 2027-03-01 11:00 UTC', async () => {
    const nz = await makeApp({ siteTimezone: 'Pacific/Auckland' });
    try {
      const inside = await seed(
        { title: 'Brunch', start: '2027-03-01 11:30:00', end: '2027-03-01 12:30:00' },
        nz,
      );
      await seed({ title: 'Too Early', start: '2027-03-01 10:30:00', end: '2027-03-01 11:30:00' }, nz);
      const res = await nz.call('GET', '/events?start_date=2027-03-02&end_date=2027-03-02');
      expect(ids(res)).toEqual([inside.id]);
    } finally {
      await nz.app.close();
    }
  });
});

describe('paging', () => {
  it('T034 four events at per_page=2: page 1 links next only, page 2 previous without page; total_pages 2', async () => {
    for (const day of ['01', '02', '03', '04']) {
      await seed({
        title: `Concert ${day}`,
        start: `2027-03-${day} 19:00:00`,
        end: `2027-03-${day} 22:00:00`,
      });
    }
    const one = await h.call('GET', '/events?per_page=2');
    expect(one.json.total).toBe(4);
    expect(one.json.total_pages).toBe(2);
    expect(one.headers['x-tec-total']).toBe('4');
    expect(one.headers['x-tec-totalpages']).toBe('2');
    expect(Object.keys(one.json)).toEqual(['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
    expect(one.json.rest_url).toBe(`${LIST}?page=1&per_page=2&${DEFAULT_WINDOW}&status=publish`);
    expect(one.json.next_rest_url).toBe(`${LIST}?page=2&per_page=2&${DEFAULT_WINDOW}&status=publish`);
    expect(one.json.events.map((e: { title: string }) => e.title)).toEqual(['Concert 01', 'Concert 02']);

    const two = await h.call('GET', follow(one.json.next_rest_url));
    expect(two.status).toBe(200);
    expect(Object.keys(two.json)).toEqual([
      'events',
      'rest_url',
      'previous_rest_url',
      'total',
      'total_pages',
    ]);
    expect(two.json.previous_rest_url).toBe(`${LIST}?per_page=2&${DEFAULT_WINDOW}&status=publish`);
    expect(two.json.events.map((e: { title: string }) => e.title)).toEqual(['Concert 03', 'Concert 04']);
    const back = await h.call('GET', follow(two.json.previous_rest_url));
    expect(ids(back)).toEqual(ids(one));
  });

  it('T035 a page past the end is a 404 event-archive-page-not-found', async () => {
    await seed({ title: 'Jazz Night', start: '2027-03-01 19:00:00', end: '2027-03-01 22:00:00' });
    for (const page of [2, 99]) {
      const res = await h.call('GET', `/events?page=${page}`);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({
        code: 'event-archive-page-not-found',
        message: 'The requested event archive page does not exist',
        data: { status: 404 },
      });
    }
  });

  it('T036 per_page=1000 is clamped to 50 and echoed so; the default is 10', async () => {
    for (let i = 0; i < 55; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0');
      await seed({ title: `Session ${i}`, start: `2027-04-${day} 09:00:00`, end: `2027-04-${day} 10:00:00` });
    }
    const clamped = await h.call('GET', '/events?per_page=1000');
    expect(clamped.status).toBe(200);
    expect(clamped.json.rest_url).toBe(`${LIST}?page=1&per_page=50&${DEFAULT_WINDOW}&status=publish`);
    expect(clamped.json.events).toHaveLength(50);
    expect(clamped.json.total).toBe(55);
    expect(clamped.json.total_pages).toBe(2);

    const byDefault = await h.call('GET', '/events');
    expect(byDefault.json.rest_url).toContain('per_page=10&');
    expect(byDefault.json.events).toHaveLength(10);
    expect(byDefault.json.total_pages).toBe(6);
  });

  it('T037 per_page=0, -1 or abc and page=0 or abc are a 400 rest_invalid_param naming the parameter', async () => {
    for (const v of ['0', '-1', 'abc', '1.5'])
      expectInvalid(await h.call('GET', `/events?per_page=${v}`), 'per_page');
    for (const v of ['0', '-2', 'abc']) expectInvalid(await h.call('GET', `/events?page=${v}`), 'page');
  });
});

describe('order', () => {
  it('T038 orders by start instant, then publication date, then id; sticky has no effect', async () => {
    const a = await seed({
      title: 'Next Morning',
      start: '2027-03-02 10:00:00',
      end: '2027-03-02 11:00:00',
      date_utc: '2026-10-01 09:00:00',
    });
    const b = await seed({
      title: 'Later Published',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 21:00:00',
      date_utc: '2026-11-05 09:00:00',
    });
    // 18:00 in New York is 23:00 UTC: after the 20:00 UTC event despite the smaller wall time.
    const e = await seed({
      title: 'New York Set',
      start: '2027-03-01 18:00:00',
      end: '2027-03-01 20:00:00',
      timezone: 'America/New_York',
      date_utc: '2026-09-01 09:00:00',
      sticky: true,
    });
    const c = await seed({
      title: 'Earlier Published',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 20:00:00',
      date_utc: '2026-11-01 09:00:00',
    });
    const f = await seed({
      title: 'Berlin Set',
      start: '2027-03-01 21:00:00',
      end: '2027-03-01 22:00:00',
      timezone: 'Europe/Berlin',
      date_utc: '2026-08-01 09:00:00',
    });
    const d = await seed({
      title: 'Same Date Later Id',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 19:30:00',
      date_utc: '2026-11-01 09:00:00',
    });
    // Berlin 21:00 = 20:00 UTC.
    expect(ids(await h.call('GET', '/events'))).toEqual([c.id, d.id, b.id, f.id, e.id, a.id]);
  });
});

describe('filters', () => {
  it('T039 categories=<slug> and categories=<id> are the same filter; an unknown slug or id is a 400', async () => {
    const concerts = await term('categories', 'Concerts', 'concerts');
    const talks = await term('categories', 'Talks', 'talks');
    const gig = await seed({
      title: 'Jazz Night',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      category_ids: [concerts.id],
    });
    await seed({
      title: 'Science Talk',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 20:00:00',
      category_ids: [talks.id],
    });
    await seed({ title: 'Open Day', start: '2027-03-03 10:00:00', end: '2027-03-03 16:00:00' });

    const bySlug = await h.call('GET', '/events?categories=concerts');
    expect(ids(bySlug)).toEqual([gig.id]);
    expect(bySlug.json.total).toBe(1);
    expect(ids(await h.call('GET', `/events?categories=${concerts.id}`))).toEqual([gig.id]);
    expect(ids(await h.call('GET', '/events?categories[]=concerts'))).toEqual([gig.id]);

    expectInvalid(await h.call('GET', '/events?categories=no-such-category'), 'categories');
    expectInvalid(await h.call('GET', '/events?categories=999999'), 'categories');
    // A tag's id is not a category.
    const outdoor = await term('tags', 'Outdoor', 'outdoor');
    expectInvalid(await h.call('GET', `/events?categories=${outdoor.id}`), 'categories');
    expectInvalid(await h.call('GET', '/events?categories=concerts,no-such-category'), 'categories');
  });

  it('T039 a numeric reference is tried as a slug before an id', async () => {
    const concerts = await term('categories', 'Concerts', 'concerts');
    // A category whose slug is another category's id (say, a year or a season number).
    const numeric = await term('categories', `Season ${concerts.id}`, String(concerts.id));
    const gig = await seed({
      title: 'Jazz Night',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      category_ids: [concerts.id],
    });
    const season = await seed({
      title: 'Season Opener',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      category_ids: [numeric.id],
    });
    expect(ids(await h.call('GET', `/events?categories=${concerts.id}`))).toEqual([season.id]);
    expect(ids(await h.call('GET', '/events?categories=concerts'))).toEqual([gig.id]);
  });

  it("T040 categories=a,b is a union, and a parent category matches its children's events", async () => {
    const concerts = await term('categories', 'Concerts', 'concerts');
    const jazz = await term('categories', 'Jazz', 'jazz', concerts.id);
    const bebop = await term('categories', 'Bebop', 'bebop', jazz.id);
    const talks = await term('categories', 'Talks', 'talks');
    const gig = await seed({
      title: 'Rock Gig',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      category_ids: [concerts.id],
    });
    const jazzNight = await seed({
      title: 'Jazz Night',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      category_ids: [jazz.id],
    });
    const bebopNight = await seed({
      title: 'Bebop Night',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 22:00:00',
      category_ids: [bebop.id],
    });
    const talk = await seed({
      title: 'Science Talk',
      start: '2027-03-04 19:00:00',
      end: '2027-03-04 20:00:00',
      category_ids: [talks.id],
    });
    await seed({ title: 'Open Day', start: '2027-03-05 10:00:00', end: '2027-03-05 16:00:00' });

    expect(ids(await h.call('GET', '/events?categories=concerts'))).toEqual([
      gig.id,
      jazzNight.id,
      bebopNight.id,
    ]);
    expect(ids(await h.call('GET', '/events?categories=jazz'))).toEqual([jazzNight.id, bebopNight.id]);
    expect(ids(await h.call('GET', '/events?categories=jazz,talks'))).toEqual([
      jazzNight.id,
      bebopNight.id,
      talk.id,
    ]);
    expect(ids(await h.call('GET', `/events?categories[]=bebop&categories[]=${talks.id}`))).toEqual([
      bebopNight.id,
      talk.id,
    ]);
    // An event in both a parent and its child is listed once.
    const both = await seed({
      title: 'Double Bill',
      start: '2027-03-06 19:00:00',
      end: '2027-03-06 22:00:00',
      category_ids: [concerts.id, jazz.id],
    });
    const res = await h.call('GET', '/events?categories=concerts,jazz');
    expect(ids(res)).toEqual([gig.id, jazzNight.id, bebopNight.id, both.id]);
    expect(res.json.total).toBe(4);
  });

  it('T041 tags, venue and organizer filter by id (OR within each); unknown or wrong-kind ids are a 400', async () => {
    const outdoor = await term('tags', 'Outdoor', 'outdoor');
    const hall = await linked('venues', { venue: 'Main Hall', city: 'Springfield' });
    const pier = await linked('venues', { venue: 'Pier 7', city: 'Springfield' });
    const jane = await linked('organizers', { organizer: 'Jane Org' });
    const bob = await linked('organizers', { organizer: 'Bob Org' });
    const a = await seed({
      title: 'Harbour Festival',
      start: '2027-03-01 12:00:00',
      end: '2027-03-01 18:00:00',
      tag_ids: [outdoor.id],
      venue_id: pier,
      organizer_ids: [bob],
    });
    const b = await seed({
      title: 'Hall Concert',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      venue_id: hall,
      organizer_ids: [jane, bob],
    });
    const c = await seed({
      title: 'Hall Lecture',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 20:00:00',
      venue_id: hall,
      organizer_ids: [jane],
    });
    await seed({ title: 'Nowhere Meetup', start: '2027-03-04 19:00:00', end: '2027-03-04 20:00:00' });

    expect(ids(await h.call('GET', `/events?tags=${outdoor.id}`))).toEqual([a.id]);
    expect(ids(await h.call('GET', '/events?tags=outdoor'))).toEqual([a.id]);
    expect(ids(await h.call('GET', `/events?venue=${hall}`))).toEqual([b.id, c.id]);
    expect(ids(await h.call('GET', `/events?venue=${hall},${pier}`))).toEqual([a.id, b.id, c.id]);
    expect(ids(await h.call('GET', `/events?organizer=${jane}`))).toEqual([b.id, c.id]);
    const both = await h.call('GET', `/events?organizer[]=${jane}&organizer[]=${bob}`);
    expect(ids(both)).toEqual([a.id, b.id, c.id]);
    expect(both.json.total).toBe(3);
    // Different filters combine with AND.
    expect(ids(await h.call('GET', `/events?venue=${hall}&organizer=${bob}`))).toEqual([b.id]);

    expectInvalid(await h.call('GET', '/events?venue=999999'), 'venue');
    expectInvalid(await h.call('GET', `/events?venue=${jane}`), 'venue');
    expectInvalid(await h.call('GET', `/events?organizer=${hall}`), 'organizer');
    expectInvalid(await h.call('GET', '/events?organizer=999999'), 'organizer');
    expectInvalid(await h.call('GET', '/events?tags=no-such-tag'), 'tags');
    expectInvalid(await h.call('GET', '/events?venue=main-hall'), 'venue');
  });

  it('T042 search=Minimal matches the title; search= is a 400', async () => {
    const minimal = await seed({
      title: 'Minimal Techno Night',
      start: '2027-03-01 22:00:00',
      end: '2027-03-02 04:00:00',
    });
    await seed({ title: 'Jazz Night', start: '2027-03-02 19:00:00', end: '2027-03-02 22:00:00' });
    const res = await h.call('GET', '/events?search=Minimal');
    expect(ids(res)).toEqual([minimal.id]);
    expect(res.json.total).toBe(1);
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&${DEFAULT_WINDOW}&search=Minimal&status=publish`,
    );
    expectInvalid(await h.call('GET', '/events?search='), 'search');
  });

  it('search is case-insensitive and matches substrings of title, description and excerpt (search=inim finds "Minimal")', async () => {
    const minimal = await seed({
      title: 'Minimal Techno Night',
      start: '2027-03-01 22:00:00',
      end: '2027-03-02 04:00:00',
    });
    const jazz = await seed({
      title: 'Jazz Night',
      description: 'A smoky bar, a quartet and a DJ set afterwards.',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
    });
    const talk = await seed({
      title: 'Science Talk',
      excerpt: 'Minimalism in physics',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 20:00:00',
    });
    expect(ids(await h.call('GET', '/events?search=inim'))).toEqual([minimal.id, talk.id]);
    expect(ids(await h.call('GET', '/events?search=MINIMAL'))).toEqual([minimal.id, talk.id]);
    expect(ids(await h.call('GET', '/events?search=quartet'))).toEqual([jazz.id]);
    // Words shorter than a trigram still match as substrings.
    expect(ids(await h.call('GET', '/events?search=dj'))).toEqual([jazz.id]);
  });

  it('search is case-insensitive beyond ASCII, also for words too short for the trigram index', async () => {
    const beer = await seed({
      title: 'Müller Öl Abend',
      start: '2027-03-01 18:00:00',
      end: '2027-03-01 21:00:00',
    });
    const cafe = await seed({
      title: 'Café Ünter den Linden',
      start: '2027-03-02 10:00:00',
      end: '2027-03-02 12:00:00',
    });
    expect(ids(await h.call('GET', `/events?search=${encodeURIComponent('MÜLLER')}`))).toEqual([beer.id]);
    expect(ids(await h.call('GET', `/events?search=${encodeURIComponent('öl')}`))).toEqual([beer.id]);
    expect(ids(await h.call('GET', `/events?search=${encodeURIComponent('ü')}`))).toEqual([beer.id, cafe.id]);
    expect(ids(await h.call('GET', `/events?search=${encodeURIComponent('CAFÉ')}`))).toEqual([cafe.id]);
    // LIKE wildcards in the search are literal characters.
    expect(ids(await h.call('GET', '/events?search=%25'))).toEqual([]);
    expect(ids(await h.call('GET', '/events?search=_'))).toEqual([]);
  });

  it('a search of several words requires all of them, in any field and order', async () => {
    const minimal = await seed({
      title: 'Minimal Techno Night',
      start: '2027-03-01 22:00:00',
      end: '2027-03-02 04:00:00',
    });
    const jazz = await seed({
      title: 'Jazz Night',
      description: 'A smoky bar, a quartet and a DJ set afterwards.',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
    });
    await seed({ title: 'Techno Brunch', start: '2027-03-03 11:00:00', end: '2027-03-03 14:00:00' });
    expect(ids(await h.call('GET', '/events?search=night%20techno'))).toEqual([minimal.id]);
    expect(ids(await h.call('GET', '/events?search=night'))).toEqual([minimal.id, jazz.id]);
    expect(ids(await h.call('GET', '/events?search=jazz%20quartet'))).toEqual([jazz.id]);
    expect(ids(await h.call('GET', '/events?search=dj%20jazz'))).toEqual([jazz.id]);
    const none = await h.call('GET', '/events?search=jazz%20techno');
    expect(none.status).toBe(200);
    expect(none.json.events).toEqual([]);
    expect(none.json.total).toBe(0);
  });

  it('T043 featured=true lists only featured events, featured=false only the others', async () => {
    const star = await seed({
      title: 'Gala',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 23:00:00',
      featured: true,
    });
    const plain = await seed({
      title: 'Book Club',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 20:00:00',
    });
    expect(ids(await h.call('GET', '/events?featured=true'))).toEqual([star.id]);
    expect(ids(await h.call('GET', '/events?featured=1'))).toEqual([star.id]);
    expect(ids(await h.call('GET', '/events?featured=false'))).toEqual([plain.id]);
    expect(ids(await h.call('GET', '/events?featured=0'))).toEqual([plain.id]);
    expectInvalid(await h.call('GET', '/events?featured=yes'), 'featured');
  });

  it('post_parent with an existing event id matches nothing; an unknown or non-event id is a 400', async () => {
    const e = await seed({ title: 'Jazz Night', start: '2027-03-01 19:00:00', end: '2027-03-01 22:00:00' });
    const hall = await linked('venues', { venue: 'Main Hall' });
    const res = await h.call('GET', `/events?post_parent=${e.id}`);
    expect(res.status).toBe(200);
    expect(res.json.events).toEqual([]);
    expect(res.json.total).toBe(0);
    expect(res.headers['x-tec-total']).toBe('0');
    expectInvalid(await h.call('GET', '/events?post_parent=999999'), 'post_parent');
    expectInvalid(await h.call('GET', `/events?post_parent=${hall}`), 'post_parent');
    expectInvalid(await h.call('GET', '/events?post_parent=abc'), 'post_parent');
  });

  it('geoloc, geoloc_lat, geoloc_lng and ticketed are validated and have no effect; geoloc=maybe is a 400', async () => {
    const e = await seed({ title: 'Jazz Night', start: '2027-03-01 19:00:00', end: '2027-03-01 22:00:00' });
    for (const q of [
      'geoloc=true',
      'ticketed=false',
      'ticketed=true',
      'geoloc=1&geoloc_lat=52.52&geoloc_lng=-13.4',
    ]) {
      const res = await h.call('GET', `/events?${q}`);
      expect(res.status, q).toBe(200);
      expect(ids(res)).toEqual([e.id]);
    }
    expectInvalid(await h.call('GET', '/events?geoloc=maybe'), 'geoloc');
    expectInvalid(await h.call('GET', '/events?ticketed=sometimes'), 'ticketed');
    expectInvalid(await h.call('GET', '/events?geoloc_lat=north'), 'geoloc_lat');
  });
});

describe('dates', () => {
  it('T044 start_date/end_date as days echo 00:00:00/23:59:59 and compare instants: a 19:00 New York event of 03-01 is on 03-02 UTC', async () => {
    const ny = await seed({
      title: 'Full Event',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      timezone: 'America/New_York',
    });
    await seed({
      title: 'London Evening',
      start: '2027-03-01 20:00:00',
      end: '2027-03-01 23:00:00',
      timezone: 'Europe/London',
    });
    const res = await h.call('GET', '/events?start_date=2027-03-02&end_date=2027-03-03');
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&start_date=2027-03-02%2000%3A00%3A00&end_date=2027-03-03%2023%3A59%3A59&status=publish`,
    );
    expect(ids(res)).toEqual([ny.id]);
    expect(res.json.events[0].start_date).toBe('2027-03-01 19:00:00');
  });

  it('T044 with only start_date, end_date keeps its default; with only end_date, start_date keeps its default', async () => {
    const onlyStart = await h.call('GET', '/events?start_date=2027-01-01');
    expect(onlyStart.json.rest_url).toContain(
      'start_date=2027-01-01%2000%3A00%3A00&end_date=2028-11-21%2023%3A59%3A59',
    );
    const onlyEnd = await h.call('GET', '/events?end_date=2027-01-01');
    expect(onlyEnd.json.rest_url).toContain(
      'start_date=2026-11-20%2000%3A00%3A00&end_date=2027-01-01%2023%3A59%3A59',
    );
  });

  it('T045 a 15:00–18:00 window lists the 16:00 and 20:00 events of that day; with strict_dates=true only the first', async () => {
    const four = await seed({ title: 'Tea Dance', start: '2027-03-01 16:00:00', end: '2027-03-01 17:00:00' });
    const eight = await seed({
      title: 'Evening Recital',
      start: '2027-03-01 20:00:00',
      end: '2027-03-01 21:00:00',
    });
    const window = 'start_date=2027-03-01%2015:00:00&end_date=2027-03-01%2018:00:00';
    const inclusive = await h.call('GET', `/events?${window}`);
    expect(ids(inclusive)).toEqual([four.id, eight.id]);
    expect(inclusive.json.rest_url).toContain(
      'start_date=2027-03-01%2000%3A00%3A00&end_date=2027-03-01%2023%3A59%3A59',
    );

    const strict = await h.call('GET', `/events?${window}&strict_dates=true`);
    expect(ids(strict)).toEqual([four.id]);
    expect(strict.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&start_date=2027-03-01%2015%3A00%3A00&end_date=2027-03-01%2018%3A00%3A00&status=publish&strict_dates=true`,
    );
  });

  it('T045 starts_*/ends_* bounds are strict and, with strict_dates=true, exact', async () => {
    const four = await seed({ title: 'Tea Dance', start: '2027-03-01 16:00:00', end: '2027-03-01 17:00:00' });
    const eight = await seed({
      title: 'Evening Recital',
      start: '2027-03-01 20:00:00',
      end: '2027-03-01 21:00:00',
    });
    const next = await seed({
      title: 'Breakfast Talk',
      start: '2027-03-02 08:00:00',
      end: '2027-03-02 09:00:00',
    });
    const q = 'starts_after=2027-03-01%2016:00:00&starts_before=2027-03-02%2008:00:00&strict_dates=true';
    expect(ids(await h.call('GET', `/events?${q}`))).toEqual([eight.id]);
    const ends = 'ends_after=2027-03-01%2017:00:00&ends_before=2027-03-02%2009:00:00&strict_dates=1';
    expect(ids(await h.call('GET', `/events?${ends}`))).toEqual([eight.id]);
    // Inclusive: starts_before=2027-03-01 10:00 means before the end of 03-01.
    expect(ids(await h.call('GET', '/events?starts_before=2027-03-01%2010:00:00'))).toEqual([
      four.id,
      eight.id,
    ]);
    expect(ids(await h.call('GET', '/events?starts_after=2027-03-01'))).toEqual([next.id]);
  });

  it('T046 starts_after alone echoes 23:59:59, drops the default window and excludes an all-day event of that day', async () => {
    const allDay = await seed({
      title: 'Spring Fair',
      start: '2027-03-03 00:00:00',
      end: '2027-03-03 23:59:59',
      all_day: true,
    });
    const evening = await seed({
      title: 'Fair Afterparty',
      start: '2027-03-03 20:00:00',
      end: '2027-03-03 23:00:00',
    });
    const next = await seed({
      title: 'Morning Run',
      start: '2027-03-04 07:00:00',
      end: '2027-03-04 08:00:00',
    });
    const far = await seed({
      title: 'Jubilee Gala',
      start: '2030-01-01 19:00:00',
      end: '2030-01-01 23:00:00',
    });
    const res = await h.call('GET', '/events?starts_after=2027-03-03%2000:00:00');
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&status=publish&starts_after=2027-03-03%2023%3A59%3A59`,
    );
    expect(res.json.rest_url).not.toContain('start_date');
    expect(res.json.rest_url).not.toContain('end_date');
    expect(ids(res)).toEqual([next.id, far.id]);
    expect(ids(res)).not.toContain(allDay.id);
    expect(ids(res)).not.toContain(evening.id);
  });

  it('T046 with both a window and a bound, they intersect', async () => {
    await seed({ title: 'Tea Dance', start: '2027-03-01 16:00:00', end: '2027-03-01 17:00:00' });
    const next = await seed({
      title: 'Breakfast Talk',
      start: '2027-03-02 08:00:00',
      end: '2027-03-02 09:00:00',
    });
    await seed({ title: 'Later', start: '2027-03-05 08:00:00', end: '2027-03-05 09:00:00' });
    const res = await h.call(
      'GET',
      '/events?start_date=2027-03-01&end_date=2027-03-04&starts_after=2027-03-01',
    );
    expect(ids(res)).toEqual([next.id]);
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&start_date=2027-03-01%2000%3A00%3A00&end_date=2027-03-04%2023%3A59%3A59&status=publish&starts_after=2027-03-01%2023%3A59%3A59`,
    );
  });

  it('T047 an unparseable date parameter is a 400 naming it', async () => {
    expectInvalid(await h.call('GET', '/events?start_date=garbage'), 'start_date');
    expectInvalid(await h.call('GET', '/events?end_date=01/06/2027'), 'end_date');
    expectInvalid(await h.call('GET', '/events?starts_before=tomorrow'), 'starts_before');
    expectInvalid(await h.call('GET', '/events?ends_after=2027-02-30'), 'ends_after');
    const both = await h.call('GET', '/events?start_date=garbage&per_page=0');
    expect(both.status).toBe(400);
    expect(Object.keys(both.json.data.params).sort()).toEqual(['per_page', 'start_date']);
  });

  it('T047 ISO 8601 with an offset is an instant: start_date=2027-03-02T01:00:00+02:00 begins at 2027-03-01 23:00 UTC', async () => {
    const e = await seed({ title: 'Late Set', start: '2027-03-01 23:30:00', end: '2027-03-02 01:00:00' });
    const res = await h.call('GET', '/events?start_date=2027-03-01T23:00:00Z&strict_dates=true');
    expect(ids(res)).toEqual([e.id]);
    expect(res.json.rest_url).toContain('start_date=2027-03-01%2023%3A00%3A00');
    const offset = await h.call('GET', '/events?start_date=2027-03-02T01:00:00%2B02:00&strict_dates=true');
    expect(ids(offset)).toEqual([e.id]);
  });
});

describe('include', () => {
  it('T048 include returns a past event, and a hidden event that no list shows', async () => {
    const past = await seed({
      title: 'Summer Fete',
      start: '2026-06-01 12:00:00',
      end: '2026-06-01 18:00:00',
    });
    const hidden = await seed({
      title: 'Staff Party',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 23:00:00',
      hide_from_listings: true,
    });
    const shown = await seed({
      title: 'Jazz Night',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
    });

    expect(ids(await h.call('GET', '/events'))).toEqual([shown.id]);
    expect(ids(await h.call('GET', '/events?start_date=1900-01-01&end_date=2100-12-31'))).toEqual([
      past.id,
      shown.id,
    ]);
    expect(ids(await h.call('GET', '/events?ends_after=2027-01-01'))).toEqual([shown.id]);
    expect(ids(await h.call('GET', '/events', { as: 'administrator' }))).toEqual([shown.id]);

    expect(ids(await h.call('GET', `/events?include=${past.id}`))).toEqual([past.id]);
    expect(ids(await h.call('GET', `/events?include=${hidden.id}`))).toEqual([hidden.id]);
    const res = await h.call('GET', `/events?include=${past.id},${hidden.id}&start_date=2027-01-01`);
    expect(res.json.total).toBe(2);
    expect(ids(res).sort()).toEqual([past.id, hidden.id].sort());
    // Date parameters are ignored: not echoed.
    expect(res.json.rest_url).toBe(
      `${LIST}?page=1&per_page=10&status=publish&include=${past.id}%2C${hidden.id}`,
    );
  });

  it('T048 include keeps other filters and the read rules', async () => {
    const star = await seed({
      title: 'Gala',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 23:00:00',
      featured: true,
    });
    const plain = await seed({
      title: 'Book Club',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 20:00:00',
    });
    const draft = await seed({
      title: 'Secret Show',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 20:00:00',
      status: 'draft',
    });
    const list = `${star.id},${plain.id},${draft.id}`;
    expect(ids(await h.call('GET', `/events?include=${list}&featured=true`))).toEqual([star.id]);
    expect(ids(await h.call('GET', `/events?include=${list}`))).toEqual([star.id, plain.id]);
    expect((await h.call('GET', `/events?include=${list}`, { as: 'administrator' })).json.total).toBe(3);
    // Unknown ids simply match nothing; non-ids are a 400.
    expect(ids(await h.call('GET', `/events?include=${plain.id},999999`))).toEqual([plain.id]);
    expectInvalid(await h.call('GET', '/events?include=abc'), 'include');
    expectInvalid(await h.call('GET', '/events?include=0'), 'include');
    expectInvalid(await h.call('GET', '/events?include=-3'), 'include');
  });

  it('include orders by publication date, then id, not by start', async () => {
    const x = await seed({
      title: 'May Concert',
      start: '2027-05-01 19:00:00',
      end: '2027-05-01 22:00:00',
      date_utc: '2026-09-01 08:00:00',
    });
    const y = await seed({
      title: 'January Concert',
      start: '2027-01-10 19:00:00',
      end: '2027-01-10 22:00:00',
      date_utc: '2026-10-01 08:00:00',
    });
    const z = await seed({
      title: 'December Concert',
      start: '2026-12-05 19:00:00',
      end: '2026-12-05 22:00:00',
      date_utc: '2026-08-01 08:00:00',
    });
    const w = await seed({
      title: 'Twin Concert',
      start: '2026-12-01 19:00:00',
      end: '2026-12-01 22:00:00',
      date_utc: '2026-09-01 08:00:00',
    });
    expect(ids(await h.call('GET', `/events?include=${y.id},${w.id},${z.id},${x.id}`))).toEqual([
      z.id,
      x.id,
      w.id,
      y.id,
    ]);
  });
});

describe('statuses', () => {
  it('T049 status=any is a 400; status=publish,private equals status[]=publish&status[]=private', async () => {
    const pub = await seed({
      title: 'Public Night',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
    });
    const priv = await seed({
      title: 'Members Night',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      status: 'private',
    });
    await seed({
      title: 'Draft Night',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 22:00:00',
      status: 'draft',
    });

    expectInvalid(await h.call('GET', '/events?status=any', { as: 'administrator' }), 'status');
    expectInvalid(await h.call('GET', '/events?status=publish,bogus', { as: 'administrator' }), 'status');
    const csv = await h.call('GET', '/events?status=publish,private', { as: 'administrator' });
    const arr = await h.call('GET', '/events?status[]=publish&status[]=private', { as: 'administrator' });
    expect(ids(csv)).toEqual([pub.id, priv.id]);
    expect(ids(arr)).toEqual(ids(csv));
    expect(arr.json.total).toBe(csv.json.total);
    expect(arr.json.rest_url).toBe(csv.json.rest_url);
    expect(csv.json.rest_url).toContain('&status=publish%2Cprivate');
  });

  it('T049 an unknown status is a 400 even for anonymous callers (validation before value permissions)', async () => {
    expectInvalid(await h.call('GET', '/events?status=any'), 'status');
  });

  it('contributors and authors asking for status=draft see only their own drafts; editors see all', async () => {
    const admins = await seed({
      title: 'Admin Draft',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      status: 'draft',
    });
    const authors = await seed({
      title: 'Author Draft',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      status: 'draft',
      author: h.users.author.id,
    });
    const contributors = await seed({
      title: 'Contributor Draft',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 22:00:00',
      status: 'draft',
      author: h.users.contributor.id,
    });
    await seed({
      title: 'Contributor Pending',
      start: '2027-03-04 19:00:00',
      end: '2027-03-04 22:00:00',
      status: 'pending',
      author: h.users.contributor.id,
    });

    const contrib = await h.call('GET', '/events?status=draft', { as: 'contributor' });
    expect(contrib.status).toBe(200);
    expect(ids(contrib)).toEqual([contributors.id]);
    expect(contrib.json.total).toBe(1);
    expect(ids(await h.call('GET', '/events?status=draft', { as: 'author' }))).toEqual([authors.id]);
    expect(ids(await h.call('GET', '/events?status=draft', { as: 'editor' }))).toEqual([
      admins.id,
      authors.id,
      contributors.id,
    ]);
  });

  it("an author's default list has everyone's published events and only their own unpublished ones", async () => {
    const pub = await seed({
      title: 'Public Night',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
    });
    await seed({
      title: 'Admin Private',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      status: 'private',
    });
    const own = await seed({
      title: 'Author Private',
      start: '2027-03-03 19:00:00',
      end: '2027-03-03 22:00:00',
      status: 'private',
      author: h.users.author.id,
    });
    await seed({
      title: 'Own Trash',
      start: '2027-03-04 19:00:00',
      end: '2027-03-04 22:00:00',
      status: 'trash',
      author: h.users.author.id,
    });
    expect(ids(await h.call('GET', '/events', { as: 'author' }))).toEqual([pub.id, own.id]);
    expect(ids(await h.call('GET', '/events', { as: 'subscriber' }))).toEqual([pub.id]);
    expect(ids(await h.call('GET', '/events'))).toEqual([pub.id]);
  });
});

describe('links keep filters', () => {
  it('T050 categories=concerts&per_page=1: next_rest_url keeps categories=concerts and works', async () => {
    const concerts = await term('categories', 'Concerts', 'concerts');
    const a = await seed({
      title: 'Rock Gig',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 22:00:00',
      category_ids: [concerts.id],
    });
    const b = await seed({
      title: 'Jazz Night',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      category_ids: [concerts.id],
    });
    await seed({ title: 'Open Day', start: '2027-03-01 10:00:00', end: '2027-03-01 16:00:00' });

    const one = await h.call('GET', '/events?categories=concerts&per_page=1');
    expect(ids(one)).toEqual([a.id]);
    expect(one.json.total_pages).toBe(2);
    expect(one.json.next_rest_url).toBe(
      `${LIST}?page=2&per_page=1&${DEFAULT_WINDOW}&status=publish&categories=concerts`,
    );
    const two = await h.call('GET', follow(one.json.next_rest_url));
    expect(ids(two)).toEqual([b.id]);
    expect(two.json.previous_rest_url).toBe(
      `${LIST}?per_page=1&${DEFAULT_WINDOW}&status=publish&categories=concerts`,
    );
  });

  it('T050 links carry no raw spaces: search words and dates are percent-encoded, and every filter is kept', async () => {
    const concerts = await term('categories', 'Concerts', 'concerts');
    for (const day of ['01', '02', '03']) {
      await seed({
        title: `Jazz Night ${day}`,
        start: `2027-03-${day} 19:00:00`,
        end: `2027-03-${day} 22:00:00`,
        category_ids: [concerts.id],
        featured: true,
      });
    }
    const res = await h.call(
      'GET',
      '/events?search=jazz%20night&per_page=1&page=2&categories[]=concerts&featured=true&strict_dates=true&starts_after=2027-03-01%2000:00:00',
    );
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(3);
    for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url']) {
      const url: string = res.json[key];
      expect(url, key).toBeDefined();
      expect(url, key).not.toMatch(/\s/);
      expect(url, key).toContain('search=jazz%20night');
      expect(url, key).toContain('categories=concerts');
      expect(url, key).toContain('featured=true');
      expect(url, key).toContain('strict_dates=true');
      expect(url, key).toContain('starts_after=2027-03-01%2000%3A00%3A00');
    }
    expect(res.json.rest_url).toBe(
      `${LIST}?page=2&per_page=1&search=jazz%20night&status=publish&starts_after=2027-03-01%2000%3A00%3A00&strict_dates=true&categories=concerts&featured=true`,
    );
    const next = await h.call('GET', follow(res.json.next_rest_url));
    expect(next.json.events[0].title).toBe('Jazz Night 03');
  });
});

describe('password-protected events (A.10)', () => {
  async function protectedEvent() {
    const hall = await linked('venues', { venue: 'Main Hall', city: 'Springfield', address: '1 Main St' });
    const jane = await linked('organizers', { organizer: 'Jane Org', email: 'jane@example.com' });
    const concerts = await term('categories', 'Concerts', 'concerts');
    const outdoor = await term('tags', 'Outdoor', 'outdoor');
    const e = await seed({
      title: 'Members Gala',
      start: '2027-03-01 19:00:00',
      end: '2027-03-01 23:00:00',
      description: 'Dress code: black tie.',
      excerpt: 'Members only',
      cost: JSON.stringify('$25'),
      website: 'https://example.com/gala',
      show_map: true,
      show_map_link: true,
      featured: true,
      venue_id: hall,
      organizer_ids: [jane],
      category_ids: [concerts.id],
      tag_ids: [outdoor.id],
    });
    await h.store.setEventPassword(e.id, 'opensesame');
    const open = await seed({
      title: 'Open Night',
      start: '2027-03-02 19:00:00',
      end: '2027-03-02 22:00:00',
      description: 'All welcome.',
    });
    return { e, open };
  }

  it('T102 a protected event the caller has not unlocked is listed redacted', async () => {
    const { e, open } = await protectedEvent();
    for (const query of ['', '?password=wrong']) {
      const res = await h.call('GET', `/events${query}`);
      expect(ids(res)).toEqual([e.id, open.id]);
      const item = res.json.events[0];
      expect(item).toMatchObject({
        id: e.id,
        title: 'Members Gala',
        start_date: '2027-03-01 19:00:00',
        end_date: '2027-03-01 23:00:00',
        description: '',
        excerpt: '',
        cost: '',
        website: '',
        image: false,
        all_day: null,
        show_map: null,
        show_map_link: null,
        hide_from_listings: null,
        sticky: null,
        featured: null,
        cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
        categories: [],
        tags: [],
        venue: [],
        organizer: [],
      });
      // Other events are untouched.
      expect(res.json.events[1].description).toBe('<p>All welcome.</p>');
      expect(res.json.events[1].featured).toBe(false);
    }
  });

  it('T102 the right password unlocks a protected event in the list, and is not echoed in links', async () => {
    const { e } = await protectedEvent();
    const res = await h.call('GET', '/events?password=opensesame');
    const item = res.json.events.find((x: { id: number }) => x.id === e.id);
    expect(item.description).toBe('<p>Dress code: black tie.</p>');
    expect(item.cost).toBe('$25');
    expect(item.featured).toBe(true);
    expect(item.venue.venue).toBe('Main Hall');
    expect(item.organizer).toHaveLength(1);
    expect(item.categories.map((c: { slug: string }) => c.slug)).toEqual(['concerts']);
    expect(item.tags.map((t: { slug: string }) => t.slug)).toEqual(['outdoor']);
    expect(res.json.rest_url).not.toContain('opensesame');
    expect(res.json.rest_url).not.toContain('password');
  });

  it('T102 editors see a protected event in full without the password; subscribers do not', async () => {
    const { e } = await protectedEvent();
    const editor = await h.call('GET', '/events', { as: 'editor' });
    expect(editor.json.events.find((x: { id: number }) => x.id === e.id).cost).toBe('$25');
    const sub = await h.call('GET', '/events', { as: 'subscriber' });
    expect(sub.json.events.find((x: { id: number }) => x.id === e.id).cost).toBe('');
  });
});
