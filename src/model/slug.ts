// Slugs (api-contract.md A.0): lower-case ASCII words joined by `-`, unique per kind with WordPress's
// `-2`, `-3`… suffixes. Accents are folded like WordPress's remove_accents(); apostrophes vanish so
// "Bob's & Co" reads `bobs-co`, every other run of punctuation or space becomes one `-`.

// Lower-case letters NFKD cannot split into base + combining mark (remove_accents() spells them out too).
// biome-ignore format: a table reads better packed
const FOLDS: Record<string, string> = {
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ħ: 'h', ı: 'i', ŋ: 'n', ŧ: 't', ĸ: 'k',
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'g');
// Straight, typographic and modifier apostrophes, plus the backtick people type for one.
const APOSTROPHES = /['‘’‛ʼ`´]/g;

/** WordPress caps post_name at 200 characters. */
const MAX_LENGTH = 200;

/** `"Bob's & Co"` → `bobs-co`, `"Café Zürich"` → `cafe-zurich`; `""` when nothing ASCII is left. */
export function slugify(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(APOSTROPHES, '') // before NFKD, which turns `´` into a space and a combining mark
    .replace(FOLDABLE, (c) => FOLDS[c])
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase() // NFKD can yield capitals: full-width `Ａ`, Roman numeral `Ⅻ`
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.length > MAX_LENGTH ? slug.slice(0, MAX_LENGTH).replace(/-+$/, '') : slug;
}

/**
 * `base` if free, else the first free of `base-2`, `base-3`… (WordPress wp_unique_post_slug()).
 * `taken` answers for the caller's kind (events, venues, organizers or a taxonomy), from the store.
 */
export async function uniqueSlug(
  base: string,
  taken: (slug: string) => boolean | Promise<boolean>,
): Promise<string> {
  if (base === '') throw new RangeError('uniqueSlug: base slug is empty; fall back to an id first');
  if (!(await taken(base))) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
}

/** What trashing appends to a post's slug (A.0: `jazz-night__trashed`); restoring takes it off. */
export const TRASH_SUFFIX = '__trashed';

/** The slug a post had before it was trashed: `jazz-night__trashed` (or `…__trashed-2`) → `jazz-night`. */
export function untrashedSlug(slug: string): string {
  const at = slug.lastIndexOf(TRASH_SUFFIX);
  return at > 0 && /^(?:-\d+)?$/.test(slug.slice(at + TRASH_SUFFIX.length)) ? slug.slice(0, at) : slug;
}
