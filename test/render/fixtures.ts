/**
 * Wire objects for the renderer tests, built from the contract's examples
 * (test/fixtures/contract-examples.ts): `fullEvent` is A.1's `GET /events/8` (its `json_ld` with
 * the `…` placeholders filled in), `mainHall` and `janeOrg` its venue and organizer, `secondVenue`
 * is A.2's `POST /venues`. The other events vary one thing each and are derived with `makeEvent`.
 */

import { dateDetails } from '../../src/model/datetime.ts';
import { Event } from '../../src/model/index.ts';
import type { WireEvent, WireOrganizer, WireVenue } from '../../src/render/wire.ts';
import { EVENT_EXAMPLE, VENUE_EXAMPLE } from '../fixtures/contract-examples.ts';

const SITE = 'https://cal.example.org';
const API = `${SITE}/api/calendar/events/v1`;

/** A.5 date details of a `YYYY-MM-DD HH:MM:SS` string. */
export const details = dateDetails;

export const mainHall: WireVenue = EVENT_EXAMPLE.venue;

/** A.2 `POST /venues` → 201: no description, address, state, phone, website, image keys. */
export const secondVenue: WireVenue = VENUE_EXAMPLE;

export const janeOrg: WireOrganizer = EVENT_EXAMPLE.organizer[0];

/** An organizer without e-mail, as A.2 omits it. */
export const noMailOrg: WireOrganizer = {
  id: 7,
  author: '1',
  status: 'publish',
  date: '2026-11-21 23:44:24',
  date_utc: '2026-11-21 23:44:24',
  modified: '2026-11-21 23:44:24',
  modified_utc: '2026-11-21 23:44:24',
  url: `${SITE}/organizer/bob-co/`,
  organizer: 'Bob, &#038; Co',
  slug: 'bob-co',
  global_id: 'cal.example.org?id=7',
  global_id_lineage: ['cal.example.org?id=7'],
};

function term(
  id: number,
  name: string,
  slug: string,
  taxonomy: 'tribe_events_cat' | 'post_tag',
  description: string,
) {
  const collection = `${API}/${taxonomy === 'post_tag' ? 'tags' : 'categories'}`;
  return {
    name,
    slug,
    term_group: 0,
    term_taxonomy_id: id,
    taxonomy,
    description,
    parent: 0,
    count: 1,
    filter: 'raw' as const,
    id,
    urls: { self: `${collection}/${id}`, collection },
  };
}

/** A.1 `GET /events/8`, single-GET shape, its `json_ld` with the venue's and organizer's filled in. */
export const fullEvent: WireEvent = Event.parse({
  ...EVENT_EXAMPLE,
  json_ld: { ...EVENT_EXAMPLE.json_ld, location: mainHall.json_ld, organizer: janeOrg.json_ld },
});

/** The list-item shape of an event: no `json_ld` anywhere (A.7). */
export function listItem(e: WireEvent): WireEvent {
  const { json_ld: _, ...rest } = e;
  const venue = Array.isArray(rest.venue)
    ? rest.venue
    : (({ json_ld: _v, ...v }) => v)(rest.venue as WireVenue);
  const organizer = rest.organizer.map(({ json_ld: _o, ...o }) => o as WireOrganizer);
  return { ...rest, venue: venue as WireVenue, organizer };
}

/**
 * A list-item event derived from A.1: `local`/`utc` give start and end as wire strings, the rest
 * overrides keys. Dates' `_details` follow.
 */
export function makeEvent(
  id: number,
  o: { start: string; end: string; utcStart: string; utcEnd: string } & Partial<WireEvent>,
): WireEvent {
  const { start, end, utcStart, utcEnd, ...rest } = o;
  const slug = (rest.slug as string | undefined) ?? `event-${id}`;
  return {
    ...listItem(fullEvent),
    id,
    global_id: `cal.example.org?id=${id}`,
    global_id_lineage: [`cal.example.org?id=${id}`],
    rest_url: `${API}/events/${id}`,
    url: `${SITE}/event/${slug}/`,
    slug,
    start_date: start,
    start_date_details: details(start),
    end_date: end,
    end_date_details: details(end),
    utc_start_date: utcStart,
    utc_start_date_details: details(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: details(utcEnd),
    ...rest,
  };
}

/** A.1's "minimal event": empty texts and cost, flags false, no terms, venue or organizers. */
export const minimalEvent: WireEvent = makeEvent(9, {
  start: '2027-03-02 10:00:00',
  end: '2027-03-02 11:00:00',
  utcStart: '2027-03-02 10:00:00',
  utcEnd: '2027-03-02 11:00:00',
  title: 'Minimal',
  slug: 'minimal',
  description: '',
  excerpt: '',
  timezone: 'UTC',
  timezone_abbr: 'UTC',
  cost: '',
  cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
  website: `${SITE}/event/minimal/`,
  show_map: false,
  show_map_link: false,
  featured: false,
  categories: [],
  tags: [],
  venue: [],
  organizer: [],
});

/** T070: all-day in Berlin, 07-01 → 07-03, shown 00:00:00–23:59:59, UTC start the day before. */
export const allDayBerlin: WireEvent = makeEvent(10, {
  start: '2027-07-01 00:00:00',
  end: '2027-07-03 23:59:59',
  utcStart: '2027-06-30 22:00:00',
  utcEnd: '2027-07-03 21:59:59',
  title: 'Summer Festival',
  all_day: true,
  timezone: 'Europe/Berlin',
  timezone_abbr: 'CEST',
  venue: secondVenue,
  organizer: [noMailOrg, janeOrg],
});

/** T069: an offset zone; UTC two hours earlier. */
export const offsetZoneEvent: WireEvent = makeEvent(11, {
  start: '2027-05-10 14:00:00',
  end: '2027-05-10 16:30:00',
  utcStart: '2027-05-10 12:00:00',
  utcEnd: '2027-05-10 14:30:00',
  title: 'Offset Talk',
  timezone: 'UTC+2',
  timezone_abbr: 'UTC+2',
});

/** T067: Berlin 10:00 CEST = 08:00 UTC. */
export const berlinEvent: WireEvent = makeEvent(12, {
  start: '2027-06-01 10:00:00',
  end: '2027-06-01 12:00:00',
  utcStart: '2027-06-01 08:00:00',
  utcEnd: '2027-06-01 10:00:00',
  title: 'Berlin &#038; Friends',
  description: '<p>Line one<br />\nline two</p>\n<p>Para &#8220;two&#8221;, with; commas</p>',
  excerpt: '<p>Kurz &amp; gut</p>',
  timezone: 'Europe/Berlin',
  timezone_abbr: 'CEST',
  cost: '€10 – €20',
  cost_details: {
    currency_symbol: '€',
    currency_code: 'EUR',
    currency_position: 'postfix',
    values: ['10', '20'],
  },
  image: { url: `${SITE}/wp-content/uploads/2026/11/poster.png`, id: 80, extension: 'png' },
  categories: [
    term(2, 'Concerts', 'concerts', 'tribe_events_cat', 'Live music'),
    term(3, 'Jazz', 'jazz', 'tribe_events_cat', ''),
  ],
  tags: [],
  venue: secondVenue,
  organizer: [noMailOrg, janeOrg],
});

/** Long multi-byte title and description to exercise folding. */
export const longUnicodeEvent: WireEvent = makeEvent(13, {
  start: '2027-12-31 23:00:00',
  end: '2028-01-01 01:00:00',
  utcStart: '2027-12-31 22:00:00',
  utcEnd: '2028-01-01 00:00:00',
  title: `Silvester ${'Grüße aus Köln — 東京 🎆 '.repeat(6)}`.trim(),
  description: `<p>${'Ünïcödé 😀 テキスト '.repeat(20)}</p>`,
  timezone: 'Europe/Berlin',
  timezone_abbr: 'CET',
  venue: [],
  organizer: [],
});

export const listPage = {
  events: [listItem(fullEvent), minimalEvent],
  rest_url: `${API}/events/?page=1&per_page=2&start_date=2026-11-20%2000%3A00%3A00&end_date=2028-11-21%2023%3A59%3A59&status=publish`,
  total: 2,
  total_pages: 1,
};
