/**
 * Status, publication date and slug of a written post (contract B.1, B.6.2, A.0) — the
 * rules events, venues and organizers share.
 */

import { canPublish, effectiveStatus } from '../../model/capabilities.ts';
import { parseDateInput } from '../../model/datetime.ts';
import { PERMALINK_STATUSES, type Status } from '../../model/index.ts';
import { slugify, TRASH_SUFFIX, uniqueSlug, untrashedSlug } from '../../model/slug.ts';
import type { LinkedKind } from '../../store/store.ts';
import type { WriteContext } from './context.ts';

export interface PublicationInput {
  status?: Status;
  date?: string;
  date_utc?: string;
  slug?: string;
}

export interface Publication {
  status: Status;
  date_utc: string | null;
  slug: string;
}

interface Existing {
  id: number;
  status: Status;
  date_utc: string | null;
  slug: string;
}

/**
 * The slug of a trashed post (A.0: `…__trashed`), unique among its kind like any slug; a draft
 * without a slug keeps none, so by-slug routes still cannot reach it (B.8).
 */
export async function trashedSlug(
  ctx: WriteContext,
  kind: 'event' | LinkedKind,
  id: number,
  slug: string,
): Promise<string> {
  return slug === '' ? '' : uniqueSlug(`${slug}${TRASH_SUFFIX}`, (s) => ctx.store.slugTaken(kind, s, id));
}

export async function resolvePublication(
  ctx: WriteContext,
  kind: 'event' | LinkedKind,
  input: PublicationInput,
  existing: Existing | undefined,
  title: string,
): Promise<Publication> {
  const requested: Status =
    input.status ??
    (existing && existing.status !== 'trash'
      ? existing.status
      : canPublish(ctx.caller)
        ? 'publish'
        : 'draft');
  let status = effectiveStatus(ctx.caller, requested);

  let dateUtc = existing?.date_utc ?? null;
  if (input.date_utc !== undefined) dateUtc = parseDateInput(input.date_utc, 'UTC')!.utc;
  else if (input.date !== undefined) dateUtc = parseDateInput(input.date, ctx.cfg.siteTimezone)!.utc;

  // Publishing fixes a floating date; `future` needs a future date and `publish` with one
  // is scheduled [live].
  if (PERMALINK_STATUSES.has(status) && dateUtc === null) dateUtc = ctx.now;
  if (status === 'future' && dateUtc! <= ctx.now) status = 'publish';
  else if (status === 'publish' && dateUtc! > ctx.now) status = 'future';

  let slug = existing ? untrashedSlug(existing.slug) : '';
  if (input.slug !== undefined) slug = slugify(input.slug) || slugify(title);
  else if (slug === '' && PERMALINK_STATUSES.has(status)) slug = slugify(title) || kind;
  if (slug && (input.slug !== undefined || slug !== existing?.slug)) {
    slug = await uniqueSlug(slug, (s) => ctx.store.slugTaken(kind, s, existing?.id));
  }
  return { status, date_utc: dateUtc, slug };
}
