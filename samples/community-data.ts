/**
 * The people and places of the Riverside sample calendar, shared by its .ics and .csv renderings so that
 * both files describe the same town.
 *
 * Public: `Venue`, `Organizer`, `VENUES`, `ORGANIZERS`, `CATEGORIES`, `TOWN`, `location`.
 * Riverside is fictional; the coordinates sit around a small English market town on a river.
 */

export interface Venue {
  name: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  /** Absent for online venues, which have no GEO (as in real exports). */
  geo?: readonly [lat: number, lon: number];
}

export interface Organizer {
  name: string;
  email: string;
  phone: string;
}

export const TOWN = 'Riverside';

function local(name: string, street: string, zip: string, geo: readonly [number, number]): Venue {
  return { name, street, city: TOWN, state: 'Wessex', zip, country: 'United Kingdom', geo };
}

export const VENUES = {
  centre: local('Riverside Arts & Community Centre', '12 Mill Lane', 'RV1 2AB', [51.75214, -1.25779]),
  cornExchange: local('The Old Corn Exchange', '3 Market Square', 'RV1 1AA', [51.75302, -1.25612]),
  stMarys: local("St Mary's Church Hall", 'Church Street', 'RV1 3HT', [51.75388, -1.26041]),
  library: local('Riverside Library', '40 High Street', 'RV1 1BX', [51.75241, -1.25493]),
  townHall: local('Town Hall Council Chamber', 'Town Hall, Market Square', 'RV1 1AB', [51.75311, -1.25577]),
  bandstand: local('Victoria Park Bandstand', 'Park Road', 'RV2 4PQ', [51.75603, -1.26288]),
  boathouse: local('The Boathouse Café', 'Towpath Walk', 'RV1 2TW', [51.75112, -1.25891]),
  leisure: local('Riverside Leisure Centre', 'Station Road', 'RV2 5SR', [51.74977, -1.24912]),
  maltings: local('Maltings Gallery', '7 Maltings Yard', 'RV1 2MY', [51.75166, -1.25688]),
  garden: local('Riverside Community Garden', 'Allotment Lane', 'RV2 6AL', [51.74851, -1.26302]),
  kingfisher: local('The Kingfisher Inn', '22 Bridge Street', 'RV1 2BS', [51.75069, -1.25744]),
  school: local('Riverside Primary School', 'School Lane', 'RV2 4SL', [51.75522, -1.25135]),
  market: local('Market Square', 'Market Square', 'RV1 1AA', [51.75297, -1.25597]),
  hollybank: {
    name: 'Hollybank Nature Reserve (car park)',
    street: 'Hollybank Lane',
    city: 'Lower Wick',
    state: 'Wessex',
    zip: 'RV8 9HL',
    country: 'United Kingdom',
    geo: [51.73311, -1.28904],
  },
  youthClub: local('Riverside Youth Club', '5 Orchard Close', 'RV2 4OC', [51.75711, -1.25203]),
  // The twin town's arts centre, for the twinning visit; non-ASCII on purpose (octet-counted folding).
  berlin: {
    name: 'Kulturhaus Mitte',
    street: 'Auguststraße 21',
    city: 'Berlin',
    state: 'Berlin',
    zip: '10117',
    country: 'Germany',
    geo: [52.52689, 13.39561],
  },
  online: {
    name: 'Online (Zoom)',
    street: 'Link sent on booking',
    city: TOWN,
    state: 'Wessex',
    zip: '',
    country: 'United Kingdom',
  },
} as const satisfies Record<string, Venue>;

export type VenueKey = keyof typeof VENUES;

/** LOCATION text: "Name, street, town" as Google Calendar shows a picked place. */
export function location(venue: Venue): string {
  return [venue.name, venue.street, venue.city].filter(Boolean).join(', ');
}

export const ORGANIZERS = {
  centre: {
    name: 'Riverside Arts & Community Centre',
    email: 'hello@riverside.example.org',
    phone: '01632 960001',
  },
  library: {
    name: 'Friends of Riverside Library',
    email: 'friends.library@riverside.example.org',
    phone: '01632 960142',
  },
  council: {
    name: 'Riverside Town Council',
    email: 'clerk@council.riverside.example.org',
    phone: '01632 960200',
  },
  // Outlook writes "Last, First" display names; the comma forces a quoted CN (RFC 5545 §3.2).
  yoga: { name: 'Okafor, Grace', email: 'grace.okafor@riverside.example.org', phone: '07700 900311' },
  market: {
    name: "Riverside Farmers' Market Co-operative",
    email: 'market@riverside.example.org',
    phone: '01632 960377',
  },
  jazz: {
    name: 'Riverside Jazz & Folk Club',
    email: 'gigs@jazzfolk.riverside.example.org',
    phone: '07700 900455',
  },
  repair: { name: 'Riverside Repair Café', email: 'fixit@riverside.example.org', phone: '' },
  gallery: { name: 'Maltings Gallery', email: 'info@maltings.riverside.example.org', phone: '01632 960519' },
  twinning: {
    name: 'Riverside Twinning Association',
    email: 'twinning@riverside.example.org',
    phone: '01632 960604',
  },
  youth: {
    name: 'Riverside Youth Theatre',
    email: 'youththeatre@riverside.example.org',
    phone: '01632 960688',
  },
  radio: {
    name: 'Riverside Community Radio',
    email: 'studio@radio.riverside.example.org',
    phone: '01632 960777',
  },
} as const satisfies Record<string, Organizer>;

export type OrganizerKey = keyof typeof ORGANIZERS;

export const CATEGORIES = [
  'Music',
  'Arts & Crafts',
  'Family',
  'Health & Wellbeing',
  'Markets',
  'Talks & Books',
  'Council & Civic',
  'Festivals',
  'Film & Theatre',
  'Outdoors',
] as const;

export type Category = (typeof CATEGORIES)[number];

/**
 * One VEVENT of the sample, before rendering. Times are wall times `YYYY-MM-DD HH:MM` in `zone` (an IANA
 * name or `UTC`), or dates `YYYY-MM-DD` for all-day events, whose `end` is exclusive (RFC 5545 §3.6.1).
 */
export interface SampleEvent {
  uid: string;
  title: string;
  description: string;
  start: string;
  end: string;
  zone: string;
  venue: VenueKey;
  organizer: OrganizerKey;
  categories: readonly Category[];
  rrule?: string;
  exdates?: readonly string[];
  /** Set on an override: the original start of the occurrence it replaces, in the master's zone. */
  recurrenceId?: string;
  status?: 'CONFIRMED' | 'TENTATIVE' | 'CANCELLED';
  sequence?: number;
  url?: string;
  attach?: string;
  /** For the CSV rendering only (iCalendar has no cost, tags or featured flag). */
  cost?: string;
  tags?: readonly string[];
  featured?: boolean;
}

/** The UID domain of every sample event. */
export const UID_DOMAIN = 'riverside.example.org';
