/**
 * References from an event to its venue, organizers and terms (contract B.6.2): by id, by
 * numeric string, as `{"id": N}` (e.g. a venue object from a response), or as data to
 * create-or-find. Parsed into a uniform `Ref` list; existence is checked by the server.
 */
import { z } from 'zod';
import { OrganizerWrite, type OrganizerWriteInput } from './organizer.ts';
import { VenueWrite, type VenueWriteInput } from './venue.ts';

export type Ref<D> = { id: number } | { data: D };

const id = z.union([z.int().min(1), z.string().regex(/^\s*\d+\s*$/)]).transform((v) => ({ id: Number(v) }));
const byIdObject = z
  .looseObject({ id: z.union([z.int().min(1), z.string().regex(/^\d+$/)]) })
  .transform((o) => ({
    id: Number(o.id),
  }));
const none = z.union([z.literal(0), z.literal('0'), z.literal(''), z.null(), z.array(z.never()).length(0)]);

const venueData = VenueWrite.partial()
  .required({ venue: true })
  .transform((data): { data: VenueWriteInput } => ({ data }));
const venueOne = z.union([id, byIdObject, venueData]);

/** `venue`: one venue, or none. More than one element → invalid. */
export const VenueRef = z
  .union([
    none.transform(() => null),
    venueOne,
    z
      .array(venueOne)
      .length(1)
      .transform((a) => a[0]),
  ])
  .meta({
    'x-wp-type': 'integer',
    description: 'a venue id, `{"id": N}`, or venue fields to create-or-find',
  });

const organizerData = OrganizerWrite.partial()
  .required({ organizer: true })
  .transform((data): { data: OrganizerWriteInput } => ({ data }));
const organizerOne = z.union([id, byIdObject, organizerData]);
const csvIds = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)+\s*$/)
  .transform((s) => s.split(',').map((x) => ({ id: Number(x) })));

/** `organizer`: ids, a CSV of ids, one object, or an array of these; order kept, duplicates dropped. */
export const OrganizerRefs = z
  // Arrays first: what clients send most, and a union stops at its first match (disjoint branches).
  .union([
    z.array(z.union([organizerOne, csvIds])).transform((a) => a.flat()),
    none.transform(() => []),
    csvIds,
    organizerOne.transform((r) => [r]),
  ])
  .transform(dedupeIds)
  .meta({ 'x-wp-type': 'array', description: 'organizer ids, `{"id": N}` objects, or organizer fields' });

function dedupeIds<D>(refs: Ref<D>[]): Ref<D>[] {
  const seen = new Set<number>();
  return refs.filter((r) => !('id' in r) || (!seen.has(r.id) && seen.add(r.id)));
}

/** `categories`/`tags` on events: ids (numeric) or names/slugs (text). */
export type TermRef = { id: number } | { name: string };
const termItem = z.union([
  z
    .int()
    .min(1)
    .transform((n): TermRef => ({ id: n })),
  z
    .string()
    .trim()
    .min(1)
    .transform((s): TermRef => (/^\d+$/.test(s) ? { id: Number(s) } : { name: s })),
]);
export const TermRefs = z
  .union([
    z.array(z.union([z.string(), z.number()])),
    none.transform((): TermRef[] => []),
    z.string().transform((s) => s.split(',').filter((x) => x.trim() !== '')),
  ])
  .pipe(z.array(termItem))
  .meta({ 'x-wp-type': 'array', description: 'term ids, slugs or names; unknown names are created' });
