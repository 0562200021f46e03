/** Venues: write fields (seed table, contract B.10.1) and the response shape (A.2). */
import { z } from 'zod';
import { GlobalIds, ImageOrFalse } from './common.ts';
import { httpUrl, wpDateTime, wpInteger, wpLooseBoolean, wpNonEmptyString, wpString } from './primitives.ts';
import { WritableStatus } from './status.ts';

/** A text field that `""`/`null` clears (B.10.1). */
const clearable = wpString.nullable();

export const VenueWrite = z.object({
  venue: wpNonEmptyString.describe('venue name; required on create'),
  author: wpInteger,
  date: wpDateTime,
  date_utc: wpDateTime,
  description: clearable,
  status: WritableStatus,
  show_map: wpLooseBoolean,
  show_map_link: wpLooseBoolean,
  address: clearable,
  city: clearable,
  country: clearable,
  province: clearable,
  state: clearable,
  zip: clearable,
  phone: clearable,
  stateprovince: clearable,
  website: z.union([z.literal(''), z.null(), httpUrl]).meta({ 'x-wp-type': 'string' }),
  image: z.union([z.string(), wpInteger, z.null()]).meta({ 'x-wp-type': 'string' }),
});
export type VenueWriteInput = Partial<z.output<typeof VenueWrite>>;

const opt = z.string().optional();

export const Venue = z
  .object({
    id: z.int(),
    author: opt.describe('numeric string'),
    status: opt,
    date: opt,
    date_utc: opt,
    modified: opt,
    modified_utc: opt,
    url: opt,
    venue: opt,
    description: opt,
    slug: opt,
    image: ImageOrFalse.optional(),
    address: opt,
    city: opt,
    country: opt,
    province: opt,
    state: opt,
    zip: opt,
    phone: opt,
    website: opt,
    stateprovince: opt,
    json_ld: z.record(z.string(), z.unknown()).optional().describe('single GETs only'),
    show_map: z.boolean(),
    show_map_link: z.boolean(),
    ...GlobalIds,
  })
  .meta({ id: 'Venue', description: 'Keys before `json_ld` are omitted when empty (A.2).' });
