/**
 * Event categories and tags: write fields (seed tables) and the two response shapes
 * (contract A.3): embedded in events, and at the term endpoints.
 */
import { z } from 'zod';
import { wpInteger, wpNonEmptyString, wpString } from './primitives.ts';

export const TAXONOMIES = { categories: 'tribe_events_cat', tags: 'post_tag' } as const;
export type TermKind = keyof typeof TAXONOMIES;

export const CategoryWrite = z.object({
  name: wpNonEmptyString,
  description: wpString.nullable(),
  slug: wpNonEmptyString,
  parent: wpInteger,
});
export const TagWrite = CategoryWrite.omit({ parent: true });
export type TermWriteInput = Partial<z.output<typeof CategoryWrite>>;

const TermUrls = z.object({ self: z.string(), collection: z.string(), up: z.string().optional() });
const Link = z.array(z.object({ href: z.string(), embeddable: z.boolean().optional() }));

export const EmbeddedTerm = z
  .object({
    name: z.string(),
    slug: z.string(),
    term_group: z.int(),
    term_taxonomy_id: z.int(),
    taxonomy: z.enum(['tribe_events_cat', 'post_tag']),
    description: z.string(),
    parent: z.int(),
    count: z.int(),
    filter: z.literal('raw'),
    id: z.int(),
    urls: TermUrls,
  })
  .meta({ id: 'EmbeddedTerm' });

const termFields = {
  id: z.int(),
  count: z.int().describe('published events'),
  description: z.string(),
  name: z.string(),
  slug: z.string(),
};
const termTail = {
  meta: z.array(z.never()),
  url: z.string(),
  urls: TermUrls,
  _links: z
    .object({ self: Link, collection: Link, up: Link.optional() })
    .optional()
    .describe('single-term GET/POST/PUT/PATCH responses only'),
};

export const Category = z
  .object({ ...termFields, taxonomy: z.literal('tribe_events_cat'), parent: z.int(), ...termTail })
  .meta({ id: 'Category' });
export const Tag = z
  .object({ ...termFields, taxonomy: z.literal('post_tag'), ...termTail })
  .meta({ id: 'Tag' });

const termPaging = {
  rest_url: z.string(),
  total: z.int(),
  total_pages: z.int(),
  next_rest_url: z.string().optional(),
  previous_rest_url: z.string().optional(),
};
export const CategoryList = z
  .object({ ...termPaging, categories: z.array(Category) })
  .meta({ id: 'CategoryList' });
export const TagList = z.object({ ...termPaging, tags: z.array(Tag) }).meta({ id: 'TagList' });
