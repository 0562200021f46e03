/**
 * Category and tag writes (contract B.11) and the term references of event writes (B.6.2,
 * E9). Public: `createTerm`, `updateTerm`, `resolveTermRefs`.
 *
 * WordPress's rules: a name is unique under its parent (`term_exists`, with the clashing
 * `term_id`), a slug within its taxonomy (`duplicate_term_slug`); a category's parent must
 * exist and may not be the category itself or one of its descendants.
 */

import { canLinkTerms, canManageTerms } from '../../model/capabilities.ts';
import { sanitizeHtml, stripTags } from '../../model/html.ts';
import type { TermKind, TermRef, TermWriteInput } from '../../model/index.ts';
import { slugify, uniqueSlug } from '../../model/slug.ts';
import type { TermRecord } from '../../store/store.ts';
import { ApiError, forbidden, invalidParam } from '../errors.ts';
import type { WriteContext } from './context.ts';

/** Fallback slug base when a name has no ASCII left (`"✓"`). */
const SINGULAR: Record<TermKind, string> = { categories: 'category', tags: 'tag' };

export async function createTerm(
  ctx: WriteContext,
  kind: TermKind,
  data: TermWriteInput,
): Promise<TermRecord> {
  const name = nameOf(data.name);
  const parent = kind === 'categories' ? await checkParent(ctx, kind, data.parent ?? 0) : 0;
  return ctx.store.transaction(async () => {
    await checkNameFree(ctx, kind, name, parent);
    const slug = await slugFor(ctx, kind, data.slug, name);
    const description = sanitizeHtml(data.description ?? '');
    return ctx.store.insertTerm({ kind, name, slug, description, parent });
  });
}

/** Partial (D1): absent fields keep their values. */
export async function updateTerm(
  ctx: WriteContext,
  existing: TermRecord,
  data: TermWriteInput,
): Promise<TermRecord> {
  const { kind } = existing;
  const name = data.name === undefined ? existing.name : nameOf(data.name);
  let parent = existing.parent;
  if (kind === 'categories' && data.parent !== undefined) {
    parent = await checkParent(ctx, kind, data.parent);
    if (parent !== 0 && (await ctx.store.categoryDescendants(existing.id)).includes(parent)) {
      throw invalidParam('parent', 'parent cannot be the category itself or one of its descendants.');
    }
  }
  return ctx.store.transaction(async () => {
    if (name.toLowerCase() !== existing.name.toLowerCase() || parent !== existing.parent) {
      await checkNameFree(ctx, kind, name, parent, existing.id);
    }
    const slug =
      data.slug === undefined ? existing.slug : await slugFor(ctx, kind, data.slug, name, existing.id);
    const description =
      data.description === undefined ? existing.description : sanitizeHtml(data.description ?? '');
    return ctx.store.updateTerm({ id: existing.id, kind, name, slug, description, parent });
  });
}

/**
 * Event `categories`/`tags` (B.6.2) → term ids, in the order given, without duplicates.
 * `{id}` must be a term of that taxonomy (400 naming the field); `{name}` is the term with
 * that slug, else that name (case-insensitive), else a new term, which needs term rights
 * (403 naming the field, E9). Every 400 comes before any 403, and nothing is written unless
 * every reference resolves.
 */
export async function resolveTermRefs(ctx: WriteContext, kind: TermKind, refs: TermRef[]): Promise<number[]> {
  if (refs.length === 0) return [];
  // A term by name: the names of the list looked up together (one round trip on PostgreSQL).
  const found: (TermRecord | string)[] = [];
  const named: number[] = [];
  for (const ref of refs) {
    if ('id' in ref) {
      const term = await ctx.store.getTerm(kind, ref.id);
      if (!term) throw invalidParam(kind, `${kind}: ${ref.id} is not a valid term id.`);
      found.push(term);
      continue;
    }
    const name = stripTags(ref.name);
    if (name === '') throw invalidParam(kind, `${kind}: a term name must not be empty.`);
    named.push(found.length);
    found.push(name);
  }
  const terms = await ctx.store.findTermsByRef(
    kind,
    named.map((i) => found[i] as string),
  );
  named.forEach((at, i) => {
    found[at] = terms[i] ?? found[at];
  });
  if (!canLinkTerms(ctx.caller)) throw forbidden(ctx.caller === null, [kind]);
  const creates = found.some((t) => typeof t === 'string');
  if (creates && !canManageTerms(ctx.caller, kind)) throw forbidden(ctx.caller === null, [kind]);
  // Every term exists (the usual case): nothing to write, so no savepoint.
  if (!creates) return [...new Set((found as TermRecord[]).map((t) => t.id))];

  return ctx.store.transaction(async () => {
    const ids: number[] = [];
    for (const t of found) {
      // The same new name twice in one list is created once.
      const term =
        typeof t === 'string'
          ? ((await ctx.store.findTermByName(kind, t)) ??
            (await ctx.store.insertTerm({
              kind,
              name: t,
              slug: await slugFor(ctx, kind, undefined, t),
              description: '',
              parent: 0,
            })))
          : t;
      if (!ids.includes(term.id)) ids.push(term.id);
    }
    return ids;
  });
}

function nameOf(raw: string | undefined): string {
  const name = stripTags(raw ?? '');
  if (name === '') throw invalidParam('name', 'name must be a non-empty string.');
  return name;
}

async function checkParent(ctx: WriteContext, kind: TermKind, parent: number): Promise<number> {
  if (parent === 0) return 0;
  if (parent < 0 || !(await ctx.store.getTerm(kind, parent))) {
    throw invalidParam('parent', 'parent is not an existing category id.');
  }
  return parent;
}

/** WordPress wp_insert_term()/wp_update_term(): one name per parent, with the clash's id. */
async function checkNameFree(
  ctx: WriteContext,
  kind: TermKind,
  name: string,
  parent: number,
  exceptId?: number,
): Promise<void> {
  const clash = await ctx.store.findTermByName(kind, name, parent);
  if (clash && clash.id !== exceptId) {
    const message =
      kind === 'categories'
        ? 'A term with the name provided already exists with this parent.'
        : 'A term with the name provided already exists in this taxonomy.';
    throw new ApiError(400, 'term_exists', message, { term_id: clash.id });
  }
}

/** A given slug must be free (400); without one, the name's slug is made unique (`-2`…). */
async function slugFor(
  ctx: WriteContext,
  kind: TermKind,
  given: string | undefined,
  name: string,
  exceptId?: number,
): Promise<string> {
  const taken = (s: string) => ctx.store.termSlugTaken(kind, s, exceptId);
  const wanted = given === undefined ? '' : slugify(given);
  if (wanted !== '') {
    if (await taken(wanted)) {
      throw new ApiError(
        400,
        'duplicate_term_slug',
        `The slug "${wanted}" is already in use by another term.`,
      );
    }
    return wanted;
  }
  return uniqueSlug(slugify(name) || SINGULAR[kind], taken);
}
