import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { JANE, seedEvent } from '../fixtures.ts';
import { BASE, type Harness, makeApp } from '../harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const createOrganizer = (body: Record<string, unknown>, as?: Role) => h.created('/organizers', body, as);

const organizerCount = async () =>
  (
    await h.call('GET', '/organizers?status=publish,future,draft,pending,private,trash', {
      as: 'administrator',
    })
  ).json.total;

describe('POST /organizers', () => {
  it('A.2 creates an organizer with every A.2 key in order and a Location', async () => {
    const res = await h.call('POST', '/organizers', { as: 'administrator', body: JANE });
    expect(res.status).toBe(201);
    const o = res.json;
    expect(Object.keys(o)).toEqual([
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'organizer',
      'description',
      'slug',
      'phone',
      'website',
      'email',
      'global_id',
      'global_id_lineage',
    ]);
    expect(o).toMatchObject({
      status: 'publish',
      url: 'https://cal.example.org/organizer/jane-org/',
      organizer: 'Jane Org',
      description: '<p>Organizer bio</p>',
      email: 'jane@example.com',
    });
    expect(res.headers.location).toBe(`${BASE}/calendar/events/v1/organizers/${o.id}`);
  });

  it('T111 omits every empty organizer key', async () => {
    const o = await createOrganizer({ organizer: 'Bare Org', phone: '', email: null, description: '' });
    for (const key of ['phone', 'email', 'description', 'website', 'image', 'json_ld', 'show_map']) {
      expect(o).not.toHaveProperty(key);
    }
  });

  it('B.10.1 requires an organizer name and takes any string as e-mail', async () => {
    const missing = await h.call('POST', '/organizers', {
      as: 'administrator',
      body: { email: 'x@example.com' },
    });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toBe('Missing parameter(s): organizer');
    const empty = await h.call('POST', '/organizers', { as: 'administrator', body: { organizer: '' } });
    expect(empty.status).toBe(400);
    expect(empty.json.code).toBe('rest_invalid_param');
    const bad = await h.call('POST', '/organizers', {
      as: 'administrator',
      body: { organizer: 'X', phone: 5550199, website: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.data.params).sort()).toEqual(['phone', 'website']);
    expect(await organizerCount()).toBe(0);
    expect((await createOrganizer({ organizer: 'Odd Mail', email: 'not an address' })).email).toBe(
      'not an address',
    );
  });

  it('T116 {"organizer":"JANE ORG"} returns the existing organizer unchanged', async () => {
    const jane = await createOrganizer(JANE);
    const again = await h.call('POST', '/organizers', {
      as: 'administrator',
      body: { organizer: 'JANE ORG', phone: '000' },
    });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(jane);
    const other = await createOrganizer({ organizer: 'Jane Org', description: 'Someone else' });
    expect(other.id).not.toBe(jane.id);
  });

  it('B.2 anonymous creates get 401, subscribers 403, contributors a draft', async () => {
    expect((await h.call('POST', '/organizers', { body: JANE })).status).toBe(401);
    expect((await h.call('POST', '/organizers', { as: 'subscriber', body: JANE })).status).toBe(403);
    const draft = await createOrganizer({ organizer: 'Helper' }, 'contributor');
    expect(draft.status).toBe('draft');
    expect(draft.url).toBe(`https://cal.example.org/?post_type=tribe_organizer&p=${draft.id}`);
  });
});

describe('organizer items', () => {
  it('B.7 a single read carries the Person json_ld', async () => {
    const o = await createOrganizer(JANE);
    const res = await h.call('GET', `/organizers/${o.id}`);
    expect(res.status).toBe(200);
    expect(res.json.json_ld).toEqual({
      '@type': 'Person',
      name: 'Jane Org',
      description: 'Organizer bio',
      url: 'https://example.com/jane',
      telephone: '+1 555 0199',
      email: 'jane@example.com',
      sameAs: 'https://example.com/jane',
    });
    expect((await h.call('GET', '/organizers/by-slug/jane-org')).json).toEqual(res.json);
  });

  it('T118 PATCH {"email":""} removes the email key and keeps the rest', async () => {
    const o = await createOrganizer(JANE);
    const res = await h.call('PATCH', `/organizers/${o.id}`, { as: 'administrator', body: { email: '' } });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('email');
    expect(res.json).toMatchObject({
      phone: '+1 555 0199',
      website: 'https://example.com/jane',
      organizer: 'Jane Org',
    });
  });

  it('T119 unknown organizer ids and slugs are 404 organizer-not-found', async () => {
    const slug = await h.call('GET', '/organizers/by-slug/nope');
    expect(slug.status).toBe(404);
    expect(slug.json).toEqual({
      code: 'organizer-not-found',
      message: 'No organizer found with slug "nope".',
      data: { status: 404 },
    });
    const id = await h.call('GET', '/organizers/999999');
    expect(id.json.code).toBe('organizer-not-found');
    const venue = await h.call('POST', '/venues', { as: 'administrator', body: { venue: 'Hall' } });
    expect((await h.call('GET', `/organizers/${venue.json.id}`)).status).toBe(404);
    expect((await h.call('DELETE', '/organizers/by-slug/%E2%9C%93', { as: 'administrator' })).json.code).toBe(
      'organizer-not-found',
    );
  });

  it('T006 malformed organizer routes are 404 rest_no_route', async () => {
    for (const [method, path] of [
      ['GET', '/organizers/abc'],
      ['DELETE', '/organizers'],
      ['PATCH', '/organizers'],
      ['GET', '/organizer/1'],
    ] as const) {
      const res = await h.call(method, path, { as: 'administrator' });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe('rest_no_route');
    }
  });

  it('B.10.1 DELETE trashes and unlinks from every event; again 410 organizer-is-in-trash', async () => {
    const jane = await createOrganizer(JANE);
    const bob = await createOrganizer({ organizer: 'Bob' });
    const event = await seedEvent(h.store, { organizer_ids: [jane.id, bob.id] });
    const res = await h.call('DELETE', '/organizers/by-slug/jane-org', { as: 'administrator' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: jane.id, status: 'trash', slug: 'jane-org__trashed' });
    expect(res.json).not.toHaveProperty('json_ld');
    const again = await h.call('DELETE', `/organizers/${jane.id}`, { as: 'administrator' });
    expect(again.status).toBe(410);
    expect(again.json).toEqual({
      code: 'organizer-is-in-trash',
      message: 'The organizer is already trashed',
      data: { status: 410 },
    });
    expect((await h.store.getEvent(event.id))!.organizer_ids).toEqual([bob.id]);
    const embedded = await h.call('GET', `/events/${event.id}`);
    expect(embedded.json.organizer.map((o: { id: number }) => o.id)).toEqual([bob.id]);
    const anon = await h.call('GET', `/organizers/${jane.id}`);
    expect(anon.json.code).toBe('organizer-not-accessible');
  });

  it('D4 force=true deletes the organizer for good', async () => {
    const o = await createOrganizer(JANE);
    const res = await h.call('DELETE', `/organizers/${o.id}`, { as: 'administrator', body: { force: true } });
    expect(res.status).toBe(200);
    expect(res.json.organizer).toBe('Jane Org');
    expect((await h.call('GET', `/organizers/${o.id}`, { as: 'administrator' })).status).toBe(404);
  });

  it("T018 an author cannot edit or trash another user's organizer; an editor can", async () => {
    const o = await createOrganizer(JANE);
    expect(
      (await h.call('PATCH', `/organizers/${o.id}`, { as: 'author', body: { phone: '1' } })).status,
    ).toBe(403);
    expect((await h.call('DELETE', `/organizers/${o.id}`, { as: 'author' })).status).toBe(403);
    const edit = await h.call('PUT', `/organizers/${o.id}`, { as: 'editor', body: { phone: '1' } });
    expect(edit.status).toBe(200);
    expect(edit.json.phone).toBe('1');
  });
});

describe('GET /organizers', () => {
  it('T125 search matches the e-mail address', async () => {
    await createOrganizer({ organizer: 'Inline Org', email: 'inline@example.org' });
    await createOrganizer(JANE);
    const res = await h.call('GET', '/organizers?search=inline@example');
    expect(res.status).toBe(200);
    expect(res.json.organizers.map((o: { organizer: string }) => o.organizer)).toEqual(['Inline Org']);
    expect(res.json.total).toBe(1);
    expect(res.json.rest_url).toBe(
      `${BASE}/calendar/events/v1/organizers/?page=1&per_page=10&search=inline%40example&status=publish`,
    );
  });

  it('B.10.3 event= lists the organizers of that event; past the end is organizer-archive-page-not-found', async () => {
    const jane = await createOrganizer(JANE);
    await createOrganizer({ organizer: 'Unlinked' });
    const event = await seedEvent(h.store, { organizer_ids: [jane.id] });
    const res = await h.call('GET', `/organizers?event=${event.id}`);
    expect(res.json.organizers.map((o: { id: number }) => o.id)).toEqual([jane.id]);
    expect(res.json.organizers[0]).not.toHaveProperty('json_ld');
    const past = await h.call('GET', '/organizers?page=3');
    expect(past.status).toBe(404);
    expect(past.json.code).toBe('organizer-archive-page-not-found');
    expect((await h.call('GET', '/organizers?event=abc')).status).toBe(400);
  });

  it('B.12 CSV lists carry the organizer columns with raw descriptions; XML is offered too', async () => {
    await createOrganizer({ ...JANE, description: 'Line one\nline two' });
    const csv = await h.call('GET', '/organizers', { headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers['x-tec-totalpages']).toBe('1');
    expect(csv.body).toBe(
      'organizer_name,organizer_description,organizer_email,organizer_website,organizer_phone,featured_image\r\n' +
        `Jane Org,"Line one\nline two",jane@example.com,https://example.com/jane,'+1 555 0199,\r\n`,
    );
    const xml = await h.call('GET', '/organizers', { headers: { accept: 'text/xml' } });
    expect(xml.status).toBe(200);
    expect(xml.body).toContain('<organizers type="array"><item type="object">');
  });
});
