/**
 * `GET /events` parameters → a store query (contract B.5): the default window, inclusive
 * whole days unless `strict_dates`, bounds as UTC instants, slugs resolved to ids, the
 * caller's visibility; plus the effective query echoed in `rest_url` (A.7, E2).
 */
import { dayEnd, dayStart, localToUtc, parseDateInput, utcToLocal } from '../../model/datetime.ts';
import { type EventListParams, EventListQuery } from '../../model/index.ts';
import type { EventQuery } from '../../store/store.ts';
import { invalidParam } from '../errors.ts';
import { parseParams } from '../params.ts';
import type { WriteContext } from './context.ts';
import { listVisibility, protectedTextAccess } from './visibility.ts';

export interface EventListPlan {
  query: EventQuery;
  params: EventListParams;
  page: number;
  perPage: number;
  echo: [string, string | number | boolean][];
}

const BOUNDS = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
const BOUND_FIELD = {
  starts_before: 'startsBefore',
  starts_after: 'startsAfter',
  ends_before: 'endsBefore',
  ends_after: 'endsAfter',
} as const;
/** Echoed after the window, search and status, in route-table order (A.7). */
const ECHO_TAIL = [
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
  'strict_dates',
  'categories',
  'tags',
  'venue',
  'organizer',
  'featured',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'include',
  'post_parent',
  'ticketed',
] as const;

export async function planEventList(ctx: WriteContext, raw: Record<string, unknown>): Promise<EventListPlan> {
  const p = parseParams(EventListQuery, raw);
  const { store, cfg } = ctx;
  const page = p.page ?? 1;
  const perPage = Math.min(p.per_page ?? cfg.defaultPerPage, cfg.maxPerPage);
  const zone = cfg.siteTimezone;
  const strict = p.strict_dates ?? false;
  const visibility = listVisibility(ctx.caller, p.status);
  const query: EventQuery = { offset: (page - 1) * perPage, limit: perPage, visibility };
  const echoed: Record<string, string | number | boolean> = {};

  // Site-local bounds, snapped to whole days unless strict (B.5), compared as UTC instants.
  const local = (v: string) => parseDateInput(v, zone)!.local;
  const snap = (v: string, end: boolean) => (strict ? v : end ? dayEnd(v) : dayStart(v));
  if (p.include === undefined) {
    const hasRange = p.start_date !== undefined || p.end_date !== undefined;
    const hasBounds = BOUNDS.some((k) => p[k] !== undefined);
    if (hasRange || !hasBounds) {
      const today = utcToLocal(ctx.now, zone).slice(0, 10);
      const start = p.start_date ? snap(local(p.start_date), false) : dayStart(addDays(today, -1));
      const end = p.end_date ? snap(local(p.end_date), true) : dayEnd(addYears(today, 2));
      query.startFrom = localToUtc(start, zone);
      query.endTo = localToUtc(end, zone);
      echoed.start_date = start;
      echoed.end_date = end;
    }
    for (const k of BOUNDS) {
      if (p[k] === undefined) continue;
      // Inclusive mode puts every starts_*/ends_* at the end of its day [live].
      const v = snap(local(p[k]), true);
      query[BOUND_FIELD[k]] = localToUtc(v, zone);
      echoed[k] = v;
    }
  }

  if (p.search !== undefined) {
    query.searchWords = p.search.split(/\s+/).filter(Boolean);
    query.protectedText = protectedTextAccess(ctx.caller);
    echoed.search = p.search;
  }
  if (p.categories !== undefined) {
    const ids: number[] = [];
    for (const ref of p.categories) ids.push(await termId(ctx, 'categories', ref));
    const withDescendants = new Set<number>();
    for (const id of ids) for (const d of await store.categoryDescendants(id)) withDescendants.add(d);
    query.categoryIds = [...withDescendants];
  }
  if (p.tags !== undefined) {
    query.tagIds = [];
    for (const ref of p.tags) query.tagIds.push(await termId(ctx, 'tags', ref));
  }
  if (p.venue !== undefined) {
    query.venueIds = [];
    for (const id of p.venue) query.venueIds.push(await linkedId(ctx, 'venue', id));
  }
  if (p.organizer !== undefined) {
    query.organizerIds = [];
    for (const id of p.organizer) query.organizerIds.push(await linkedId(ctx, 'organizer', id));
  }
  if (p.featured !== undefined) query.featured = p.featured;
  if (p.include !== undefined) query.include = p.include;
  if (p.post_parent !== undefined) {
    if (!(await store.getEvent(p.post_parent))) throw invalidParam('post_parent');
    query.matchNothing = true;
  }

  const echo: EventListPlan['echo'] = [['per_page', perPage]];
  for (const k of ['start_date', 'end_date', 'search'] as const) if (k in echoed) echo.push([k, echoed[k]]);
  echo.push(['status', [...visibility.statuses, ...visibility.ownStatuses].join(',')]);
  for (const k of ECHO_TAIL) {
    const v = k in echoed ? echoed[k] : p[k];
    if (v !== undefined) echo.push([k, Array.isArray(v) ? v.join(',') : (v as string | number | boolean)]);
  }
  return { query, params: p, page, perPage, echo };
}

/** A category or tag by slug first, then by id (B.5); unknown → 400. */
async function termId(ctx: WriteContext, kind: 'categories' | 'tags', ref: string): Promise<number> {
  const term =
    (await ctx.store.findTermBySlug(kind, ref)) ??
    (/^\d+$/.test(ref) ? await ctx.store.getTerm(kind, Number(ref)) : undefined);
  if (!term) throw invalidParam(kind, `${kind}: ${ref} is not a valid term slug or id.`);
  return term.id;
}

async function linkedId(ctx: WriteContext, kind: 'venue' | 'organizer', id: number): Promise<number> {
  if (!(await ctx.store.getLinked(kind, id)))
    throw invalidParam(kind, `${kind}: ${id} is not a valid ${kind} id.`);
  return id;
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function addYears(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}
