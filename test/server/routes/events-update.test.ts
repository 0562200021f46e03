/**
 * Event updates, deletes and by-slug routes (contract B.6.3, B.6.4, B.7, B.8, A.10; checklist
 * T090–T102), and request handling (B.0): method override, form and multipart bodies with
 * bracketed fields, parameter precedence, and bad input that writes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { seedAttachment } from '../fixtures.ts';
import { type Harness, makeApp, NS, SITE, snapshot } from '../harness.ts';

const EVENT = { title: 'Full Event', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const create = (body: Record<string, unknown>, as?: Role) => h.created('/events', body, as);
const post = (path: string, body: Record<string, unknown>) => h.created(path, body);

const BOUNDARY = 'calsyncBoundary42';

/** A multipart/form-data body of text fields. */
function multipart(fields: [string, string][]): string {
  const parts = fields.map(
    ([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  return `${parts.join('')}--${BOUNDARY}--\r\n`;
}

/** An event with every field set, and the items it links. */
async function fullEvent(over: Record<string, unknown> = {}) {
  const venue = await post('/venues', { venue: 'Main Hall', city: 'Springfield' });
  const first = await post('/organizers', { organizer: 'Jane Org' });
  const second = await post('/organizers', { organizer: 'Joe Org' });
  const category = await post('/categories', { name: 'Concerts' });
  const image = await seedAttachment(h.store);
  const event = await create({
    ...EVENT,
    description: 'Full description',
    excerpt: 'Short',
    timezone: 'America/New_York',
    date: '2026-11-01 08:00:00',
    cost: '$25',
    website: 'https://example.com/full',
    image: String(image.id),
    show_map: true,
    show_map_link: true,
    hide_from_listings: true,
    sticky: true,
    featured: true,
    categories: [category.id],
    tags: ['Outdoor'],
    venue: venue.id,
    organizer: [second.id, first.id],
    ...over,
  });
  return { event, venue, organizers: [second, first], category, image };
}

/** The parts of an event that do not depend on its id. */
function idFree(e: Record<string, unknown>) {
  const { id, global_id, global_id_lineage, url, rest_url, slug, website, ...rest } = e;
  return rest;
}

// ---- T090–T095: partial updates (D1) --------------------------------------------------------

describe('PATCH /events/{id} (B.6.3)', () => {
  it('T090 PATCH {"title"} keeps every other field', async () => {
    const { event } = await fullEvent();
    const res = await h.call('PATCH', `/events/${event.id}`, { as: 'administrator', body: { title: 'X' } });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('json_ld');
    const { title, modified, modified_utc, ...kept } = res.json;
    expect(title).toBe('X');
    const { title: _t, modified: _m, modified_utc: _mu, ...before } = event;
    expect(kept).toEqual(before);
    expect(res.json.slug).toBe('full-event');
    expect(res.json.date_utc).toBe('2026-11-01 08:00:00');
    expect(res.json.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([
      'Joe Org',
      'Jane Org',
    ]);
    const read = await h.call('GET', `/events/${event.id}`);
    expect(read.json.title).toBe('X');
    expect(read.json.timezone).toBe('America/New_York');
  });

  it('T091 POST and PUT with the same partial body equal PATCH', async () => {
    const body = { title: 'Renamed', featured: false, cost: ['10', '20'], start_date: '2027-03-02 18:00:00' };
    const results: Record<string, unknown>[] = [];
    for (const method of ['PATCH', 'POST', 'PUT'] as const) {
      const e = await create({
        ...EVENT,
        timezone: 'Europe/Berlin',
        featured: true,
        cost: '$5',
        sticky: true,
      });
      const res = await h.call(method, `/events/${e.id}`, { as: 'administrator', body });
      expect(res.status, method).toBe(200);
      expect(res.json.sticky).toBe(true);
      expect(res.json.start_date).toBe('2027-03-02 18:00:00');
      expect(res.json.end_date).toBe('2027-03-02 18:00:00');
      results.push(idFree(res.json));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it('T092 null and [] clear venue, organizers, terms, cost, image, description and timezone', async () => {
    const { event } = await fullEvent();
    const res = await h.call('PATCH', `/events/${event.id}`, {
      as: 'administrator',
      body: {
        venue: null,
        organizer: [],
        categories: [],
        tags: '',
        cost: null,
        image: null,
        description: null,
        excerpt: '',
        timezone: null,
      },
    });
    expect(res.status, res.body).toBe(200);
    expect(res.json).toMatchObject({
      venue: [],
      organizer: [],
      categories: [],
      tags: [],
      cost: '',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
      image: false,
      description: '',
      excerpt: '',
      timezone: 'UTC',
      start_date: '2027-03-01 19:00:00',
      utc_start_date: '2027-03-01 19:00:00',
    });
    // The items themselves stay (B.6.4).
    expect((await h.call('GET', `/venues/${event.venue.id}`)).status).toBe(200);
    const again = await h.call('PATCH', `/events/${event.id}`, {
      as: 'administrator',
      body: { organizer: null, categories: null, venue: 0 },
    });
    expect(again.status).toBe(200);
  });

  it('T093 null on a required, status or boolean field is 400 and changes nothing', async () => {
    const { event } = await fullEvent();
    const before = await snapshot(h.store);
    for (const field of [
      'title',
      'featured',
      'start_date',
      'end_date',
      'slug',
      'status',
      'author',
      'date',
      'date_utc',
      'all_day',
      'show_map',
    ]) {
      const res = await h.call('PATCH', `/events/${event.id}`, {
        as: 'administrator',
        body: { [field]: null },
      });
      expect(res.status, field).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual([field]);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('T094 a new timezone keeps the wall times and recomputes UTC', async () => {
    const e = await create({ ...EVENT, timezone: 'America/New_York' });
    expect(e.utc_start_date).toBe('2027-03-02 00:00:00');
    const res = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { timezone: 'Europe/Paris' },
    });
    expect(res.json).toMatchObject({
      timezone: 'Europe/Paris',
      timezone_abbr: 'CET',
      start_date: '2027-03-01 19:00:00',
      end_date: '2027-03-01 22:00:00',
      utc_start_date: '2027-03-01 18:00:00',
      utc_end_date: '2027-03-01 21:00:00',
    });
    // New dates with an offset are instants in the (new) zone (E5).
    const moved = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { start_date: '2027-03-01T20:00:00Z' },
    });
    expect(moved.json.start_date).toBe('2027-03-01 21:00:00');
    expect(moved.json.end_date).toBe('2027-03-01 22:00:00');
  });

  it('B.6.3 an update that puts the end before the start sets end := start', async () => {
    const e = await create(EVENT);
    const res = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { start_date: '2027-03-02 10:00:00' },
    });
    expect(res.json.end_date).toBe('2027-03-02 10:00:00');
    expect(res.json.utc_end_date).toBe('2027-03-02 10:00:00');
  });

  it('B.6.3 modified moves and the publication date stays', async () => {
    const draft = await create({ ...EVENT, status: 'draft' });
    expect(draft.modified_utc).toBe('0000-00-00 00:00:00');
    const res = await h.call('PATCH', `/events/${draft.id}`, { as: 'administrator', body: { excerpt: 'x' } });
    expect(res.json.modified_utc).toBe('2026-11-21 12:00:00');
    expect(res.json.date_utc).toBe('0000-00-00 00:00:00');
    const published = await h.call('PATCH', `/events/${draft.id}`, {
      as: 'administrator',
      body: { status: 'publish' },
    });
    expect(published.json).toMatchObject({
      status: 'publish',
      date_utc: '2026-11-21 12:00:00',
      slug: 'full-event',
      url: `${SITE}/event/full-event/`,
    });
  });

  it('T095 PATCH of an unknown id is 404 event-not-found; a body id does not retarget', async () => {
    const a = await create(EVENT);
    const b = await create({ ...EVENT, title: 'Other' });
    const before = await snapshot(h.store);
    const missing = await h.call('PATCH', '/events/999999', { as: 'administrator', body: { title: 'X' } });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      code: 'event-not-found',
      message: 'Event with ID 999999 does not exist.',
      data: { status: 404 },
    });
    expect(await snapshot(h.store)).toBe(before);

    const res = await h.call('PATCH', `/events/${a.id}?id=${b.id}`, {
      as: 'administrator',
      body: { id: b.id, title: 'Renamed' },
    });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(a.id);
    expect((await h.call('GET', `/events/${a.id}`)).json.title).toBe('Renamed');
    expect((await h.call('GET', `/events/${b.id}`)).json.title).toBe('Other');
  });

  it('T018 per-item rights: contributor edits own draft only, author not others, editor anyone', async () => {
    const admins = await create(EVENT);
    const own = await create({ ...EVENT, title: 'Mine' }, 'contributor');
    const before = await snapshot(h.store);
    for (const path of [`/events/${admins.id}`, `/events/by-slug/${admins.slug}`]) {
      const res = await h.call('PATCH', path, { as: 'contributor', body: { title: 'Hijack' } });
      expect(res.status, path).toBe(403);
      expect(res.json.code).toBe('rest_forbidden');
    }
    expect(
      (await h.call('PATCH', `/events/${admins.id}`, { as: 'author', body: { title: 'X' } })).status,
    ).toBe(403);
    expect((await h.call('PATCH', `/events/${admins.id}`, { body: { title: 'X' } })).status).toBe(401);
    expect(await snapshot(h.store)).toBe(before);
    const mine = await h.call('PATCH', `/events/${own.id}`, {
      as: 'contributor',
      body: { title: 'Still mine' },
    });
    expect(mine.status).toBe(200);
    expect(mine.json.status).toBe('draft');
    expect(
      (await h.call('PATCH', `/events/${admins.id}`, { as: 'editor', body: { title: 'Y' } })).status,
    ).toBe(200);
  });
});

// ---- T096–T099: delete, trash, restore (B.6.4) ----------------------------------------------

describe('DELETE /events/{id} (B.6.4)', () => {
  it('T096 DELETE trashes (status trash, slug __trashed, ?p= url); again is 410 event-is-in-trash', async () => {
    const { event, venue } = await fullEvent();
    const res = await h.call('DELETE', `/events/${event.id}`, { as: 'administrator' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: event.id,
      status: 'trash',
      slug: 'full-event__trashed',
      url: `${SITE}/?post_type=tribe_events&p=${event.id}`,
      modified_utc: '2026-11-21 12:00:00',
    });
    expect(res.json).not.toHaveProperty('json_ld');
    expect(res.json.venue.id).toBe(venue.id);
    const again = await h.call('DELETE', `/events/${event.id}`, { as: 'administrator' });
    expect(again.status).toBe(410);
    expect(again.json).toEqual({
      code: 'event-is-in-trash',
      message: 'The event is already trashed',
      data: { status: 410 },
    });
    // Venue, organizers and terms are kept.
    expect((await h.call('GET', `/venues/${venue.id}`)).status).toBe(200);
  });

  it('T097 a trashed event is 403 event-not-accessible to anonymous and readable by an admin', async () => {
    const e = await create(EVENT);
    await h.call('DELETE', `/events/${e.id}`, { as: 'administrator' });
    const anon = await h.call('GET', `/events/${e.id}`);
    expect(anon.status).toBe(403);
    expect(anon.json).toEqual({
      code: 'event-not-accessible',
      message: 'The requested event is not accessible',
      data: { status: 403 },
    });
    expect((await h.call('GET', `/events/${e.id}`, { as: 'subscriber' })).status).toBe(403);
    const admin = await h.call('GET', `/events/${e.id}`, { as: 'administrator' });
    expect(admin.status).toBe(200);
    expect(admin.json.status).toBe('trash');
    const listed = await h.call('GET', '/events?status=trash', { as: 'administrator' });
    expect(listed.json.events.map((x: { id: number }) => x.id)).toEqual([e.id]);
  });

  it('T098 a trashed event is 410 to updates unless the body restores it with a status', async () => {
    const e = await create(EVENT);
    await h.call('DELETE', `/events/${e.id}`, { as: 'administrator' });
    const before = await snapshot(h.store);
    for (const body of [{ title: 'X' }, { status: 'trash' }, {}]) {
      const res = await h.call('PATCH', `/events/${e.id}`, { as: 'administrator', body });
      expect(res.status, JSON.stringify(body)).toBe(410);
      expect(res.json.code).toBe('event-is-in-trash');
    }
    expect(await snapshot(h.store)).toBe(before);
    const restored = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { status: 'draft' },
    });
    expect(restored.status).toBe(200);
    expect(restored.json.status).toBe('draft');
    expect(restored.json.slug).toBe('full-event');
    const published = await h.call('PATCH', `/events/${e.id}`, {
      as: 'administrator',
      body: { status: 'publish' },
    });
    expect(published.json.url).toBe(`${SITE}/event/full-event/`);
  });

  it('T099 force=true deletes for good, also from the trash; force=maybe is 400', async () => {
    const { event, venue, category } = await fullEvent();
    const bad = await h.call('DELETE', `/events/${event.id}?force=maybe`, { as: 'administrator' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('rest_invalid_param');
    expect(Object.keys(bad.json.data.params)).toEqual(['force']);
    expect((await h.call('GET', `/events/${event.id}`)).status).toBe(200);

    const gone = await h.call('DELETE', `/events/${event.id}?force=true`, { as: 'administrator' });
    expect(gone.status).toBe(200);
    expect(gone.json.id).toBe(event.id);
    expect(gone.json.status).toBe('publish');
    for (const [method, path] of [
      ['GET', `/events/${event.id}`],
      ['PATCH', `/events/${event.id}`],
      ['DELETE', `/events/${event.id}`],
      ['GET', '/events/by-slug/full-event'],
    ] as const) {
      const res = await h.call(method, path, {
        as: 'administrator',
        body: method === 'PATCH' ? { title: 'X' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe('event-not-found');
    }
    expect((await h.call('GET', `/venues/${venue.id}`)).status).toBe(200);
    expect((await h.call('GET', `/categories/${category.id}`)).status).toBe(200);

    const trashed = await create(EVENT);
    await h.call('DELETE', `/events/${trashed.id}`, { as: 'administrator' });
    const fromTrash = await h.call('DELETE', `/events/${trashed.id}`, {
      as: 'administrator',
      body: { force: '1' },
    });
    expect(fromTrash.status).toBe(200);
    expect(fromTrash.json.status).toBe('trash');
    expect((await h.call('GET', `/events/${trashed.id}`, { as: 'administrator' })).status).toBe(404);
  });

  it('T020 a contributor may not delete an admin event, may delete an own draft', async () => {
    const admins = await create(EVENT);
    const own = await create(EVENT, 'contributor');
    expect((await h.call('DELETE', `/events/${admins.id}`, { as: 'contributor' })).status).toBe(403);
    expect((await h.call('DELETE', `/events/${admins.id}?force=true`, { as: 'contributor' })).status).toBe(
      403,
    );
    expect((await h.call('DELETE', `/events/${own.id}`, { as: 'contributor' })).status).toBe(200);
  });
});

// ---- T100–T101: by slug (B.8) ---------------------------------------------------------------

describe('by-slug routes (B.8)', () => {
  it('T100 GET by slug is the by-id event; an unknown slug is 404 event-not-found', async () => {
    const { event } = await fullEvent();
    const byId = await h.call('GET', `/events/${event.id}`);
    const bySlug = await h.call('GET', '/events/by-slug/full-event');
    expect(bySlug.status).toBe(200);
    expect(bySlug.json).toEqual(byId.json);
    const missing = await h.call('GET', '/events/by-slug/no-such-event');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      code: 'event-not-found',
      message: 'No event found with slug "no-such-event".',
      data: { status: 404 },
    });
    const venue = await post('/venues', { venue: 'Slugged Venue' });
    expect((await h.call('GET', `/events/by-slug/${venue.slug}`)).status).toBe(404);
  });

  it('T101 PATCH by slug may change the slug; DELETE by slug trashes', async () => {
    const e = await create(EVENT);
    const res = await h.call('PATCH', '/events/by-slug/full-event', {
      as: 'administrator',
      body: { slug: 'renamed-event', title: 'Renamed' },
    });
    expect(res.status, res.body).toBe(200);
    expect(res.json).toMatchObject({ id: e.id, slug: 'renamed-event', url: `${SITE}/event/renamed-event/` });
    expect((await h.call('GET', '/events/by-slug/full-event')).status).toBe(404);
    expect((await h.call('GET', '/events/by-slug/renamed-event')).json.id).toBe(e.id);

    const same = await h.call('PATCH', '/events/by-slug/renamed-event', {
      as: 'administrator',
      body: { excerpt: 'Kept slug' },
    });
    expect(same.json.slug).toBe('renamed-event');

    const trashed = await h.call('DELETE', '/events/by-slug/renamed-event', { as: 'administrator' });
    expect(trashed.status).toBe(200);
    expect(trashed.json).toMatchObject({ id: e.id, status: 'trash', slug: 'renamed-event__trashed' });
    expect(
      (await h.call('GET', '/events/by-slug/renamed-event__trashed', { as: 'administrator' })).json.id,
    ).toBe(e.id);
  });

  it('B.8 odd slugs are percent-decoded and simply not found; nothing is written', async () => {
    await create(EVENT);
    const before = await snapshot(h.store);
    for (const slug of ['%E2%9C%93', '%20', 'full%20event', '..%2F..%2Fevents', '%00', 'FULL-EVENT']) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await h.call(method, `/events/by-slug/${slug}`, {
          as: 'administrator',
          body: method === 'PATCH' ? { title: 'X' } : undefined,
        });
        expect(res.status, `${method} ${slug}`).toBe(404);
        expect(res.json.code, `${method} ${slug}`).toMatch(/^(event-not-found|rest_no_route)$/);
      }
    }
    const check = await h.call('GET', '/events/by-slug/%E2%9C%93');
    expect(check.json.message).toBe('No event found with slug "✓".');
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.8 a slug-less draft is not reachable by slug', async () => {
    await create({ ...EVENT, status: 'draft' });
    const res = await h.call('GET', '/events/by-slug/full-event', { as: 'administrator' });
    expect(res.status).toBe(404);
  });
});

// ---- T102: passwords (B.7, A.10) ------------------------------------------------------------

describe('password-protected events (B.7, A.10)', () => {
  it('T102 anonymous needs the password; the list redacts the event unless it is given', async () => {
    const { event } = await fullEvent({ hide_from_listings: false });
    const open = await create({
      ...EVENT,
      title: 'Open',
      start_date: '2027-03-02 10:00:00',
      end_date: '2027-03-02 11:00:00',
    });
    await h.store.setEventPassword(event.id, 's3cret');

    const anon = await h.call('GET', `/events/${event.id}`);
    expect(anon.status).toBe(403);
    expect(anon.json).toEqual({
      code: 'event-password-protected',
      message: 'The requested event is not accessible without a password',
      data: { status: 403 },
    });
    expect((await h.call('GET', `/events/${event.id}?password=wrong`)).status).toBe(403);
    expect((await h.call('GET', `/events/${event.id}`, { as: 'subscriber' })).status).toBe(403);
    const unlocked = await h.call('GET', `/events/${event.id}?password=s3cret`);
    expect(unlocked.status).toBe(200);
    expect(unlocked.json.cost).toBe('$25');
    const admin = await h.call('GET', `/events/${event.id}`, { as: 'administrator' });
    expect(admin.status).toBe(200);

    const list = await h.call('GET', '/events');
    expect(list.json.events.map((e: { id: number }) => e.id)).toEqual([event.id, open.id]);
    const redacted = list.json.events[0];
    expect(redacted).toMatchObject({
      id: event.id,
      title: 'Full Event',
      start_date: '2027-03-01 19:00:00',
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
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
    });
    expect(redacted.cost_details).toEqual({
      currency_symbol: '',
      currency_position: '',
      currency_code: '',
      values: [],
    });
    expect(list.json.events[1].title).toBe('Open');
    expect(list.json.events[1].venue).toEqual([]);

    const withPassword = await h.call('GET', '/events?password=s3cret');
    expect(withPassword.json.events[0].cost).toBe('$25');
    expect(withPassword.json.events[0].featured).toBe(true);
    const asAdmin = await h.call('GET', '/events', { as: 'administrator' });
    expect(asAdmin.json.events.find((e: { id: number }) => e.id === event.id).venue).not.toEqual([]);
  });
});

// ---- B.0: method override, bodies, precedence -----------------------------------------------

describe('request handling (B.0)', () => {
  it('B.0 X-HTTP-Method-Override: DELETE on POST trashes; PATCH updates', async () => {
    const e = await create(EVENT);
    const patched = await h.call('POST', `/events/${e.id}`, {
      as: 'administrator',
      headers: { 'x-http-method-override': 'PATCH' },
      body: { title: 'Overridden' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.title).toBe('Overridden');
    const res = await h.call('POST', `/events/${e.id}`, {
      as: 'administrator',
      headers: { 'x-http-method-override': 'DELETE' },
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('trash');
    expect((await h.call('GET', `/events/${e.id}`)).status).toBe(403);
    const bySlug = await create({ ...EVENT, title: 'Second' });
    const forced = await h.call('POST', `/events/by-slug/${bySlug.slug}?force=true`, {
      as: 'administrator',
      headers: { 'x-http-method-override': 'delete' },
    });
    expect(forced.status).toBe(200);
    expect((await h.call('GET', `/events/${bySlug.id}`, { as: 'administrator' })).status).toBe(404);
  });

  it('B.0 a method override is still checked for rights and for the route', async () => {
    const e = await create(EVENT);
    const before = await snapshot(h.store);
    const anon = await h.call('POST', `/events/${e.id}`, { headers: { 'x-http-method-override': 'DELETE' } });
    expect(anon.status).toBe(401);
    const noDelete = await h.call('POST', '/events', {
      as: 'administrator',
      headers: { 'x-http-method-override': 'DELETE' },
      body: EVENT,
    });
    expect(noDelete.status).toBe(404);
    expect(noDelete.json.code).toBe('rest_no_route');
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.0 form-encoded bodies nest bracketed fields: venue[venue]=Pier 7, organizer[]=…', async () => {
    const a = await post('/organizers', { organizer: 'First Org' });
    const b = await post('/organizers', { organizer: 'Second Org' });
    const form = new URLSearchParams([
      ['title', 'Form Event'],
      ['start_date', '2027-03-01 19:00:00'],
      ['end_date', '2027-03-01 22:00:00'],
      ['venue[venue]', 'Pier 7'],
      ['venue[city]', 'Harbour Town'],
      ['organizer[]', String(b.id)],
      ['organizer[]', String(a.id)],
      ['categories[]', 'Jazz'],
      ['categories[]', 'Blues'],
      ['cost[]', '5'],
      ['cost[]', '10'],
      ['featured', 'true'],
    ]);
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(res.status, res.body).toBe(201);
    expect(res.json.venue).toMatchObject({ venue: 'Pier 7', city: 'Harbour Town' });
    expect(res.json.organizer.map((o: { id: number }) => o.id)).toEqual([b.id, a.id]);
    expect(res.json.categories.map((c: { name: string }) => c.name)).toEqual(['Blues', 'Jazz']);
    expect(res.json.cost).toBe('$5 – $10');
    expect(res.json.featured).toBe(true);

    const update = await h.call('PATCH', `/events/${res.json.id}`, {
      as: 'administrator',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `organizer[]=${a.id}&title=${encodeURIComponent('Form & Fun')}`,
    });
    expect(update.status).toBe(200);
    expect(update.json.title).toBe('Form &#038; Fun');
    expect(update.json.organizer.map((o: { id: number }) => o.id)).toEqual([a.id]);
  });

  it('B.0 multipart bodies nest bracketed fields like form bodies', async () => {
    const a = await post('/organizers', { organizer: 'First Org' });
    const b = await post('/organizers', { organizer: 'Second Org' });
    const fields: [string, string][] = [
      ['title', 'Multipart Event'],
      ['start_date', '2027-03-01 19:00:00'],
      ['end_date', '2027-03-01 22:00:00'],
      ['venue[venue]', 'Pier 7'],
      ['organizer[]', String(b.id)],
      ['organizer[]', String(a.id)],
      ['status', 'draft'],
    ];
    const res = await h.app.inject({
      method: 'POST',
      url: `${NS}/events`,
      headers: { ...h.auth('administrator'), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipart(fields),
    });
    expect(res.statusCode, res.body).toBe(201);
    const e = res.json();
    expect(e.title).toBe('Multipart Event');
    expect(e.status).toBe('draft');
    expect(e.venue).toMatchObject({ venue: 'Pier 7' });
    expect(e.organizer.map((o: { id: number }) => o.id)).toEqual([b.id, a.id]);
  });

  it('B.0 the body overrides the query; the query alone is used; the path always wins', async () => {
    const e = await create(EVENT);
    const other = await create({ ...EVENT, title: 'Other' });
    const both = await h.call('PATCH', `/events/${e.id}?title=Query&excerpt=FromQuery`, {
      as: 'administrator',
      body: { title: 'Body' },
    });
    expect(both.json.title).toBe('Body');
    expect(both.json.excerpt).toBe('<p>FromQuery</p>');
    const created = await h.call(
      'POST',
      `/events?title=Query+Only&start_date=2027-03-01&end_date=2027-03-01&status=publish`,
      { as: 'administrator', body: { status: 'draft' } },
    );
    expect(created.status).toBe(201);
    expect(created.json.title).toBe('Query Only');
    expect(created.json.status).toBe('draft');
    const path = await h.call('PATCH', `/events/${e.id}?id=${other.id}`, {
      as: 'administrator',
      body: { id: other.id, title: 'Path wins' },
    });
    expect(path.json.id).toBe(e.id);
    expect((await h.call('GET', `/events/${other.id}`)).json.title).toBe('Other');
  });
});

describe('bad input writes nothing (B.0, B.6)', () => {
  it('B.0 malformed JSON, wrong types and unknown ids are 400 and leave the event as it was', async () => {
    const { event } = await fullEvent();
    const before = await snapshot(h.store);
    const malformed = await h.call('PATCH', `/events/${event.id}`, {
      as: 'administrator',
      body: '{"title": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe('rest_invalid_json');
    // B.0: rights (3) and the target (4) are checked before the body is parsed (6).
    const broken = { body: '{"title": ' };
    expect((await h.call('PATCH', `/events/${event.id}`, broken)).status).toBe(401);
    expect((await h.call('PATCH', `/events/${event.id}`, { ...broken, as: 'subscriber' })).status).toBe(403);
    expect((await h.call('PATCH', `/events/${event.id}`, { ...broken, as: 'contributor' })).status).toBe(403);
    const unknown = await h.call('PATCH', '/events/999999', { ...broken, as: 'administrator' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('event-not-found');

    const bad: Record<string, unknown>[] = [
      { title: 5 },
      { title: '' },
      { description: 7 },
      { featured: 'maybe' },
      { all_day: 2 },
      { organizer: 'abc' },
      { organizer: [999999] },
      { venue: 999999 },
      { venue: [1, 2] },
      { categories: [999999] },
      { tags: [{ name: 'x' }] },
      { author: 999999 },
      { author: 'admin' },
      { image: 999999 },
      { website: 'nope' },
      { status: 'any' },
      { start_date: 'next friday' },
      { end_date: '2027-02-31' },
      { date: 'yesterday' },
      { date_utc: 20270101 },
      { timezone: 'Europe/Atlantis' },
      { timezone: 'UTC+99' },
      { slug: '' },
      { cost: { value: 1 } },
      { title: 'Half good', venue: 999999 },
      { title: 'Half good', categories: ['New Category', 999999] },
    ];
    for (const body of bad) {
      const res = await h.call('PATCH', `/events/${event.id}`, { as: 'administrator', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code, JSON.stringify(body)).toBe('rest_invalid_param');
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    }
    expect(await snapshot(h.store)).toBe(before);
    expect((await h.call('GET', `/events/${event.id}`)).json.title).toBe('Full Event');
    // A JSON body that is not an object carries no known parameter: nothing to change.
    const array = await h.call('PATCH', `/events/${event.id}`, { as: 'administrator', body: '["title"]' });
    expect(array.status).toBe(200);
    expect(array.json.title).toBe('Full Event');
  });

  it('B.0 a create with bad input creates no event, venue, organizer or term', async () => {
    const before = await snapshot(h.store);
    const bad: Record<string, unknown>[] = [
      { ...EVENT, venue: { venue: 'New Hall' }, organizer: [999999] },
      { ...EVENT, organizer: [{ organizer: 'New Org' }], categories: [999999] },
      { ...EVENT, categories: ['Fresh'], venue: 999999 },
      { ...EVENT, venue: { venue: 'New Hall' }, start_date: 'soon' },
      { ...EVENT, tags: ['Fresh'], timezone: 'Nowhere/Special' },
    ];
    for (const body of bad) {
      const res = await h.call('POST', '/events', { as: 'administrator', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await snapshot(h.store)).toBe(before);
  });

  it('B.0 a body over the size limit is a 413 JSON error and writes nothing', async () => {
    const small = await makeApp({ bodyLimit: 512 });
    try {
      const created = await small.call('POST', '/events', { as: 'administrator', body: EVENT });
      expect(created.status).toBe(201);
      const before = await snapshot(small.store);
      const big = { ...EVENT, description: 'x'.repeat(2000) };
      for (const [method, path] of [
        ['POST', '/events'],
        ['PATCH', `/events/${created.json.id}`],
      ] as const) {
        const res = await small.call(method, path, { as: 'administrator', body: big });
        expect(res.status, `${method} ${path}`).toBe(413);
        expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
        expect(res.json.data.status).toBe(413);
        expect(typeof res.json.code).toBe('string');
      }
      const form = await small.call('POST', '/events', {
        as: 'administrator',
        form: { ...EVENT, description: 'y'.repeat(2000) },
      });
      expect(form.status).toBe(413);
      expect(form.json.data.status).toBe(413);
      // Multipart is parsed by its own plugin: one long field, or many short ones, are 413 too.
      for (const fields of [
        [...Object.entries(EVENT), ['description', 'z'.repeat(2000)]],
        [
          ...Object.entries(EVENT),
          ...Array.from({ length: 40 }, (_, i) => [`tags[${i}]`, `tag number ${i}`]),
        ],
      ]) {
        const res = await small.app.inject({
          method: 'POST',
          url: `${NS}/events`,
          headers: {
            ...small.auth('administrator'),
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          },
          payload: multipart(fields as [string, string][]),
        });
        expect(res.statusCode, res.body).toBe(413);
        expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
        expect(res.json().data.status).toBe(413);
      }
      expect(await snapshot(small.store)).toBe(before);
    } finally {
      await small.app.close();
    }
  });

  it('B.0 an unsupported body type is a JSON error and writes nothing', async () => {
    const before = await snapshot(h.store);
    const res = await h.call('POST', '/events', {
      as: 'administrator',
      headers: { 'content-type': 'text/plain' },
      body: 'title=Plain',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json.data.status).toBe(res.status);
    expect(await snapshot(h.store)).toBe(before);
  });
});
