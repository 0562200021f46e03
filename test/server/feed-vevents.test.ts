/**
 * Issue 15 item 5: a feed keeps each event's VEVENT, so a render after a write renders only what the
 * write changed — and gives the very bytes a render from nothing gives. Events, venues and categories
 * are written through the API of a real server (in-process) on a real SQLite store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFeeds } from '../../src/export/feed-spec.ts';
import { icalBytes } from '../../src/export/ical.ts';
import { icalOptions, renderFeed } from '../../src/export/render.ts';
import { feedRecordPages, loadStoreFeed } from '../../src/export/store-feed.ts';
import { type FeedJob, renderStoreFeed } from '../../src/server/feed-render.ts';
import { VeventCache } from '../../src/server/feed-vevents.ts';
import { type Harness, makeApp, NOW } from './harness.ts';

describe('a feed kept event by event', () => {
  let h: Harness;
  const kept = new VeventCache();
  const job: FeedJob = {
    spec: { ...defaultFeeds()[0], format: 'ics' },
    outlook: false,
    source: 'https://cal.example.org/feeds/all.ics',
    nowMs: NOW.getTime(),
  };
  /** The feed through the kept VEVENTs, and from nothing: both texts, and how many events were rendered. */
  const render = async () => {
    const warm = await renderStoreFeed(h.store, h.app.config, job, kept);
    const cold = await renderStoreFeed(h.store, h.app.config, job, new VeventCache());
    return { text: warm.body.toString(), fromNothing: cold.body.toString(), rendered: kept.lastRendered };
  };
  const ids: number[] = [];

  beforeAll(async () => {
    h = await makeApp();
    for (let i = 1; i <= 12; i++) {
      const e = await h.created('/events', {
        title: `Concert ${i}`,
        status: 'publish',
        start_date: `2026-12-${String(i).padStart(2, '0')} 19:00`,
        end_date: `2026-12-${String(i).padStart(2, '0')} 21:00`,
        timezone: 'Europe/Berlin',
        description: `<p>Programme number ${i}</p>`,
        venue: { venue: i % 2 ? 'Town Hall' : 'Old Mill', city: 'Bremen' },
        categories: [i % 3 ? 'Music' : 'Dance'],
      });
      ids.push(e.id);
    }
  });
  afterAll(() => h.app.close());

  it('renders every event once, then none while nothing changes', async () => {
    const first = await render();
    expect(first.rendered).toBe(12);
    expect(first.text).toBe(first.fromNothing);
    expect(first.text.match(/BEGIN:VEVENT/g)).toHaveLength(12);
    const again = await render();
    expect(again.rendered).toBe(0);
    expect(again.text).toBe(first.text);
  });

  it('a new event with a category others have renders that event alone (the category count moved)', async () => {
    await h.created('/events', {
      title: 'Late addition',
      status: 'publish',
      start_date: '2026-12-20 19:00',
      end_date: '2026-12-20 21:00',
      venue: { venue: 'Town Hall', city: 'Bremen' },
      categories: ['Music'],
    });
    const after = await render();
    expect(after.rendered).toBe(1);
    expect(after.text).toBe(after.fromNothing);
    expect(after.text).toContain('SUMMARY:Late addition');
  });

  it('an edited event renders again alone, with its new text and time', async () => {
    const res = await h.call('POST', `/events/${ids[0]}`, {
      as: 'administrator',
      body: { title: 'Concert 1 (moved)', start_date: '2026-12-01 20:00', end_date: '2026-12-01 22:00' },
    });
    expect(res.status).toBe(200);
    const after = await render();
    expect(after.rendered).toBe(1);
    expect(after.text).toBe(after.fromNothing);
    expect(after.text).toContain('SUMMARY:Concert 1 (moved)');
    expect(after.text).toContain('SEQUENCE:1');
  });

  it('a renamed venue or category renders the events that show it, and only those', async () => {
    const venueId = (await h.call('GET', `/events/${ids[1]}`)).json.venue.id;
    expect(
      (await h.call('POST', `/venues/${venueId}`, { as: 'administrator', body: { venue: 'New Mill' } }))
        .status,
    ).toBe(200);
    const venue = await render();
    expect(venue.rendered).toBe(6);
    expect(venue.text).toBe(venue.fromNothing);
    expect(venue.text).toContain('LOCATION:New Mill');

    const dance = (await h.call('GET', '/categories?search=Dance')).json.categories[0];
    expect(
      (await h.call('POST', `/categories/${dance.id}`, { as: 'administrator', body: { name: 'Ballet' } }))
        .status,
    ).toBe(200);
    const category = await render();
    expect(category.rendered).toBe(4);
    expect(category.text).toBe(category.fromNothing);
    expect(category.text).toContain('CATEGORIES:Ballet');
  });

  it('the kept VEVENTs give the bytes of the feed rendered as one string, non-ASCII text included', async () => {
    await h.created('/events', {
      title: 'Café Zürich — Noël ☕ 𝄞',
      status: 'publish',
      start_date: '2026-12-21 19:00',
      end_date: '2026-12-21 21:00',
      timezone: 'Europe/Zurich',
      description: `<p>Ünïcödé ${'long line with ü '.repeat(12)}</p>`,
      venue: { venue: 'Ångström Hall', city: 'Zürich' },
    });
    const warm = await renderStoreFeed(h.store, h.app.config, job, kept);
    const now = new Date(job.nowMs);
    const data = await loadStoreFeed(h.store, h.app.config, job.spec, now, 'ics');
    const site = { host: h.app.config.host, timezone: h.app.config.siteTimezone, source: job.source };
    const asString = renderFeed(job.spec, data, site, { outlook: false });
    expect(asString).toContain('SUMMARY:Café Zürich — Noël ☕ 𝄞');
    expect(warm.body.equals(Buffer.from(asString))).toBe(true);
  });

  it('an unpublished event becomes a cancelled tombstone; the others are kept', async () => {
    const res = await h.call('POST', `/events/${ids[2]}`, { as: 'administrator', body: { status: 'draft' } });
    expect(res.status).toBe(200);
    const after = await render();
    expect(after.rendered).toBe(1);
    expect(after.text).toBe(after.fromNothing);
    expect(after.text).toContain('STATUS:CANCELLED');
  });
});

describe('a feed read a page of records at a time', () => {
  let h: Harness;
  const spec = { ...defaultFeeds()[0], format: 'ics' as const };
  const now = NOW;
  const ids: number[] = [];
  const event = (title: string, day: number) => ({
    title,
    status: 'publish',
    start_date: `2026-12-${String(day).padStart(2, '0')} 19:00`,
    end_date: `2026-12-${String(day).padStart(2, '0')} 21:00`,
    venue: { venue: day % 2 ? 'Town Hall' : 'Old Mill', city: 'Bremen' },
    organizer: [{ organizer: 'Friends of Music', email: 'friends@example.org' }],
  });
  const liveIds = async () =>
    (await loadStoreFeed(h.store, h.app.config, spec, now, 'ics')).events.map((e) => e.id);

  beforeAll(async () => {
    h = await makeApp();
    for (let day = 1; day <= 11; day++) ids.push((await h.created('/events', event(`Night ${day}`, day))).id);
  });
  afterAll(() => h.app.close());

  it('gives the events of one read in their order, and the same feed bytes', async () => {
    const pages = [];
    for await (const page of feedRecordPages(h.store, spec, now, 'ics', 4)) pages.push(page);
    expect(pages.map((p) => p.items.length)).toEqual([4, 4, 3]);
    expect(pages.flatMap((p) => p.items.map((e) => e.id))).toEqual(await liveIds());
    // The venues and organizers are the same records on every page.
    expect(pages[2].rel.linked.get(pages[2].items[0].venue_id!)).toBe(
      pages[0].rel.linked.get(pages[2].items[0].venue_id!),
    );

    // Read whole (CSV, npm run export): each venue is rendered once for all its events, as on one page.
    const whole = (await loadStoreFeed(h.store, h.app.config, spec, now, 'ics')).events;
    const [first, third] = [whole[0], whole[2]] as unknown as { venue: { id: number } }[];
    expect(first.venue.id).toBe(third.venue.id);
    expect(first.venue).toBe(third.venue);

    const job = {
      spec,
      outlook: false,
      source: 'https://cal.example.org/feeds/all.ics',
      nowMs: now.getTime(),
    };
    const rendered = await renderStoreFeed(h.store, h.app.config, job, new VeventCache());
    const pass = new VeventCache().pass({ ...h.app.config, now: () => now }, h.app.config.host);
    for (const page of pages) pass.add(page);
    const site = { host: h.app.config.host, timezone: h.app.config.siteTimezone, source: job.source };
    expect(icalBytes(pass.end(), icalOptions(spec, site)).equals(rendered.body)).toBe(true);
  });

  it('shows no event twice and skips none when writes move the others between pages; those gone are cancelled', async () => {
    const before = await liveIds();
    const pages = feedRecordPages(h.store, spec, now, 'ics', 3);
    const seen: number[] = [];
    const first = await pages.next();
    for (const e of first.value!.items) seen.push(e.id);
    // An event that starts before all others (pages by offset would shift by one), one unpublished and
    // one deleted further on.
    const early = await h.created('/events', event('Matinee', 1));
    const unpublished = before[6];
    const deleted = before[8];
    expect(
      (await h.call('POST', `/events/${unpublished}`, { as: 'administrator', body: { status: 'draft' } }))
        .status,
    ).toBe(200);
    expect((await h.call('DELETE', `/events/${deleted}`, { as: 'administrator' })).status).toBe(200);
    const tombstones: number[] = [];
    for await (const page of pages) {
      for (const e of page.items) seen.push(e.id);
      for (const t of page.tombstones) tombstones.push(t.id);
    }

    expect(seen).toEqual(before.filter((id) => id !== unpublished && id !== deleted));
    expect(tombstones.sort((a, b) => a - b)).toEqual([unpublished, deleted].sort((a, b) => a - b));
    expect(seen).not.toContain(early.id);
    // The next render has them all as they are now.
    expect(await liveIds()).toContain(early.id);
  });
});

describe('writes between the pages of a render', () => {
  let h: Harness;
  const spec = { ...defaultFeeds()[0], format: 'ics' as const };
  const job = { spec, outlook: false, source: 'https://cal.example.org/feeds/all.ics', nowMs: NOW.getTime() };
  const site = () => ({ host: h.app.config.host, timezone: h.app.config.siteTimezone, source: job.source });
  const update = async (path: string, body: Record<string, unknown>) =>
    expect((await h.call('POST', path, { as: 'administrator', body })).status).toBe(200);

  beforeAll(async () => {
    h = await makeApp();
  });
  afterAll(() => h.app.close());

  it('an event moved out of the feed (other category, hidden, past its window) is not shown', async () => {
    const ids: number[] = [];
    for (const day of [1, 2, 3, 4]) {
      const body = { title: `Gig ${day}`, status: 'publish', categories: ['Music'] };
      const at = { start_date: `2026-12-0${day} 19:00`, end_date: `2026-12-0${day} 21:00` };
      ids.push((await h.created('/events', { ...body, ...at })).id);
    }
    const music = { ...spec, categories: ['Music'] };
    const seen: number[] = [];
    let pages = 0;
    for await (const page of feedRecordPages(h.store, music, NOW, 'ics', 1)) {
      for (const e of page.items) seen.push(e.id);
      if (++pages > 1) continue;
      await update(`/events/${ids[1]}`, { categories: ['Dance'] });
      await update(`/events/${ids[2]}`, { hide_from_listings: true });
      await update(`/events/${ids[3]}`, { start_date: '2026-09-01 19:00', end_date: '2026-09-01 21:00' });
    }
    expect(seen).toEqual([ids[0]]);
  });

  it('a venue made public between two pages, and private again, leaves no kept VEVENT showing it', async () => {
    const venue = await h.created('/venues', { venue: 'Secret Bunker', city: 'Nowhere', status: 'draft' });
    // Before the other events: the first page shows one of them, while the venue is still private.
    for (const day of [25, 26]) {
      const at = { start_date: `2026-11-${day} 19:00`, end_date: `2026-11-${day} 21:00` };
      await h.created('/events', { title: `Night ${day}`, status: 'publish', venue: venue.id, ...at });
    }
    const kept = new VeventCache();
    const pass = kept.pass({ ...h.app.config, now: () => NOW }, h.app.config.host);
    let pages = 0;
    for await (const page of feedRecordPages(h.store, spec, NOW, 'ics', 1)) {
      pass.add(page);
      if (++pages === 1) await update(`/venues/${venue.id}`, { status: 'publish' });
    }
    expect(icalBytes(pass.end(), icalOptions(spec, site())).toString()).toContain('LOCATION:Secret Bunker');
    await update(`/venues/${venue.id}`, { status: 'draft' });
    const warm = (await renderStoreFeed(h.store, h.app.config, job, kept)).body.toString();
    expect(warm).not.toContain('Secret Bunker');
    expect(warm).toBe((await renderStoreFeed(h.store, h.app.config, job, new VeventCache())).body.toString());
  });
});
