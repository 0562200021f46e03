/**
 * The recurring series of the Riverside sample calendar and their RECURRENCE-ID overrides.
 *
 * Public: `SERIES` (masters first, then overrides, in the order an export writes them).
 * Chosen to cover what breaks importers: weekly and monthly rules with BYDAY, COUNT and UNTIL
 * (one UNTIL equal to an occurrence, RFC 5545 §3.3.10 says inclusive), INTERVAL=2, EXDATEs,
 * a moved, a retitled and a cancelled occurrence, series in Berlin, New York, Tokyo and UTC that
 * cross the March and October 2027 DST changes (the US changes two weeks before the UK in March and
 * one week after in autumn), and all-day series, one of them multi-day.
 */

import { type SampleEvent, UID_DOMAIN } from './community-data.ts';

const uid = (name: string): string => `series-${name}@${UID_DOMAIN}`;

const yoga: SampleEvent = {
  uid: uid('gentle-yoga'),
  title: 'Gentle Yoga',
  description:
    'A slow, friendly class for all bodies and all ages; chairs available for anyone who prefers not to get down on the floor.\nBring a mat if you have one (we have spares).\nDrop in: £6, or £50 for a ten-class card.\nMore: https://example.org/riverside/yoga',
  start: '2026-09-01 09:30',
  end: '2026-09-01 10:30',
  zone: 'Europe/London',
  venue: 'centre',
  organizer: 'yoga',
  categories: ['Health & Wellbeing'],
  rrule: 'FREQ=WEEKLY;BYDAY=TU',
  // Christmas break, Easter Tuesday and the late-summer break.
  exdates: [
    '2026-12-22 09:30',
    '2026-12-29 09:30',
    '2027-03-30 09:30',
    '2027-08-24 09:30',
    '2027-08-31 09:30',
  ],
  cost: '6',
};

const eveningYoga: SampleEvent = {
  uid: uid('evening-yoga-flow'),
  title: 'Evening Yoga Flow',
  description:
    'A stronger, flowing class to finish the working day. Some yoga experience helpful.\nBook a place: https://example.org/riverside/yoga/evening',
  start: '2027-01-07 18:30',
  end: '2027-01-07 19:45',
  zone: 'Europe/London',
  venue: 'leisure',
  organizer: 'yoga',
  categories: ['Health & Wellbeing'],
  rrule: 'FREQ=WEEKLY;BYDAY=TH;COUNT=30',
};

const bookClub: SampleEvent = {
  uid: uid('book-club'),
  title: 'Riverside Book Club',
  description:
    "We meet on the second Thursday of the month in the library's reading room.\nNew members always welcome: read the book (or don't) and come along for tea, biscuits and a good natter.\nThis season's list: https://example.org/riverside/library/book-club",
  start: '2026-10-08 19:00',
  end: '2026-10-08 20:30',
  zone: 'Europe/London',
  venue: 'library',
  organizer: 'library',
  categories: ['Talks & Books'],
  // 19:00 BST on 8 July 2027 is 18:00 UTC: the last occurrence is included.
  rrule: 'FREQ=MONTHLY;BYDAY=2TH;UNTIL=20270708T180000Z',
};

const market: SampleEvent = {
  uid: uid('farmers-market'),
  title: "Riverside Farmers' Market",
  description:
    'Local producers every first Saturday: vegetables, bread, cheese, meat, honey, plants and hot food.\nCash and cards accepted; bring your own bags.\nStallholder enquiries: https://example.org/riverside/market',
  start: '2026-01-03 09:00',
  end: '2026-01-03 13:00',
  zone: 'Europe/London',
  venue: 'market',
  organizer: 'market',
  categories: ['Markets'],
  rrule: 'FREQ=MONTHLY;BYDAY=1SA',
  exdates: ['2027-01-02 09:00'],
};

const council: SampleEvent = {
  uid: uid('full-council'),
  title: 'Full Town Council Meeting',
  description:
    'Meetings are open to the public. Members of the public may speak for up to three minutes during public participation; please tell the clerk beforehand.\nAgenda and minutes: https://example.org/riverside/council/meetings',
  start: '2026-05-18 19:00',
  end: '2026-05-18 21:00',
  zone: 'Europe/London',
  venue: 'townHall',
  organizer: 'council',
  categories: ['Council & Civic'],
  rrule: 'FREQ=MONTHLY;BYDAY=3MO;COUNT=24',
  url: 'https://example.org/riverside/council/meetings',
};

const toddlers: SampleEvent = {
  uid: uid('toddler-music'),
  title: 'Toddler Music & Rhyme Time',
  description:
    'Songs, rhymes and shakers for under-4s and their grown-ups. Free, no need to book.\nTerm time only: no sessions in school holidays.',
  start: '2026-09-02 10:00',
  end: '2026-09-02 10:45',
  zone: 'Europe/London',
  venue: 'library',
  organizer: 'library',
  categories: ['Family', 'Music'],
  rrule: 'FREQ=WEEKLY;BYDAY=WE,FR;UNTIL=20270716T230000Z',
  exdates: [
    '2026-10-28 10:00',
    '2026-10-30 10:00',
    '2026-12-23 10:00',
    '2026-12-25 10:00',
    '2026-12-30 10:00',
    '2027-01-01 10:00',
    '2027-02-17 10:00',
    '2027-02-19 10:00',
    '2027-03-26 10:00',
    '2027-03-31 10:00',
    '2027-04-02 10:00',
    '2027-06-02 10:00',
    '2027-06-04 10:00',
  ],
  cost: 'Free',
};

const openMic: SampleEvent = {
  uid: uid('open-mic'),
  title: 'Open Mic Night',
  description:
    'Songs, poems, stand-up, anything goes. Sign-up sheet from 19:00; ten minutes each.\nPA and a house guitar provided.',
  start: '2026-06-26 19:30',
  end: '2026-06-26 22:30',
  zone: 'Europe/London',
  venue: 'kingfisher',
  organizer: 'jazz',
  categories: ['Music'],
  rrule: 'FREQ=MONTHLY;BYDAY=-1FR',
};

const repair: SampleEvent = {
  uid: uid('repair-cafe'),
  title: 'Repair Café',
  description:
    'Bring your broken toasters, lamps, bikes, clothes and toys; volunteer fixers will help you mend them.\nLast items accepted at 12:30. Donations welcome.\nhttps://example.org/riverside/repair-cafe',
  start: '2026-11-14 10:00',
  end: '2026-11-14 13:00',
  zone: 'Europe/London',
  venue: 'stMarys',
  organizer: 'repair',
  categories: ['Arts & Crafts'],
  rrule: 'FREQ=MONTHLY;BYDAY=2SA;COUNT=12',
};

const walkingFootball: SampleEvent = {
  uid: uid('walking-football'),
  title: 'Walking Football',
  description:
    'Fortnightly, for anyone over 50 or returning from injury. No running, no heading.\n£3 per session.',
  start: '2026-10-03 10:00',
  end: '2026-10-03 11:30',
  zone: 'Europe/London',
  venue: 'leisure',
  organizer: 'centre',
  categories: ['Health & Wellbeing', 'Outdoors'],
  rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=SA;UNTIL=20270626T090000Z',
};

const german: SampleEvent = {
  uid: uid('german-conversation'),
  title: "German Conversation with Riverside's Twin Town (online)",
  description:
    'Practise your German with members of our partner association in Berlin-Mitte; all levels, breakout rooms by ability.\nThe session is set in Berlin time (19:00 CET/CEST).\nRegister for the link: https://example.org/riverside/twinning/german',
  start: '2026-12-02 19:00',
  end: '2026-12-02 20:00',
  zone: 'Europe/Berlin',
  venue: 'online',
  organizer: 'twinning',
  categories: ['Talks & Books'],
  rrule: 'FREQ=MONTHLY;BYDAY=1WE;COUNT=10',
};

const writers: SampleEvent = {
  uid: uid('transatlantic-writers'),
  title: "Transatlantic Writers' Circle (online)",
  description:
    'A weekly writing hour with the Riverside Public Library in Riverside, New York. Prompts, quiet writing, then sharing.\nHeads up: the US changes its clocks two weeks before the UK, so between 14 and 28 March the session starts an hour earlier here.',
  start: '2027-01-07 13:00',
  end: '2027-01-07 14:30',
  zone: 'America/New_York',
  venue: 'online',
  organizer: 'library',
  categories: ['Talks & Books'],
  rrule: 'FREQ=WEEKLY;BYDAY=TH;COUNT=16',
};

const sumie: SampleEvent = {
  uid: uid('sumi-e'),
  title: 'Sumi-e Ink Painting with Our Partners in Kameoka (online)',
  description:
    'Monthly ink-painting class taught live from Kameoka, Japan (19:00 JST: 10:00 GMT in winter, 11:00 BST in summer).\nKit list and link: https://example.org/riverside/twinning/sumi-e',
  start: '2027-01-17 19:00',
  end: '2027-01-17 20:30',
  zone: 'Asia/Tokyo',
  venue: 'online',
  organizer: 'twinning',
  categories: ['Arts & Crafts'],
  rrule: 'FREQ=MONTHLY;BYDAY=3SU;COUNT=8',
};

const radio: SampleEvent = {
  uid: uid('radio-whats-on'),
  title: "Riverside Community Radio: What's On, Live",
  description:
    'Our weekly listings show, broadcast from the studio at the Community Centre on 99.1 FM and online at https://example.org/riverside/radio\nThe show is scheduled in UTC, so it moves to 18:00 local time when the clocks go forward.',
  start: '2027-02-01 17:00',
  end: '2027-02-01 18:00',
  zone: 'UTC',
  venue: 'centre',
  organizer: 'radio',
  categories: ['Music'],
  rrule: 'FREQ=WEEKLY;BYDAY=MO;COUNT=20',
};

const freeSunday: SampleEvent = {
  uid: uid('gallery-free-sunday'),
  title: 'Free Entry Sunday at the Maltings Gallery',
  description:
    'No charge for any exhibition on the first Sunday of the month. Family trail sheets at the desk.',
  start: '2027-01-03',
  end: '2027-01-04',
  zone: 'Europe/London',
  venue: 'maltings',
  organizer: 'gallery',
  categories: ['Arts & Crafts', 'Family'],
  rrule: 'FREQ=MONTHLY;BYDAY=1SU;COUNT=6',
  exdates: ['2027-04-04'], // closed while the spring exhibition is hung
};

const festival: SampleEvent = {
  uid: uid('summer-festival'),
  title: 'Riverside Summer Festival',
  description:
    'Three days of music, food and family fun in Victoria Park: two stages, a craft village, the duck race on Sunday afternoon and fireworks on Saturday night.\nFull line-up: https://example.org/riverside/festival\nVolunteers needed; sign up at https://example.org/riverside/festival/volunteer',
  start: '2026-07-10',
  end: '2026-07-13',
  zone: 'Europe/London',
  venue: 'bandstand',
  organizer: 'centre',
  categories: ['Festivals', 'Music', 'Family'],
  rrule: 'FREQ=YEARLY;BYMONTH=7;BYDAY=2FR;COUNT=3',
  url: 'https://example.org/riverside/festival',
};

const pilates: SampleEvent = {
  uid: uid('chair-pilates'),
  title: 'Chair Pilates for Over-60s',
  description: 'Seated and standing exercises for strength and balance. £4, pay on the door.',
  start: '2026-11-02 11:00',
  end: '2026-11-02 11:45',
  zone: 'Europe/London',
  venue: 'stMarys',
  organizer: 'yoga',
  categories: ['Health & Wellbeing'],
  rrule: 'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=40',
};

const knit: SampleEvent = {
  uid: uid('knit-and-natter'),
  title: 'Knit & Natter',
  description: 'Knitting, crochet, sewing or just a cuppa. Every other Wednesday afternoon.',
  start: '2026-09-09 14:00',
  end: '2026-09-09 16:00',
  zone: 'Europe/London',
  venue: 'library',
  organizer: 'library',
  categories: ['Arts & Crafts'],
  rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=WE',
};

const film: SampleEvent = {
  uid: uid('film-club'),
  title: 'Riverside Film Club',
  description:
    'Independent and classic films on the big screen, last Thursday of the month. Bar open from 19:00.\nMembers £4, guests £6. Programme: https://example.org/riverside/film-club',
  start: '2026-09-24 19:30',
  end: '2026-09-24 22:00',
  zone: 'Europe/London',
  venue: 'cornExchange',
  organizer: 'centre',
  categories: ['Film & Theatre'],
  rrule: 'FREQ=MONTHLY;BYDAY=-1TH;UNTIL=20270624T235959Z',
};

const lunch: SampleEvent = {
  uid: uid('community-lunch'),
  title: 'Community Lunch',
  description: 'A hot two-course lunch cooked by volunteers; pay what you can. Everyone welcome.',
  start: '2026-12-15 12:00',
  end: '2026-12-15 13:30',
  zone: 'Europe/London',
  venue: 'stMarys',
  organizer: 'centre',
  categories: ['Family'],
  rrule: 'FREQ=MONTHLY;BYMONTHDAY=15;COUNT=12',
};

const youthTheatre: SampleEvent = {
  uid: uid('youth-theatre'),
  title: 'Youth Theatre (ages 11–16)',
  description: 'Drama games, devising and rehearsals for the summer show. Spring term.',
  start: '2027-01-11 17:30',
  end: '2027-01-11 19:00',
  zone: 'Europe/London',
  venue: 'youthClub',
  organizer: 'youth',
  categories: ['Film & Theatre', 'Family'],
  // The last session, 29 March, is the first Monday of BST: 17:30 BST = 16:30 UTC exactly.
  rrule: 'FREQ=WEEKLY;BYDAY=MO;UNTIL=20270329T163000Z',
};

/** An override: the master's fields, with `changes` on top, for the occurrence at `recurrenceId`. */
function override(master: SampleEvent, recurrenceId: string, changes: Partial<SampleEvent>): SampleEvent {
  const { rrule: _rrule, exdates: _exdates, ...rest } = master;
  const [, time] = recurrenceId.split(' ');
  const shift = (wall: string) => `${recurrenceId.slice(0, 10)} ${wall.split(' ')[1] ?? time}`;
  return { ...rest, start: recurrenceId, end: shift(master.end), recurrenceId, sequence: 1, ...changes };
}

const overrides: SampleEvent[] = [
  override(yoga, '2026-12-15 09:30', { title: 'Gentle Yoga: Festive Stretch & Mince Pies' }),
  override(eveningYoga, '2027-04-01 18:30', {
    venue: 'stMarys',
    description: "This week only: in St Mary's Church Hall, as the leisure centre studio is being repainted.",
  }),
  override(bookClub, '2027-02-11 19:00', {
    start: '2027-02-18 19:00',
    end: '2027-02-18 20:30',
    description:
      'Moved back a week because of the half-term author event. This month: "The Lighthouse Keeper\'s Daughter".',
    sequence: 2,
  }),
  override(council, '2027-05-17 19:00', {
    title: 'Annual Town Meeting & Full Council',
    end: '2027-05-17 21:30',
  }),
  override(council, '2027-08-16 19:00', {
    title: 'Full Town Council Meeting (cancelled: summer recess)',
    status: 'CANCELLED',
    sequence: 2,
  }),
  override(radio, '2027-05-31 17:00', {
    start: '2027-06-01 17:00',
    end: '2027-06-01 18:00',
    description: 'Moved to Tuesday this week because of the bank holiday.',
  }),
];

export const SERIES: readonly SampleEvent[] = [
  yoga,
  eveningYoga,
  bookClub,
  market,
  council,
  toddlers,
  openMic,
  repair,
  walkingFootball,
  german,
  writers,
  sumie,
  radio,
  freeSunday,
  festival,
  pilates,
  knit,
  film,
  lunch,
  youthTheatre,
  ...overrides,
];
