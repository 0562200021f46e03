/**
 * List items from kept JSON fragments (src/render/event-json.ts) are the text
 * `JSON.stringify(renderEvent(…))` gives, also after the records they were made from change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRelated, renderEvent } from '../../src/render/event.ts';
import { EventListJson } from '../../src/render/event-json.ts';
import { JANE, seedAttachment, US_VENUE } from '../server/fixtures.ts';
import { type Harness, makeApp } from '../server/harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const visibility = { statuses: ['publish' as const], ownStatuses: [], ownerId: null };

/** Every listed event: the kept-fragment text against renderEvent's, byte for byte. */
async function expectSameAsRenderEvent(json: EventListJson): Promise<void> {
  const { items } = await h.store.listEvents({ offset: 0, limit: 50, visibility });
  expect(items.length).toBeGreaterThan(0);
  const rel = await loadRelated(h.store, items, h.users.administrator);
  const rendered = items.map((e) => renderEvent(e, rel, h.app.config, { single: false }));
  items.forEach((e, i) => {
    expect(Buffer.concat(json.item(e, rel)).toString()).toBe(JSON.stringify(rendered[i]));
  });
  // A page: the items' bytes joined, redacted ones as given, then the rest of the document.
  const redacted = (e: { id: number }) => (e.id === items[0].id ? '{"redacted":true}' : null);
  const page = json.page('events', items, rel, '"total":7}', redacted);
  expect(JSON.parse(page.body.toString())).toEqual({
    events: [{ redacted: true }, ...rendered.slice(1)],
    total: 7,
  });
}

describe('EventListJson', () => {
  it('items equal renderEvent, first rendered and then from kept fragments, and after changes', async () => {
    const image = await seedAttachment(h.store);
    const first = await h.created('/events', {
      title: 'Jazz <em>night</em>',
      description: 'Line one\n\nLine two',
      start_date: '2027-03-01 19:00',
      end_date: '2027-03-01 22:00',
      timezone: 'Europe/Berlin',
      cost: ['10', '$25'],
      image: image.id,
      venue: US_VENUE,
      organizer: [JANE, { organizer: 'Second Org' }],
      categories: ['Music', 'Art'],
      tags: ['live', 'free'],
    });
    await h.created('/events', {
      title: 'Bare',
      start_date: '2027-03-02',
      end_date: '2027-03-02',
      all_day: true,
    });
    const json = new EventListJson(h.app.config);
    await expectSameAsRenderEvent(json);
    await expectSameAsRenderEvent(json);

    // A venue edit, new term counts (another event with the same terms), an event edit.
    const venueId = first.venue.id as number;
    expect(
      (await h.call('PATCH', `/venues/${venueId}`, { as: 'administrator', body: { city: 'Bonn' } })).status,
    ).toBe(200);
    await h.created('/events', {
      title: 'Again',
      start_date: '2027-03-03 10:00',
      end_date: '2027-03-03 11:00',
      categories: ['Music'],
      tags: ['live'],
    });
    expect(
      (
        await h.call('PATCH', `/events/${first.id}`, {
          as: 'administrator',
          body: { title: 'Renamed', cost: 'Free' },
        })
      ).status,
    ).toBe(200);
    await expectSameAsRenderEvent(json);
    // Kept in too little room: the oldest fragments make way, and the items are still the same.
    await expectSameAsRenderEvent(new EventListJson(h.app.config, 600));
  });

  it("a page's ETag follows its bytes: equal pages, kept or made afresh, share it; any change gives another", async () => {
    for (let i = 0; i < 6; i++) {
      await h.created('/events', {
        title: `Event ${i}`,
        start_date: `2027-04-0${i + 1} 10:00`,
        end_date: `2027-04-0${i + 1} 11:00`,
        venue: i % 2 ? US_VENUE : undefined,
        categories: i % 3 ? ['Music'] : [],
        tags: i % 2 ? ['live', 'free'] : ['free'],
      });
    }
    const pageOf = async (json: EventListJson, redactFirst = false, rest = '"total":6}') => {
      const { items } = await h.store.listEvents({ offset: 0, limit: 50, visibility });
      const rel = await loadRelated(h.store, items, h.users.administrator);
      return json.page('events', items, rel, rest, (e) =>
        redactFirst && e.id === items[0].id ? '{"r":1}' : null,
      );
    };
    const kept = new EventListJson(h.app.config);
    const first = await pageOf(kept);
    const again = await pageOf(kept);
    const afresh = await pageOf(new EventListJson(h.app.config));
    const unkeptHeads = await pageOf(new EventListJson(h.app.config, 32_000_000, false));
    expect(first.etag).toMatch(/^"[\w-]{32}"$/);
    for (const page of [again, afresh, unkeptHeads]) expect(page).toEqual(first);

    const tags = new Set([first.etag]);
    const changed = async (page: { body: Buffer; etag: string }) => {
      expect(page.body).not.toEqual(first.body);
      expect(tags.has(page.etag)).toBe(false);
      tags.add(page.etag);
    };
    await changed(await pageOf(kept, true));
    await changed(await pageOf(kept, false, '"total":7}'));
    const { items } = await h.store.listEvents({ offset: 0, limit: 50, visibility });
    const venueId = items.find((e) => e.venue_id)!.venue_id!;
    expect(
      (await h.call('PATCH', `/venues/${venueId}`, { as: 'administrator', body: { city: 'Bonn' } })).status,
    ).toBe(200);
    await changed(await pageOf(kept));
    expect(
      (await h.call('PATCH', `/events/${items[0].id}`, { as: 'administrator', body: { title: 'Renamed' } }))
        .status,
    ).toBe(200);
    await changed(await pageOf(kept));
  });
});
