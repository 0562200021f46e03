/**
 * The one-off events of the Riverside sample calendar: each date of a template is its own VEVENT with
 * its own UID, the way organisers enter repeated workshops one by one rather than as a series.
 *
 * Public: `SINGLES` (sorted by start). Includes all-day and multi-day all-day events (exclusive end
 * date), a timed event over two nights, a TENTATIVE one, events on both DST-change days of 2027, events
 * in Berlin, New York, Tokyo and UTC, and a few outside the import window (past ones from 2026).
 */

import {
  type Category,
  type OrganizerKey,
  type SampleEvent,
  UID_DOMAIN,
  type VenueKey,
} from './community-data.ts';

interface Template {
  title: string;
  dates: readonly string[];
  /** `HH:MM` start; absent for an all-day event. */
  time?: string;
  minutes?: number;
  /** Length of an all-day event in days (default 1). */
  days?: number;
  zone?: string;
  venue: VenueKey;
  organizer: OrganizerKey;
  categories: readonly Category[];
  description: string;
  cost?: string;
  tags?: readonly string[];
  featured?: boolean;
  url?: string;
  attach?: string;
  status?: 'TENTATIVE';
}

// biome-ignore format: a table reads best one event per line
const TEMPLATES: readonly Template[] = [
  { title: 'Christmas Lights Switch-On', dates: ['2026-11-28'], time: '16:30', minutes: 120, venue: 'market', organizer: 'council', categories: ['Festivals', 'Family'], description: 'The Mayor switches on the lights at 17:30, with the Riverside Silver Band, a lantern procession from the library and hot chestnuts.\nMarket Square and High Street are closed to traffic from 15:00 to 19:30.\nDetails: https://example.org/riverside/christmas', cost: 'Free', tags: ['christmas', 'free'], featured: true, url: 'https://example.org/riverside/christmas' },
  { title: 'Christmas Craft Market', dates: ['2026-12-05'], time: '10:00', minutes: 360, venue: 'cornExchange', organizer: 'market', categories: ['Markets', 'Arts & Crafts'], description: 'Forty local makers: ceramics, prints, jewellery, knitwear, wooden toys and cards. Mulled apple juice in the foyer.', cost: 'Free', tags: ['christmas'] },
  { title: 'Wreath-Making Workshop', dates: ['2026-12-03', '2026-12-10'], time: '18:30', minutes: 150, venue: 'garden', organizer: 'centre', categories: ['Arts & Crafts'], description: 'Make a door wreath from foraged greenery; all materials, tea and mince pies included.\nBooking essential; £35: https://example.org/riverside/wreaths', cost: '35', tags: ['christmas', 'booking-required'] },
  { title: 'Riverside Youth Orchestra: Winter Concert', dates: ['2026-12-12'], time: '19:00', minutes: 120, venue: 'stMarys', organizer: 'centre', categories: ['Music'], description: 'Holst, Tchaikovsky, and a carol singalong to finish. Tickets £8, under-16s free, on the door.', cost: '8' },
  { title: 'Panto: Jack and the Beanstalk', dates: ['2026-12-17', '2026-12-18', '2026-12-19'], time: '19:00', minutes: 150, venue: 'cornExchange', organizer: 'youth', categories: ['Film & Theatre', 'Family'], description: "Oh yes it is! Riverside Youth Theatre's annual pantomime.\nTickets £8 (children), £14 (adults): https://example.org/riverside/panto", cost: '8 - 14', featured: true, url: 'https://example.org/riverside/panto' },
  { title: 'Carols, Mince Pies & Mulled Wine on the Bandstand', dates: ['2026-12-19'], time: '17:00', minutes: 90, venue: 'bandstand', organizer: 'centre', categories: ['Music', 'Festivals'], description: 'Bring a torch; song sheets provided. Collection for the food bank.', cost: 'Free', tags: ['christmas', 'free', 'outdoor'] },
  { title: 'Christmas Closure: Centre Closed', dates: ['2026-12-25'], days: 2, venue: 'centre', organizer: 'centre', categories: [], description: 'The Arts & Community Centre is closed on Christmas Day and Boxing Day. Merry Christmas!' },
  { title: "New Year's Day Riverside Walk", dates: ['2027-01-01'], time: '10:30', minutes: 120, venue: 'hollybank', organizer: 'centre', categories: ['Outdoors'], description: 'A gentle 4-mile walk along the river to Lower Wick and back. Boots recommended; dogs on leads welcome.', cost: 'Free', tags: ['outdoor', 'free'] },
  { title: 'Planning Committee', dates: ['2027-01-05', '2027-02-02', '2027-03-02', '2027-04-06', '2027-05-04', '2027-06-01', '2027-07-06', '2027-09-07', '2027-10-05', '2027-11-02'], time: '19:00', minutes: 90, venue: 'townHall', organizer: 'council', categories: ['Council & Civic'], description: 'The committee comments on planning applications in the parish. Agenda published three clear days before: https://example.org/riverside/council/planning' },
  { title: 'Mindfulness Taster Session', dates: ['2027-01-09'], time: '10:00', minutes: 90, venue: 'centre', organizer: 'yoga', categories: ['Health & Wellbeing'], description: 'An introduction to mindfulness practice; no experience needed. £5.', cost: '5' },
  { title: 'Exhibition: Rivers of Light, Photographs by Amara Singh', dates: ['2027-01-09'], days: 44, venue: 'maltings', organizer: 'gallery', categories: ['Arts & Crafts'], description: "Twenty years of photographs of the Wessex rivers at dawn and dusk.\nOpen Tuesday to Sunday, 10:00 to 16:00. Artist's talk on 30 January.", cost: '4', url: 'https://example.org/riverside/maltings/rivers-of-light' },
  { title: 'Volunteer Induction (online)', dates: ['2027-01-12', '2027-04-13', '2027-07-13', '2027-10-12'], time: '18:00', minutes: 60, zone: 'UTC', venue: 'online', organizer: 'centre', categories: ['Council & Civic'], description: 'An hour-long welcome for new volunteers: safeguarding, first aid basics and how the rota works.\nLink sent on sign-up: https://example.org/riverside/volunteer' },
  { title: 'Budget Consultation Drop-in', dates: ['2027-01-14'], time: '16:00', minutes: 180, venue: 'townHall', organizer: 'council', categories: ['Council & Civic'], description: 'Tell councillors what you think of next year\'s draft budget; precept, parks, toilets, grants.' },
  { title: 'Beginners\' Pottery Workshop', dates: ['2027-01-16', '2027-03-13', '2027-05-15', '2027-09-18', '2027-11-13'], time: '10:00', minutes: 180, venue: 'centre', organizer: 'centre', categories: ['Arts & Crafts'], description: 'Learn to throw a pot on the wheel. Clay, glazing and firing included; pieces ready to collect after three weeks.\n£40. Book: https://example.org/riverside/pottery', cost: '40', tags: ['booking-required'] },
  { title: 'Coffee Morning for Carers', dates: ['2027-01-20', '2027-04-21', '2027-07-21', '2027-10-20'], time: '10:30', minutes: 90, venue: 'boathouse', organizer: 'centre', categories: ['Health & Wellbeing'], description: 'A relaxed morning for unpaid carers; advisers from the carers\' centre will be there.', cost: 'Free', tags: ['free', 'accessible'] },
  { title: 'Jazz at the Corn Exchange: The Millstream Quartet', dates: ['2027-01-22'], time: '20:00', minutes: 150, venue: 'cornExchange', organizer: 'jazz', categories: ['Music'], description: 'Hard bop and ballads from one of the best bands in the region. Bar open from 19:15.', cost: '12 - 15', url: 'https://example.org/riverside/jazz' },
  { title: 'Burns Night Ceilidh', dates: ['2027-01-23'], time: '19:00', minutes: 240, venue: 'stMarys', organizer: 'jazz', categories: ['Music'], description: 'Live band, a caller for every dance, haggis (and a vegetarian one) at the interval. £15.', cost: '15' },
  { title: 'Life Drawing', dates: ['2027-01-27', '2027-02-24', '2027-03-31', '2027-04-28', '2027-05-26', '2027-06-30'], time: '19:00', minutes: 120, venue: 'maltings', organizer: 'gallery', categories: ['Arts & Crafts'], description: 'Untutored session with a model; bring your own materials. £10.', cost: '10' },
  { title: "Talk: The History of Riverside's Mills", dates: ['2027-02-04'], time: '19:30', minutes: 90, venue: 'library', organizer: 'library', categories: ['Talks & Books'], description: 'Local historian Peter Lane on the corn, paper and silk mills of the valley; with maps and photographs from the town archive.', cost: '4' },
  { title: 'Pancake Race', dates: ['2027-02-09'], time: '12:00', minutes: 60, venue: 'market', organizer: 'council', categories: ['Family', 'Festivals'], description: 'Shrove Tuesday tradition: races for children, adults and the Town Council. Frying pans provided.', cost: 'Free', tags: ['free', 'family-friendly'] },
  { title: 'Half-Term Holiday Club', dates: ['2027-02-15'], days: 5, venue: 'school', organizer: 'centre', categories: ['Family'], description: 'Sports, crafts and games for ages 5 to 11, 08:30 to 15:30 each day.\n£18 per day; book by the Friday before: https://example.org/riverside/holiday-club', cost: '18', tags: ['family-friendly', 'booking-required'] },
  { title: 'Online Safety Workshop for Older Adults', dates: ['2027-02-16'], time: '14:00', minutes: 90, zone: 'UTC', venue: 'online', organizer: 'library', categories: ['Talks & Books'], description: 'Spotting scam e-mails, safe online shopping and video calls with family. Free.', cost: 'Free' },
  { title: 'Ukulele Strum-Along', dates: ['2027-02-20', '2027-05-22', '2027-08-21', '2027-11-20'], time: '14:00', minutes: 120, venue: 'boathouse', organizer: 'jazz', categories: ['Music'], description: 'Loan ukuleles available. Chord sheets on screen. £3.', cost: '3' },
  { title: 'Careers Fair for Young People', dates: ['2027-02-25'], time: '15:30', minutes: 180, venue: 'youthClub', organizer: 'youth', categories: ['Family'], description: 'Local employers, colleges and apprenticeship providers; CV help on the day.', cost: 'Free' },
  { title: 'Seed Swap', dates: ['2027-02-27'], time: '10:00', minutes: 120, venue: 'garden', organizer: 'market', categories: ['Outdoors', 'Markets'], description: 'Bring spare seeds (labelled, please) and take home something new for the spring.', cost: 'Free', tags: ['free'] },
  { title: 'Author Talk: Jo Whitfield on "The Lost Lidos"', dates: ['2027-03-04'], time: '19:00', minutes: 90, venue: 'library', organizer: 'library', categories: ['Talks & Books'], description: 'Jo Whitfield talks about her book on the open-air pools of England, Riverside\'s own among them; signed copies on sale.', cost: '5' },
  { title: 'Quiz Night in Aid of the Lifeboats', dates: ['2027-03-05'], time: '19:30', minutes: 150, venue: 'kingfisher', organizer: 'centre', categories: ['Family'], description: 'Teams of up to six; £2 a head. Raffle at half-time.', cost: '2' },
  { title: 'Toy & Book Swap', dates: ['2027-03-06'], time: '10:00', minutes: 120, venue: 'centre', organizer: 'centre', categories: ['Family', 'Markets'], description: 'Bring clean, complete toys and books your family has outgrown; take home something new.', cost: 'Free', tags: ['free', 'family-friendly'] },
  { title: 'Blood Donor Session', dates: ['2027-03-17', '2027-07-28'], time: '13:00', minutes: 360, venue: 'stMarys', organizer: 'centre', categories: ['Health & Wellbeing'], description: 'Book an appointment with the blood service; walk-ins seen if there is space.' },
  { title: 'Sister-City Jazz Livestream from Brooklyn', dates: ['2027-03-20'], time: '15:00', minutes: 90, zone: 'America/New_York', venue: 'online', organizer: 'jazz', categories: ['Music'], description: 'A live set streamed from our partner club in New York, 15:00 Eastern (19:00 here: New York is already on summer time).', cost: 'Free' },
  { title: 'Spring Clean: Riverbank Litter Pick', dates: ['2027-03-20'], time: '10:00', minutes: 120, venue: 'boathouse', organizer: 'council', categories: ['Outdoors'], description: 'Gloves, pickers and bags provided; meet at the Boathouse.', cost: 'Free', tags: ['outdoor', 'free'] },
  { title: 'Easter Art Trail', dates: ['2027-03-26'], days: 11, venue: 'maltings', organizer: 'gallery', categories: ['Arts & Crafts', 'Family'], description: 'Find twelve hidden artworks in shop windows around town; collect a trail map from the gallery. Prize draw for completed sheets.', tags: ['family-friendly'] },
  // 28 March 2027 is both Easter Sunday and the day the UK clocks go forward.
  { title: 'Easter Egg Hunt', dates: ['2027-03-28'], time: '10:30', minutes: 90, venue: 'bandstand', organizer: 'centre', categories: ['Family'], description: "Clocks go forward last night: don't be late! Hunts for under-5s at 10:30 and over-5s at 11:15.", cost: '3', tags: ['family-friendly', 'outdoor'] },
  { title: 'Cherry Blossom Greetings from Kameoka (live link)', dates: ['2027-04-03'], time: '18:00', minutes: 60, zone: 'Asia/Tokyo', venue: 'online', organizer: 'twinning', categories: ['Festivals'], description: 'A live video link to the hanami festival in our Japanese partner town (18:00 JST, 10:00 BST).' },
  { title: 'Family Science Day', dates: ['2027-04-10'], time: '10:00', minutes: 300, venue: 'school', organizer: 'centre', categories: ['Family'], description: 'Rockets, slime, robots and a planetarium dome; drop in any time.', cost: 'Free', tags: ['family-friendly', 'free'] },
  { title: 'Exhibition: Printmakers of Wessex', dates: ['2027-04-10'], days: 44, venue: 'maltings', organizer: 'gallery', categories: ['Arts & Crafts'], description: 'Linocuts, etchings and screenprints by twenty regional artists; most work for sale.', cost: '4' },
  { title: 'Vintage & Vinyl Fair', dates: ['2027-04-17', '2027-10-23'], time: '10:00', minutes: 360, venue: 'cornExchange', organizer: 'market', categories: ['Markets'], description: 'Records, clothes, homeware and collectables; £2 entry, under-16s free.', cost: '2' },
  { title: 'Live from Berlin: Twin Town Choir Concert (stream)', dates: ['2027-04-24'], time: '19:30', minutes: 90, zone: 'Europe/Berlin', venue: 'online', organizer: 'twinning', categories: ['Music'], description: 'The Chor Mitte sings Brahms and Beatles, streamed live from Berlin (19:30 CEST, 18:30 here).' },
  { title: 'Dawn Chorus Walk', dates: ['2027-05-02'], time: '05:00', minutes: 120, venue: 'hollybank', organizer: 'centre', categories: ['Outdoors'], description: 'Listen to the birds wake up with a warden from the nature reserve; breakfast rolls afterwards. £5.', cost: '5', tags: ['outdoor'] },
  { title: 'Plant Sale', dates: ['2027-05-08'], time: '09:00', minutes: 180, venue: 'garden', organizer: 'market', categories: ['Markets', 'Outdoors'], description: 'Vegetable plants, perennials and herbs grown by the garden volunteers.' },
  { title: 'Riverside Beer & Cider Festival', dates: ['2027-05-28'], time: '18:00', minutes: 48 * 60, venue: 'cornExchange', organizer: 'jazz', categories: ['Festivals', 'Music'], description: 'Sixty real ales and ciders from the region, live folk music each evening, hot food.\nFriday 18:00 to Sunday 18:00. Entry £10 including a souvenir glass.', cost: '10', featured: true, url: 'https://example.org/riverside/beer-festival' },
  { title: 'Library Closed for Refurbishment', dates: ['2027-06-07'], days: 12, venue: 'library', organizer: 'library', categories: [], description: 'The library is closed while new shelving and lighting are fitted. Returns can be posted through the book drop.' },
  { title: 'Open Gardens Day', dates: ['2027-06-13'], venue: 'garden', organizer: 'market', categories: ['Outdoors'], description: 'Fifteen private gardens open their gates; tickets and maps from the Community Garden on the day.', cost: '6', tags: ['outdoor'] },
  { title: 'Neighbourhood Plan Workshop', dates: ['2027-06-16'], time: '19:00', minutes: 120, venue: 'townHall', organizer: 'council', categories: ['Council & Civic'], description: 'Help shape where new homes, shops and green spaces should go over the next fifteen years.' },
  { title: 'Midsummer Kayak Paddle', dates: ['2027-06-19'], time: '19:00', minutes: 120, venue: 'boathouse', organizer: 'centre', categories: ['Outdoors'], description: 'A guided evening paddle upstream; weather permitting, confirmed by 12:00 on the day.\n£20 including kit.', cost: '20', tags: ['outdoor', 'booking-required'], status: 'TENTATIVE' },
  { title: 'Summer Concert: Riverside Silver Band', dates: ['2027-06-20'], time: '15:00', minutes: 120, venue: 'bandstand', organizer: 'jazz', categories: ['Music'], description: 'Marches, film themes and a few surprises. Bring a picnic.', cost: 'Free', tags: ['free', 'outdoor'] },
  { title: 'Youth Theatre Summer Show: The Wind in the Willows', dates: ['2027-07-09', '2027-07-10'], time: '19:00', minutes: 120, venue: 'cornExchange', organizer: 'youth', categories: ['Film & Theatre', 'Family'], description: 'Ratty, Mole, Badger and Toad as you have never seen them.\nTickets £6 to £10: https://example.org/riverside/youth-theatre', cost: '6 - 10' },
  { title: 'Outdoor Cinema: Paddington', dates: ['2027-08-07'], time: '20:30', minutes: 120, venue: 'bandstand', organizer: 'centre', categories: ['Film & Theatre', 'Family'], description: 'Bring blankets and chairs. Film starts at sunset, around 20:45.', cost: '5', tags: ['family-friendly', 'outdoor'] },
  { title: 'Blue Plaque Unveiling: Eliza Parr, Mill Reformer', dates: ['2027-08-28'], time: '11:00', minutes: 45, venue: 'market', organizer: 'council', categories: ['Council & Civic', 'Talks & Books'], description: 'Eliza Parr (1831–1904) campaigned for shorter hours for Riverside\'s mill workers; the plaque is on her former home in Bridge Street.' },
  { title: 'Twinning Visit to Berlin-Mitte', dates: ['2027-09-02'], days: 4, venue: 'berlin', organizer: 'twinning', categories: ['Festivals'], description: 'Our delegation visits the twin town for its Kulturfest; host families wanted for the return visit in 2028.\nTrip details: https://example.org/riverside/twinning/berlin-2027', url: 'https://example.org/riverside/twinning/berlin-2027' },
  { title: 'Heritage Open Days: Behind the Scenes at the Mill', dates: ['2027-09-11', '2027-09-12'], time: '11:00', minutes: 300, venue: 'centre', organizer: 'centre', categories: ['Talks & Books'], description: 'Tours of the restored mill machinery every half hour; the last tour at 15:30.', cost: 'Free', tags: ['free', 'accessible'] },
  { title: 'Riverside Open Art Show', dates: ['2027-09-25'], days: 16, venue: 'maltings', organizer: 'gallery', categories: ['Arts & Crafts'], description: 'Work by anyone who lives, works or studies in Riverside; submissions by 1 September.', cost: 'Free' },
  { title: 'Harvest Supper', dates: ['2027-10-02'], time: '18:30', minutes: 180, venue: 'stMarys', organizer: 'centre', categories: ['Family'], description: 'Three courses from the community garden, then a barn dance. £12, children £6.', cost: '12' },
  { title: 'Apple Day', dates: ['2027-10-16'], time: '11:00', minutes: 240, venue: 'garden', organizer: 'market', categories: ['Festivals', 'Outdoors'], description: 'Apple pressing, identification, longest-peel competition and cider tasting.', cost: 'Free', tags: ['free', 'family-friendly'] },
  { title: 'Halloween Lantern Parade', dates: ['2026-10-31', '2027-10-30'], time: '17:30', minutes: 90, venue: 'market', organizer: 'youth', categories: ['Family', 'Festivals'], description: 'Make a lantern at the Youth Club from 16:00, then parade to the river. The clocks go back tonight!', tags: ['family-friendly'] },
  { title: 'Webinar: Community Arts Funding Across the Atlantic', dates: ['2027-11-03'], time: '12:00', minutes: 60, zone: 'America/New_York', venue: 'online', organizer: 'twinning', categories: ['Talks & Books'], description: 'Funders from both sides of the Atlantic on grants for small arts groups (12:00 Eastern, 16:00 here: the US is still on summer time this week).' },
  { title: 'Bonfire & Fireworks', dates: ['2026-11-05', '2027-11-05'], time: '18:00', minutes: 180, venue: 'leisure', organizer: 'council', categories: ['Festivals'], description: 'Bonfire lit at 18:30, fireworks at 19:30. No sparklers or dogs, please.\nTickets £5 in advance: https://example.org/riverside/fireworks', cost: '5', featured: true },
  { title: 'Remembrance Sunday Service', dates: ['2026-11-08', '2027-11-14'], time: '10:45', minutes: 75, venue: 'market', organizer: 'council', categories: ['Council & Civic'], description: 'Parade from the Town Hall at 10:45; two minutes\' silence at 11:00 at the war memorial.' },
  // Outside the import window (more than 30 days before 22 November 2026).
  { title: 'Spring Fair', dates: ['2026-05-09'], time: '10:00', minutes: 360, venue: 'market', organizer: 'market', categories: ['Markets', 'Festivals'], description: 'Stalls, maypole dancing and a dog show.' },
  { title: 'Summer Reading Challenge Launch', dates: ['2026-07-18'], time: '10:00', minutes: 120, venue: 'library', organizer: 'library', categories: ['Talks & Books', 'Family'], description: 'Sign up for the challenge and meet a real author.' },
];

function addMinutes(date: string, time: string, minutes: number): string {
  const t = new Date(`${date}T${time}:00Z`);
  t.setTime(t.getTime() + minutes * 60_000);
  return t.toISOString().slice(0, 16).replace('T', ' ');
}

function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return t.toISOString().slice(0, 10);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function expand(t: Template): SampleEvent[] {
  return t.dates.map((date) => ({
    uid: `${slug(t.title)}-${date}@${UID_DOMAIN}`,
    title: t.title,
    description: t.description,
    // Wall-clock arithmetic on purpose: a 90-minute event is 90 minutes on the clock, DST or not.
    start: t.time ? `${date} ${t.time}` : date,
    end: t.time ? addMinutes(date, t.time, t.minutes ?? 60) : addDays(date, t.days ?? 1),
    zone: t.zone ?? 'Europe/London',
    venue: t.venue,
    organizer: t.organizer,
    categories: t.categories,
    status: t.status,
    url: t.url,
    attach: t.attach,
    cost: t.cost,
    tags: t.tags,
    featured: t.featured,
  }));
}

export const SINGLES: readonly SampleEvent[] = TEMPLATES.flatMap(expand).sort(
  (a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid),
);
