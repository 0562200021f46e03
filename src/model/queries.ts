/** List query parameters of the seed's route table, with the contract's rules (B.5, B.10.3, B.11). */
import { z } from 'zod';
import { listPaging } from './common.ts';
import { Organizer } from './organizer.ts';
import {
  wpBoolean,
  wpDateTime,
  wpIdList,
  wpInteger,
  wpNumber,
  wpPositiveInt,
  wpStringList,
} from './primitives.ts';
import { StatusFilter } from './status.ts';
import { Venue } from './venue.ts';

const paging = {
  page: wpPositiveInt.describe('archive page, default 1'),
  per_page: wpPositiveInt.describe('default 10; values over 50 are clamped to 50'),
};
const search = z.string().trim().min(1).meta({ 'x-wp-type': 'string' });

export const EventListQuery = z.object({
  ...paging,
  start_date: wpDateTime.describe('events starting at or after; default yesterday 00:00:00'),
  end_date: wpDateTime.describe('events ending at or before; default today + 2 years 23:59:59'),
  starts_before: wpDateTime,
  starts_after: wpDateTime,
  ends_before: wpDateTime,
  ends_after: wpDateTime,
  strict_dates: wpBoolean.describe('exact times instead of whole days'),
  search: search.describe('every word, in title, description or excerpt'),
  categories: wpStringList.describe('category slugs or ids; a category matches its descendants'),
  tags: wpStringList.describe('tag slugs or ids'),
  venue: wpIdList,
  organizer: wpIdList,
  featured: wpBoolean,
  status: StatusFilter,
  geoloc: wpBoolean.describe('accepted, no effect (TEC add-on)'),
  geoloc_lat: wpNumber.describe('accepted, no effect (TEC add-on)'),
  geoloc_lng: wpNumber.describe('accepted, no effect (TEC add-on)'),
  include: wpIdList.describe('exactly these ids; date filters are ignored'),
  post_parent: wpInteger.describe('an existing event id; matches nothing (no recurrence)'),
  ticketed: wpBoolean.describe('accepted, no effect (TEC add-on)'),
  password: z.string().describe('unlocks protected events with this password'),
});
export type EventListParams = Partial<z.output<typeof EventListQuery>>;

export const LinkedListQuery = z.object({
  ...paging,
  search: search.describe('every word, in name, description and contact fields'),
  event: wpInteger.describe('items linked to this event'),
  has_events: wpBoolean,
  only_with_upcoming: wpBoolean,
  status: StatusFilter,
});
export type LinkedListParams = Partial<z.output<typeof LinkedListQuery>>;

export const TermListQuery = z.object({
  ...paging,
  search: search.describe('name or slug substring'),
  exclude: wpIdList,
  include: wpIdList,
  order: z.enum(['asc', 'desc']).meta({ 'x-wp-type': 'string' }),
  orderby: z.enum(['name', 'id', 'slug', 'count', 'include']).meta({ 'x-wp-type': 'string' }),
  hide_empty: wpBoolean.describe('default true'),
  parent: wpInteger.describe('categories only'),
  post: wpInteger,
  event: wpInteger.describe('alias of post; wins'),
  slug: z.string().meta({ 'x-wp-type': 'string' }),
});
export const TagListQuery = TermListQuery.omit({ parent: true });
export type TermListParams = Partial<z.output<typeof TermListQuery>>;

export const VenueList = z.object({ venues: z.array(Venue), ...listPaging }).meta({ id: 'VenueList' });
export const OrganizerList = z
  .object({ organizers: z.array(Organizer), ...listPaging })
  .meta({ id: 'OrganizerList' });
