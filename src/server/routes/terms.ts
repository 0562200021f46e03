/**
 * Category and tag routes (contract B.11, A.3b): list, create, and the by-id item routes.
 * One plugin, registered once per taxonomy; the differences are the data in `KINDS`.
 * Reading terms is public; writing needs term rights (B.2: categories author+, tags editor+),
 * checked before the id is resolved (B.0).
 */
import { canManageTerms, canRead } from '../../model/capabilities.ts';
import {
  Category,
  CategoryList,
  CategoryWrite,
  Tag,
  TagList,
  TagListQuery,
  TagWrite,
  type TermKind,
  type TermListParams,
  TermListQuery,
} from '../../model/index.ts';
import { renderTerm } from '../../render/term.ts';
import type { Store, TermRecord } from '../../store/store.ts';
import { forbidden, invalidParam, notFoundById } from '../errors.ts';
import { parseParams } from '../params.ts';
import type { ApiRequest } from '../request.ts';
import { contextOf } from '../services/context.ts';
import { createTerm, updateTerm } from '../services/term-write.ts';
import { refuseLockedFilter } from '../services/visibility.ts';
import { type ListPage, paging, pickFormat, send, setTotals } from './respond.ts';
import { defineRoute, errors, type RouteHost, requestParams } from './spec.ts';

export interface TermRoutesOptions {
  kind: TermKind;
}

const KINDS = {
  categories: {
    one: 'category',
    tag: 'Categories',
    write: CategoryWrite,
    query: TermListQuery,
    wire: Category,
    list: CategoryList,
  },
  tags: { one: 'tag', tag: 'Tags', write: TagWrite, query: TagListQuery, wire: Tag, list: TagList },
} as const;

/** Echoed in `rest_url` when given, in route-table order (A.7: term lists echo only what was given). */
const ECHO = [
  'per_page',
  'search',
  'exclude',
  'include',
  'order',
  'orderby',
  'hide_empty',
  'parent',
  'post',
  'event',
  'slug',
] as const;

/** Terms have no CSV or iCalendar representation (B.12). */
const FORMATS = ['json', 'xml'] as const;

export async function termRoutes(app: RouteHost, { kind }: TermRoutesOptions): Promise<void> {
  const { store } = app;
  const k = KINDS[kind];
  const collection = () => `${app.config.apiBase}/calendar/events/v1/${kind}`;
  const render = async (t: TermRecord, withLinks: boolean) =>
    renderTerm(t, app.config, kind === 'categories' ? await ancestorSlugs(store, t) : [], withLinks);
  const resolve = async (req: ApiRequest): Promise<TermRecord> => {
    const { id } = req.params as { id: string };
    const term = await store.getTerm(kind, Number(id));
    if (!term) throw notFoundById(k.one, id);
    return term;
  };
  /** B.0 step 3: the capability comes before the id is resolved or the body read. */
  const mayManage = (req: ApiRequest) => {
    if (!canManageTerms(req.caller, kind)) throw forbidden(req.caller === null);
  };

  defineRoute(
    app,
    {
      path: `/${kind}`,
      methods: ['GET'],
      summary: `List ${kind}`,
      tag: k.tag,
      args: k.query,
      formats: FORMATS,
      cache: true,
      responses: [
        { status: 200, description: `A page of ${kind}; past the end an empty page`, schema: k.list },
        ...errors(400, 406),
      ],
    },
    async (req, reply) => {
      const format = pickFormat(req, FORMATS);
      const cfg = app.config;
      const p: TermListParams = parseParams(k.query, requestParams(req));
      const page = p.page ?? 1;
      const perPage = Math.min(p.per_page ?? cfg.defaultPerPage, cfg.maxPerPage);
      for (const key of ['include', 'exclude'] as const) {
        let unknown: number | undefined;
        for (const id of p[key] ?? []) {
          if (await store.getTerm(kind, id)) continue;
          unknown = id;
          break;
        }
        if (unknown !== undefined) throw invalidParam(key, `${key}: ${unknown} is not a valid ${k.one} id.`);
      }
      // `event` is an alias of `post` and wins (B.11).
      const eventParam = p.event !== undefined ? 'event' : p.post !== undefined ? 'post' : undefined;
      const eventId = eventParam && p[eventParam];
      // An event the caller may not read answers like an unknown one (B.2).
      const filterEvent = eventParam ? await store.getEvent(eventId!) : undefined;
      if (eventParam && !(filterEvent && canRead(req.caller, filterEvent))) {
        throw invalidParam(eventParam, `${eventParam}: ${eventId} is not a valid event id.`);
      }
      if (filterEvent) refuseLockedFilter(req, filterEvent);
      const { items, total } = await store.listTerms({
        kind,
        offset: (page - 1) * perPage,
        limit: perPage,
        search: p.search,
        include: p.include,
        exclude: p.exclude,
        order: p.order ?? 'asc',
        orderby: p.orderby ?? 'name',
        hideEmpty: p.hide_empty ?? true,
        parent: kind === 'categories' ? p.parent : undefined,
        eventId,
        slug: p.slug,
      });

      const echo: ListPage['echo'] = [];
      for (const key of ECHO) {
        const v = key === 'per_page' && p.per_page !== undefined ? perPage : p[key];
        if (v !== undefined) echo.push([key, Array.isArray(v) ? v.join(',') : v]);
      }
      const list = termPaging({
        collection: collection(),
        page,
        perPage,
        total,
        echo,
        pageInRestUrl: p.page !== undefined,
      });
      setTotals(reply, total, list.totalPages);
      const doc = {
        ...{ rest_url: list.links.rest_url, total, total_pages: list.totalPages },
        [kind]: await Promise.all(items.map((t) => render(t, false))),
        ...(list.links.next_rest_url ? { next_rest_url: list.links.next_rest_url } : {}),
        ...(list.links.previous_rest_url ? { previous_rest_url: list.links.previous_rest_url } : {}),
      };
      return send(reply, format, doc);
    },
  );

  defineRoute(
    app,
    {
      path: `/${kind}`,
      methods: ['POST'],
      summary: `Create a ${k.one}`,
      tag: k.tag,
      args: k.write,
      required: ['name'],
      responses: [{ status: 201, description: `The new ${k.one}`, schema: k.wire }, ...errors(400, 401, 403)],
    },
    async (req, reply) => {
      mayManage(req);
      const data = parseParams(k.write, requestParams(req), { required: ['name'] });
      const wire = await render(await createTerm(contextOf(req), kind, data), true);
      reply.code(201).header('location', (wire.urls as { self: string }).self);
      return send(reply, 'json', wire);
    },
  );

  const path = `/${kind}/{id}`;
  defineRoute(
    app,
    {
      path,
      methods: ['GET'],
      summary: `Read a ${k.one}`,
      tag: k.tag,
      formats: FORMATS,
      cache: true,
      responses: [
        { status: 200, description: `The ${k.one}, with _links`, schema: k.wire },
        ...errors(404, 406),
      ],
    },
    async (req, reply) => {
      const format = pickFormat(req, FORMATS);
      return send(reply, format, await render(await resolve(req), true));
    },
  );

  defineRoute(
    app,
    {
      path,
      methods: ['DELETE'],
      summary: `Delete a ${k.one} permanently (force is ignored); child categories move to its parent`,
      tag: k.tag,
      responses: [
        { status: 200, description: `The ${k.one} as it was, without _links`, schema: k.wire },
        ...errors(401, 403, 404),
      ],
    },
    async (req, reply) => {
      mayManage(req);
      const term = await resolve(req);
      const last = await render(term, false);
      await store.deleteTerm(kind, term.id);
      return send(reply, 'json', last);
    },
  );

  defineRoute(
    app,
    {
      path,
      methods: ['POST', 'PUT', 'PATCH'],
      summary: `Update a ${k.one} (partial: absent fields keep their values)`,
      tag: k.tag,
      args: k.write,
      responses: [
        { status: 200, description: `The updated ${k.one}`, schema: k.wire },
        ...errors(400, 401, 403, 404),
      ],
    },
    async (req, reply) => {
      mayManage(req);
      const term = await resolve(req);
      const data = parseParams(k.write, requestParams(req));
      return send(reply, 'json', await render(await updateTerm(contextOf(req), term, data), true));
    },
  );
}

/**
 * A.7 links, except that past the end (200 `[]` for terms, B.11) the previous link points
 * at the last page, as WordPress's terms controller does, not at page − 1.
 */
function termPaging(p: ListPage) {
  const list = paging(p);
  const last = Math.max(list.totalPages, 1);
  if (p.page > last + 1) {
    const previous = paging({ ...p, page: last + 1 }).links.previous_rest_url;
    if (previous) list.links.previous_rest_url = previous;
  }
  return list;
}

/** Slugs of the parent chain, root first, for the category permalink (A.3b). */
async function ancestorSlugs(store: Store, t: TermRecord): Promise<string[]> {
  const slugs: string[] = [];
  const seen = new Set([t.id]);
  let parent = t.parent;
  while (parent && !seen.has(parent)) {
    seen.add(parent);
    const p = await store.getTerm('categories', parent);
    if (!p) break;
    slugs.unshift(p.slug);
    parent = p.parent;
  }
  return slugs;
}
