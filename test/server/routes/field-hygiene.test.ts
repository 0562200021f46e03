/**
 * Issue 15 item 4: every text has a length limit (a 400 naming the field and the limit; a 900 KB title
 * was accepted), and venue/organizer contact fields are saved as WordPress saves them: no markup in
 * address, phone and email, a website as a clean http(s) URL (`"><script>` was kept as given).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIELD_LIMITS } from '../../../src/server/services/field-limits.ts';
import { type Harness, makeApp, snapshot } from '../harness.ts';

const EVENT = { title: 'Concert', start_date: '2027-03-01 19:00', end_date: '2027-03-01 21:00' };
const XSS = '"><script>alert(1)</script><b>x</b>';

describe('length limits and contact-field sanitising', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeApp();
  });
  afterEach(async () => {
    await h.app.close();
  });

  it('a text over its limit is a 400 naming the field and the limit, and writes nothing', async () => {
    const before = await snapshot(h.store);
    const title = await h.call('POST', '/events', {
      as: 'editor',
      body: { ...EVENT, title: 'x'.repeat(900_000) },
    });
    expect(title.status).toBe(400);
    expect(title.json.code).toBe('rest_invalid_param');
    expect(title.json.data.params.title).toBe(`title is longer than ${FIELD_LIMITS.title} characters.`);
    const nested = await h.call('POST', '/events', {
      as: 'editor',
      body: { ...EVENT, venue: { venue: 'Hall', address: 'a'.repeat(FIELD_LIMITS.address + 1) } },
    });
    expect(nested.status).toBe(400);
    expect(Object.keys(nested.json.data.params)).toEqual(['venue.address']);
    expect(await snapshot(h.store)).toBe(before);
    // At the limit is fine; characters are counted, not UTF-16 units.
    const atLimit = await h.call('POST', '/events', {
      as: 'editor',
      body: { ...EVENT, title: '🎷'.repeat(FIELD_LIMITS.title) },
    });
    expect(atLimit.status).toBe(201);
    // Reads too: a search is a text.
    const search = await h.call('GET', `/events?search=${'q'.repeat(FIELD_LIMITS.search + 1)}`);
    expect(search.status).toBe(400);
    expect(search.json.data.params.search).toMatch(/longer than/);
  });

  it('venue and organizer contact fields keep no markup; a website is a clean URL', async () => {
    const venue = await h.created('/venues', {
      venue: 'Hall',
      address: `1 Main St${XSS}`,
      city: 'Spring<b>field</b>',
      phone: `555${XSS}`,
      website: `https://hall.example/${XSS}`,
    });
    expect(venue.address).toBe('1 Main St">x');
    expect(venue.city).toBe('Springfield');
    expect(venue.phone).toBe('555">x');
    expect(venue.website).toBe(
      'https://hall.example/%22%3E%3Cscript%3Ealert(1)%3C/script%3E%3Cb%3Ex%3C/b%3E',
    );
    const organizer = await h.created('/organizers', {
      organizer: 'Jane',
      email: `jane@example.org${XSS}`,
      phone: '<img src=x onerror=alert(1)>+1 555 0100',
    });
    // No markup; otherwise any string, as TEC takes it (contract B.10.1).
    expect(organizer.email).toBe('jane@example.org">x');
    expect(organizer.phone).toBe('+1 555 0100');
    const plain = await h.created('/venues', {
      venue: 'Pub',
      address: '3 < 4 Lane',
      phone: '+44 20 7946 0000',
    });
    expect(plain.address).toBe('3 &lt; 4 Lane');
    expect(plain.phone).toBe('+44 20 7946 0000');
    const event = await h.created('/events', { ...EVENT, website: `https://ev.example/a"><script>` });
    expect(event.website).toBe('https://ev.example/a%22%3E%3Cscript%3E');
  });
});
