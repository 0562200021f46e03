/**
 * Routes as data. Every route is declared once with its parameters' zod schemas and its
 * responses; `defineRoute` registers it with Fastify and records it, and the namespace
 * index (B.3), the `Allow` header (A.9) and the OpenAPI document (B.4) are derived from
 * the records.
 */
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Store } from '../../store/store.ts';
import { bodyParams } from '../body.ts';
import type { Config } from '../config.ts';
import { noRoute } from '../errors.ts';
import type { MediaType } from '../formats/negotiate.ts';
import type { ApiReply, ApiRequest } from '../request.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseSpec {
  status: number;
  description: string;
  /** Body schema of a success response; errors all share the Error schema. */
  schema?: z.ZodType;
}

export interface RouteSpec {
  /** OpenAPI path below the namespace, e.g. `/events/{id}`; `''` is the namespace root. */
  path: string;
  methods: Method[];
  summary: string;
  tag: string;
  /** Query parameters (GET, DELETE) or body fields (writes), from src/model. */
  args?: z.ZodObject;
  required?: readonly string[];
  responses: ResponseSpec[];
  /** Media types offered by content negotiation (D6); JSON only when absent. */
  formats?: readonly MediaType[];
  /** Needs no authentication to be useful (documentation). */
  public?: boolean;
  /**
   * GET answers may be kept until the data changes (response-cache.ts): the handler reads nothing but
   * the URL, the negotiated `formats`, the caller, the site-local date and the store.
   */
  cache?: boolean;
}

/** Error responses of a route, for the OpenAPI document; every error body is the Error schema. */
export const errors = (...statuses: number[]): ResponseSpec[] =>
  statuses.map((status) => ({ status, description: 'Error' }));

export type Handler = (req: ApiRequest, reply: ApiReply) => Promise<unknown>;

/** A route as the in-process caller finds it: methods, path pattern with its parameter names, handler. */
export interface RouteEntry {
  methods: readonly Method[];
  /** Anchored; groups in `names` order. */
  pattern: RegExp;
  names: readonly string[];
  handler: Handler;
  /** The route's Fastify `config` (`allow` for the common headers). */
  config: { allow: () => string };
}

/** A route's Fastify `config`: `allow` for the common headers, the rest for the response cache. */
export interface RouteConfig {
  allow: () => string;
  cache: boolean | undefined;
  formats: readonly MediaType[] | undefined;
}

/**
 * What a resource's plugin declares its routes on: the Fastify app (or its encapsulated child), or the
 * route table of the in-process caller, built without Fastify (src/server/in-process.ts), whose
 * `route` keeps nothing but the entry `defineRoute` records.
 */
export interface RouteHost {
  readonly prefix: string;
  readonly store: Store;
  readonly config: Config;
  readonly routeSpecs: RouteSpec[];
  readonly routeEntries: RouteEntry[];
  route(options: { method: Method[]; url: string; config: RouteConfig; handler: Handler }): unknown;
}

/** `/events/{id}` → `/events/:id(^\d+)`: ids are digits, so `/events/abc` is no route (B.0). */
const toFastifyPath = (path: string) => path.replace('{id}', ':id(^\\d+)').replace('{slug}', ':slug');

/** `/events/{id}` → `/calendar/events/v1/events/(?P<id>\d+)` (B.3). */
export const toPattern = (path: string) =>
  `/calendar/events/v1${path.replace('{id}', '(?P<id>\\d+)').replace('{slug}', '(?P<slug>[^/]+)')}`;

const OVERRIDABLE = new Set<string>(['GET', 'PUT', 'PATCH', 'DELETE']);

/**
 * The method a request is handled as: a POST with `X-HTTP-Method-Override` (B.0) is the method it
 * names. Authentication decides OAuth scopes on this one, or a `write` token could read drafts
 * through `POST` + `X-HTTP-Method-Override: GET`.
 */
export function effectiveMethod(req: Pick<FastifyRequest, 'method' | 'headers'>): string {
  if (req.method !== 'POST') return req.method;
  const override = String(req.headers['x-http-method-override'] ?? '').toUpperCase();
  return OVERRIDABLE.has(override) ? override : req.method;
}

export function defineRoute(app: RouteHost, spec: RouteSpec, handler: Handler): void {
  app.routeSpecs.push(spec);
  const url = toFastifyPath(spec.path) || '/';
  const handlers = overrideTargets(app, spec.path);
  for (const m of spec.methods) handlers.set(m, handler);
  let allow: string | undefined;
  const config: RouteConfig = {
    // `allow` is asked on every response; routes of one path are all registered before the first.
    allow: () => (allow ??= allowFor(app, spec.path)),
    cache: spec.cache,
    formats: spec.formats,
  };
  const routeHandler: Handler = async (req, reply) => {
    // X-HTTP-Method-Override on POST (B.0), for clients that can only send GET and POST.
    const override = effectiveMethod(req);
    if (override !== req.method) {
      const target = handlers.get(override as Method);
      if (!target) throw noRoute();
      return target(req, reply);
    }
    return handler(req, reply);
  };
  app.route({ method: spec.methods, url, config, handler: routeHandler });
  app.routeEntries.push({
    methods: spec.methods,
    ...routePattern(app.prefix, spec.path),
    handler: routeHandler,
    config,
  });
}

/**
 * `/calendar/events/v1` + `/events/{id}` → `^/calendar/events/v1/events/(\d+)/?$`: what Fastify's router
 * matches for the path (`:id(^\d+)`, `:slug` one segment, a trailing slash ignored), for the in-process
 * caller. Requests it does not match go through Fastify (src/server/in-process.ts).
 */
function routePattern(prefix: string, path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const escaped = `${prefix}${path}`.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const source = escaped.replace(/\{(id|slug)\}/g, (_m, name: string) => {
    names.push(name);
    return name === 'id' ? '(\\d+)' : '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}/?$`), names };
}

const overrideMaps = new WeakMap<RouteSpec[], Map<string, Map<Method, Handler>>>();
function overrideTargets(app: RouteHost, path: string): Map<Method, Handler> {
  const byPath = overrideMaps.get(app.routeSpecs) ?? new Map<string, Map<Method, Handler>>();
  overrideMaps.set(app.routeSpecs, byPath);
  const handlers = byPath.get(path) ?? new Map<Method, Handler>();
  byPath.set(path, handlers);
  return handlers;
}

function allowFor(app: RouteHost, path: string): string {
  const methods = app.routeSpecs.filter((s) => s.path === path).flatMap((s) => s.methods);
  return [...new Set(methods)].join(', ');
}

/** Query, body and path parameters merged: body overrides query, path always wins (B.0). */
export function requestParams(req: Pick<ApiRequest, 'query' | 'body' | 'params'>): Record<string, unknown> {
  return { ...(req.query as object), ...bodyParams(req.body), ...(req.params as object) };
}
