/**
 * The namespace root (contract B.3) and the OpenAPI document (B.4), both derived from the route
 * registry. Routes do not change at run time, so each document is built once, at its first
 * request (every plugin is registered by then), and served from memory.
 *
 * Public: `rootRoutes` (plugin), `buildNamespaceIndex` (pure).
 *
 * The index has WordPress's shape (`WP_REST_Server::get_data_for_route`): per route its
 * namespace, methods and endpoints with their `args`; `_links.self` only on routes without path
 * parameters; with `context=help`, each route's response schema too.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { contentType } from '../formats/negotiate.ts';
import { buildOpenApi } from '../openapi/index.ts';
import { nounOf } from '../openapi/operations.ts';
import { type Json, listElement, toJson, wpType } from '../openapi/schemas.ts';
import { parseParams } from '../params.ts';
import { defineRoute, errors, type Method, type RouteSpec, toPattern } from './spec.ts';

const NAMESPACE = 'calendar/events/v1';
const TAG = 'Discovery';
const CONTEXTS = ['view', 'help'] as const;
type Context = (typeof CONTEXTS)[number];

const IndexQuery = z.object({
  namespace: z
    .string()
    .default(NAMESPACE)
    .meta({ 'x-wp-type': 'string', description: 'the namespace to list' }),
  context: z
    .enum(CONTEXTS)
    .default('view')
    .meta({ 'x-wp-type': 'string', description: 'scope of the request; `help` adds each route’s schema' }),
});

const Links = z.array(z.object({ href: z.string() }));
const RouteArg = z.object({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  items: z.record(z.string(), z.unknown()).optional(),
  required: z.boolean(),
});
const MethodName = z.enum(['GET', 'DELETE', 'POST', 'PUT', 'PATCH']);
const NamespaceIndex = z.object({
  namespace: z.string(),
  routes: z.record(
    z.string().describe('WordPress route pattern'),
    z.object({
      namespace: z.string(),
      methods: z.array(MethodName),
      endpoints: z.array(z.object({ methods: z.array(MethodName), args: z.record(z.string(), RouteArg) })),
      schema: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('with `context=help`: the response schema'),
      _links: z.object({ self: Links }).optional().describe('only on routes without path parameters'),
    }),
  ),
  _links: z.object({ up: Links }),
});
const OpenApiDocument = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.');

/** Endpoint order in the index: GET, DELETE, then the writes (B.3, as WordPress lists them). */
const RANK: Record<Method, number> = { GET: 0, DELETE: 1, POST: 2, PUT: 3, PATCH: 4 };
const rank = (spec: RouteSpec) => Math.min(...spec.methods.map((m) => RANK[m]));

export async function rootRoutes(app: FastifyInstance): Promise<void> {
  const cache = new Map<string, string>();
  const json = (key: string, build: () => unknown): string => {
    let body = cache.get(key);
    if (body === undefined) {
      body = JSON.stringify(build());
      cache.set(key, body);
    }
    return body;
  };

  defineRoute(
    app,
    {
      path: '',
      methods: ['GET'],
      summary: 'Namespace index: every route with its methods and arguments',
      tag: TAG,
      args: IndexQuery,
      formats: ['json'],
      public: true,
      responses: [
        { status: 200, description: 'The namespace index', schema: NamespaceIndex },
        ...errors(400, 404),
      ],
    },
    async (req, reply) => {
      const params = parseParams(IndexQuery, req.query as Record<string, unknown>);
      if ((params.namespace ?? NAMESPACE) !== NAMESPACE) {
        throw new ApiError(404, 'rest_invalid_namespace', 'The specified namespace could not be found.');
      }
      const context = params.context ?? 'view';
      reply.type(contentType('json'));
      return json(context, () => buildNamespaceIndex(app.routeSpecs, app.config, context));
    },
  );

  defineRoute(
    app,
    {
      path: '/doc',
      methods: ['GET'],
      summary: 'This API as an OpenAPI 3.1 document',
      tag: TAG,
      formats: ['json'],
      public: true,
      responses: [{ status: 200, description: 'The OpenAPI document', schema: OpenApiDocument }],
    },
    async (_req, reply) => {
      reply.type(contentType('json'));
      return json('doc', () =>
        buildOpenApi(app.routeSpecs, app.config, {
          tokenRoute: app.hasRoute({ method: 'POST', url: `${app.config.apiPrefix}/oauth/token` }),
        }),
      );
    },
  );
}

/** The B.3 document for `specs` (the registry), as `GET /calendar/events/v1` answers it. */
export function buildNamespaceIndex(
  specs: readonly RouteSpec[],
  cfg: Config,
  context: Context = 'view',
): Json {
  const byPath = new Map<string, RouteSpec[]>();
  for (const spec of specs) byPath.set(spec.path, [...(byPath.get(spec.path) ?? []), spec]);

  const routes: Record<string, Json> = {};
  for (const [path, group] of byPath) {
    const endpoints = [...group].sort((a, b) => rank(a) - rank(b));
    const route: Json = {
      namespace: NAMESPACE,
      methods: endpoints.flatMap((s) => [...s.methods].sort((a, b) => RANK[a] - RANK[b])),
      endpoints: endpoints.map((s) => ({
        methods: [...s.methods].sort((a, b) => RANK[a] - RANK[b]),
        args: argsOf(s),
      })),
    };
    if (context === 'help') {
      const success = endpoints.flatMap((s) => s.responses).find((r) => r.status < 300 && r.schema);
      if (success?.schema) route.schema = toJson(success.schema, 'output');
    }
    if (!path.includes('{')) route._links = { self: [{ href: `${cfg.apiBase}${toPattern(path)}` }] };
    routes[toPattern(path)] = route;
  }
  return { namespace: NAMESPACE, routes, _links: { up: [{ href: `${cfg.apiBase}/` }] } };
}

/** An endpoint's `args` as WordPress shows them: path parameters, then the schema's fields. */
function argsOf(spec: RouteSpec): Record<string, Json> {
  const args: Record<string, Json> = {};
  const noun = nounOf(spec.path)[0].toLowerCase();
  for (const [, name] of spec.path.matchAll(/\{(\w+)\}/g)) {
    args[name] = {
      type: name === 'id' ? 'integer' : 'string',
      description: `The ${noun} ${name}.`,
      required: true,
    };
  }
  for (const [name, field] of Object.entries(spec.args?.shape ?? {})) {
    if (args[name]) continue;
    const json = toJson(field, 'input');
    const arg: Json = {};
    const type = wpType(json);
    if (type !== undefined) arg.type = type;
    if (typeof json.description === 'string') arg.description = json.description;
    if (json.default !== undefined) arg.default = json.default;
    const list = listElement(field);
    if (list) {
      const item = toJson(list.element as z.ZodType, 'input');
      const itemType = wpType(item);
      if (itemType !== undefined)
        arg.items = item.enum ? { type: itemType, enum: item.enum } : { type: itemType };
    }
    arg.required = spec.required?.includes(name) ?? false;
    args[name] = arg;
  }
  return args;
}
