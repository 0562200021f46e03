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
  expect(JSON.parse(page.toString())).toEqual({
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
  });
});
