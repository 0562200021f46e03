/**
 * A large, deterministic .ics for the import benchmark: seeded PRNG (mulberry32), so one seed always
 * gives the same bytes, and no Math.random. Events fall within one year from `start`; venues (LOCATION +
 * GEO), organizers (ORGANIZER;CN) and categories (CATEGORIES) come from pools of the requested sizes;
 * zones are mixed (Europe/London, Europe/Berlin, America/New_York, Asia/Kolkata, and UTC `Z` times) with
 * a full VTIMEZONE for each. A `recurringRatio` share of events are weekly series (COUNT 4–8), some with
 * an EXDATE and some with a RECURRENCE-ID override (moved, retitled or cancelled).
 *
 * Public: `IcsOptions`, `IcsStats`, `DEFAULT_ICS_OPTIONS`, `generateIcs`, `generateIcsWithStats`.
 * `tags` is accepted so one options object can describe the benchmark data set, but iCalendar has no tag
 * property (CATEGORIES are categories), so no tags are written and `stats.tags` is 0.
 *
 * CLI: `npx node bench/generate-ics.ts --events 10000 --out /tmp/x.ics` (stats as JSON on stderr).
 */

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { escapeText, foldLine, localStamp, paramValue, utcStamp, VTIMEZONES } from '../samples/ics-lines.ts';
import { prng } from './prng.ts';

export interface IcsOptions {
  /** VEVENT components to write, overrides included (default 10,000). */
  events: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  /** Share of events that are weekly series, 0–1 (default 0.1). */
  recurringRatio: number;
  seed: number;
  /** First day of the year the events fall in (its UTC date). */
  start: Date;
}

export interface IcsStats {
  vevents: number;
  series: number;
  overrides: number;
  cancelled: number;
  exdates: number;
  allDay: number;
  /** Instances once series are expanded (EXDATEs removed, cancelled overrides kept). */
  occurrences: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  zones: Record<string, number>;
}

export const DEFAULT_ICS_OPTIONS: Readonly<IcsOptions> = {
  events: 10_000,
  venues: 500,
  organizers: 300,
  categories: 40,
  tags: 150,
  recurringRatio: 0.1,
  seed: 42,
  start: new Date('2027-01-01T00:00:00Z'),
};

const DAY = 86_400_000;
const MINUTE = 60_000;
const list = (text: string): string[] => text.split('|');

const ZONES = [
  // zone, share of venues, cities as name:lat:lon
  ['Europe/London', 0.45, 'London:51.507:-0.128|Bristol:51.454:-2.588|Leeds:53.801:-1.549|York:53.96:-1.082'],
  ['Europe/Berlin', 0.2, 'Berlin:52.52:13.405|Hamburg:53.551:9.994|München:48.137:11.575|Köln:50.938:6.96'],
  ['America/New_York', 0.2, 'New York:40.713:-74.006|Boston:42.36:-71.059|Philadelphia:39.953:-75.165'],
  ['Asia/Kolkata', 0.15, 'Kolkata:22.573:88.364|Mumbai:19.076:72.878|Bengaluru:12.972:77.595'],
] as const;
const PLACES = list(
  'Riverside|Harbour|Old Town|Union|Maple|Granite|Lakeside|Market Street|Northgate|Elm Park|Kingsway|Station Road|Hilltop|Canal|Victoria|Foundry|Mill Lane|Cathedral|Orchard|Southbank',
);
const KINDS = list(
  'Hall|Theatre|Gallery|Library|Community Centre|Arts Centre|Pavilion|Studio|Church|Tavern|Café|Park|Museum|Boathouse|School',
);
const STREETS = list(
  'High Street|Church Lane|Station Road|Bridge Street|Park Avenue|Hauptstraße|Main Street|MG Road',
);
const FIRST = list('Ada|Bruno|Chloé|Dmitri|Esther|Farid|Grace|Hiro|Inès|Jonas|Kavya|Liam|Mónica|Nikhil|Olu');
const LAST = list(
  'Moreno|Okafor|Lindqvist|Tanaka|Byrne|Schulz|Haddad|Novak|Reyes|Walsh|Iyer|Müller|Chen|Kowalski',
);
const CATEGORY_NAMES = list(
  'Music|Theatre|Family|Workshops|Sports|Food & Drink|Festivals|Talks|Film|Outdoors|Art|Community|Dance|Comedy|Markets|Health|Yoga|Literature|History|Science|Technology|Gardening|Crafts|Photography|Wellbeing|Heritage|Nature|Kids|Seniors|Volunteering|Politics|Faith|Languages|Charity|Fashion|Games|Cinema|Choir|Jazz|Classical',
);
const TOPICS = list(
  'Jazz|Poetry|Yoga|Chess|Pottery|Salsa|Robotics|Gardening|Photography|Cinema|Choir|Coding',
);
const FORMATS = list('Night|Workshop|Meetup|Class|Festival|Open Day|Social|Masterclass|Talk|Fair');
const ADJECTIVES = list('Spring|Late|Community|Sunday|Beginners’|Grand|Summer|Family|Evening|Winter');

interface Venue {
  location: string;
  geo: string;
  zone: string;
}

function makeVenues(n: number, rand: () => number): Venue[] {
  return Array.from({ length: n }, (_, i) => {
    let pick = rand();
    let zone: (typeof ZONES)[number] = ZONES[0];
    for (const z of ZONES) {
      zone = z;
      pick -= z[1];
      if (pick < 0) break;
    }
    const cities = list(zone[2]);
    const [city, lat, lon] = cities[i % cities.length].split(':');
    const round = Math.floor(i / (PLACES.length * KINDS.length));
    const name = `${PLACES[i % PLACES.length]} ${KINDS[Math.floor(i / PLACES.length) % KINDS.length]}${round ? ` ${round + 1}` : ''}`;
    const street = `${1 + Math.floor(rand() * 200)} ${STREETS[Math.floor(rand() * STREETS.length)]}`;
    const jitter = () => (rand() - 0.5) * 0.1;
    const geo = `${(Number(lat) + jitter()).toFixed(5)};${(Number(lon) + jitter()).toFixed(5)}`;
    return { location: escapeText(`${name}, ${street}, ${city}`), geo, zone: zone[0] };
  });
}

function makeOrganizers(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const first = FIRST[i % FIRST.length];
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length];
    const round = Math.floor(i / (FIRST.length * LAST.length));
    // Every fifth one in Outlook's "Last, First" form, which needs a quoted CN.
    const cn = i % 5 === 0 ? `${last}, ${first}` : `${first} ${last}`;
    const email = `${first}.${last}${round || ''}`.normalize('NFKD').replace(/[^A-Za-z0-9.]/g, '');
    return `ORGANIZER;CN=${paramValue(round ? `${cn} ${round + 1}` : cn)}:mailto:${email.toLowerCase()}@example.org`;
  });
}

function makeCategories(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const base = CATEGORY_NAMES[i % CATEGORY_NAMES.length];
    return escapeText(
      i < CATEGORY_NAMES.length ? base : `${base} ${Math.floor(i / CATEGORY_NAMES.length) + 1}`,
    );
  });
}

/** A DTSTART/DTEND/EXDATE/RECURRENCE-ID line for a wall time (a Date read in UTC) in `zone`. */
function timeLine(name: string, wall: Date, zone: string, allDay: boolean): string {
  if (allDay) return `${name};VALUE=DATE:${localStamp(wall).slice(0, 8)}`;
  return zone === 'UTC' ? `${name}:${utcStamp(wall)}` : `${name};TZID=${zone}:${localStamp(wall)}`;
}

/** The .ics text and what it holds. */
export function generateIcsWithStats(input: Partial<IcsOptions> = {}): { ics: string; stats: IcsStats } {
  const o = { ...DEFAULT_ICS_OPTIONS, ...input };
  const rand = prng(o.seed);
  const int = (n: number) => Math.floor(rand() * n);
  const venues = makeVenues(o.venues, rand);
  const organizers = makeOrganizers(o.organizers);
  const categories = makeCategories(o.categories);
  const day0 = Date.UTC(o.start.getUTCFullYear(), o.start.getUTCMonth(), o.start.getUTCDate());
  const stamp = `DTSTAMP:${utcStamp(new Date(day0 - DAY))}`;
  const stats: IcsStats = {
    ...{ vevents: 0, series: 0, overrides: 0, cancelled: 0, exdates: 0, allDay: 0, occurrences: 0 },
    ...{ venues: 0, organizers: 0, categories: 0, tags: 0, zones: {} },
  };
  const used = { venues: new Set<number>(), organizers: new Set<number>(), categories: new Set<number>() };
  const out: string[] = [];

  for (let i = 0; stats.vevents < o.events; i++) {
    const v = int(venues.length);
    const venue = venues[v];
    const zone = rand() < 0.1 ? 'UTC' : venue.zone;
    const recurring = rand() < o.recurringRatio;
    const allDay = !recurring && rand() < 0.05;
    const count = recurring ? 4 + int(5) : 1;
    const offset = int(365 - 7 * (count - 1));
    const begin = new Date(
      day0 + offset * DAY + (allDay ? 0 : (8 + int(14)) * 3_600_000 + int(4) * 15 * MINUTE),
    );
    const end = new Date(begin.getTime() + (allDay ? (1 + int(3)) * DAY : (2 + int(15)) * 15 * MINUTE));
    const org = int(organizers.length);
    const cats = [int(categories.length), ...(rand() < 0.4 ? [int(categories.length)] : [])];
    const title = `${ADJECTIVES[int(ADJECTIVES.length)]} ${TOPICS[int(TOPICS.length)]} ${FORMATS[int(FORMATS.length)]}`;
    const uid = `bench-${o.seed}-${i}@calsync.example.org`;
    const created = new Date(day0 - (2 + int(200)) * DAY - int(86_400) * 1000);
    const long =
      rand() < 0.2 ? ' Doors open half an hour before; step-free access, hearing loop, quiet room.' : '';
    const description = escapeText(
      `${title} at ${venue.location.replace(/\\,/g, ',')}.${long}\nTickets and details: https://example.org/events/${i}`,
    );
    used.venues.add(v);
    used.organizers.add(org);
    for (const c of cats) used.categories.add(c);
    stats.zones[allDay ? 'date' : zone] = (stats.zones[allDay ? 'date' : zone] ?? 0) + 1;

    const common = [
      stamp,
      organizers[org],
      `UID:${uid}`,
      `CATEGORIES:${[...new Set(cats)].map((c) => categories[c]).join(',')}`,
      `CREATED:${utcStamp(created)}`,
      `DESCRIPTION:${description}`,
      `GEO:${venue.geo}`,
      `LAST-MODIFIED:${utcStamp(new Date(Math.min(created.getTime() + int(30) * DAY, day0 - DAY)))}`,
      `LOCATION:${venue.location}`,
    ];
    const master = [timeLine('DTSTART', begin, zone, allDay), timeLine('DTEND', end, zone, allDay)];
    let exdate = -1;
    let override = -1;
    if (recurring) {
      stats.series++;
      master.push(`RRULE:FREQ=WEEKLY;COUNT=${count}`);
      if (rand() < 0.3) exdate = 1 + int(count - 1);
      if (rand() < 0.3 && stats.vevents + 2 <= o.events) override = (exdate === 1 ? 2 : 1) + int(count - 3);
      if (override === exdate) override = -1;
      if (exdate > 0) {
        master.push(timeLine('EXDATE', new Date(begin.getTime() + exdate * 7 * DAY), zone, false));
        stats.exdates++;
      }
    }
    if (allDay) stats.allDay++;
    stats.occurrences += count - (exdate > 0 ? 1 : 0);
    out.push(
      'BEGIN:VEVENT',
      ...master,
      ...common,
      'SEQUENCE:0',
      'STATUS:CONFIRMED',
      `SUMMARY:${title}`,
      'END:VEVENT',
    );
    stats.vevents++;

    if (override > 0) {
      const shift = override * 7 * DAY;
      const kind = int(3); // 0 moved an hour later, 1 retitled, 2 cancelled
      const moved = kind === 0 ? 3_600_000 : 0;
      out.push(
        'BEGIN:VEVENT',
        timeLine('DTSTART', new Date(begin.getTime() + shift + moved), zone, false),
        timeLine('DTEND', new Date(end.getTime() + shift + moved), zone, false),
        ...common,
        timeLine('RECURRENCE-ID', new Date(begin.getTime() + shift), zone, false),
        'SEQUENCE:1',
        `STATUS:${kind === 2 ? 'CANCELLED' : 'CONFIRMED'}`,
        `SUMMARY:${kind === 1 ? `${title} (special edition)` : title}`,
        'END:VEVENT',
      );
      stats.vevents++;
      stats.overrides++;
      if (kind === 2) stats.cancelled++;
    }
  }

  stats.venues = used.venues.size;
  stats.organizers = used.organizers.size;
  stats.categories = used.categories.size;
  const zones = Object.keys(stats.zones)
    .filter((z) => z in VTIMEZONES)
    .sort();
  const head = [
    'BEGIN:VCALENDAR',
    'PRODID:-//calsync//bench generate-ics//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:Benchmark calendar (seed ${o.seed})`,
    'X-WR-TIMEZONE:Europe/London',
    ...zones.flatMap((z) => VTIMEZONES[z].split('\r\n')),
  ];
  const ics = `${[...head, ...out, 'END:VCALENDAR'].map(foldLine).join('\r\n')}\r\n`;
  return { ics, stats };
}

/** The .ics text for `options` (missing ones from `DEFAULT_ICS_OPTIONS`). */
export function generateIcs(options: Partial<IcsOptions> = {}): string {
  return generateIcsWithStats(options).ics;
}

function cli(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      events: { type: 'string' },
      venues: { type: 'string' },
      organizers: { type: 'string' },
      categories: { type: 'string' },
      tags: { type: 'string' },
      'recurring-ratio': { type: 'string' },
      seed: { type: 'string' },
      start: { type: 'string', default: DEFAULT_ICS_OPTIONS.start.toISOString().slice(0, 10) },
      out: { type: 'string' },
    },
  });
  const num = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v));
  const d = DEFAULT_ICS_OPTIONS;
  const options: IcsOptions = {
    events: num(values.events, d.events),
    venues: num(values.venues, d.venues),
    organizers: num(values.organizers, d.organizers),
    categories: num(values.categories, d.categories),
    tags: num(values.tags, d.tags),
    recurringRatio: num(values['recurring-ratio'], d.recurringRatio),
    seed: num(values.seed, d.seed),
    start: new Date(`${values.start}T00:00:00Z`),
  };
  for (const [key, value] of Object.entries(options)) {
    const bad =
      key === 'recurringRatio' ? !(Number(value) >= 0 && Number(value) <= 1) : !Number.isInteger(value);
    if (key !== 'start' && (bad || Number(value) < 0))
      throw new Error(`--${key}: expected a number ≥ 0, got ${value}`);
  }
  if (Number.isNaN(options.start.getTime()))
    throw new Error(`--start: expected YYYY-MM-DD, got ${values.start}`);
  const began = performance.now();
  const { ics, stats } = generateIcsWithStats(options);
  const ms = Math.round(performance.now() - began);
  if (values.out) writeFileSync(values.out, ics);
  else process.stdout.write(ics);
  process.stderr.write(`${JSON.stringify({ ...stats, bytes: Buffer.byteLength(ics), ms })}\n`);
}

if (process.argv[1] === import.meta.filename) cli(process.argv.slice(2));
