/**
 * Event creates and updates (contract B.6.2, B.6.3). Updates are partial (D1): a field that
 * is absent keeps its value; `null` clears the nullable ones. Everything that can fail is
 * checked before the first write, and all writes of one request share a transaction, so
 * bad input writes nothing.
 */

import { canRead, canSetOtherAuthor } from '../../model/capabilities.ts';
import { dayEnd, dayStart, localToUtc, parseDateInput } from '../../model/datetime.ts';
import { sanitizeHtml, stripTags } from '../../model/html.ts';
import {
  EVENT_NULLABLE,
  EventWrite,
  type EventWriteInput,
  type OrganizerWriteInput,
  type Ref,
  type VenueWriteInput,
} from '../../model/index.ts';
import { normalizeTimezone } from '../../model/timezone.ts';
import type { EventRecord, LinkedKind, LinkedRecord } from '../../store/store.ts';
import { ApiError, forbidden, invalidParam } from '../errors.ts';
import { parseParams } from '../params.ts';
import type { WriteContext } from './context.ts';
import { planImage, sideloadImage } from './image.ts';
import { findOrCreateLinked } from './linked-write.ts';
import { resolvePublication } from './publication.ts';
import { sanitizeUrl } from './sanitize-fields.ts';
import { resolveTermRefs } from './term-write.ts';

const REQUIRED_ON_CREATE = ['title', 'start_date', 'end_date'] as const;

/** The stored event, and the venue and organizers the write resolved (the response renders them). */
export interface WrittenEvent {
  event: EventRecord;
  linked: ReadonlyMap<number, LinkedRecord>;
}

export async function writeEvent(
  ctx: WriteContext,
  raw: Record<string, unknown>,
  existing?: EventRecord,
): Promise<WrittenEvent> {
  const input = parseParams(EventWrite, raw, {
    required: existing ? [] : REQUIRED_ON_CREATE,
    nullable: EVENT_NULLABLE,
  });
  const held = new HeldDenial();
  const author = await held.run(
    () => resolveAuthor(ctx, input.author, existing),
    existing?.author ?? ctx.caller!.id,
  );
  const timezone = resolveZone(ctx, input.timezone, existing);
  const times = resolveTimes(input, timezone, existing);
  const imagePlan =
    input.image === undefined ? undefined : await held.run(() => planImage(ctx, input.image!), null);
  const { store } = ctx;

  // Awaits nothing but the store: it holds the store's connection until it ends.
  const write = (imageId: number | null): Promise<WrittenEvent> =>
    store.transaction(async () => {
      const linked = new Map<number, LinkedRecord>();
      const resolve = async (kind: LinkedKind, ref: Ref<VenueWriteInput | OrganizerWriteInput>) => {
        const item = await resolveLinked(ctx, kind, ref);
        linked.set(item.id, item);
        return item.id;
      };
      const venueId =
        input.venue === undefined
          ? (existing?.venue_id ?? null)
          : input.venue === null
            ? null
            : await held.run(() => resolve('venue', input.venue!), null);
      let organizerIds = existing?.organizer_ids ?? [];
      if (input.organizer !== undefined) {
        const ids = new Set<number>();
        for (const r of input.organizer) ids.add(await held.run(() => resolve('organizer', r), 0));
        organizerIds = [...ids];
      }
      const categoryIds =
        input.categories === undefined
          ? (existing?.category_ids ?? [])
          : await held.run(() => resolveTermRefs(ctx, 'categories', input.categories!), []);
      const tagIds =
        input.tags === undefined
          ? (existing?.tag_ids ?? [])
          : await held.run(() => resolveTermRefs(ctx, 'tags', input.tags!), []);
      // Every 400 of the body has been raised by now; the first held 403 rolls everything back.
      held.throwIfAny();

      const title = input.title === undefined ? existing!.title : stripTags(input.title);
      const pub = await resolvePublication(ctx, 'event', input, existing, title);
      const text = (v: string | null | undefined, old: string | undefined) =>
        v === undefined ? (old ?? '') : sanitizeHtml(v ?? '');
      const flag = (v: boolean | undefined, old: boolean | undefined) => v ?? old ?? false;

      const record: Omit<EventRecord, 'id'> = {
        kind: 'event',
        author,
        status: pub.status,
        slug: pub.slug,
        date_utc: pub.date_utc,
        modified_utc: ctx.now,
        modified_set: existing !== undefined,
        image_id: imageId,
        title,
        description: text(input.description, existing?.description),
        excerpt: text(input.excerpt, existing?.excerpt),
        timezone,
        ...times,
        cost: resolveCost(input.cost, existing),
        currency_code:
          input.currency_code === undefined
            ? (existing?.currency_code ?? '')
            : (input.currency_code ?? '').toUpperCase(),
        website:
          input.website === undefined
            ? (existing?.website ?? null)
            : input.website && sanitizeUrl(input.website),
        show_map: flag(input.show_map, existing?.show_map),
        show_map_link: flag(input.show_map_link, existing?.show_map_link),
        hide_from_listings: flag(input.hide_from_listings, existing?.hide_from_listings),
        sticky: flag(input.sticky, existing?.sticky),
        featured: flag(input.featured, existing?.featured),
        venue_id: venueId,
        organizer_ids: organizerIds,
        category_ids: categoryIds,
        tag_ids: tagIds,
        password: existing?.password ?? null,
      };
      const event = existing
        ? await store.updateEvent({ ...record, id: existing.id })
        : await store.insertEvent(record);
      return { event, linked };
    });

  if (imagePlan === undefined) return write(existing?.image_id ?? null);
  if (imagePlan === null || typeof imagePlan === 'number') return write(imagePlan);
  // A URL to fetch: the only step that waits on the network, so it cannot share the write's
  // transaction. A rolled-back dry run first raises every other 400/403 of the body, so a
  // rejected write fetches and stores nothing (B.0).
  await dryRun(() => write(null), store);
  return write(await sideloadImage(ctx, imagePlan.fetch));
}

const ROLLBACK = Symbol('dry run');

/**
 * B.0 raises every invalid value (step 6, 400) before value-dependent permissions (step 7,
 * E9: another `author`, an image URL, new terms → 403), whatever the field order. A 403 is
 * therefore held, with a neutral stand-in value, until every other check has run.
 */
class HeldDenial {
  #first: ApiError | undefined;

  async run<T>(check: () => T | Promise<T>, standIn: T): Promise<T> {
    try {
      return await check();
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'rest_forbidden') throw err;
      this.#first ??= err;
      return standIn;
    }
  }

  throwIfAny(): void {
    if (this.#first) throw this.#first;
  }
}

async function dryRun(fn: () => Promise<unknown>, store: WriteContext['store']): Promise<void> {
  try {
    await store.transaction(async () => {
      await fn();
      throw ROLLBACK;
    });
  } catch (err) {
    if (err !== ROLLBACK) throw err;
  }
}

async function resolveAuthor(
  ctx: WriteContext,
  author: number | undefined,
  existing?: EventRecord,
): Promise<number> {
  if (author === undefined) return existing?.author ?? ctx.caller!.id;
  if (!(await ctx.store.getUser(author))) throw invalidParam('author', 'author is not an existing user id.');
  if (author !== ctx.caller!.id && author !== existing?.author && !canSetOtherAuthor(ctx.caller)) {
    throw forbidden(false, ['author']);
  }
  return author;
}

function resolveZone(ctx: WriteContext, tz: string | null | undefined, existing?: EventRecord): string {
  if (tz === undefined) return existing?.timezone ?? ctx.cfg.siteTimezone;
  if (tz === null || tz === '') return ctx.cfg.siteTimezone;
  return normalizeTimezone(tz)!;
}

type Times = Pick<EventRecord, 'all_day' | 'start_local' | 'end_local' | 'start_utc' | 'end_utc'>;

/**
 * Wall times in the event zone and their UTC instants (B.6.1). A new zone without new dates
 * keeps the wall times [src]; all-day events span 00:00:00–23:59:59 of their days; an end
 * before the start becomes the start (E10).
 */
function resolveTimes(input: EventWriteInput, zone: string, existing?: EventRecord): Times {
  const local = (given: string | undefined, old: string | undefined) =>
    given === undefined ? old! : parseDateInput(given, zone)!.local;
  const allDay = input.all_day ?? existing?.all_day ?? false;
  let start = local(input.start_date, existing?.start_local);
  let end = local(input.end_date, existing?.end_local);
  if (allDay) {
    start = dayStart(start);
    end = dayEnd(end);
  }
  let startUtc = localToUtc(start, zone);
  let endUtc = localToUtc(end, zone);
  if (endUtc < startUtc) {
    end = allDay ? dayEnd(start) : start;
    endUtc = localToUtc(end, zone);
    startUtc = localToUtc(start, zone);
  }
  return { all_day: allDay, start_local: start, end_local: end, start_utc: startUtc, end_utc: endUtc };
}

function resolveCost(cost: unknown, existing?: EventRecord): string | null {
  if (cost === undefined) return existing?.cost ?? null;
  if (cost === null || cost === '' || (Array.isArray(cost) && cost.length === 0)) return null;
  return JSON.stringify(cost);
}

/** An id must name a live item of that kind; data is created-or-found (B.6.2, B.10.2). */
async function resolveLinked(
  ctx: WriteContext,
  kind: LinkedKind,
  ref: Ref<VenueWriteInput | OrganizerWriteInput>,
): Promise<LinkedRecord> {
  const param = kind === 'venue' ? 'venue' : 'organizer';
  if ('id' in ref) {
    const item = await ctx.store.getLinked(kind, ref.id);
    // An item the caller may not read answers like an unknown id: nothing leaks (B.2).
    if (!item || item.status === 'trash' || !canRead(ctx.caller, item))
      throw invalidParam(param, `${param}: ${ref.id} is not a valid ${kind} id.`);
    return item;
  }
  return findOrCreateLinked(ctx, kind, ref.data);
}
