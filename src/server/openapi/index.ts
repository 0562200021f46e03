/**
 * The OpenAPI 3.1 document served at `GET /calendar/events/v1/doc` (contract B.4, D5), generated
 * from the route registry (`app.routeSpecs`) and the zod schemas of src/model, so it cannot drift
 * from what the server validates and sends.
 *
 * Public: `buildOpenApi(specs, cfg, options)`.
 *
 * TEC serves OpenAPI 3.0.0 with wrong types (integer `author`, array `sizes`, bare-array lists);
 * ours types the wire format as it is: numeric-string `author`, string date parts, `image` as
 * Image | `false`, `venue` as Venue | `[]`, lists as objects.
 */
import pkg from '../../../package.json' with { type: 'json' };
import type { Config } from '../config.ts';
import type { Method, RouteSpec } from '../routes/spec.ts';
import { tokenPathItem } from './oauth.ts';
import { operation, operationId, RequestBodies } from './operations.ts';
import { type Json, SchemaSet } from './schemas.ts';

/** Components every document has (B.4), whether or not a route refers to them. */
const COMPONENTS = [
  'Event',
  'Venue',
  'Organizer',
  'EmbeddedTerm',
  'Category',
  'Tag',
  'Image',
  'ImageSize',
  'DateDetails',
  'CostDetails',
  'EventList',
  'VenueList',
  'OrganizerList',
  'CategoryList',
  'TagList',
  'Error',
];

/** Path-item keys in the order the namespace index lists endpoints (B.3). */
const METHOD_ORDER: Method[] = ['GET', 'DELETE', 'POST', 'PUT', 'PATCH'];

export interface OpenApiOptions {
  /** Whether `POST {base}/oauth/token` is served; if not, it is documented as planned. */
  tokenRoute?: boolean;
}

const DESCRIPTION = `A calendar events REST API modelled on The Events Calendar for WordPress (\`tribe/events/v1\`), \
with the same wire format and documented deviations: partial updates, \`<kind>-not-found\` errors, \
\`force=true\` deletes, content negotiation (JSON, XML, iCalendar, CSV), Basic authentication with \
application passwords and OAuth 2.0 client-credentials JWTs.

Bodies may be JSON, form-urlencoded or multipart (nested fields with brackets: \`venue[venue]=Pier 7\`). \
Booleans accept \`true/false\`, \`"true"/"false"\`, \`"1"/"0"\`, \`1/0\`; integers accept numeric strings; \
lists accept JSON arrays, comma-separated strings or \`name[]=\` fields. Unknown parameters are ignored. \
\`HEAD\` works on every GET route, \`X-HTTP-Method-Override\` on POST.`;

export function buildOpenApi(specs: readonly RouteSpec[], cfg: Config, options: OpenApiOptions = {}): Json {
  const schemas = new SchemaSet();
  const bodies = new RequestBodies();
  for (const id of COMPONENTS) schemas.ref(id);

  const paths: Record<string, Json> = {};
  const used = new Set<string>();
  for (const spec of specs) {
    const key = spec.path || '/';
    paths[key] ??= {};
    for (const method of spec.methods) {
      let id = operationId(spec.path, method);
      for (let n = 2; used.has(id); n++) id = `${operationId(spec.path, method)}${n}`;
      used.add(id);
      paths[key][method.toLowerCase()] = operation(spec, method, id, { schemas, bodies });
    }
  }
  for (const item of Object.values(paths)) sortMethods(item);
  paths['/oauth/token'] = tokenPathItem(cfg.apiBase, !options.tokenRoute);

  const tags = [...new Set([...specs.map((s) => s.tag), 'OAuth'])].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: { title: 'calsync calendar/events/v1', version: pkg.version, description: DESCRIPTION },
    servers: [{ url: `${cfg.apiBase}/calendar/events/v1/` }],
    tags,
    paths,
    components: {
      schemas: sortKeys(schemas.components, COMPONENTS),
      requestBodies: bodies.components,
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description:
            'User name or e-mail and an application password (24 characters, spaces ignored); ' +
            'the login password is never accepted (B.2).',
        },
        oauth2: {
          type: 'oauth2',
          description: 'Bearer JWT from the client-credentials grant; a client acts as its bound user (B.2).',
          flows: {
            clientCredentials: {
              tokenUrl: `${cfg.apiBase}/oauth/token`,
              scopes: { read: 'Read what the bound user may read.', write: 'Create, update and delete.' },
            },
          },
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An access token from `POST /oauth/token`, sent as `Authorization: Bearer …`; it carries the ' +
            'scopes `read` and/or `write` (B.2).',
        },
      },
    },
  };
}

function sortMethods(item: Json): void {
  const entries = Object.entries(item);
  const rank = (k: string) => METHOD_ORDER.indexOf(k.toUpperCase() as Method);
  entries.sort(([a], [b]) => rank(a) - rank(b));
  for (const [k] of entries) delete item[k];
  for (const [k, v] of entries) item[k] = v;
}

/** The B.4 components first, in its order, then whatever else the routes brought in. */
function sortKeys(record: Record<string, Json>, first: readonly string[]): Record<string, Json> {
  const keys = [
    ...first.filter((k) => k in record),
    ...Object.keys(record).filter((k) => !first.includes(k)),
  ];
  return Object.fromEntries(keys.map((k) => [k, record[k]]));
}
