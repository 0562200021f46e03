/**
 * Issue 15 item 5: a feed keeps each event's VEVENT, so a render after a write renders only what the
 * write changed — and gives the very bytes a render from nothing gives. Events, venues and categories
 * are written through the API of a real server (in-process) on a real SQLite store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFeeds } from '../../src/export/feed-spec.ts';
import { renderFeed } from '../../src/export/render.ts';
import { loadStoreFeed } from '../../src/export/store-feed.ts';
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
    const data = await loadStoreFeed(h.store, { ...h.app.config, now: () => now }, job.spec, now, 'ics');
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
