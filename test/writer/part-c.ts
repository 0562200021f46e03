/**
 * Contract part C as a suite: what a real The Events Calendar 6.2.6 site does where our server deliberately
 * differs, checked with raw requests. It runs against the imitation in test/helpers/tec-site.ts (in
 * `npm test`) and against the real site (test/real-tec/part-c.test.ts): the imitation is trusted only as far
 * as both pass the same checks, so it can never again accept what TEC refuses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import type { Target } from '../../src/writer/index.ts';
import { bodyOf } from './setup.ts';

/** A request as a client that knows nothing of part C would send it. */
export type Raw = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; doc: Record<string, unknown> }>;

export interface PartCSite {
  target: Target;
  raw: Raw;
  dispose(): Promise<void>;
}

export function partC(name: string, build: () => Promise<PartCSite>): void {
  describe(`${name} behaves as contract part C says TEC 6.2.6 does`, () => {
    let site: PartCSite;
    let target: Target;
    let raw: Raw;
    beforeEach(async () => {
      site = await build();
      ({ target, raw } = site);
    });
    afterEach(async () => {
      await site.dispose();
    });

    it('an event update that leaves out fields resets them and unlinks the organizers (C.4)', async () => {
      const organizer = await target.create('organizer', bodyOf('organizer', 1));
      const event = await target.create(
        'event',
        bodyOf('event', 1, { organizer: [organizer.id], featured: true }),
      );
      const { status, doc } = await raw('POST', `/events/${event.id}`, { title: 'Renamed' });
      expect(status).toBe(200);
      expect(doc).toMatchObject({ title: 'Renamed', timezone: 'UTC', featured: false, organizer: [] });
      // Unset, the website is empty [live 2026-11-25] (C.5 said: equal to the permalink).
      expect(doc.website).toBe('');
    });

    it('unknown ids and slugs answer 400 rest_invalid_param, not 404 (C.15)', async () => {
      for (const path of ['/events/999999', '/venues/999999', '/organizers/by-slug/nobody']) {
        const { status, doc } = await raw('GET', path);
        expect(status, path).toBe(400);
        expect(doc.code).toBe('rest_invalid_param');
      }
    });

    it('creating a venue with an existing name overwrites that venue (C.10)', async () => {
      const first = await target.create('venue', bodyOf('venue', 1));
      const { status, doc } = await raw('POST', '/venues', { venue: 'venue 1', city: 'Shelbyville' });
      expect(status).toBe(201);
      expect(doc.id).toBe(first.id);
      expect(doc.city).toBe('Shelbyville');
    });

    it('venue show_map as a JSON boolean is refused (C.9), and DELETE with force only trashes (C.16)', async () => {
      expect((await raw('POST', '/venues', { venue: 'Boolean Hall', show_map: true })).status).toBe(400);
      const event = await target.create('event', bodyOf('event', 2));
      const deleted = await raw('DELETE', `/events/${event.id}?force=true`);
      expect(deleted.doc.status).toBe('trash');
      expect((await raw('DELETE', `/events/${event.id}?force=true`)).status).toBe(410);
    });

    it('lists give at most 50 a page, 404 past the end, and only upcoming events without dates (C.12, C.13)', async () => {
      for (let i = 0; i < 52; i++) {
        await target.create('event', {
          ...bodyOf('event', i),
          // Two in the past: outside the default window.
          ...(i < 2 ? { start_date: '2001-01-01 10:00:00', end_date: '2001-01-01 11:00:00' } : {}),
        });
      }
      const page = await raw('GET', '/events?per_page=100');
      expect(page.doc.events).toHaveLength(50);
      expect(page.doc.total).toBe(50);
      const past = await raw('GET', '/events?per_page=50&page=3');
      expect(past).toMatchObject({ status: 404, doc: { code: 'event-archive-page-not-found' } });
      // The writer's list passes an explicit wide window and sees all 52.
      let n = 0;
      for await (const _ of target.list('event')) n++;
      expect(n).toBe(52);
    });

    it('an empty excerpt, image or description is refused, all named in one 400 (C.21)', async () => {
      const event = await raw('POST', '/events', { ...bodyOf('event', 'e'), excerpt: '', image: '' });
      expect(event.status).toBe(400);
      expect(event.doc).toMatchObject({
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): excerpt, image',
      });
      const described = await raw('POST', '/events', { ...bodyOf('event', 'd'), description: '' });
      expect(described.doc.message).toBe('Invalid parameter(s): description');
      const term = await raw('POST', '/categories', { name: 'Empty', description: '' });
      expect(term).toMatchObject({ status: 400, doc: { code: 'rest_invalid_param' } });
      // A venue or organizer takes them.
      expect((await raw('POST', '/venues', { venue: 'Empty Hall', address: '', website: '' })).status).toBe(
        201,
      );
    });

    it("titles and names come back texturized: St Mary's → St Mary&#8217;s (C.22)", async () => {
      const venue = await target.create('venue', { venue: "St Mary's Hall" });
      const { doc } = await raw('POST', '/events', {
        ...bodyOf('event', 't'),
        title: 'Film & Theatre: "Casablanca" -- tonight...',
        venue: venue.id,
      });
      expect(doc.title).toBe('Film &#038; Theatre: &#8220;Casablanca&#8221; &#8212; tonight&#8230;');
      expect((doc.venue as Record<string, unknown>).venue).toBe('St Mary&#8217;s Hall');
      expect(comparableText(String(doc.title))).toBe('Film & Theatre: "Casablanca" - tonight...');
    });
  });
}
