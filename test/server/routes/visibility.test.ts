/**
 * Unpublished items never leak through another resource (B.2: anonymous callers read published
 * items only; authors and contributors their own): not embedded in events, not linkable by id,
 * not usable as a list filter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite.ts';
import { eventRecord } from '../fixtures.ts';
import { type Harness, makeApp } from '../harness.ts';

const EVENT = {
  title: 'Harbour concert',
  start_date: '2027-05-01 19:00:00',
  end_date: '2027-05-01 21:00:00',
};

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

describe('unpublished venues, organizers and events stay hidden', () => {
  it('a draft venue inside a published event is shown to editors only, in lists and single reads', async () => {
    const venue = await h.created('/venues', { venue: 'Secret Hall', status: 'draft' }, 'administrator');
    const organizer = await h.created(
      '/organizers',
      { organizer: 'Quiet Org', status: 'draft' },
      'administrator',
    );
    const event = await h.created(
      '/events',
      { ...EVENT, venue: venue.id, organizer: [organizer.id] },
      'administrator',
    );
    expect(event.venue.venue).toBe('Secret Hall');

    for (const as of [undefined, 'subscriber', 'contributor'] as const) {
      const single = await h.call('GET', `/events/${event.id}`, { as });
      expect(single.status).toBe(200);
      expect(single.json.venue, as).toEqual([]);
      expect(single.json.organizer, as).toEqual([]);
      const list = await h.call('GET', '/events', { as });
      expect(list.json.events[0].venue, as).toEqual([]);
      expect(list.body, as).not.toContain('Secret Hall');
    }
    const editor = await h.call('GET', `/events/${event.id}`, { as: 'editor' });
    expect(editor.json.venue.venue).toBe('Secret Hall');
  });

  it("linking another user's draft venue or organizer by id is a 400, like an unknown id", async () => {
    const venue = await h.created('/venues', { venue: 'Secret Hall', status: 'draft' }, 'administrator');
    const organizer = await h.created(
      '/organizers',
      { organizer: 'Quiet Org', status: 'draft' },
      'administrator',
    );
    for (const body of [{ venue: venue.id }, { organizer: [organizer.id] }]) {
      const res = await h.call('POST', '/events', { as: 'contributor', body: { ...EVENT, ...body } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
    }
    expect((await h.call('GET', '/events', { as: 'administrator' })).json.total).toBe(0);
  });

  it('a draft event cannot be used to list its terms, venue or organizers by those who may not read it', async () => {
    const draft = await h.created(
      '/events',
      { ...EVENT, status: 'draft', categories: ['Layoffs'], venue: { venue: 'Board Room' } },
      'administrator',
    );
    for (const path of [`/categories?event=${draft.id}&hide_empty=false`, `/venues?event=${draft.id}`]) {
      const anon = await h.call('GET', path);
      expect(anon.status, path).toBe(400);
      expect(anon.body).not.toContain('Layoffs');
      const admin = await h.call('GET', path, { as: 'administrator' });
      expect(admin.status, path).toBe(200);
    }
  });
});

describe('create-or-find', () => {
  it("B.10.2 finds the lowest item the caller may read, passing over another user's draft", async () => {
    const draft = await h.created('/venues', { venue: 'Main Hall', status: 'draft' }, 'administrator');
    const published = await h.created(
      '/venues',
      { venue: 'Main Hall', description: 'Public' },
      'administrator',
    );
    expect(published.id).not.toBe(draft.id);
    const found = await h.call('POST', '/venues', { as: 'contributor', body: { venue: 'main hall' } });
    expect(found.status).toBe(201);
    expect(found.json.id).toBe(published.id);
    const admin = await h.call('POST', '/venues', { as: 'administrator', body: { venue: 'main hall' } });
    expect(admin.json.id).toBe(draft.id);
  });
});

describe('scheduled posts', () => {
  it('B.1 a future event publishes itself when its date comes: lists, single reads and term counts follow', async () => {
    let now = new Date('2026-11-21T12:00:00Z');
    const s = await makeApp({ now: () => now });
    try {
      const event = await s.created(
        '/events',
        { ...EVENT, status: 'future', date: '2026-12-01 09:00:00', categories: ['Concerts'] },
        'administrator',
      );
      expect(event.status).toBe('future');
      expect((await s.call('GET', `/events/${event.id}`)).status).toBe(403);
      expect((await s.call('GET', '/events')).json.total).toBe(0);
      expect((await s.call('GET', '/categories')).json.total).toBe(0);

      now = new Date('2026-12-01T09:00:01Z');
      const single = await s.call('GET', `/events/${event.id}`);
      expect(single.status).toBe(200);
      expect(single.json.status).toBe('publish');
      expect((await s.call('GET', '/events')).json.total).toBe(1);
      expect((await s.call('GET', '/categories')).json.categories[0]).toMatchObject({
        name: 'Concerts',
        count: 1,
      });
    } finally {
      await s.app.close();
    }
  });

  it('an event another process scheduled is published once due, seen within 0.1 s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calsync-scheduled-'));
    const path = join(dir, 'calendar.db');
    const s = await makeApp({ path, now: () => new Date('2026-12-01T09:00:01Z') });
    const other = openSqliteStore(path);
    try {
      expect((await s.call('GET', '/events')).json.total).toBe(0);
      await other.insertEvent(
        eventRecord({ title: 'Scheduled elsewhere', status: 'future', date_utc: '2026-12-01 09:00:00' }),
      );
      await sleep(150);
      const list = await s.call('GET', '/events');
      expect(list.json.events.map((e: { title: string; status: string }) => [e.title, e.status])).toEqual([
        ['Scheduled elsewhere', 'publish'],
      ]);
    } finally {
      await other.close();
      await s.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
