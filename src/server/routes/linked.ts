/**
 * Venue and organizer routes (contract B.7, B.8, B.10): the list, create-or-find, and the
 * by-id and by-slug item routes. One plugin, registered once per kind; what differs between
 * the kinds is the data in `KINDS`. Handlers follow B.0's order: capability, resolve,
 * per-item checks, validate, value-dependent checks (in the services), write.
 */
import { z } from 'zod';
import { canCreate, canRead } from '../../model/capabilities.ts';
import {
  LinkedListQuery,
  Organizer,
  OrganizerList,
  OrganizerWrite,
  Venue,
  VenueList,
  VenueWrite,
  wpBoolean,
} from '../../model/index.ts';
import { renderLinked } from '../../render/linked.ts';
import type { WireOrganizer, WireVenue } from '../../render/wire.ts';
import type { LinkedKind, LinkedRecord } from '../../store/store.ts';
import {
  archivePageNotFound,
  forbidden,
  inTrash,
  invalidParam,
  notAccessible,
  notFoundById,
  notFoundBySlug,
} from '../errors.ts';
import { parseParams } from '../params.ts';
import type { ApiRequest } from '../request.ts';
import { uncacheable } from '../response-cache.ts';
import { contextOf, type WriteContext } from '../services/context.ts';
import { createLinked, deleteLinked, trashLinked, updateLinked } from '../services/linked-write.ts';
import { listVisibility, refuseLockedFilter } from '../services/visibility.ts';
import { editableItem, refuseTrashed } from './item.ts';
import { paging, pickFormat, send, setTotals } from './respond.ts';
import { defineRoute, errors, type RouteHost, requestParams } from './spec.ts';

export interface LinkedRoutesOptions {
  kind: LinkedKind;
}

type CsvRaw = (id: number) => string | undefined;

const KINDS = {
  venue: {
    plural: 'venues',
    tag: 'Venues',
    write: VenueWrite,
    wire: Venue,
    list: VenueList,
    csv: async (items: Record<string, unknown>[], raw: CsvRaw) =>
      (await import('../../render/csv.ts')).venuesToCsv(items as WireVenue[], {
        raw: (item) => raw(item.id as number),
      }),
  },
  organizer: {
    plural: 'organizers',
    tag: 'Organizers',
    write: OrganizerWrite,
    wire: Organizer,
    list: OrganizerList,
    csv: async (items: Record<string, unknown>[], raw: CsvRaw) =>
      (await import('../../render/csv.ts')).organizersToCsv(items as WireOrganizer[], {
        raw: (item) => raw(item.id as number),
      }),
  },
} as const;

const FORMATS = ['json', 'xml', 'csv'] as const;
const DeleteQuery = z.object({ force: wpBoolean.describe('delete permanently instead of trashing') });
/** Echoed in `rest_url` after page, per_page, search and status, in route-table order (A.7). */
const ECHO_TAIL = ['event', 'has_events', 'only_with_upcoming'] as const;

export async function linkedRoutes(app: RouteHost, { kind }: LinkedRoutesOptions): Promise<void> {
  const { store } = app;
  const k = KINDS[kind];
  const a = kind === 'venue' ? 'a venue' : 'an organizer';

  const render = async (ctx: WriteContext, rec: LinkedRecord, single: boolean) =>
    renderLinked(rec, rec.image_id ? await store.getAttachment(rec.image_id) : undefined, ctx.cfg, single);
  const csvOf = (wire: Record<string, unknown>[], records: LinkedRecord[]) => () =>
    k.csv(wire, (id) => records.find((r) => r.id === id)?.description);

  defineRoute(
    app,
    {
      path: `/${k.plural}`,
      methods: ['GET'],
      summary: `List ${k.plural}`,
      tag: k.tag,
      args: LinkedListQuery,
      formats: FORMATS,
      cache: true,
      responses: [
        { status: 200, description: `A page of ${k.plural}, newest first`, schema: k.list },
        ...errors(400, 401, 403, 404, 406),
      ],
    },
    async (req, reply) => {
      const format = pickFormat(req, FORMATS);
      const ctx = contextOf(req);
      const p = parseParams(LinkedListQuery, requestParams(req));
      const page = p.page ?? 1;
      const perPage = Math.min(p.per_page ?? ctx.cfg.defaultPerPage, ctx.cfg.maxPerPage);
      // An event the caller may not read answers like an unknown one (B.2).
      const filterEvent = p.event === undefined ? undefined : await store.getEvent(p.event);
      if (p.event !== undefined && !(filterEvent && canRead(ctx.caller, filterEvent))) {
        throw invalidParam('event', `event: ${p.event} is not a valid event id.`);
      }
      if (filterEvent) refuseLockedFilter(req, filterEvent);
      const visibility = listVisibility(ctx.caller, p.status);
      // "Upcoming" is measured to the second, finer than the cache key's date.
      if (p.only_with_upcoming) uncacheable(reply);
      const { items, total } = await store.listLinked(kind, {
        offset: (page - 1) * perPage,
        limit: perPage,
        searchWords: p.search?.split(/\s+/).filter(Boolean),
        eventId: p.event,
        hasEvents: p.has_events,
        ...(p.only_with_upcoming
          ? { upcomingAfter: ctx.now, upcomingVisibility: listVisibility(ctx.caller) }
          : {}),
        visibility,
      });

      const echo: [string, string | number | boolean][] = [['per_page', perPage]];
      if (p.search !== undefined) echo.push(['search', p.search]);
      echo.push(['status', [...visibility.statuses, ...visibility.ownStatuses].join(',')]);
      for (const key of ECHO_TAIL) if (p[key] !== undefined) echo.push([key, p[key]]);
      const list = paging({
        collection: `${ctx.cfg.apiBase}/calendar/events/v1/${k.plural}`,
        page,
        perPage,
        total,
        echo,
      });
      if (page > 1 && page > list.totalPages) throw archivePageNotFound(kind);

      const images = await store.getAttachmentsMany(items.flatMap((r) => (r.image_id ? [r.image_id] : [])));
      const wire = items.map((r) =>
        renderLinked(r, r.image_id ? images.get(r.image_id) : undefined, ctx.cfg, false),
      );
      setTotals(reply, total, list.totalPages);
      const doc = { [k.plural]: wire, ...list.links, total, total_pages: list.totalPages };
      return send(reply, format, doc, { csv: csvOf(wire, items) });
    },
  );

  defineRoute(
    app,
    {
      path: `/${k.plural}`,
      methods: ['POST'],
      summary: `Create ${a}, or find the one with that name (and description)`,
      tag: k.tag,
      args: k.write,
      required: [kind],
      responses: [
        { status: 201, description: `The new ${kind}, or the existing one unchanged`, schema: k.wire },
        ...errors(400, 401, 403),
      ],
    },
    async (req, reply) => {
      const ctx = contextOf(req);
      if (!canCreate(ctx.caller)) throw forbidden(ctx.caller === null);
      const data = parseParams(k.write, requestParams(req), { required: [kind] });
      const { record } = await createLinked(ctx, kind, data);
      reply.code(201).header('location', `${ctx.cfg.apiBase}/calendar/events/v1/${k.plural}/${record.id}`);
      return send(reply, 'json', await render(ctx, record, false));
    },
  );

  for (const bySlug of [false, true]) {
    const path = bySlug ? `/${k.plural}/by-slug/{slug}` : `/${k.plural}/{id}`;
    const what = bySlug ? 'by slug' : 'by id';
    const resolve = async (req: ApiRequest): Promise<LinkedRecord> => {
      const { id, slug } = req.params as { id?: string; slug?: string };
      const found = await (bySlug ? store.findBySlug(kind, slug!) : store.getLinked(kind, Number(id)));
      if (found?.kind !== kind) throw bySlug ? notFoundBySlug(kind, slug!) : notFoundById(kind, id!);
      return found;
    };

    defineRoute(
      app,
      {
        path,
        methods: ['GET'],
        summary: `Read ${a} ${what}`,
        tag: k.tag,
        formats: FORMATS,
        cache: true,
        responses: [
          { status: 200, description: `The ${kind}, with json_ld`, schema: k.wire },
          ...errors(403, 404, 406),
        ],
      },
      async (req, reply) => {
        const format = pickFormat(req, FORMATS);
        const ctx = contextOf(req);
        const rec = await resolve(req);
        if (!canRead(ctx.caller, rec)) throw notAccessible(kind);
        const wire = await render(ctx, rec, true);
        return send(reply, format, wire, { csv: csvOf([wire], [rec]) });
      },
    );

    defineRoute(
      app,
      {
        path,
        methods: ['DELETE'],
        summary: `Trash ${a} ${what}, or delete it with force=true; either unlinks it from every event`,
        tag: k.tag,
        args: DeleteQuery,
        responses: [
          { status: 200, description: `The trashed ${kind}, or its last representation`, schema: k.wire },
          ...errors(400, 401, 403, 404, 410),
        ],
      },
      async (req, reply) => {
        const ctx = contextOf(req);
        const rec = await editableItem(ctx.caller, () => resolve(req));
        const { force = false } = parseParams(DeleteQuery, requestParams(req));
        if (force) {
          const last = await render(ctx, rec, false);
          await deleteLinked(ctx, rec);
          return send(reply, 'json', last);
        }
        if (rec.status === 'trash') throw inTrash(kind);
        return send(reply, 'json', await render(ctx, await trashLinked(ctx, rec), false));
      },
    );

    defineRoute(
      app,
      {
        path,
        methods: ['POST', 'PUT', 'PATCH'],
        summary: `Update ${a} ${what} (partial: absent fields keep their values)`,
        tag: k.tag,
        args: k.write,
        responses: [
          { status: 200, description: `The updated ${kind}`, schema: k.wire },
          ...errors(400, 401, 403, 404, 410),
        ],
      },
      async (req, reply) => {
        const ctx = contextOf(req);
        const rec = await editableItem(ctx.caller, () => resolve(req));
        const params = requestParams(req);
        refuseTrashed(rec, params, kind);
        const data = parseParams(k.write, params);
        return send(reply, 'json', await render(ctx, await updateLinked(ctx, rec, data), false));
      },
    );
  }
}
