/**
 * Varied, realistic `POST /events` bodies, from a seeded generator so that every run sends the
 * same sequence: distinct titles, wall times spread over one year in mixed zones, a venue from a
 * pool of 200 and an organizer from a pool of 100 as inline data (create-or-find, B.6.2), two of
 * 12 categories and three of 40 tags by name. `SEARCH_WORD` is one of ten title topics, so it
 * matches about a tenth of the events; `CATEGORY_SLUG` is one of the 12 categories, on about a
 * sixth of them.
 */
import { prng } from './prng.ts';

const TOPICS = [
  'Jazz',
  'Poetry',
  'Yoga',
  'Chess',
  'Pottery',
  'Salsa',
  'Robotics',
  'Gardening',
  'Photography',
  'Cinema',
];
const FORMATS = ['Night', 'Workshop', 'Meetup', 'Class', 'Festival', 'Open Day', 'Social', 'Masterclass'];
const ADJECTIVES = [
  'Spring',
  'Late',
  'Community',
  'Sunday',
  'Beginners’',
  'Grand',
  'Summer',
  'Family',
  'Evening',
];
const PLACES = [
  'Riverside',
  'Harbour',
  'Old Town',
  'Union',
  'Maple',
  'Granite',
  'Lakeside',
  'Market Street',
  'Northgate',
  'Elm Park',
  'Kingsway',
  'Station Road',
  'Hilltop',
  'Canal',
  'Victoria',
  'Foundry',
  'Mill Lane',
  'Cathedral',
  'Orchard',
  'Southbank',
];
const VENUE_KINDS = [
  'Hall',
  'Theatre',
  'Gallery',
  'Library',
  'Community Centre',
  'Arts Centre',
  'Pavilion',
  'Studio',
  'Church',
  'Tavern',
];
const CITIES = [
  ['Boston', 'US', '02110'],
  ['Leeds', 'GB', 'LS1 4AP'],
  ['Berlin', 'DE', '10115'],
  ['Austin', 'US', '78701'],
  ['Osaka', 'JP', '530-0001'],
  ['Melbourne', 'AU', '3000'],
  ['Lyon', 'FR', '69002'],
  ['Toronto', 'CA', 'M5H 2N2'],
];
const FIRST = ['Ada', 'Bruno', 'Chloé', 'Dmitri', 'Esther', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas'];
const LAST = [
  'Moreno',
  'Okafor',
  'Lindqvist',
  'Tanaka',
  'Byrne',
  'Schulz',
  'Haddad',
  'Novak',
  'Reyes',
  'Walsh',
];
const CATEGORIES = [
  'Music',
  'Theatre',
  'Family',
  'Workshops',
  'Sports',
  'Food & Drink',
  'Festivals',
  'Talks',
  'Film',
  'Outdoors',
  'Art',
  'Community',
];
const TAGS = [
  'free',
  'outdoor',
  'indoor',
  'kids',
  'seniors',
  'accessible',
  'beginner',
  'advanced',
  'live music',
  'food',
  'drinks',
  'dog friendly',
  'wheelchair access',
  'tickets',
  'donation',
  'members',
  'late night',
  'matinee',
  'weekly',
  'monthly',
  'annual',
  'charity',
  'students',
  'local',
  'international',
  'hands-on',
  'lecture',
  'panel',
  'screening',
  'exhibition',
  'market',
  'tour',
  'walk',
  'run',
  'dance',
  'choir',
  'orchestra',
  'acoustic',
  'dj',
  'vegan',
];
const ZONES = [
  'America/New_York',
  'Europe/London',
  'Europe/Berlin',
  'UTC',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Sydney',
  'America/Chicago',
];
const COSTS = ['Free', '10', '$5', '12.50', '$10 – $25'];

export const SEARCH_WORD = 'jazz';
export const CATEGORY_SLUG = 'music';

/** `count` distinct items of `pool`. */
function pickDistinct<T>(random: () => number, pool: readonly T[], count: number): T[] {
  const picked = new Set<T>();
  while (picked.size < count) picked.add(pool[Math.floor(random() * pool.length)]);
  return [...picked];
}

const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-DD HH:MM:00` of a UTC-based Date used as a plain wall-time calendar. */
const wallTime = (d: Date) =>
  `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:00`;

function venue(i: number) {
  const [city, country, zip] = CITIES[i % CITIES.length];
  return {
    venue: `${PLACES[i % PLACES.length]} ${VENUE_KINDS[Math.floor(i / PLACES.length)]}`,
    address: `${10 + i} ${PLACES[(i * 7) % PLACES.length]} Road`,
    city,
    country,
    zip,
  };
}

function organizer(i: number) {
  const first = FIRST[i % FIRST.length];
  const last = LAST[Math.floor(i / FIRST.length)];
  return { organizer: `${first} ${last}`, email: `${last.toLowerCase()}${i}@example.org` };
}

/** A generator of JSON bodies for events in `year`; each call returns the next one. */
export function eventBodies(year: number, seed = 2027): () => string {
  const random = prng(seed);
  const pick = <T>(pool: readonly T[]) => pool[Math.floor(random() * pool.length)];
  const yearStart = Date.UTC(year, 0, 1);
  let n = 0;
  return () => {
    n++;
    const topic = pick(TOPICS);
    const format = pick(FORMATS);
    const v = venue(Math.floor(random() * 200));
    const o = organizer(Math.floor(random() * 100));
    const day = Math.floor(random() * 365);
    const startMinute = (8 + Math.floor(random() * 14)) * 60 + 15 * Math.floor(random() * 4);
    const start = new Date(yearStart + (day * 1440 + startMinute) * 60_000);
    const end = new Date(start.getTime() + (60 + 30 * Math.floor(random() * 7)) * 60_000);
    return JSON.stringify({
      title: `${pick(ADJECTIVES)} ${topic} ${format} #${n}`,
      description:
        `<p>A ${format.toLowerCase()} for anyone curious about ${topic.toLowerCase()}, hosted by ${o.organizer} ` +
        `at ${v.venue}. All levels welcome; bring a friend.</p><p><strong>Doors</strong> open 30 minutes early.</p>`,
      start_date: wallTime(start),
      end_date: wallTime(end),
      timezone: pick(ZONES),
      cost: pick(COSTS),
      venue: v,
      organizer: o,
      categories: pickDistinct(random, CATEGORIES, 2),
      tags: pickDistinct(random, TAGS, 3),
    });
  };
}
