/**
 * One OpenAPI operation per route method (B.4): parameters, request body, every response status
 * with the negotiable media types (D6), security. Built from a `RouteSpec` only.
 *
 * Public: `operation` (with its `Parts`), `operationId`, `RequestBodies`, `pathParams`, `nounOf`.
 */
import type { z } from 'zod';
import type { MediaType } from '../formats/negotiate.ts';
import type { Method, RouteSpec } from '../routes/spec.ts';
import { type Json, listElement, type SchemaSet } from './schemas.ts';

/** Resource nouns by first path segment: [singular, plural]. */
const NOUNS: Record<string, [string, string]> = {
  events: ['Event', 'Events'],
  venues: ['Venue', 'Venues'],
  organizers: ['Organizer', 'Organizers'],
  categories: ['Category', 'Categories'],
  tags: ['Tag', 'Tags'],
};
const SPECIAL: Record<string, string> = { '': 'getNamespaceIndex', '/doc': 'getOpenApiDocument' };
const VERB: Record<Method, string> = {
  GET: 'get',
  POST: 'update',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Methods whose `args` are query parameters; the others take them as a request body. */
const QUERY_METHODS = new Set<Method>(['GET', 'DELETE']);

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** `['Event', 'Events']` for `/events/…`; made up from the segment for unknown resources. */
export function nounOf(path: string): [string, string] {
  const first = path.split('/').find(Boolean) ?? '';
  return NOUNS[first] ?? [pascal(first.replace(/s$/, '')), pascal(first)];
}

/** `listEvents`, `createEvent`, `getEventById`, `updateEventBySlug`, `deleteTagById`… */
export function operationId(path: string, method: Method): string {
  if (method === 'GET' && SPECIAL[path]) return SPECIAL[path];
  const segments = path.split('/').filter(Boolean);
  const [one, many] = nounOf(path);
  if (segments.length === 1) {
    if (method === 'GET') return `list${many}`;
    if (method === 'POST') return `create${one}`;
  }
  const by = path.endsWith('/{id}') ? 'ById' : path.endsWith('/{slug}') ? 'BySlug' : '';
  if (by && segments.length <= 3) return `${VERB[method]}${one}${by}`;
  return `${method.toLowerCase()}${pascal(path) || 'Root'}`;
}

/** Path parameters of a template: `{id}` is digits (B.0), `{slug}` any segment. */
function pathParams(path: string): Json[] {
  const one = nounOf(path)[0].toLowerCase();
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description:
      name === 'id'
        ? `The ${one} id: digits only, anything else is no route (404 \`rest_no_route\`).`
        : `The ${one} slug.`,
    schema: name === 'id' ? { type: 'integer', minimum: 0 } : { type: 'string', pattern: '^[^/]+$' },
  }));
}

const MEDIA: Record<MediaType, string> = {
  json: 'application/json',
  xml: 'application/xml',
  ical: 'text/calendar',
  csv: 'text/csv',
};
const TEXT_BODY: Record<Exclude<MediaType, 'json'>, string> = {
  xml: 'The JSON document as XML: `<response>` holding one element per member (B.12).',
  ical: 'iCalendar (RFC 5545), one VEVENT per event (B.12).',
  csv: 'CSV (RFC 4180) with a header row of TEC CSV-importer keys (B.12).',
};

/** What the generic `Error` entries of the route table mean, by status (A.8, B.0–B.12). */
const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request: bad JSON, missing or invalid parameters (`rest_invalid_json`, `rest_missing_callback_param`, `rest_invalid_param`).',
  401: 'Bad credentials (`incorrect_password`, `invalid_token`), or anonymous where a login is needed (`rest_forbidden`).',
  403: 'Authenticated but not allowed (`rest_forbidden`, `…-not-accessible`, `insufficient_scope`).',
  404: 'Not found (`rest_no_route`, `…-not-found`, `…-archive-page-not-found`).',
  406: 'None of the requested media types is available (`rest_not_acceptable`).',
  410: 'The item is in the trash (`…-is-in-trash`).',
  413: 'Request body too large (`rest_request_too_large`).',
  415: 'Unsupported request media type (`rest_unsupported_media_type`).',
};

/**
 * Statuses the app gives any route, whatever the route table says: bad credentials are a 401
 * on every route (B.0 step 1), and body parsing can refuse a write before its handler runs.
 */
const APP_STATUSES = { any: [401], write: [400, 413, 415] };

export interface Parts {
  schemas: SchemaSet;
  bodies: RequestBodies;
}

export function operation(spec: RouteSpec, method: Method, id: string, { schemas, bodies }: Parts): Json {
  const op: Json = { operationId: id, summary: spec.summary, tags: [spec.tag] };
  const params = [...pathParams(spec.path), ...(QUERY_METHODS.has(method) ? queryParams(spec, schemas) : [])];
  if (params.length) op.parameters = params;
  if (!QUERY_METHODS.has(method) && spec.args) {
    op.requestBody = bodies.ref({ ...spec, args: spec.args }, id[0].toUpperCase() + id.slice(1), schemas);
  }
  op.responses = responses(spec, method, schemas);
  // `bearerAuth` is the same token as `oauth2`, pasted rather than fetched (the docs page's Authorize);
  // OpenAPI 3.1 lets a non-OAuth scheme list the roles it needs, here the token's scope.
  op.security = spec.public
    ? []
    : method === 'GET'
      ? [{}, { basicAuth: [] }, { oauth2: ['read'] }, { bearerAuth: ['read'] }]
      : [{ basicAuth: [] }, { oauth2: ['write'] }, { bearerAuth: ['write'] }];
  return op;
}

function queryParams(spec: RouteSpec, schemas: SchemaSet): Json[] {
  if (!spec.args) return [];
  const inPath = new Set(pathParams(spec.path).map((p) => p.name));
  return Object.entries(spec.args.shape)
    .filter(([name]) => !inPath.has(name))
    .map(([name, field]) => {
      const { description, ...schema } = schemas.of(field, 'input');
      const param: Json = { name, in: 'query', required: spec.required?.includes(name) ?? false };
      if (description) param.description = description;
      // A list is a CSV string, `name[]=` fields or (in bodies) a JSON array (B.0): OpenAPI's
      // closest serialisation is the comma-separated `form` style.
      const list = listElement(field);
      if (list) {
        const { description: _, ...items } = schemas.of(list, 'input');
        param.schema = { ...items, 'x-wp-type': 'array' };
        param.style = 'form';
        param.explode = false;
      } else {
        param.schema = schema;
      }
      return param;
    });
}

/**
 * Request bodies, one component per distinct (fields, required) pair: the three methods of an
 * update, and by-id and by-slug routes, share theirs. JSON, form-urlencoded (nested fields with
 * brackets) and multipart take the same fields (B.0); the latter two point at the JSON schema.
 */
export class RequestBodies {
  readonly components: Record<string, Json> = {};
  readonly #names = new Map<z.ZodObject, Map<string, string>>();

  /** `$ref` to the body of `spec`, creating it under `name` (PascalCase) on first use. */
  ref(spec: RouteSpec & { args: z.ZodObject }, name: string, schemas: SchemaSet): Json {
    const required = (spec.required ?? []).filter((k) => k in spec.args.shape);
    const byRequired = this.#names.get(spec.args) ?? new Map<string, string>();
    this.#names.set(spec.args, byRequired);
    let key = byRequired.get(required.join());
    if (!key) {
      key = name;
      for (let n = 2; this.components[key]; n++) key = `${name}${n}`;
      byRequired.set(required.join(), key);
      this.components[key] = body(spec.args, required, key, schemas);
    }
    return { $ref: `#/components/requestBodies/${key}` };
  }
}

function body(args: z.ZodObject, required: string[], key: string, schemas: SchemaSet): Json {
  const schema = schemas.of(args, 'input');
  // zod lists every key as required in input mode; which ones are is the route's business.
  delete schema.required;
  if (required.length) schema.required = required;
  const same = { schema: { $ref: `#/components/requestBodies/${key}/content/application~1json/schema` } };
  return {
    required: required.length > 0,
    content: {
      'application/json': { schema },
      'application/x-www-form-urlencoded': same,
      'multipart/form-data': same,
    },
  };
}

function responses(spec: RouteSpec, method: Method, schemas: SchemaSet): Json {
  const listed = [...spec.responses];
  const statuses = new Set(listed.map((r) => r.status));
  const extra = [...APP_STATUSES.any, ...(QUERY_METHODS.has(method) ? [] : APP_STATUSES.write)];
  for (const status of extra) {
    if (!statuses.has(status)) listed.push({ status, description: 'Error' });
  }
  listed.sort((a, b) => a.status - b.status);

  const out: Json = {};
  for (const r of listed) {
    if (r.status >= 400) {
      const res: Json = {
        description: r.description === 'Error' ? (ERROR_TEXT[r.status] ?? 'Error') : r.description,
        content: { 'application/json': { schema: schemas.ref('Error') } },
      };
      if (r.status === 401) {
        res.headers = {
          'WWW-Authenticate': {
            description: '`Basic realm="calsync", Bearer realm="calsync"` (B.2)',
            schema: { type: 'string' },
          },
        };
      }
      out[r.status] = res;
      continue;
    }
    const res: Json = { description: r.description };
    if (r.schema) {
      const formats: readonly MediaType[] = method === 'GET' ? (spec.formats ?? ['json']) : ['json'];
      const content: Json = {};
      for (const f of formats) {
        content[MEDIA[f]] =
          f === 'json'
            ? { schema: schemas.of(r.schema, 'output') }
            : { schema: { type: 'string', description: TEXT_BODY[f] } };
      }
      res.content = content;
      const headers = responseHeaders(r.schema.meta()?.id, r.status);
      if (headers) res.headers = headers;
    }
    out[r.status] = res;
  }
  return out;
}

function responseHeaders(id: unknown, status: number): Json | undefined {
  if (typeof id === 'string' && id.endsWith('List')) {
    return {
      'X-TEC-Total': { description: 'Items matching the query (A.7).', schema: { type: 'integer' } },
      'X-TEC-TotalPages': { description: 'Pages at this `per_page` (A.7).', schema: { type: 'integer' } },
    };
  }
  if (status === 201) {
    return { Location: { description: 'The `rest_url` of the new item (A.9).', schema: { type: 'string' } } };
  }
  return undefined;
}
