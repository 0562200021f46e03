/** Organizers: write fields (seed table, contract B.10.1) and the response shape (A.2). */
import { z } from 'zod';
import { GlobalIds, ImageOrFalse } from './common.ts';
import { httpUrl, wpDateTime, wpInteger, wpNonEmptyString, wpString } from './primitives.ts';
import { WritableStatus } from './status.ts';

const clearable = wpString.nullable();

export const OrganizerWrite = z.object({
  organizer: wpNonEmptyString.describe('organizer name; required on create'),
  author: wpInteger,
  date: wpDateTime,
  date_utc: wpDateTime,
  description: clearable,
  status: WritableStatus,
  phone: clearable,
  website: z.union([z.literal(''), z.null(), httpUrl]).meta({ 'x-wp-type': 'string' }),
  email: clearable.describe('any string [live]'),
  image: z.union([z.string(), wpInteger, z.null()]).meta({ 'x-wp-type': 'string' }),
});
export type OrganizerWriteInput = Partial<z.output<typeof OrganizerWrite>>;

const opt = z.string().optional();

export const Organizer = z
  .object({
    id: z.int(),
    author: opt,
    status: opt,
    date: opt,
    date_utc: opt,
    modified: opt,
    modified_utc: opt,
    url: opt,
    organizer: opt,
    description: opt,
    slug: opt,
    image: ImageOrFalse.optional(),
    phone: opt,
    website: opt,
    email: opt,
    json_ld: z.record(z.string(), z.unknown()).optional().describe('single GETs only'),
    ...GlobalIds,
  })
  .meta({ id: 'Organizer', description: 'Every empty key is omitted (A.2).' });
