/**
 * Wire primitives of the write and query parameters, with WordPress REST coercions
 * (contract B.0): booleans as `true/false`, `"true"/"false"`, `"1"/"0"`, `1/0`; integers as
 * numbers or numeric strings; strings never from JSON numbers; arrays as JSON arrays, CSV
 * strings or `name[]=` form fields.
 *
 * Each schema carries `x-wp-type` metadata: the server names it in `rest_invalid_type`
 * messages ("all_day is not of type boolean.") and the OpenAPI document shows it.
 */
import { z } from 'zod';
import { parseDateInput } from './datetime.ts';

const TRUE = new Set<unknown>([true, 'true', '1', 1]);

export const wpBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0']), z.literal(1), z.literal(0)])
  .transform((v) => TRUE.has(v))
  .meta({ 'x-wp-type': 'boolean' });

/** Venue `show_map*` also take `"yes"/"no"` [live]. */
export const wpLooseBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no']), z.literal(1), z.literal(0)])
  .transform((v) => TRUE.has(v) || v === 'yes')
  .meta({ 'x-wp-type': 'boolean' });

export const wpInteger = z
  .union([z.int(), z.string().regex(/^-?\d+$/)])
  .transform((v) => Number(v))
  .meta({ 'x-wp-type': 'integer' });

export const wpPositiveInt = wpInteger.pipe(z.int().min(1));

export const wpNumber = z
  .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)])
  .transform((v) => Number(v))
  .meta({ 'x-wp-type': 'number' });

/** A list given as a JSON array, a `name[]=` array or a comma-separated string. */
function listOf<T extends z.ZodType<unknown, string | number>>(item: T) {
  return z
    .union([z.array(z.union([z.string(), z.number()])), z.string(), z.number()])
    .transform((v) =>
      (Array.isArray(v) ? v : typeof v === 'number' ? [v] : v.split(','))
        .map((x) => (typeof x === 'string' ? x.trim() : x))
        .filter((x) => x !== ''),
    )
    .pipe(z.array(item));
}

export const wpIdList = listOf(wpPositiveInt).meta({ 'x-wp-type': 'array' });
export const wpStringList = listOf(z.union([z.string(), z.number()]).transform(String)).meta({
  'x-wp-type': 'array',
});

/** A date-time in one of the B.6.1 formats; it is resolved against a zone later. */
export const wpDateTime = z
  .string()
  .refine((s) => parseDateInput(s, 'UTC') !== null, { message: 'Invalid date.' })
  .meta({
    'x-wp-type': 'string',
    description:
      '`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD`, ISO 8601 with optional `Z`/offset, or a Unix timestamp as a digit string',
  });

export const wpString = z.string().meta({ 'x-wp-type': 'string' });
export const wpNonEmptyString = z.string().trim().min(1).meta({ 'x-wp-type': 'string' });

/** An absolute http(s) URL. */
export const httpUrl = z.string().refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'Invalid URL.' },
);

/** The wire date-time format of every response: `YYYY-MM-DD HH:MM:SS`. */
export const WireDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
