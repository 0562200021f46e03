/**
 * Issue 15 item 3 and 4: search sees only what the caller may see. A password-protected event's text
 * is not searchable by callers who cannot open it (its title, which every list shows, still is); lists
 * filtered by such an event refuse like its item does; and no search text is FTS syntax or a LIKE
 * wildcard (`abc%00def` was a 500, `%00` matched everything).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../src/store/sqlite.ts';
import { type Harness, makeApp } from '../harness.ts';

const SECRET = 'The vault code is zebrapineapple, door four';

describe('search and password-protected events', () => {
  let h: Harness;
  let eventId: number;
  let venueId: number;

  beforeEach(async () => {
    h = await makeApp();
    const venue = await h.created('/venues', { venue: 'Back Room', address: '1 Hidden Lane' });
    const category = await h.created('/categories', { name: 'Secret Society' });
    venueId = venue.id;
    const event = await h.created(
      '/events',
      {
        title: 'Members meeting',
        description: SECRET,
        excerpt: 'Bring the zebrapineapple code',
        status: 'publish',
        start_date: '2026-12-01 19:00',
        end_date: '2026-12-01 21:00',
        venue: venue.id,
        categories: [category.id],
      },
      'author',
    );
    eventId = event.id;
    await h.store.setEventPassword(eventId, 'opensesame');
    await h.created('/events', {
      title: 'Open day',
      description: 'Everyone welcome',
      status: 'publish',
      start_date: '2026-12-02 10:00',
      end_date: '2026-12-02 12:00',
    });
  });
  afterEach(async () => {
    await h.app.close();
  });

  const ids = async (query: string, as?: Parameters<Harness['auth']>[0]) => {
    const res = await h.call('GET', `/events?${query}`, { as });
    expect(res.status, res.body).toBe(200);
    return res.json.events.map((e: { id: number }) => e.id);
  };

  for (const indexed of [false, true]) {
    it(`anonymous searches do not find the protected text, whole or in pieces (${indexed ? 'indexed' : 'queued for the index'})`, async () => {
      // SQLite indexes in the background; PostgreSQL's trigram index is current at every commit.
      if (indexed && h.store instanceof SqliteStore) h.store.drainSearchIndex();
      for (const word of ['zebrapineapple', 'pineapple', 'vault', 'zeb', 'or']) {
        expect(await ids(`search=${word}`), word).not.toContain(eventId);
        expect(await ids(`search=${word}`, 'subscriber'), word).not.toContain(eventId);
        // Another author may not edit it, so does not search its text either.
        expect(await ids(`search=${word}`, 'contributor'), word).not.toContain(eventId);
      }
      // Its title is shown in every list, so it is searchable, and the list shows the event redacted.
      const res = await h.call('GET', '/events?search=Members');
      expect(res.json.events.map((e: { id: number }) => e.id)).toEqual([eventId]);
      expect(res.json.events[0].description).toBe('');
      // Those who may edit it search all of it: an editor, and its author.
      expect(await ids('search=pineapple', 'editor')).toEqual([eventId]);
      expect(await ids('search=pineapple', 'author')).toEqual([eventId]);
      expect(await ids('search=or%20door', 'author')).toEqual([eventId]);
    });
  }

  it('/venues?event= and /categories?event= of a protected event refuse like the event does', async () => {
    for (const path of [`/venues?event=${eventId}`, `/categories?event=${eventId}`]) {
      const anon = await h.call('GET', path);
      expect(anon.status, path).toBe(403);
      expect(anon.json.code).toBe('event-password-protected');
      const editor = await h.call('GET', path, { as: 'editor' });
      expect(editor.status).toBe(200);
      expect(editor.json[path.startsWith('/venues') ? 'venues' : 'categories']).toHaveLength(1);
    }
    expect((await h.call('GET', `/venues?event=${eventId}`, { as: 'author' })).json.venues[0].id).toBe(
      venueId,
    );
  });

  it('no search text is FTS syntax or a wildcard: NUL and other control characters match nothing', async () => {
    for (const search of [
      'abc%00def',
      '%00',
      'Open%00',
      '%01',
      '"Open',
      'Open*',
      'OR',
      'NEAR(Open',
      '%25',
      '_',
    ]) {
      const res = await h.call('GET', `/events?search=${search}`);
      expect(res.status, search).toBe(200);
      if (search.includes('%0')) expect(res.json.total, search).toBe(0);
    }
    expect(await ids('search=Open')).toHaveLength(1);
    expect(await ids('search=%25')).toEqual([]);
    for (const path of [
      '/venues?search=%00',
      '/organizers?search=%00',
      '/categories?search=%00&hide_empty=false',
    ]) {
      const res = await h.call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['x-tec-total'], path).toBe('0');
    }
    expect((await h.call('GET', '/categories?search=Secret&hide_empty=false')).headers['x-tec-total']).toBe(
      '1',
    );
  });
});
