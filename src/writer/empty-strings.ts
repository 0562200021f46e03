/**
 * `withoutEmptyStrings(kind, body)`: a write body as a real The Events Calendar 6.2.6 site accepts it (contract
 * C.21). Its validators want a non-empty string for an event's `description`, `excerpt`, `image` and `slug`
 * and a term's `description`, `slug` and `parent`, and answer `""` with 400 `rest_invalid_param`. Measured on
 * the real site, what clears each one instead:
 * - an event's description and excerpt: an update *without* them keeps the old text, but a single blank is
 *   accepted and stored trimmed, as empty — so `""` is sent as `" "`;
 * - an event's image: an update without it removes the image — so `""` is left out;
 * - slugs and a term's parent and description: the server picks or keeps them — left out (term updates are
 *   partial; calsync never writes a term description).
 * Venues and organizers accept `""` in every field.
 */
import type { Kind } from '../model/kind.ts';

type Doc = Record<string, unknown>;

const BLANK_CLEARS: Partial<Record<Kind, readonly string[]>> = { event: ['description', 'excerpt'] };
const ABSENCE_CLEARS: Partial<Record<Kind, readonly string[]>> = {
  event: ['image', 'slug'],
  category: ['description', 'slug', 'parent'],
  tag: ['description', 'slug', 'parent'],
};

export function withoutEmptyStrings(kind: Kind, body: Doc): Doc {
  const blank = BLANK_CLEARS[kind] ?? [];
  const absent = ABSENCE_CLEARS[kind] ?? [];
  if (!blank.some((f) => body[f] === '') && !absent.some((f) => body[f] === '')) return body;
  const out = { ...body };
  for (const field of blank) if (out[field] === '') out[field] = ' ';
  for (const field of absent) if (out[field] === '') delete out[field];
  return out;
}
