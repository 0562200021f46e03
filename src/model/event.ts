/** Events: write fields (seed table, contract B.6) and the response shape (A.1). */
import { z } from 'zod';
import { CostDetails, DateDetails, GlobalIds, ImageOrFalse, listPaging } from './common.ts';
import { CURRENCY_CODE, isValidCostInput } from './cost.ts';
import { Organizer } from './organizer.ts';
import {
  httpUrl,
  WireDateTime,
  wpBoolean,
  wpDateTime,
  wpInteger,
  wpNonEmptyString,
  wpString,
} from './primitives.ts';
import { OrganizerRefs, TermRefs, VenueRef } from './refs.ts';
import { WritableStatus } from './status.ts';
import { EmbeddedTerm } from './term.ts';
import { normalizeTimezone } from './timezone.ts';
import { Venue } from './venue.ts';

export const EventWrite = z.object({
  title: wpNonEmptyString.describe('required on create'),
  start_date: wpDateTime.describe('required on create; wall time in `timezone` unless it has an offset'),
  end_date: wpDateTime.describe('required on create'),
  author: wpInteger,
  date: wpDateTime.describe('publication date, site time zone'),
  date_utc: wpDateTime.describe('publication date, UTC; wins over `date`'),
  description: wpString.nullable(),
  excerpt: wpString.nullable(),
  slug: wpNonEmptyString,
  status: WritableStatus,
  timezone: z
    .union([
      z.string().refine((s) => s === '' || normalizeTimezone(s) !== null, 'Invalid time zone.'),
      z.null(),
    ])
    .meta({ 'x-wp-type': 'string', description: 'IANA name, `UTC`, `UTC±H[:MM]` or `±HH:MM`' }),
  all_day: wpBoolean,
  image: z
    .union([z.string(), z.int(), z.null()])
    .meta({ 'x-wp-type': 'string', description: 'attachment id or http(s) URL' }),
  cost: z
    .unknown()
    .refine(isValidCostInput, 'Invalid cost.')
    .meta({ 'x-wp-type': 'string', description: 'a string, a number, or an array of them (A.6)' }),
  currency_code: z
    .union([z.literal(''), z.null(), z.string().regex(CURRENCY_CODE, 'Invalid currency code.')])
    .meta({
      'x-wp-type': 'string',
      description:
        "ISO 4217 code of the cost's currency (`EUR`), shown in `cost_details.currency_code` and JSON-LD's `priceCurrency`; `\"\"` or `null` clears it. Not in TEC's API (it keeps the code only from its CSV importer)",
    }),
  website: z.union([z.literal(''), z.null(), httpUrl]).meta({ 'x-wp-type': 'string' }),
  show_map: wpBoolean,
  show_map_link: wpBoolean,
  hide_from_listings: wpBoolean,
  sticky: wpBoolean,
  featured: wpBoolean,
  categories: TermRefs,
  tags: TermRefs,
  venue: VenueRef,
  organizer: OrganizerRefs,
});
export type EventWriteInput = Partial<z.output<typeof EventWrite>>;

/** Fields whose `null` clears the value on update (B.6.3); `null` elsewhere is a 400. */
export const EVENT_NULLABLE = new Set([
  'description',
  'excerpt',
  'image',
  'cost',
  'currency_code',
  'website',
  'venue',
  'organizer',
  'categories',
  'tags',
  'timezone',
]);

/** Booleans are `null` only in lists, on password-protected events not unlocked (A.10). */
const flag = z.boolean().nullable();

export const Event = z
  .object({
    id: z.int(),
    ...GlobalIds,
    author: z.string().describe('numeric string'),
    status: z.string(),
    date: z.string(),
    date_utc: z.string(),
    modified: z.string(),
    modified_utc: z.string(),
    url: z.string(),
    rest_url: z.string(),
    title: z.string(),
    description: z.string(),
    excerpt: z.string(),
    slug: z.string(),
    image: ImageOrFalse,
    all_day: flag,
    start_date: WireDateTime,
    start_date_details: DateDetails,
    end_date: WireDateTime,
    end_date_details: DateDetails,
    utc_start_date: WireDateTime,
    utc_start_date_details: DateDetails,
    utc_end_date: WireDateTime,
    utc_end_date_details: DateDetails,
    timezone: z.string(),
    timezone_abbr: z.string(),
    cost: z.string(),
    cost_details: CostDetails,
    website: z.string(),
    show_map: flag,
    show_map_link: flag,
    hide_from_listings: flag,
    sticky: flag,
    featured: flag,
    categories: z.array(EmbeddedTerm),
    tags: z.array(EmbeddedTerm),
    venue: z.union([Venue, z.array(z.never()).length(0)]),
    organizer: z.array(Organizer),
    json_ld: z.record(z.string(), z.unknown()).optional().describe('single GETs only'),
  })
  .meta({ id: 'Event' });

export const EventList = z.object({ events: z.array(Event), ...listPaging }).meta({ id: 'EventList' });
