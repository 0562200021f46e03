/**
 * Event routes (contract B.5–B.8): the list, create, and the by-id and by-slug item routes.
 * Handlers follow B.0's order: capability, resolve, per-item checks, validate, write.
 */
import { z } from 'zod';
import { canCreate, canRead } from '../../model/capabilities.ts';
import { Event, EventList, EventListQuery, EventWrite, wpBoolean } from '../../model/index.ts';
import type { StoredTexts } from '../../render/csv.ts';
import { loadRelated, renderEvent } from '../../render/event.ts';
import { EventListJson } from '../../render/event-json.ts';
import type { EventRecord, LinkedRecord } from '../../store/store.ts';
import { bodyParams } from '../body.ts';
import {
  ApiError,
  archivePageNotFound,
  forbidden,
  inTrash,
  notAccessible,
  notFoundById,
  notFoundBySlug,
} from '../errors.ts';
import { parseParams } from '../params.ts';
import type { ApiRequest } from '../request.ts';
import { contextOf, type WriteContext } from '../services/context.ts';
import { planEventList } from '../services/event-list.ts';
import { writeEvent } from '../services/event-write.ts';
import { trashedSlug } from '../services/publication.ts';
import { lockedEvents } from '../services/visibility.ts';
import { editableItem, refuseTrashed } from './item.ts';
import { type Alternatives, paging, pickFormat, send, sendJsonText, setTotals } from './respond.ts';
import { defineRoute, errors, type RouteHost, requestParams } from './spec.ts';

const FORMATS = ['json', 'ical', 'csv', 'xml'] as const;
const TAG = 'Events';
const ItemQuery = z.object({ password: z.string().describe('the event password') });
const DeleteQuery = z.object({
  force: wpBoolean.describe('delete permanently instead of trashing'),
  password: z.string(),
});

export async function eventRoutes(app: RouteHost): Promise<void> {
  const { store } = app;
  const listJson = new EventListJson(app.config);

  defineRoute(
    app,
    {
      path: '/events',
      methods: ['GET'],
      summary: 'List events',
      tag: TAG,
      args: EventListQuery,
      formats: FORMATS,
      cache: true,
      responses: [
        { status: 200, description: 'A page of events', schema: EventList },
        ...errors(400, 401, 403, 404, 406),
      ],
    },
    async (req, reply) => {
      const format = pickFormat(req, FORMATS);
      const ctx = contextOf(req);
      const plan = await planEventList(ctx, requestParams(req));
      const { items, total } = await store.listEvents(plan.query);
      const list = paging({
        collection: `${ctx.cfg.apiBase}/calendar/events/v1/events`,
        page: plan.page,
        perPage: plan.perPage,
        total,
        echo: plan.echo,
      });
      if (plan.page > 1 && plan.page > list.totalPages) throw archivePageNotFound('event');
      const rel = await loadRelated(store, items, ctx.caller);
      const lockedSet = lockedEvents(req, items, plan.params.password);
      const locked = (e: EventRecord) => lockedSet.has(e);
      setTotals(reply, total, list.totalPages);
      const envelope = { ...list.links, total, total_pages: list.totalPages };
      if (format === 'json') {
        // The bytes of JSON.stringify({ events, ...envelope }), its items mostly from kept fragments.
        const redacted = (e: EventRecord) =>
          locked(e) ? JSON.stringify(renderEvent(e, rel, ctx.cfg, { single: false, redact: true })) : null;
        const page = listJson.page('events', items, rel, JSON.stringify(envelope).slice(1), redacted);
        reply.header('etag', page.etag);
        return sendJsonText(reply, page.body);
      }
      const events = items.map((e) => renderEvent(e, rel, ctx.cfg, { single: false, redact: locked(e) }));
      const texts = (csv: CsvModule) =>
        csv.storedTexts(
          items.filter((e) => !locked(e)),
          rel.linked.values(),
        );
      return send(reply, format, { events, ...envelope }, alternatives(ctx, events, texts));
    },
  );

  defineRoute(
    app,
    {
      path: '/events',
      methods: ['POST'],
      summary: 'Create an event',
      tag: TAG,
      args: EventWrite,
      required: ['title', 'start_date', 'end_date'],
      responses: [{ status: 201, description: 'The new event', schema: Event }, ...errors(400, 401, 403)],
    },
    async (req, reply) => {
      const ctx = contextOf(req);
      if (!canCreate(ctx.caller)) throw forbidden(ctx.caller === null);
      const { event, linked } = await writeEvent(ctx, requestParams(req));
      reply.code(201).header('location', `${ctx.cfg.apiBase}/calendar/events/v1/events/${event.id}`);
      // The list-item representation, as a document (not from the list pages' fragments, which the
      // importer's creates never reused): the in-process caller hands it to the local target unparsed.
      return send(reply, 'json', await renderOne(ctx, event, false, linked));
    },
  );

  for (const bySlug of [false, true]) {
    const path = bySlug ? '/events/by-slug/{slug}' : '/events/{id}';
    const what = bySlug ? 'by slug' : 'by id';
    const resolve = async (req: ApiRequest): Promise<EventRecord> => {
      const { id, slug } = req.params as { id?: string; slug?: string };
      const found = await (bySlug ? store.findBySlug('event', slug!) : store.getEvent(Number(id)));
      if (found?.kind !== 'event') throw bySlug ? notFoundBySlug('event', slug!) : notFoundById('event', id!);
      return found;
    };

    defineRoute(
      app,
      {
        path,
        methods: ['GET'],
        summary: `Read an event ${what}`,
        tag: TAG,
        args: bySlug ? undefined : ItemQuery,
        formats: FORMATS,
        cache: true,
        responses: [
          { status: 200, description: 'The event, with json_ld', schema: Event },
          ...errors(403, 404, 406),
        ],
      },
      async (req, reply) => {
        const format = pickFormat(req, FORMATS);
        const ctx = contextOf(req);
        const e = await resolve(req);
        if (!canRead(ctx.caller, e)) throw notAccessible('event');
        if (lockedEvents(req, [e], (req.query as { password?: string }).password).size > 0) {
          throw new ApiError(
            403,
            'event-password-protected',
            'The requested event is not accessible without a password',
          );
        }
        const wire = await renderOne(ctx, e, true);
        const linkedIds = e.venue_id ? [e.venue_id, ...e.organizer_ids] : e.organizer_ids;
        // Read only for a CSV, the one format that carries them.
        const linked =
          format === 'csv' ? await store.getLinkedMany(linkedIds) : new Map<number, LinkedRecord>();
        const texts = (csv: CsvModule) => csv.storedTexts([e], linked.values());
        return send(reply, format, wire, alternatives(ctx, [wire], texts));
      },
    );

    defineRoute(
      app,
      {
        path,
        methods: ['POST', 'PUT', 'PATCH'],
        summary: `Update an event ${what} (partial: absent fields keep their values)`,
        tag: TAG,
        args: bySlug ? EventWrite : EventWrite.extend({ password: z.string() }),
        responses: [
          { status: 200, description: 'The updated event', schema: Event },
          ...errors(400, 401, 403, 404, 410),
        ],
      },
      async (req, reply) => {
        const ctx = contextOf(req);
        const e = await editableItem(ctx.caller, () => resolve(req));
        const params = writeParams(req, bySlug);
        refuseTrashed(e, params, 'event');
        const updated = await writeEvent(ctx, params, e);
        return send(reply, 'json', await renderOne(ctx, updated.event, false, updated.linked));
      },
    );

    defineRoute(
      app,
      {
        path,
        methods: ['DELETE'],
        summary: `Trash an event ${what}, or delete it with force=true`,
        tag: TAG,
        args: bySlug ? DeleteQuery.omit({ password: true }) : DeleteQuery,
        responses: [
          { status: 200, description: 'The trashed event, or its last representation', schema: Event },
          ...errors(400, 401, 403, 404, 410),
        ],
      },
      async (req, reply) => {
        const ctx = contextOf(req);
        const e = await editableItem(ctx.caller, () => resolve(req));
        const { force = false } = parseParams(DeleteQuery, requestParams(req));
        if (force) {
          const last = await renderOne(ctx, e, false);
          await store.deletePost(e.id);
          return send(reply, 'json', last);
        }
        if (e.status === 'trash') throw inTrash('event');
        const trashed = await store.updateEvent({
          ...e,
          status: 'trash',
          slug: await trashedSlug(ctx, 'event', e.id, e.slug),
          modified_utc: ctx.now,
          modified_set: true,
        });
        return send(reply, 'json', await renderOne(ctx, trashed, false));
      },
    );
  }

  /** `known`: the venue and organizers a write just resolved, not read again. */
  async function renderOne(
    ctx: WriteContext,
    e: EventRecord,
    single: boolean,
    known?: ReadonlyMap<number, LinkedRecord>,
  ) {
    return renderEvent(e, await loadRelated(store, [e], ctx.caller, known), ctx.cfg, { single });
  }
}

/**
 * Write parameters of an item route. On by-slug routes the path `{slug}` only finds the event:
 * a `slug` in the body (or query) is the new slug (T101), so the path's must not override it.
 */
function writeParams(req: ApiRequest, bySlug: boolean): Record<string, unknown> {
  if (!bySlug) return requestParams(req);
  const { slug } = { ...(req.query as object), ...bodyParams(req.body) } as { slug?: unknown };
  const { slug: _path, ...rest } = requestParams(req);
  return slug === undefined ? rest : { ...rest, slug };
}

type CsvModule = typeof import('../../render/csv.ts');

/** `texts`: the stored descriptions the CSV carries (src/render/csv.ts), read only for a CSV. */
function alternatives(
  ctx: WriteContext,
  events: Record<string, unknown>[],
  texts: (csv: CsvModule) => StoredTexts,
): Alternatives {
  return {
    ical: async () =>
      (await import('../../export/ical.ts')).eventsToIcal(events as never, {
        host: ctx.cfg.host,
        calendarName: ctx.cfg.host,
      }),
    csv: async () => {
      const csv = await import('../../render/csv.ts');
      return csv.eventsToCsv(events as never, { raw: csv.rawFrom(texts(csv)) });
    },
  };
}
