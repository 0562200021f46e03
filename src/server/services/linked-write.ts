/**
 * Venue and organizer writes (contract B.10): create-or-find (B.10.2, E8), partial updates
 * (D1, E10), trash and permanent delete. Public: `findOrCreateLinked` (inline venue and
 * organizer data of event writes, B.6.2), `createLinked`, `updateLinked`, `trashLinked`,
 * `deleteLinked`.
 *
 * Every check runs before the first write: the name, `author` (400, then 403), `image`
 * (400, then 403); a URL is only fetched once we know a new item will be written, so a found
 * item costs nothing.
 */

import { canSetOtherAuthor } from '../../model/capabilities.ts';
import { sanitizeHtml, stripTags } from '../../model/html.ts';
import type { OrganizerWriteInput, VenueWriteInput } from '../../model/index.ts';
import type { LinkedKind, LinkedRecord } from '../../store/store.ts';
import { forbidden, invalidParam } from '../errors.ts';
import type { WriteContext } from './context.ts';
import { type ImagePlan, planImage, sideloadImage } from './image.ts';
import { resolvePublication, trashedSlug } from './publication.ts';
import { sanitizeContactField } from './sanitize-fields.ts';
import { listVisibility } from './visibility.ts';

export type LinkedWriteInput = VenueWriteInput | OrganizerWriteInput;

/** Text fields besides the name and the description; `""`/`null` clears them (B.10.1). */
const TEXT_FIELDS: Record<LinkedKind, readonly string[]> = {
  venue: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website'],
  organizer: ['phone', 'website', 'email'],
};
/** Boolean fields and their default on create: venue maps are on unless switched off (B.10.1). */
const FLAG_FIELDS: Record<LinkedKind, readonly string[]> = {
  venue: ['show_map', 'show_map_link'],
  organizer: [],
};

/**
 * Create-or-find for inline `venue`/`organizer` objects of event writes (B.6.2, B.10.2): a
 * readable, non-trashed item with that name (and description, if given) is returned
 * unchanged (E8); otherwise a new one is created with `publish` (publishers) or `draft`,
 * whatever the event's status. It runs inside the event's transaction, which must not wait on
 * the network: `image` must therefore be an attachment id or the URL of a stored attachment
 * (nothing is fetched here).
 */
export async function findOrCreateLinked(
  ctx: WriteContext,
  kind: LinkedKind,
  data: LinkedWriteInput,
): Promise<LinkedRecord> {
  const { name, author, image } = await check(ctx, kind, data);
  if (image !== null && typeof image === 'object') {
    throw invalidParam(
      'image',
      `image: an inline ${kind} takes an attachment id or the URL of a stored image; create the ${kind} first to upload one.`,
    );
  }
  // Found is the usual case: no savepoint for it. A create looks again inside its own, in case
  // another process created the item meanwhile (when this runs outside a write transaction).
  return (
    (await findReadable(ctx, kind, name, data)) ??
    ctx.store.transaction(
      async () =>
        (await findReadable(ctx, kind, name, data)) ?? insert(ctx, kind, data, name, author, image ?? null),
    )
  );
}

/** `POST /venues|organizers`: the found item unchanged (`created: false`) or a new one (B.10.2). */
export async function createLinked(
  ctx: WriteContext,
  kind: LinkedKind,
  data: LinkedWriteInput,
): Promise<{ record: LinkedRecord; created: boolean }> {
  const { name, author, image } = await check(ctx, kind, data);
  const found = await findReadable(ctx, kind, name, data);
  if (found) return { record: found, created: false };
  const imageId = await fetchImage(ctx, image);
  return ctx.store.transaction(async () => {
    // Another request may have created it while the image was fetched.
    const raced = await findReadable(ctx, kind, name, data);
    if (raced) return { record: raced, created: false };
    return { record: await insert(ctx, kind, data, name, author, imageId), created: true };
  });
}

/** Partial update (D1): absent fields keep their values, `null`/`""` clears text fields. */
export async function updateLinked(
  ctx: WriteContext,
  existing: LinkedRecord,
  data: LinkedWriteInput,
): Promise<LinkedRecord> {
  const kind = existing.kind;
  const { name, author, image } = await check(ctx, kind, data, existing);
  const imageId = await fetchImage(ctx, image, existing.image_id);
  return ctx.store.transaction(async () =>
    ctx.store.updateLinked({
      ...(await build(ctx, kind, data, name, author, imageId, existing)),
      id: existing.id,
    } as LinkedRecord),
  );
}

/** DELETE without force: status `trash`, slug `…__trashed`, unlinked from every event (B.10.1). */
export function trashLinked(ctx: WriteContext, existing: LinkedRecord): Promise<LinkedRecord> {
  return ctx.store.transaction(async () => {
    await ctx.store.unlinkFromEvents(existing.kind, existing.id);
    return ctx.store.updateLinked({
      ...existing,
      status: 'trash',
      slug: await trashedSlug(ctx, existing.kind, existing.id, existing.slug),
      modified_utc: ctx.now,
      modified_set: true,
    });
  });
}

/** DELETE with `force=true`: gone for good, from every event too (D4, B.10.1). */
export function deleteLinked(ctx: WriteContext, existing: LinkedRecord): Promise<void> {
  return ctx.store.transaction(async () => {
    await ctx.store.unlinkFromEvents(existing.kind, existing.id);
    await ctx.store.deletePost(existing.id);
  });
}

const fieldOf = (data: LinkedWriteInput, key: string) => (data as Record<string, unknown>)[key];

const nameOfRecord = (rec: LinkedRecord) => (rec.kind === 'venue' ? rec.venue : rec.organizer);

/** The name as plain text (A.0); a name that is empty once tags are stripped is a 400. */
function nameOf(kind: LinkedKind, data: LinkedWriteInput): string {
  const raw = fieldOf(data, kind);
  const name = typeof raw === 'string' ? stripTags(raw) : '';
  if (name === '') throw invalidParam(kind, `${kind} must be a non-empty name.`);
  return name;
}

/**
 * The value checks of B.0 steps 6–7, without side effects: the name, an existing `author`
 * and `image` id (400s) first, then the rights they need (403s, E9). `image` is `undefined`
 * when absent on an update (kept).
 */
async function check(ctx: WriteContext, kind: LinkedKind, data: LinkedWriteInput, existing?: LinkedRecord) {
  const name = existing && fieldOf(data, kind) === undefined ? nameOfRecord(existing) : nameOf(kind, data);
  if (data.author !== undefined && !(await ctx.store.getUser(data.author))) {
    throw invalidParam('author', 'author is not an existing user id.');
  }
  const image = existing && data.image === undefined ? undefined : await planImage(ctx, data.image);
  const author = data.author ?? existing?.author ?? ctx.caller!.id;
  if (author !== ctx.caller!.id && author !== existing?.author && !canSetOtherAuthor(ctx.caller)) {
    throw forbidden(false, ['author']);
  }
  return { name, author, image };
}

/** The attachment id of a planned image; `undefined` (absent on an update) keeps `kept`. */
async function fetchImage(ctx: WriteContext, plan: ImagePlan | undefined, kept: number | null = null) {
  if (plan === undefined) return kept;
  return plan !== null && typeof plan === 'object' ? sideloadImage(ctx, plan.fetch) : plan;
}

/**
 * B.10.2: the lowest non-trashed item with that name (and description, when one is given).
 * An item the caller may not read is not offered: creating a new one leaks nothing.
 */
function findReadable(
  ctx: WriteContext,
  kind: LinkedKind,
  name: string,
  data: LinkedWriteInput,
): Promise<LinkedRecord | undefined> {
  const description = data.description ? sanitizeHtml(data.description) : undefined;
  return ctx.store.findLinkedByName(kind, name, description, listVisibility(ctx.caller));
}

async function insert(
  ctx: WriteContext,
  kind: LinkedKind,
  data: LinkedWriteInput,
  name: string,
  author: number,
  imageId: number | null,
): Promise<LinkedRecord> {
  return ctx.store.insertLinked(
    (await build(ctx, kind, data, name, author, imageId, undefined)) as Omit<LinkedRecord, 'id'>,
  );
}

async function build(
  ctx: WriteContext,
  kind: LinkedKind,
  data: LinkedWriteInput,
  name: string,
  author: number,
  imageId: number | null,
  existing: LinkedRecord | undefined,
): Promise<Record<string, unknown>> {
  const pub = await resolvePublication(
    ctx,
    kind,
    { status: data.status, date: data.date, date_utc: data.date_utc },
    existing,
    name,
  );
  const old = existing as Record<string, unknown> | undefined;
  const rec: Record<string, unknown> = {
    kind,
    author,
    status: pub.status,
    slug: pub.slug,
    date_utc: pub.date_utc,
    modified_utc: ctx.now,
    modified_set: existing !== undefined,
    image_id: imageId,
    [kind]: name,
    description:
      data.description === undefined ? (existing?.description ?? '') : sanitizeHtml(data.description ?? ''),
  };
  for (const f of TEXT_FIELDS[kind]) {
    const v = fieldOf(data, f) as string | null | undefined;
    // As WordPress saves them: no markup in contact fields (services/sanitize-fields.ts).
    rec[f] = v === undefined ? (old?.[f] ?? '') : sanitizeContactField(f, v ?? '');
  }
  for (const f of FLAG_FIELDS[kind]) {
    const v = fieldOf(data, f) as boolean | undefined;
    rec[f] = v ?? old?.[f] ?? true;
  }
  return rec;
}
