/**
 * CSV export → CSV import is lossless: random events created through the API (names with commas, quotes
 * and formula characters, descriptions and excerpts with any blanks and line breaks, every display switch,
 * events hidden from listings, all-day events in summer with their zone, venues and organizers with every
 * field) are exported from the store as `npm run export -- --format csv` does (exportFeed: TEC's three
 * files), read back by our importer (readCsv, the files beside it, map.ts), and give the same entities —
 * from the three files, and (names, times, texts, flags) from the events file alone.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFeed } from '../../src/export/export.ts';
import { feedSpec } from '../../src/export/feed-spec.ts';
import { DEFAULT_MAPPING } from '../../src/pipeline/definition.ts';
import type { Desired } from '../../src/pipeline/desired.ts';
import { mapRecords } from '../../src/pipeline/map.ts';
import { decodeEntities } from '../../src/render/text.ts';
import { imageUrl, venueOf, type WireEvent } from '../../src/render/wire.ts';
import { readCsv } from '../../src/sources/csv/index.ts';
import { readLinkedCsv, withLinked } from '../../src/sources/csv/linked.ts';
import type { OrganizerRecord, Standalone, VenueRecord } from '../../src/sources/record.ts';
import { seedAttachment } from '../server/fixtures.ts';
import { type Harness, makeApp, NOW, SITE } from '../server/harness.ts';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney'];
const NAMES = ['Okafor, Grace', 'The "Best" Club', '=Cmd Crew', 'Jo', 'Müller & Söhne', '+49 Events'];
const TERMS = ['Talks, lectures', 'Jazz', 'Family "fun"', 'Ünïcode'];
const VENUES = [
  {
    venue: 'Hall, upstairs',
    address: '5 Main St, Unit 2',
    city: 'Springfield',
    country: 'United States',
    state: 'IL',
    zip: '62701',
    phone: '+1 555 0100',
    website: 'https://hall.example.org/',
  },
  {
    venue: 'Café "Blau"',
    description: '  Hinterhof,\n\n\n  zweiter Stock \n',
    address: 'Hauptstr. 1',
    city: 'Berlin',
    province: 'Berlin',
    country: 'Germany',
    zip: '10115',
  },
];
/** Any text of these: blanks before and after line breaks, blank lines in a row, CR LF, tabs, quotes. */
const TEXT_UNITS = ['a', 'b', ',', ' ', ' ', '"', '\n', '\n', '\r\n', '\t', '=', 'é', "'", ';'];
const pad = (n: number) => String(n).padStart(2, '0');

const eventArb = fc.record({
  title: fc
    .string({ minLength: 1, maxLength: 40, unit: fc.constantFrom(...'Jazz night, é;"\'=+-@ü€&:'.split('')) })
    .filter((t) => t.trim() === t && t !== '' && !t.includes('  ')),
  description: fc.string({ maxLength: 60, unit: fc.constantFrom(...TEXT_UNITS) }),
  excerpt: fc.string({ maxLength: 20, unit: fc.constantFrom(...TEXT_UNITS) }),
  zone: fc.constantFrom(...ZONES),
  month: fc.integer({ min: 1, max: 12 }),
  day: fc.integer({ min: 1, max: 26 }),
  hour: fc.integer({ min: 0, max: 22 }),
  allDay: fc.boolean(),
  days: fc.integer({ min: 1, max: 3 }),
  featured: fc.boolean(),
  sticky: fc.boolean(),
  hide: fc.boolean(),
  showMap: fc.boolean(),
  showMapLink: fc.boolean(),
  image: fc.boolean(),
  cost: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
  currency: fc.option(fc.constantFrom('EUR', 'USD', 'CHF'), { nil: undefined }),
  website: fc.option(fc.constantFrom('https://example.org/a', 'https://example.org/b?x=1,2'), {
    nil: undefined,
  }),
  venue: fc.option(fc.integer({ min: 0, max: VENUES.length - 1 }), { nil: undefined }),
  organizers: fc.subarray(NAMES, { maxLength: 3 }),
  categories: fc.subarray(TERMS),
  tags: fc.subarray(TERMS, { maxLength: 2 }),
});
type Generated = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function body(g: Generated, n: number, run: string): Record<string, unknown> {
  const ymd = `2027-${pad(g.month)}-${pad(g.day)}`;
  const endDay = `2027-${pad(g.month)}-${pad(g.day + g.days - 1)}`;
  return {
    title: `${g.title} #${n}`, // unique: rows without an id are keyed by title and start
    status: 'publish',
    description: g.description,
    excerpt: g.excerpt,
    timezone: g.zone,
    all_day: g.allDay,
    start_date: g.allDay ? ymd : `${ymd} ${pad(g.hour)}:30:00`,
    end_date: g.allDay ? endDay : `${ymd} ${pad(g.hour + 1)}:15:00`,
    featured: g.featured,
    sticky: g.sticky,
    hide_from_listings: g.hide,
    show_map: g.showMap,
    show_map_link: g.showMapLink,
    ...(g.cost === undefined ? {} : { cost: `€${g.cost}` }),
    ...(g.currency === undefined ? {} : { currency_code: g.currency }),
    ...(g.website === undefined ? {} : { website: g.website }),
    ...(g.image ? { image: images.event } : {}),
    ...(g.venue === undefined ? {} : { venue: { ...VENUES[g.venue], image: images.venue } }),
    organizer: g.organizers.map((name) => ({
      organizer: name,
      image: images.organizer,
      description: ` ${name}:\n\n\n a bio  `,
      email: `${name.replace(/\W/g, '').toLowerCase() || 'x'}@example.org`,
      phone: '+44 20 7946 0000',
    })),
    categories: g.categories,
    tags: [...g.tags, run], // the run's events, apart from earlier runs' in the one store
  };
}

let h: Harness;
let runs = 0;
/** Attachment ids of the images events, venues and organizers get. */
const images = { event: 0, venue: 0, organizer: 0 };
beforeAll(async () => {
  h = await makeApp();
  for (const kind of ['event', 'venue', 'organizer'] as const) {
    images[kind] = (await seedAttachment(h.store, { url: `${SITE}/uploads/2026/11/${kind}.png` })).id;
  }
});
afterAll(async () => {
  await h.app.close();
});

async function createAll(events: Generated[], run: string): Promise<WireEvent[]> {
  const ids: number[] = [];
  for (const [n, g] of events.entries()) ids.push((await h.created('/events', body(g, n, run))).id);
  const res = await h.call('GET', `/events?include=${ids.join(',')}&per_page=50&start_date=2020-01-01`);
  expect(res.status, res.body).toBe(200);
  return res.json.events as WireEvent[];
}

async function imported(files: { events: string; venues?: string; organizers?: string }) {
  let read = await readCsv(Buffer.from(files.events), { file: 'x.csv' });
  expect(read.problems).toEqual([]);
  if (files.venues !== undefined && files.organizers !== undefined) {
    const venues = await readLinkedCsv(Buffer.from(files.venues), 'venues', 'x.venues.csv');
    const organizers = await readLinkedCsv(Buffer.from(files.organizers), 'organizers', 'x.organizers.csv');
    read = withLinked(read, {
      venues: venues.items as Map<string, Standalone<VenueRecord>>,
      organizers: organizers.items as Map<string, Standalone<OrganizerRecord>>,
    });
  }
  return mapRecords(read.records, { pipeline: 'roundtrip', ...DEFAULT_MAPPING }).entities;
}

const text = (v: unknown) => decodeEntities(String(v ?? ''));
const names = (terms: { name: string }[]) => terms.map((t) => decodeEntities(t.name).toLowerCase()).sort();

async function expectSame(w: WireEvent, g: Generated, entities: Desired[], full: boolean) {
  const back = entities.find((e) => e.kind === 'event' && e.fields.title === text(w.title));
  expect(back, `event ${w.title}`).toBeDefined();
  // The texts as stored, every blank and line break kept (the store has what was sent).
  const stored = await h.store.getEvent(w.id);
  expect(stored?.description).toBe(g.description);
  expect(back?.fields.description).toBe(g.description);
  expect(back?.fields.excerpt).toBe(g.excerpt);
  const own = w.website === w.url ? '' : w.website;
  expect(back?.fields).toMatchObject({
    start_date: w.start_date,
    end_date: w.end_date,
    timezone: w.timezone,
    all_day: w.all_day,
    featured: w.featured,
    sticky: w.sticky,
    hide_from_listings: w.hide_from_listings,
    show_map: w.show_map,
    show_map_link: w.show_map_link,
    cost: w.cost,
    website: own,
    image: imageUrl(w.image),
  });
  expect(w.cost_details.currency_code).toBe(g.currency ?? '');
  expect(back?.fields.currency_code).toBe(g.currency);
  const byKey = (key: string | undefined) => entities.find((e) => e.key === key);
  expect((back?.refs.categories ?? []).map((k) => byKey(k)?.label.toLowerCase()).sort()).toEqual(
    names(w.categories),
  );
  expect((back?.refs.tags ?? []).map((k) => byKey(k)?.label.toLowerCase()).sort()).toEqual(names(w.tags));
  const organizers = (back?.refs.organizers ?? []).map((k) => byKey(k)!);
  expect(organizers.map((o) => o.label).sort()).toEqual(w.organizer.map((o) => text(o.organizer)).sort());
  const venue = venueOf(w);
  const venueBack = back?.refs.venue ? byKey(back.refs.venue) : undefined;
  expect(venueBack?.label).toBe(venue ? text(venue.venue) : undefined);
  if (!full) return;
  for (const o of w.organizer) {
    const found = organizers.find((x) => x.label === text(o.organizer));
    expect(found?.fields).toMatchObject({
      email: o.email,
      phone: o.phone,
      description: (await h.store.getLinked('organizer', o.id))?.description,
      image: imageUrl(o.image),
    });
  }
  if (venue) {
    const expected = Object.fromEntries(
      (['address', 'city', 'country', 'zip', 'phone', 'website'] as const)
        .filter((f) => typeof venue[f] === 'string' && venue[f] !== '')
        .map((f) => [f, text(venue[f])]),
    );
    expect(venueBack?.fields).toMatchObject({ ...expected, image: imageUrl(venue.image) });
    expect(venueBack?.fields.image).toMatch(/venue\.png$/);
    const description = (await h.store.getLinked('venue', venue.id))?.description;
    expect(venueBack?.fields.description).toBe(description || undefined);
    // TEC's one venue_state column is the state in the US, else the province (as the wire's stateprovince).
    const us = !venue.country || venue.country === 'United States';
    expect(venueBack?.fields[us ? 'state' : 'province']).toBe(venue.stateprovince);
  }
}

describe('CSV export then import', () => {
  it('gives back the same events from the three files, and their names and times from the events file alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 1, maxLength: 4 }), async (generated) => {
        const run = `run-${++runs}`;
        const wire = await createAll(generated, run);
        const source = { kind: 'store' as const, store: h.store, siteUrl: SITE };
        const exported = await exportFeed(source, feedSpec({ name: 'all', format: 'csv', tags: [run] }), NOW);
        const { body: events, venues, organizers } = exported;
        expect(exported.events).toBe(wire.length); // hidden ones too
        const full = await imported({ events, venues, organizers });
        const alone = await imported({ events });
        expect(full.filter((e) => e.kind === 'event')).toHaveLength(wire.length);
        for (const [n, w] of wire.entries()) {
          const g = generated[Number(/#(\d+)$/.exec(text(w.title))?.[1] ?? n)];
          await expectSame(w, g, full, true);
          await expectSame(w, g, alone, false);
        }
      }),
      { numRuns: 40 },
    );
  });
});
