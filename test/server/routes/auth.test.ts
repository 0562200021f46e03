/**
 * Authentication and the capability matrix over HTTP (contract B.0, B.2; checklist T010–T027):
 * Basic application passwords, the 401/403 split, per-item checks by id and by slug, and
 * value-dependent permissions (E9).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import { formatAppPassword } from '../../../src/server/auth/app-passwords.ts';
import { type Harness, makeApp } from '../harness.ts';

type Res = Awaited<ReturnType<Harness['call']>>;

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const CHALLENGE = 'Basic realm="calsync", Bearer realm="calsync"';
const JAZZ = { title: 'Jazz Night', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' };

const basic = (login: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
});

const create = (as: Role, body: Record<string, unknown> = {}) =>
  h.created('/events', { ...JAZZ, ...body }, as);

function expect401(res: Res, code: string) {
  expect(res.status).toBe(401);
  expect(res.json.code).toBe(code);
  expect(res.json.data.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe(CHALLENGE);
}

function expect403(res: Res, code = 'rest_forbidden') {
  expect(res.status).toBe(403);
  expect(res.json.code).toBe(code);
  expect(res.json.data.status).toBe(403);
}

describe('Basic application passwords', () => {
  it('T010 an application password authenticates; the login password is refused with incorrect_password', async () => {
    const ok = await h.call('GET', '/events?status=draft', { as: 'administrator' });
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    const created = await h.call('POST', '/events', { as: 'editor', body: JAZZ });
    expect(created.status).toBe(201);
    expect(created.json.author).toBe(String(h.users.editor.id));

    // A user's login password (anything that is not one of their application passwords) never works.
    const login = await h.call('GET', '/events', {
      headers: basic('administrator', 'correct-horse-battery-staple'),
    });
    expect401(login, 'incorrect_password');
    expect(login.json.message).toBe('The provided password is an invalid application password.');
  });

  it("T010 another user's application password does not authenticate", async () => {
    const res = await h.call('GET', '/events', { headers: basic('administrator', h.passwords.editor) });
    expect401(res, 'incorrect_password');
  });

  it('T011 a wrong password on GET /events is a 401 incorrect_password with WWW-Authenticate, not anonymous', async () => {
    const wrong = `${h.passwords.subscriber.slice(0, 23)}${h.passwords.subscriber.endsWith('A') ? 'B' : 'A'}`;
    const res = await h.call('GET', '/events', { headers: basic('subscriber', wrong) });
    expect401(res, 'incorrect_password');
    expect(res.headers['x-tec-total']).toBeUndefined();
    const unknownUser = await h.call('GET', '/events', { headers: basic('nobody', h.passwords.subscriber) });
    expect401(unknownUser, 'incorrect_password');
    const noColon = await h.call('GET', '/events', {
      headers: { authorization: `Basic ${Buffer.from('administrator').toString('base64')}` },
    });
    expect401(noColon, 'incorrect_password');
  });

  it('T011 bad credentials are a 401 on a route that does not exist and on the namespace index too (B.0 step 1)', async () => {
    const bad = basic('administrator', 'AAAABBBBCCCCDDDDEEEEFFFF');
    expect401(await h.call('GET', '/nope', { headers: bad }), 'incorrect_password');
    expect401(await h.call('GET', '', { headers: bad }), 'incorrect_password');
  });

  it('spaces in an application password are ignored, as WordPress shows it in groups of four', async () => {
    const grouped = formatAppPassword(h.passwords.author);
    expect(grouped).toContain(' ');
    const res = await h.call('GET', '/events?status=draft', { headers: basic('author', grouped) });
    expect(res.status).toBe(200);
  });

  it('the login may be the e-mail address, in any case', async () => {
    const res = await h.call('POST', '/events', {
      headers: basic('Editor@Example.org', h.passwords.editor),
      body: JAZZ,
    });
    expect(res.status).toBe(201);
    expect(res.json.author).toBe(String(h.users.editor.id));
  });

  it('an unknown authorization scheme is a 401 rest_forbidden with WWW-Authenticate', async () => {
    for (const authorization of ['Digest username="administrator"', 'Negotiate YII=', 'Token abc']) {
      const res = await h.call('GET', '/events', { headers: { authorization } });
      expect401(res, 'rest_forbidden');
    }
  });

  it('a revoked application password stops working at once', async () => {
    const first = await h.call('GET', '/events?status=draft', { as: 'editor' });
    expect(first.status).toBe(200);
    for (const ap of await h.store.appPasswords(h.users.editor.id)) await h.store.deleteAppPassword(ap.id);
    const second = await h.call('GET', '/events?status=draft', { as: 'editor' });
    expect401(second, 'incorrect_password');
  });

  it('each of several application passwords of a user works, and revoking one leaves the other', async () => {
    const { createAppPassword } = await import('../../../src/server/auth/app-passwords.ts');
    const extra = await createAppPassword(h.store, h.users.author, 'phone', '2026-11-01 00:00:00');
    expect(
      (await h.call('GET', '/events?status=draft', { headers: basic('author', extra.password) })).status,
    ).toBe(200);
    expect((await h.call('GET', '/events?status=draft', { as: 'author' })).status).toBe(200);
    await h.store.deleteAppPassword(extra.record.id);
    expect401(
      await h.call('GET', '/events', { headers: basic('author', extra.password) }),
      'incorrect_password',
    );
    expect((await h.call('GET', '/events?status=draft', { as: 'author' })).status).toBe(200);
  });
});

describe('creating events by role', () => {
  it('T015 anonymous POST /events with a valid body is a 401 rest_forbidden with WWW-Authenticate', async () => {
    const res = await h.call('POST', '/events', { body: JAZZ });
    expect401(res, 'rest_forbidden');
    expect(res.json.message).toBe('Sorry, you are not allowed to do that.');
    expect((await h.call('GET', '/events?status=draft', { as: 'administrator' })).json.total).toBe(0);
  });

  it('T015 anonymous POST /events with {} is a 401, not a 400: permissions come before validation (D3)', async () => {
    expect401(await h.call('POST', '/events', { body: {} }), 'rest_forbidden');
  });

  it('T015 anonymous POST /events with malformed JSON is a 401, not 400 rest_invalid_json (B.0 step 3 before 6)', async () => {
    expect401(await h.call('POST', '/events', { body: '{"title": "Jazz' }), 'rest_forbidden');
  });

  it('T016 a subscriber POST /events is a 403 rest_forbidden without WWW-Authenticate', async () => {
    const res = await h.call('POST', '/events', { as: 'subscriber', body: JAZZ });
    expect403(res);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect403(await h.call('POST', '/events', { as: 'subscriber', body: {} }));
  });

  it('T017 a contributor asking for publish gets pending (201); without a status, draft', async () => {
    const asked = await create('contributor', { status: 'publish' });
    expect(asked.status).toBe('pending');
    expect(asked.author).toBe(String(h.users.contributor.id));
    expect((await create('contributor', { title: 'Quiet Night' })).status).toBe('draft');
    for (const status of ['future', 'private']) {
      expect((await create('contributor', { title: `Asked ${status}`, status })).status).toBe('pending');
    }
  });

  it('T017 an author publishes directly; an editor and an administrator too', async () => {
    expect((await create('author')).status).toBe('publish');
    expect((await create('author', { title: 'Author Draft', status: 'draft' })).status).toBe('draft');
    expect((await create('editor', { title: 'Editor Night' })).status).toBe('publish');
    expect((await create('administrator', { title: 'Admin Night' })).status).toBe('publish');
  });
});

describe('per-item checks on updates and deletes', () => {
  it("T018 a contributor may not update an administrator's published event, by id or by slug", async () => {
    const admins = await create('administrator');
    const byId = await h.call('PATCH', `/events/${admins.id}`, {
      as: 'contributor',
      body: { title: 'Mine now' },
    });
    expect403(byId);
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      const bySlug = await h.call(method, `/events/by-slug/${admins.slug}`, {
        as: 'contributor',
        body: { title: 'Mine now' },
      });
      expect403(bySlug);
    }
    const after = await h.call('GET', `/events/${admins.id}`);
    expect(after.json.title).toBe('Jazz Night');
    expect(after.json.status).toBe('publish');
  });

  it('T018 a contributor may update their own draft (200) but not their own published event (403)', async () => {
    const draft = await create('contributor', { status: 'draft' });
    const edited = await h.call('PATCH', `/events/${draft.id}`, {
      as: 'contributor',
      body: { title: 'Jazz Night II' },
    });
    expect(edited.status).toBe(200);
    expect(edited.json.title).toBe('Jazz Night II');
    expect(edited.json.status).toBe('draft');

    const published = await create('administrator', {
      title: 'Contributed Night',
      author: h.users.contributor.id,
    });
    expect(published.author).toBe(String(h.users.contributor.id));
    expect(published.status).toBe('publish');
    expect403(
      await h.call('PATCH', `/events/${published.id}`, { as: 'contributor', body: { title: 'Changed' } }),
    );
    expect403(
      await h.call('PATCH', `/events/by-slug/${published.slug}`, {
        as: 'contributor',
        body: { title: 'Changed' },
      }),
    );
  });

  it('T018 the per-item 403 comes before validation (B.0 step 5 before 6)', async () => {
    const admins = await create('administrator');
    expect403(
      await h.call('PATCH', `/events/${admins.id}`, {
        as: 'contributor',
        body: { start_date: 'tomorrow 9am' },
      }),
    );
  });

  it("T019 an author may not update another user's event; an editor may", async () => {
    const admins = await create('administrator');
    expect403(await h.call('PATCH', `/events/${admins.id}`, { as: 'author', body: { title: 'Taken over' } }));
    expect403(
      await h.call('PATCH', `/events/by-slug/${admins.slug}`, {
        as: 'author',
        body: { title: 'Taken over' },
      }),
    );
    const byEditor = await h.call('PATCH', `/events/${admins.id}`, {
      as: 'editor',
      body: { title: 'Edited' },
    });
    expect(byEditor.status).toBe(200);
    expect(byEditor.json.title).toBe('Edited');
    expect(byEditor.json.author).toBe(String(h.users.administrator.id));

    const own = await create('author', { title: 'Author Night' });
    const ownEdit = await h.call('PATCH', `/events/${own.id}`, { as: 'author', body: { featured: true } });
    expect(ownEdit.status).toBe(200);
    expect(ownEdit.json.status).toBe('publish');
  });

  it("T020 a contributor may not delete an administrator's event, but may trash their own draft", async () => {
    const admins = await create('administrator');
    expect403(await h.call('DELETE', `/events/${admins.id}`, { as: 'contributor' }));
    expect403(await h.call('DELETE', `/events/by-slug/${admins.slug}`, { as: 'contributor' }));
    expect((await h.call('GET', `/events/${admins.id}`)).json.status).toBe('publish');

    const draft = await create('contributor');
    const trashed = await h.call('DELETE', `/events/${draft.id}`, { as: 'contributor' });
    expect(trashed.status).toBe(200);
    expect(trashed.json.status).toBe('trash');
  });

  it("T020 an author may not delete another's event; an editor may", async () => {
    const admins = await create('administrator');
    expect403(await h.call('DELETE', `/events/${admins.id}`, { as: 'author' }));
    const res = await h.call('DELETE', `/events/${admins.id}`, { as: 'editor' });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('trash');
  });

  it('T021 DELETE /events/999999: anonymous 401, subscriber 403, contributor 404 event-not-found', async () => {
    expect401(await h.call('DELETE', '/events/999999'), 'rest_forbidden');
    expect403(await h.call('DELETE', '/events/999999', { as: 'subscriber' }));
    const res = await h.call('DELETE', '/events/999999', { as: 'contributor' });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('event-not-found');
    expect(res.json.data).toEqual({ status: 404 });
  });

  it('T021 an anonymous update of an unknown id is a 401 with WWW-Authenticate, before the 404', async () => {
    expect401(await h.call('PATCH', '/events/999999', { body: { title: 'X' } }), 'rest_forbidden');
    expect401(
      await h.call('PATCH', '/events/by-slug/no-such-event', { body: { title: 'X' } }),
      'rest_forbidden',
    );
  });
});

describe('value-dependent permissions (E9)', () => {
  it('T023 a contributor naming a new category is refused with 403 naming categories, and nothing is written', async () => {
    const res = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...JAZZ, categories: ['Brand New'] },
    });
    expect403(res);
    expect(res.json.data.params).toEqual(['categories']);
    expect((await h.call('GET', '/categories?hide_empty=false')).json.total).toBe(0);
    expect((await h.call('GET', '/events?status=draft,pending', { as: 'administrator' })).json.total).toBe(0);
  });

  it('T023 a contributor may link an existing category by id (201)', async () => {
    const cat = await h.call('POST', '/categories', { as: 'editor', body: { name: 'Concerts' } });
    expect(cat.status).toBe(201);
    const res = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...JAZZ, categories: [cat.json.id] },
    });
    expect(res.status).toBe(201);
    expect(res.json.categories.map((c: { id: number }) => c.id)).toEqual([cat.json.id]);
    // An existing name links too: no term is created.
    const byName = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...JAZZ, title: 'Named', categories: 'concerts' },
    });
    expect(byName.status).toBe(201);
    expect(byName.json.categories[0].id).toBe(cat.json.id);
  });

  it('T023 an author may create a category by name in an event write but not a tag', async () => {
    const cat = await h.call('POST', '/events', {
      as: 'author',
      body: { ...JAZZ, categories: ['Open Air'] },
    });
    expect(cat.status).toBe(201);
    expect(cat.json.categories[0].name).toBe('Open Air');
    const tag = await h.call('POST', '/events', { as: 'author', body: { ...JAZZ, tags: ['Outdoor'] } });
    expect403(tag);
    expect(tag.json.data.params).toEqual(['tags']);
  });

  it('T024 an author may not set another user as author (403 naming author); an editor may', async () => {
    const res = await h.call('POST', '/events', {
      as: 'author',
      body: { ...JAZZ, author: h.users.editor.id },
    });
    expect403(res);
    expect(res.json.data.params).toEqual(['author']);
    const self = await h.call('POST', '/events', {
      as: 'author',
      body: { ...JAZZ, author: h.users.author.id },
    });
    expect(self.status).toBe(201);
    const byEditor = await h.call('POST', '/events', {
      as: 'editor',
      body: { ...JAZZ, author: h.users.author.id },
    });
    expect(byEditor.status).toBe(201);
    expect(byEditor.json.author).toBe(String(h.users.author.id));
  });

  it('T024 an author may not hand their event over to another user on update', async () => {
    const own = await create('author');
    const res = await h.call('PATCH', `/events/${own.id}`, {
      as: 'author',
      body: { author: h.users.editor.id },
    });
    expect403(res);
    expect(res.json.data.params).toEqual(['author']);
  });

  it('T024 a contributor giving an image URL is refused with 403 naming image, before any download', async () => {
    const res = await h.call('POST', '/events', {
      as: 'contributor',
      body: { ...JAZZ, image: 'https://images.example.com/posters/jazz-night.png' },
    });
    expect403(res);
    expect(res.json.data.params).toEqual(['image']);
  });
});

describe('reading by role', () => {
  it("T025 a contributor's GET /events shows their own drafts, not the administrator's", async () => {
    const adminDraft = await create('administrator', { title: 'Admin Draft', status: 'draft' });
    const own = await create('contributor', { title: 'Contributor Draft' });
    const published = await create('administrator', { title: 'Public Night' });
    const res = await h.call('GET', '/events', { as: 'contributor' });
    expect(res.status).toBe(200);
    const ids = res.json.events.map((e: { id: number }) => e.id);
    expect(ids).toContain(own.id);
    expect(ids).toContain(published.id);
    expect(ids).not.toContain(adminDraft.id);
    expect(res.json.total).toBe(2);
    // The administrator sees every draft.
    const admin = await h.call('GET', '/events', { as: 'administrator' });
    expect(admin.json.events.map((e: { id: number }) => e.id).sort()).toEqual(
      [adminDraft.id, own.id, published.id].sort(),
    );
  });

  it('T026 GET /events?status=draft: anonymous 401, subscriber 403, administrator 200', async () => {
    await create('administrator', { status: 'draft' });
    const anon = await h.call('GET', '/events?status=draft');
    expect401(anon, 'rest_forbidden');
    expect(anon.json.data.params).toEqual(['status']);
    const sub = await h.call('GET', '/events?status=draft', { as: 'subscriber' });
    expect403(sub);
    expect(sub.json.data.params).toEqual(['status']);
    const admin = await h.call('GET', '/events?status=draft', { as: 'administrator' });
    expect(admin.status).toBe(200);
    expect(admin.json.total).toBe(1);
  });

  it('T026 status=publish is open to everyone', async () => {
    await create('administrator');
    for (const as of [undefined, 'subscriber'] as const) {
      const res = await h.call('GET', '/events?status=publish', { as });
      expect(res.status).toBe(200);
      expect(res.json.total).toBe(1);
    }
  });

  it('T027 anonymous GET of a draft is 403 event-not-accessible; the administrator reads it', async () => {
    const draft = await create('editor', { status: 'draft' });
    const anon = await h.call('GET', `/events/${draft.id}`);
    expect403(anon, 'event-not-accessible');
    expect(anon.json.message).toBe('The requested event is not accessible');
    const admin = await h.call('GET', `/events/${draft.id}`, { as: 'administrator' });
    expect(admin.status).toBe(200);
    expect(admin.json.status).toBe('draft');
  });

  it("T027 others' drafts are not readable by subscribers, contributors or authors; the owner reads their own", async () => {
    const draft = await create('editor', { status: 'draft' });
    for (const as of ['subscriber', 'contributor', 'author'] as const) {
      expect403(await h.call('GET', `/events/${draft.id}`, { as }), 'event-not-accessible');
    }
    const own = await create('contributor');
    expect((await h.call('GET', `/events/${own.id}`, { as: 'contributor' })).status).toBe(200);
    expect403(await h.call('GET', `/events/${own.id}`, { as: 'author' }), 'event-not-accessible');
  });

  it('subscribers can read published events, venues, organizers and terms', async () => {
    const venue = await h.call('POST', '/venues', { as: 'administrator', body: { venue: 'Main Hall' } });
    const organizer = await h.call('POST', '/organizers', {
      as: 'administrator',
      body: { organizer: 'Jane Org' },
    });
    const cat = await h.call('POST', '/categories', { as: 'administrator', body: { name: 'Concerts' } });
    const e = await create('administrator', {
      venue: venue.json.id,
      organizer: [organizer.json.id],
      categories: [cat.json.id],
    });
    const reads = [
      `/events/${e.id}`,
      `/events/by-slug/${e.slug}`,
      '/events',
      `/venues/${venue.json.id}`,
      `/organizers/${organizer.json.id}`,
      `/categories/${cat.json.id}`,
      '/categories',
      '',
    ];
    for (const path of reads) {
      const res = await h.call('GET', path, { as: 'subscriber' });
      expect(res.status, path).toBe(200);
    }
    const list = await h.call('GET', '/events', { as: 'subscriber' });
    expect(list.json.events.map((x: { id: number }) => x.id)).toEqual([e.id]);
    expect(list.json.rest_url).toContain('status=publish');
    expect(list.json.rest_url).not.toContain('draft');
  });
});
