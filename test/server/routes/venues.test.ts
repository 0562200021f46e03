import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canRead } from '../../../src/model/capabilities.ts';
import type { Role } from '../../../src/model/index.ts';
import { findOrCreateLinked } from '../../../src/server/services/linked-write.ts';
import type { VenueRecord } from '../../../src/store/store.ts';
import { seedAttachment, seedEvent, US_VENUE } from '../fixtures.ts';
import { BASE, type Harness, makeApp } from '../harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const createVenue = (body: Record<string, unknown>, as?: Role) => h.created('/venues', body, as);

const venueCount = async () =>
  (await h.call('GET', '/venues?status=publish,draft,pending,private,future,trash', { as: 'administrator' }))
    .json.total;

describe('POST /venues', () => {
  it('T110 creates a US venue with stateprovince from state, maps on, no rest_url, and a Location', async () => {
    const res = await h.call('POST', '/venues', { as: 'administrator', body: US_VENUE });
    expect(res.status).toBe(201);
    const v = res.json;
    expect(v).toMatchObject({
      author: String(h.users.administrator.id),
      status: 'publish',
      date: '2026-11-21 12:00:00',
      date_utc: '2026-11-21 12:00:00',
      url: 'https://cal.example.org/venue/main-hall/',
      venue: 'Main Hall',
      description: '<p>The main hall</p>',
      slug: 'main-hall',
      stateprovince: 'IL',
      show_map: true,
      show_map_link: true,
      global_id: `cal.example.org?id=${v.id}`,
      global_id_lineage: [`cal.example.org?id=${v.id}`],
    });
    expect(v).not.toHaveProperty('rest_url');
    expect(v).not.toHaveProperty('json_ld');
    expect(res.headers.location).toBe(`${BASE}/calendar/events/v1/venues/${v.id}`);
  });

  it('T110 derives stateprovince from province outside the United States', async () => {
    const v = await createVenue({
      venue: 'Second Venue',
      city: 'Berlin',
      country: 'Germany',
      province: 'Berlin',
      zip: '10115',
    });
    expect(v.stateprovince).toBe('Berlin');
    expect(v.state).toBeUndefined();
  });

  it('T111 omits empty venue fields as absent keys, in the A.2 key order', async () => {
    const v = await createVenue({ venue: 'Bare', city: '', phone: null });
    expect(Object.keys(v)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'venue',
      'slug',
      'show_map',
      'show_map_link',
      'global_id',
      'global_id_lineage',
    ]);
  });

  it('T112 requires a venue name: missing → rest_missing_callback_param, empty → rest_invalid_param', async () => {
    const missing = await h.call('POST', '/venues', { as: 'administrator', body: { city: 'Nowhere' } });
    expect(missing.status).toBe(400);
    expect(missing.json.code).toBe('rest_missing_callback_param');
    expect(missing.json.message).toBe('Missing parameter(s): venue');
    expect(missing.json.data.params).toEqual(['venue']);
    for (const venue of ['', '   ', '<b></b>', null, 5]) {
      const res = await h.call('POST', '/venues', { as: 'administrator', body: { venue } });
      expect(res.status, JSON.stringify(venue)).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['venue']);
    }
    expect(await venueCount()).toBe(0);
  });

  it('T113 reads show_map from "false", JSON false, "no" and "yes"; other words are a 400', async () => {
    expect((await createVenue({ venue: 'A', show_map: 'false' })).show_map).toBe(false);
    expect((await createVenue({ venue: 'B', show_map: false, show_map_link: 0 })).show_map_link).toBe(false);
    expect((await createVenue({ venue: 'C', show_map: 'no' })).show_map).toBe(false);
    expect((await createVenue({ venue: 'D', show_map: 'yes' })).show_map).toBe(true);
    const bad = await h.call('POST', '/venues', {
      as: 'administrator',
      body: { venue: 'E', show_map: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('rest_invalid_param');
    expect(bad.json.data.params).toHaveProperty('show_map');
  });

  it('T114 rejects a numeric zip and a website that is not an http(s) URL, writing nothing', async () => {
    const zip = await h.call('POST', '/venues', { as: 'administrator', body: { venue: 'Zip', zip: 12345 } });
    expect(zip.status).toBe(400);
    expect(zip.json.code).toBe('rest_invalid_param');
    expect(zip.json.data.params).toHaveProperty('zip');
    for (const website of ['not a url', 'ftp://example.com', 'javascript:alert(1)']) {
      const res = await h.call('POST', '/venues', { as: 'administrator', body: { venue: 'Web', website } });
      expect(res.status).toBe(400);
      expect(res.json.data.params).toHaveProperty('website');
    }
    expect(await venueCount()).toBe(0);
  });

  it('T115 create-or-find returns the existing venue unchanged', async () => {
    const hall = await createVenue(US_VENUE);
    const again = await h.call('POST', '/venues', {
      as: 'administrator',
      body: { venue: '  main hall ', city: 'Elsewhere', show_map: false },
    });
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(hall.id);
    expect(again.json).toEqual(hall);
    const read = await h.call('GET', `/venues/${hall.id}`);
    expect(read.json.city).toBe('Springfield');
    expect(read.json.show_map).toBe(true);
    expect(read.json.modified_utc).toBe(hall.modified_utc);
  });

  it('T116 same name with another description creates a new venue; the same description finds it', async () => {
    const hall = await createVenue(US_VENUE);
    const other = await createVenue({ venue: 'Main Hall', description: 'Another hall' });
    expect(other.id).not.toBe(hall.id);
    expect(other.slug).toBe('main-hall-2');
    const same = await createVenue({ venue: 'MAIN HALL', description: 'The main hall' });
    expect(same.id).toBe(hall.id);
  });

  it('B.10.2 create-or-find skips trashed venues and venues the caller may not read', async () => {
    const hall = await createVenue(US_VENUE);
    const draft = await createVenue({ venue: 'Back Room', status: 'draft' });
    expect((await h.call('DELETE', `/venues/${hall.id}`, { as: 'administrator' })).status).toBe(200);
    const fresh = await createVenue({ venue: 'Main Hall' });
    expect(fresh.id).not.toBe(hall.id);
    const own = await createVenue({ venue: 'back room' }, 'contributor');
    expect(own.id).not.toBe(draft.id);
    expect(own.status).toBe('draft');
  });

  it('B.2 anonymous creates get 401 and subscribers 403, before the body is validated', async () => {
    for (const body of [US_VENUE, {}]) {
      const anon = await h.call('POST', '/venues', { body });
      expect(anon.status).toBe(401);
      expect(anon.json.code).toBe('rest_forbidden');
      const sub = await h.call('POST', '/venues', { as: 'subscriber', body });
      expect(sub.status).toBe(403);
      expect(sub.json.code).toBe('rest_forbidden');
    }
    expect(await venueCount()).toBe(0);
  });

  it('B.1 contributors create drafts, and pending when they ask to publish; authors publish', async () => {
    const draft = await createVenue({ venue: 'C1' }, 'contributor');
    expect(draft).toMatchObject({ status: 'draft', date_utc: '0000-00-00 00:00:00' });
    expect(draft.slug).toBeUndefined();
    expect(draft.url).toBe(`https://cal.example.org/?post_type=tribe_venue&p=${draft.id}`);
    expect((await createVenue({ venue: 'C2', status: 'publish' }, 'contributor')).status).toBe('pending');
    expect((await createVenue({ venue: 'A1' }, 'author')).status).toBe('publish');
    const bogus = await h.call('POST', '/venues', {
      as: 'administrator',
      body: { venue: 'X', status: 'trash' },
    });
    expect(bogus.status).toBe(400);
  });

  it('E9 setting another author needs editor rights; an unknown author is a 400', async () => {
    const other = await h.call('POST', '/venues', {
      as: 'author',
      body: { venue: 'V', author: h.users.administrator.id },
    });
    expect(other.status).toBe(403);
    expect(other.json.data.params).toEqual(['author']);
    const unknown = await h.call('POST', '/venues', {
      as: 'administrator',
      body: { venue: 'V', author: 999999 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.params).toHaveProperty('author');
    const byEditor = await createVenue({ venue: 'V', author: h.users.author.id }, 'editor');
    expect(byEditor.author).toBe(String(h.users.author.id));
  });

  it('B.6.2 image takes a stored attachment id; an unknown id is a 400 and a contributor URL a 403', async () => {
    const img = await seedAttachment(h.store, { date_utc: '2026-11-21 12:00:00' });
    const v = await createVenue({ venue: 'Pictured', image: String(img.id) });
    expect(v.image).toEqual({
      url: img.url,
      id: img.id,
      extension: 'png',
      width: 800,
      height: 600,
      filesize: 2935,
    });
    const byUrl = await createVenue({ venue: 'Pictured 2', image: img.url });
    expect(byUrl.image.id).toBe(img.id);
    const unknown = await h.call('POST', '/venues', {
      as: 'administrator',
      body: { venue: 'X', image: 999999 },
    });
    expect(unknown.status).toBe(400);
    const url = await h.call('POST', '/venues', {
      as: 'contributor',
      body: { venue: 'X', image: 'https://img.example.com/new.png' },
    });
    expect(url.status).toBe(403);
    expect(url.json.data.params).toEqual(['image']);
  });

  it('B.0 form-encoded bodies work, and read-only keys are ignored', async () => {
    const res = await h.call('POST', '/venues', {
      as: 'administrator',
      form: { venue: 'Form Hall', city: 'Leeds', show_map: 'false', url: 'x', json_ld: 'y' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ venue: 'Form Hall', city: 'Leeds', show_map: false });
  });

  it('A.0 strips tags from names and escapes ampersands on output', async () => {
    const v = await createVenue({ venue: "<b>Bob's</b> & Co" });
    expect(v.venue).toBe("Bob's &#038; Co");
    expect(v.slug).toBe('bobs-co');
  });

  it('B.0 malformed JSON is a 400 rest_invalid_json and writes nothing', async () => {
    const res = await h.call('POST', '/venues', { as: 'administrator', body: '{"venue": ' });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('rest_invalid_json');
    expect(await venueCount()).toBe(0);
  });
});

describe('GET /venues/{id} and /venues/by-slug/{slug}', () => {
  it('B.7 a single read carries json_ld; by slug gives the same venue', async () => {
    const v = await createVenue(US_VENUE);
    const byId = await h.call('GET', `/venues/${v.id}`);
    expect(byId.status).toBe(200);
    expect(byId.json.json_ld).toEqual({
      '@type': 'Place',
      name: 'Main Hall',
      description: 'The main hall',
      url: '',
      address: {
        '@type': 'PostalAddress',
        streetAddress: '1 Main St',
        addressLocality: 'Springfield',
        addressRegion: 'IL',
        postalCode: '62701',
        addressCountry: 'United States',
      },
      telephone: '+1 555 0100',
      sameAs: 'https://example.com/hall',
    });
    const keys = Object.keys(byId.json);
    expect(keys.indexOf('json_ld')).toBe(keys.indexOf('stateprovince') + 1);
    const bySlug = await h.call('GET', '/venues/by-slug/main-hall');
    expect(bySlug.status).toBe(200);
    expect(bySlug.json).toEqual(byId.json);
  });

  it('T119 unknown ids and slugs are 404 venue-not-found, also ids of other kinds', async () => {
    const res = await h.call('GET', '/venues/999999');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      code: 'venue-not-found',
      message: 'Venue with ID 999999 does not exist.',
      data: { status: 404 },
    });
    const org = await h.call('POST', '/organizers', { as: 'administrator', body: { organizer: 'Jane Org' } });
    expect((await h.call('GET', `/venues/${org.json.id}`)).json.code).toBe('venue-not-found');
    const event = await seedEvent(h.store);
    expect((await h.call('GET', `/venues/${event.id}`)).json.code).toBe('venue-not-found');
    const slug = await h.call('GET', '/venues/by-slug/nope');
    expect(slug.status).toBe(404);
    expect(slug.json.message).toBe('No venue found with slug "nope".');
  });

  it('T006 malformed venue routes are 404 rest_no_route', async () => {
    for (const [method, path] of [
      ['GET', '/venues/abc'],
      ['DELETE', '/venues'],
      ['PUT', '/venues'],
      ['GET', '/venues/12/extra'],
      ['GET', '/venues/by-slug'],
    ] as const) {
      const res = await h.call(method, path, { as: 'administrator' });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe('rest_no_route');
    }
  });

  it('B.8 odd slugs are decoded and simply not found', async () => {
    await createVenue(US_VENUE);
    for (const slug of ['%E2%9C%93', 'a%2Fb', 'main%20hall', 'MAIN-HALL', '%25']) {
      const res = await h.call('GET', `/venues/by-slug/${slug}`, { as: 'administrator' });
      expect(res.status, slug).toBe(404);
      expect(['venue-not-found', 'rest_no_route']).toContain(res.json.code);
    }
    const write = await h.call('PATCH', '/venues/by-slug/%E2%9C%93', {
      as: 'administrator',
      body: { city: 'X' },
    });
    expect(write.status).toBe(404);
    expect(write.json.code).toBe('venue-not-found');
  });

  it('T121 anonymous reads of a draft or trashed venue are 403 venue-not-accessible; admins read them', async () => {
    const draft = await createVenue({ venue: 'Draft Venue', status: 'draft' });
    const trashed = await createVenue({ venue: 'Old Venue' });
    await h.call('DELETE', `/venues/${trashed.id}`, { as: 'administrator' });
    for (const id of [draft.id, trashed.id]) {
      const anon = await h.call('GET', `/venues/${id}`);
      expect(anon.status).toBe(403);
      expect(anon.json).toEqual({
        code: 'venue-not-accessible',
        message: 'The requested venue is not accessible',
        data: { status: 403 },
      });
      expect((await h.call('GET', `/venues/${id}`, { as: 'subscriber' })).status).toBe(403);
      expect((await h.call('GET', `/venues/${id}`, { as: 'administrator' })).status).toBe(200);
    }
    const bySlug = await h.call('GET', '/venues/by-slug/old-venue__trashed');
    expect(bySlug.json.code).toBe('venue-not-accessible');
    expect((await h.call('GET', '/venues/by-slug/old-venue__trashed', { as: 'editor' })).json.status).toBe(
      'trash',
    );
  });

  it('B.12 offers CSV and XML, answers 406 to iCalendar, and keeps errors JSON', async () => {
    const v = await createVenue(US_VENUE);
    const csv = await h.call('GET', `/venues/${v.id}`, { headers: { accept: 'text/csv' } });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    const [header, row] = csv.body.split('\r\n');
    expect(header).toBe(
      'venue_name,venue_description,venue_country,venue_address,venue_address2,venue_city,venue_state,venue_zip,venue_phone,venue_url,featured_image',
    );
    expect(row).toBe(
      "Main Hall,The main hall,United States,1 Main St,,Springfield,IL,62701,'+1 555 0100,https://example.com/hall,", // a leading + is a formula to a spreadsheet
    );
    const xml = await h.call('GET', `/venues/${v.id}`, { headers: { accept: 'application/xml' } });
    expect(xml.headers['content-type']).toBe('application/xml; charset=UTF-8');
    expect(xml.body).toContain(`<id type="integer">${v.id}</id>`);
    const ical = await h.call('GET', `/venues/${v.id}`, { headers: { accept: 'text/calendar' } });
    expect(ical.status).toBe(406);
    expect(ical.json.code).toBe('rest_not_acceptable');
    const missing = await h.call('GET', '/venues/999999', { headers: { accept: 'text/csv' } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('POST|PUT|PATCH /venues/{id}', () => {
  it('T117 PATCH city keeps stateprovince, image and show_map_link (D1, E10)', async () => {
    const img = await seedAttachment(h.store, {
      url: 'https://cal.example.org/uploads/2026/11/hall.jpg',
      mime: 'image/jpeg',
      width: 10,
      height: 10,
      filesize: 100,
      date_utc: '2026-11-21 12:00:00',
    });
    const v = await createVenue({
      ...US_VENUE,
      stateprovince: 'Illinois',
      image: img.id,
      show_map_link: false,
    });
    const res = await h.call('PATCH', `/venues/${v.id}`, { as: 'administrator', body: { city: 'Munich' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      city: 'Munich',
      stateprovince: 'Illinois',
      image: { id: img.id },
      show_map: true,
      show_map_link: false,
      address: '1 Main St',
      description: '<p>The main hall</p>',
      status: 'publish',
      date_utc: v.date_utc,
    });
    expect(res.json).not.toHaveProperty('json_ld');
  });

  it('D1 POST and PUT with a partial body equal PATCH', async () => {
    const v = await createVenue(US_VENUE);
    const post = await h.call('POST', `/venues/${v.id}`, { as: 'administrator', body: { zip: '62702' } });
    const put = await h.call('PUT', `/venues/${v.id}`, { as: 'administrator', body: { zip: '62702' } });
    expect(post.status).toBe(200);
    expect(put.json).toEqual(post.json);
    expect(put.json.city).toBe('Springfield');
  });

  it('B.10.1 null and "" clear a field and the key disappears; emptying the name is a 400', async () => {
    const v = await createVenue(US_VENUE);
    const res = await h.call('PATCH', `/venues/${v.id}`, {
      as: 'administrator',
      body: { phone: null, website: '', zip: '' },
    });
    expect(res.status).toBe(200);
    for (const key of ['phone', 'website', 'zip']) expect(res.json).not.toHaveProperty(key);
    for (const venue of ['', null]) {
      const empty = await h.call('PATCH', `/venues/${v.id}`, { as: 'administrator', body: { venue } });
      expect(empty.status).toBe(400);
      expect(empty.json.data.params).toHaveProperty('venue');
    }
    for (const body of [{ show_map: null }, { status: null }, { city: 5 }, { author: 'abc' }]) {
      const bad = await h.call('PATCH', `/venues/${v.id}`, { as: 'administrator', body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    const read = await h.call('GET', `/venues/${v.id}`);
    expect(read.json.venue).toBe('Main Hall');
    expect(read.json.city).toBe('Springfield');
  });

  it('B.8 updates by slug, and a JSON id in the body does not retarget', async () => {
    const a = await createVenue({ venue: 'Alpha' });
    const b = await createVenue({ venue: 'Beta' });
    const res = await h.call('PATCH', '/venues/by-slug/alpha', {
      as: 'administrator',
      body: { city: 'Oslo', id: b.id },
    });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(a.id);
    expect((await h.call('GET', `/venues/${b.id}`)).json.city).toBeUndefined();
  });

  it("T018 contributors may edit their own drafts but not published or others' venues, by id or slug", async () => {
    const admins = await createVenue({ venue: 'Admin Hall' });
    for (const path of [`/venues/${admins.id}`, '/venues/by-slug/admin-hall']) {
      const res = await h.call('PATCH', path, { as: 'contributor', body: { city: 'X' } });
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('rest_forbidden');
    }
    const own = await createVenue({ venue: 'Mine' }, 'contributor');
    const edit = await h.call('PATCH', `/venues/${own.id}`, {
      as: 'contributor',
      body: { city: 'Y', status: 'publish' },
    });
    expect(edit.status).toBe(200);
    expect(edit.json.status).toBe('pending');
    const authorEdit = await h.call('PATCH', `/venues/${admins.id}`, { as: 'author', body: { city: 'X' } });
    expect(authorEdit.status).toBe(403);
    expect(
      (await h.call('PATCH', `/venues/${admins.id}`, { as: 'editor', body: { city: 'X' } })).status,
    ).toBe(200);
  });

  it('B.0 checks the capability before the id, the id before the body', async () => {
    expect((await h.call('PATCH', '/venues/999999', { body: { venue: '' } })).status).toBe(401);
    expect((await h.call('PATCH', '/venues/999999', { as: 'subscriber', body: { venue: '' } })).status).toBe(
      403,
    );
    const missing = await h.call('PATCH', '/venues/999999', { as: 'contributor', body: { venue: '' } });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('venue-not-found');
  });

  it('E6 updating a trashed venue is a 410 unless the body restores it', async () => {
    const v = await createVenue({ venue: 'Phoenix' });
    await h.call('DELETE', `/venues/${v.id}`, { as: 'administrator' });
    const edit = await h.call('PATCH', `/venues/${v.id}`, { as: 'administrator', body: { city: 'Ash' } });
    expect(edit.status).toBe(410);
    expect(edit.json.code).toBe('venue-is-in-trash');
    const restore = await h.call('PATCH', `/venues/${v.id}`, {
      as: 'administrator',
      body: { status: 'draft' },
    });
    expect(restore.status).toBe(200);
    expect(restore.json).toMatchObject({ status: 'draft', slug: 'phoenix' });
  });
});

describe('DELETE /venues/{id}', () => {
  it('T120 trashes, answers 410 the second time, and events stop embedding the venue', async () => {
    const v = await createVenue(US_VENUE);
    const event = await seedEvent(h.store, { venue_id: v.id });
    const res = await h.call('DELETE', `/venues/${v.id}`, { as: 'administrator' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: v.id,
      status: 'trash',
      slug: 'main-hall__trashed',
      url: `https://cal.example.org/?post_type=tribe_venue&p=${v.id}`,
      modified_utc: '2026-11-21 12:00:00',
    });
    expect(res.json).not.toHaveProperty('json_ld');
    const again = await h.call('DELETE', `/venues/${v.id}`, { as: 'administrator' });
    expect(again.status).toBe(410);
    expect(again.json).toEqual({
      code: 'venue-is-in-trash',
      message: 'The venue is already trashed',
      data: { status: 410 },
    });
    expect((await h.store.getEvent(event.id))!.venue_id).toBeNull();
    const embedded = await h.call('GET', `/events/${event.id}`);
    expect(embedded.json.venue).toEqual([]);
  });

  it('D4 force=true deletes for good, also from the trash, and unlinks the venue', async () => {
    const v = await createVenue({ venue: 'Gone' });
    const event = await seedEvent(h.store, { venue_id: v.id });
    const res = await h.call('DELETE', `/venues/${v.id}?force=true`, { as: 'administrator' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: v.id, status: 'publish', venue: 'Gone' });
    expect((await h.call('GET', `/venues/${v.id}`, { as: 'administrator' })).status).toBe(404);
    expect((await h.store.getEvent(event.id))!.venue_id).toBeNull();

    const t = await createVenue({ venue: 'Trashed First' });
    await h.call('DELETE', `/venues/${t.id}`, { as: 'administrator' });
    const forced = await h.call('DELETE', `/venues/${t.id}`, { as: 'administrator', body: { force: '1' } });
    expect(forced.status).toBe(200);
    expect(forced.json.status).toBe('trash');
    expect((await h.call('GET', `/venues/${t.id}`, { as: 'administrator' })).json.code).toBe(
      'venue-not-found',
    );
  });

  it('D4 force must be a boolean', async () => {
    const v = await createVenue({ venue: 'Kept' });
    const res = await h.call('DELETE', `/venues/${v.id}?force=maybe`, { as: 'administrator' });
    expect(res.status).toBe(400);
    expect(res.json.data.params).toHaveProperty('force');
    expect((await h.call('GET', `/venues/${v.id}`)).json.status).toBe('publish');
  });

  it('T021 DELETE /venues/999999: anonymous 401, subscriber 403, contributor 404', async () => {
    expect((await h.call('DELETE', '/venues/999999')).status).toBe(401);
    expect((await h.call('DELETE', '/venues/999999', { as: 'subscriber' })).status).toBe(403);
    const res = await h.call('DELETE', '/venues/999999', { as: 'contributor' });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('venue-not-found');
  });

  it("T020 contributors may trash their own drafts, not their published venues nor others'", async () => {
    const admins = await createVenue({ venue: 'Admin Hall' });
    expect((await h.call('DELETE', `/venues/${admins.id}`, { as: 'contributor' })).status).toBe(403);
    const draft = await createVenue({ venue: 'My Draft' }, 'contributor');
    const trashed = await h.call('DELETE', `/venues/${draft.id}`, { as: 'contributor' });
    expect(trashed.status).toBe(200);
    expect(trashed.json.status).toBe('trash');
    const pending = await createVenue({ venue: 'Slugged', status: 'publish' }, 'contributor');
    await h.call('PATCH', `/venues/${pending.id}`, { as: 'editor', body: { status: 'publish' } });
    expect((await h.call('DELETE', '/venues/by-slug/slugged', { as: 'contributor' })).status).toBe(403);
    const bySlug = await h.call('DELETE', '/venues/by-slug/slugged', { as: 'editor' });
    expect(bySlug.status).toBe(200);
    expect(bySlug.json.slug).toBe('slugged__trashed');
  });
});

describe('GET /venues', () => {
  it('T030-style an empty list has zero totals, no links and X-TEC headers', async () => {
    const res = await h.call('GET', '/venues');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      venues: [],
      rest_url: `${BASE}/calendar/events/v1/venues/?page=1&per_page=10&status=publish`,
      total: 0,
      total_pages: 0,
    });
    expect(res.headers['x-tec-total']).toBe('0');
    expect(res.headers['x-tec-totalpages']).toBe('0');
  });

  it('T122 lists newest first, clamps per_page to 50 and 404s past the end', async () => {
    await createVenue({ venue: 'Old', date: '2025-01-01 10:00:00' });
    await createVenue({ venue: 'Newest', date: '2026-06-01 10:00:00' });
    await createVenue({ venue: 'Middle', date: '2026-01-01 10:00:00' });
    const res = await h.call('GET', '/venues?per_page=1000');
    expect(res.json.venues.map((v: { venue: string }) => v.venue)).toEqual(['Newest', 'Middle', 'Old']);
    expect(res.json.rest_url).toBe(`${BASE}/calendar/events/v1/venues/?page=1&per_page=50&status=publish`);
    expect(res.json.venues[0]).not.toHaveProperty('json_ld');
    const past = await h.call('GET', '/venues?page=2');
    expect(past.status).toBe(404);
    expect(past.json).toEqual({
      code: 'venue-archive-page-not-found',
      message: 'The requested venue archive page does not exist',
      data: { status: 404 },
    });
  });

  it('A.7 pages link forward and back, keeping the filters', async () => {
    for (const name of ['One', 'Two', 'Three']) await createVenue({ venue: `${name} Room`, city: 'Leeds' });
    const first = await h.call('GET', '/venues?per_page=2&search=room');
    expect(first.json.total).toBe(3);
    expect(first.json.total_pages).toBe(2);
    expect(first.headers['x-tec-total']).toBe('3');
    expect(first.headers['x-tec-totalpages']).toBe('2');
    expect(first.json.next_rest_url).toBe(
      `${BASE}/calendar/events/v1/venues/?page=2&per_page=2&search=room&status=publish`,
    );
    expect(first.json).not.toHaveProperty('previous_rest_url');
    const second = await h.call('GET', '/venues?per_page=2&page=2&search=room');
    expect(second.json.venues).toHaveLength(1);
    expect(second.json.previous_rest_url).toBe(
      `${BASE}/calendar/events/v1/venues/?per_page=2&search=room&status=publish`,
    );
    expect(second.json).not.toHaveProperty('next_rest_url');
  });

  it('T037-style bad paging values are 400 naming the parameter', async () => {
    for (const q of [
      'per_page=0',
      'per_page=-1',
      'per_page=abc',
      'page=0',
      'page=abc',
      'search=',
      'has_events=maybe',
    ]) {
      const res = await h.call('GET', `/venues?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual([q.split('=')[0]]);
    }
  });

  it('T123 has_events and event filter by linked events; an unknown event is a 400', async () => {
    const used = await createVenue({ venue: 'Used' });
    const draftOnly = await createVenue({ venue: 'Draft Only' });
    await createVenue({ venue: 'Unused' });
    const e = await seedEvent(h.store, { venue_id: used.id });
    await seedEvent(h.store, { venue_id: draftOnly.id, status: 'draft' });
    const names = (res: { json: { venues: { venue: string }[] } }) =>
      res.json.venues.map((v) => v.venue).sort();
    expect(names(await h.call('GET', '/venues?has_events=true'))).toEqual(['Used']);
    expect(names(await h.call('GET', '/venues?has_events=false'))).toEqual(['Draft Only', 'Unused']);
    const byEvent = await h.call('GET', `/venues?event=${e.id}`);
    expect(names(byEvent)).toEqual(['Used']);
    expect(byEvent.json.rest_url).toBe(
      `${BASE}/calendar/events/v1/venues/?page=1&per_page=10&status=publish&event=${e.id}`,
    );
    const unknown = await h.call('GET', '/venues?event=999999');
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.params).toHaveProperty('event');
  });

  it('B.10.3 only_with_upcoming keeps venues of readable events that end after now', async () => {
    const soon = await createVenue({ venue: 'Soon' });
    const past = await createVenue({ venue: 'Past' });
    await seedEvent(h.store, { venue_id: soon.id });
    await seedEvent(h.store, {
      venue_id: past.id,
      end_utc: '2026-01-01 10:00:00',
      start_utc: '2026-01-01 09:00:00',
    });
    const res = await h.call('GET', '/venues?only_with_upcoming=true');
    expect(res.json.venues.map((v: { venue: string }) => v.venue)).toEqual(['Soon']);
    expect((await h.call('GET', '/venues?only_with_upcoming=false')).json.total).toBe(2);
  });

  it('T124 search matches the city, and a miss has total 0 (E3)', async () => {
    await createVenue({ venue: 'Main Hall', city: 'Elsewhere' });
    await createVenue({ venue: 'Side Hall', city: 'Here' });
    const hit = await h.call('GET', '/venues?search=elsewhere');
    expect(hit.json.venues.map((v: { venue: string }) => v.venue)).toEqual(['Main Hall']);
    expect(hit.json.total).toBe(1);
    const both = await h.call('GET', '/venues?search=hall%20main');
    expect(both.json.total).toBe(1);
    const miss = await h.call('GET', '/venues?search=zzzz');
    expect(miss.json.total).toBe(0);
    expect(miss.json.venues).toEqual([]);
  });

  it('B.10.3 status lists need rights; the default view follows B.2', async () => {
    await createVenue({ venue: 'Published' });
    await createVenue({ venue: 'Admin Draft', status: 'draft' });
    await createVenue({ venue: 'Contrib Draft' }, 'contributor');
    expect((await h.call('GET', '/venues?status=draft')).status).toBe(401);
    expect((await h.call('GET', '/venues?status=draft', { as: 'subscriber' })).status).toBe(403);
    expect((await h.call('GET', '/venues?status=any', { as: 'administrator' })).status).toBe(400);
    const names = async (as: 'administrator' | 'contributor' | undefined) =>
      (await h.call('GET', '/venues', { as })).json.venues.map((v: { venue: string }) => v.venue).sort();
    expect(await names(undefined)).toEqual(['Published']);
    expect(await names('contributor')).toEqual(['Contrib Draft', 'Published']);
    expect(await names('administrator')).toEqual(['Admin Draft', 'Contrib Draft', 'Published']);
    const drafts = await h.call('GET', '/venues?status=draft', { as: 'administrator' });
    expect(drafts.json.total).toBe(2);
    expect(drafts.json.rest_url).toBe(`${BASE}/calendar/events/v1/venues/?page=1&per_page=10&status=draft`);
  });

  it('T152 CSV lists have the B.12 header and one row per venue; HEAD has the totals', async () => {
    await createVenue(US_VENUE);
    const csv = await h.call('GET', '/venues', { headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers['x-tec-total']).toBe('1');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'venue_name,venue_description,venue_country,venue_address,venue_address2,venue_city,venue_state,venue_zip,venue_phone,venue_url,featured_image',
    );
    expect(lines).toHaveLength(2);
    const head = await h.app.inject({ method: 'HEAD', url: '/api/calendar/events/v1/venues' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-tec-total']).toBe('1');
    expect((await h.call('GET', '/venues', { headers: { accept: 'text/calendar' } })).status).toBe(406);
    expect((await h.call('GET', '/venues?ical=1')).status).toBe(406);
  });
});

describe('findOrCreateLinked (inline venues of event writes)', () => {
  const ctxFor = (role: 'administrator' | 'contributor') => ({
    store: h.store,
    cfg: h.app.config,
    caller: h.users[role],
    now: '2026-11-21 12:00:00',
  });

  it('B.6.2 finds an existing venue unchanged, else creates publish for publishers and draft for others', async () => {
    const hall = (await findOrCreateLinked(ctxFor('administrator'), 'venue', {
      venue: 'Pier 7',
      city: 'Oslo',
    })) as VenueRecord;
    expect(hall).toMatchObject({ status: 'publish', slug: 'pier-7', city: 'Oslo', show_map: true });
    const found = await findOrCreateLinked(ctxFor('contributor'), 'venue', {
      venue: 'pier 7',
      city: 'Bergen',
    });
    expect(found).toEqual(hall);
    const draft = await findOrCreateLinked(ctxFor('contributor'), 'venue', { venue: 'Quay 9' });
    expect(draft).toMatchObject({ status: 'draft', slug: '', author: h.users.contributor.id });
    expect(canRead(h.users.contributor, draft)).toBe(true);
  });

  it('B.6.2 rejects inline image URLs it would have to fetch, before writing anything', async () => {
    await expect(
      findOrCreateLinked(ctxFor('administrator'), 'organizer', {
        organizer: 'Pic',
        image: 'https://img.example.com/a.png',
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 'rest_invalid_param', status: 400 }));
    expect(await h.store.findLinkedByName('organizer', 'Pic')).toBeUndefined();
  });
});
