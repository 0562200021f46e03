import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApiError,
  Category,
  DateDetails,
  Event,
  EventList,
  Image,
  TagList,
  Venue,
  wpBoolean,
} from '../../src/model/index.ts';
import { buildOpenApi } from '../../src/server/openapi/index.ts';
import type { RouteSpec } from '../../src/server/routes/spec.ts';
import {
  CATEGORY_EXAMPLE,
  DATE_DETAILS_EXAMPLE,
  ERROR_EXAMPLES,
  EVENT_EXAMPLE,
  IMAGE_EXAMPLE,
  TAG_LIST_EXAMPLE,
  VENUE_EXAMPLE,
} from '../fixtures/contract-examples.ts';
import { BASE, type Harness, makeApp } from './harness.ts';

/** The seed's route table, as OpenAPI paths below `servers[0].url` (B.4). */
const SEED_PATHS = [
  '/',
  '/doc',
  '/events',
  '/events/{id}',
  '/events/by-slug/{slug}',
  '/venues',
  '/venues/{id}',
  '/venues/by-slug/{slug}',
  '/organizers',
  '/organizers/{id}',
  '/organizers/by-slug/{slug}',
  '/categories',
  '/categories/{id}',
  '/tags',
  '/tags/{id}',
];

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

// biome-ignore lint/suspicious/noExplicitAny: the tests walk a JSON document
type Doc = Record<string, any>;
type Operation = Doc & { operationId: string };

let h: Harness;
let doc: Doc;
beforeAll(async () => {
  h = await makeApp();
  doc = (await h.call('GET', '/doc')).json;
});
afterAll(async () => {
  await h.app.close();
});

function operations(d: Doc): [string, string, Operation][] {
  return Object.entries(d.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([k]) => k !== 'servers' && k !== 'parameters')
      .map(([method, op]): [string, string, Operation] => [path, method, op]),
  );
}

const resolve = (d: Doc, schema: { $ref?: string }) =>
  schema.$ref ? d.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

/** A JSON Schema validator over the document's components, refs resolved inside the document. */
function componentValidator(d: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'https://calsync.test/doc', components: d.components });
  return (name: string, value: unknown) => {
    const validate = ajv.getSchema(`https://calsync.test/doc#/components/schemas/${name}`)!;
    return validate(value) ? [] : validate.errors;
  };
}

describe('GET /calendar/events/v1/doc (B.4)', () => {
  it('T004 answers 200 JSON with openapi 3.1.0 and the namespace as server', async () => {
    const res = await h.call('GET', '/doc');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json.openapi).toBe('3.1.0');
    expect(res.json.servers[0].url).toBe(`${BASE}/calendar/events/v1/`);
    expect(res.json.info).toMatchObject({ title: expect.any(String), version: '0.1.0' });
    expect(res.json.info.description).toEqual(expect.any(String));
  });

  it('T004 validates as OpenAPI 3.1, every $ref resolving', async () => {
    const validator = new Validator();
    // The validator dereferences the document it is given in place: give it a copy.
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('T004 has a path per seed route, plus /oauth/token on its own server', () => {
    expect(Object.keys(doc.paths)).toEqual([...SEED_PATHS, '/oauth/token']);
    expect(doc.paths['/oauth/token'].servers).toEqual([{ url: BASE }]);
    expect(doc.paths['/oauth/token'].post.requestBody.content).toHaveProperty([
      'application/x-www-form-urlencoded',
    ]);
    expect(Object.keys(doc.paths['/oauth/token'].post.responses)).toEqual(['200', '400', '401']);
  });

  it('documents the token endpoint as planned exactly while it is not served', () => {
    const served = h.app.hasRoute({ method: 'POST', url: `${h.app.config.apiPrefix}/oauth/token` });
    expect(doc.paths['/oauth/token'].post.description.includes('Planned')).toBe(!served);
  });

  it('has an operation for every method of every registered route', () => {
    for (const spec of h.app.routeSpecs) {
      for (const method of spec.methods) {
        expect(doc.paths[spec.path || '/']?.[method.toLowerCase()], `${method} ${spec.path}`).toBeDefined();
      }
    }
  });

  it('gives every operation a unique, readable operationId', () => {
    const ids = operations(doc).map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'getNamespaceIndex',
        'getOpenApiDocument',
        'listEvents',
        'createEvent',
        'getEventById',
        'updateEventById',
        'deleteEventById',
        'updateEventBySlug',
        'listCategories',
        'getTagById',
        'requestToken',
      ]),
    );
  });

  it('lists every status of the route table on each operation; errors are the Error schema in JSON', () => {
    for (const spec of h.app.routeSpecs) {
      for (const method of spec.methods) {
        const op: Operation = doc.paths[spec.path || '/'][method.toLowerCase()];
        for (const r of spec.responses)
          expect(op.responses, `${method} ${spec.path}`).toHaveProperty([String(r.status)]);
      }
    }
    for (const [, , op] of operations(doc).filter(([path]) => path !== '/oauth/token')) {
      for (const [status, res] of Object.entries(op.responses as Doc)) {
        if (Number(status) < 400) continue;
        expect(res.content).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
      expect(op.responses).toHaveProperty(['401']);
    }
  });

  it('offers the negotiated media types of GET routes (D6)', () => {
    const types = (path: string) => Object.keys(doc.paths[path].get.responses['200'].content).sort();
    expect(types('/events')).toEqual(['application/json', 'application/xml', 'text/calendar', 'text/csv']);
    expect(types('/events/by-slug/{slug}')).toEqual([
      'application/json',
      'application/xml',
      'text/calendar',
      'text/csv',
    ]);
    expect(types('/venues/{id}')).toEqual(['application/json', 'application/xml', 'text/csv']);
    expect(types('/doc')).toEqual(['application/json']);
    expect(doc.paths['/events'].post.responses['201'].content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Event' } },
    });
  });

  it('lists query parameters on reads, CSV lists as form/explode=false arrays, path parameters from the template', () => {
    const list = doc.paths['/events'].get.parameters;
    const byName = Object.fromEntries(list.map((p: { name: string }) => [p.name, p]));
    expect(byName.page).toMatchObject({ in: 'query', required: false });
    expect(byName.categories).toMatchObject({
      in: 'query',
      style: 'form',
      explode: false,
      schema: { type: 'array' },
    });
    expect(byName.status.schema.items.enum).toEqual([
      'publish',
      'future',
      'draft',
      'pending',
      'private',
      'trash',
    ]);
    expect(doc.paths['/events/{id}'].delete.parameters.map((p: { name: string }) => p.name)).toEqual([
      'id',
      'force',
      'password',
    ]);
    expect(doc.paths['/events/by-slug/{slug}'].get.parameters[0]).toMatchObject({
      name: 'slug',
      in: 'path',
      required: true,
    });
  });

  it('takes write bodies as JSON, form-urlencoded or multipart, with the route’s required fields', () => {
    const create = doc.paths['/events'].post.requestBody;
    expect(create.$ref).toBe('#/components/requestBodies/CreateEvent');
    const body = doc.components.requestBodies.CreateEvent;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(body.content['application/json'].schema.required).toEqual(['title', 'start_date', 'end_date']);
    const update =
      doc.components.requestBodies[doc.paths['/events/{id}'].patch.requestBody.$ref.split('/').pop()];
    expect(update.required).toBe(false);
    expect(update.content['application/json'].schema.required).toBeUndefined();
  });

  it('secures reads optionally and writes with Basic or OAuth2; /, /doc and the token endpoint are public', () => {
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials).toMatchObject({
      tokenUrl: `${BASE}/oauth/token`,
      scopes: { read: expect.any(String), write: expect.any(String) },
    });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/events'].get.security).toEqual([
      {},
      { basicAuth: [] },
      { oauth2: ['read'] },
      { bearerAuth: ['read'] },
    ]);
    expect(doc.paths['/events'].post.security).toEqual([
      { basicAuth: [] },
      { oauth2: ['write'] },
      { bearerAuth: ['write'] },
    ]);
    expect(doc.paths['/'].get.security).toEqual([]);
    expect(doc.paths['/doc'].get.security).toEqual([]);
  });

  it('serves what buildOpenApi generates from the registry, identically on each build', () => {
    const served = h.app.hasRoute({ method: 'POST', url: `${h.app.config.apiPrefix}/oauth/token` });
    const built = buildOpenApi(h.app.routeSpecs, h.app.config, { tokenRoute: served });
    expect(built).toEqual(doc);
    expect(buildOpenApi(h.app.routeSpecs, h.app.config, { tokenRoute: served })).toEqual(built);
  });
});

describe('/doc schemas (T005)', () => {
  it('has the B.4 components, without $schema or $id inside them', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(COMPONENTS);
    const text = JSON.stringify(doc.components);
    expect(text).not.toContain('"$schema"');
    expect(text).not.toContain('"$id"');
  });

  it('types author as a string and every date-detail part as a string', () => {
    const { Event: event, Venue: venue, DateDetails: details } = doc.components.schemas;
    expect(event.properties.author.type).toBe('string');
    expect(venue.properties.author.type).toBe('string');
    expect(Object.keys(details.properties)).toEqual(['year', 'month', 'day', 'hour', 'minutes', 'seconds']);
    for (const part of Object.values(details.properties) as { type: string }[])
      expect(part.type).toBe('string');
    for (const key of [
      'start_date_details',
      'end_date_details',
      'utc_start_date_details',
      'utc_end_date_details',
    ]) {
      expect(event.properties[key]).toEqual({ $ref: '#/components/schemas/DateDetails' });
    }
    expect(doc.components.schemas.CostDetails.properties.values.items.type).toBe('string');
  });

  it('types every list 200 as an object', () => {
    const lists = operations(doc).filter(([, , op]) => op.operationId.startsWith('list'));
    expect(lists.map(([path]) => path)).toEqual([
      '/events',
      '/venues',
      '/organizers',
      '/categories',
      '/tags',
    ]);
    for (const [, , op] of lists) {
      const schema = resolve(doc, op.responses['200'].content['application/json'].schema);
      expect(schema.type).toBe('object');
      expect(schema.required).toEqual(expect.arrayContaining(['rest_url', 'total', 'total_pages']));
    }
  });

  it('makes the unions explicit: image is Image or false, venue is Venue or []', () => {
    const { properties } = doc.components.schemas.Event;
    expect(properties.image.anyOf).toEqual([
      { $ref: '#/components/schemas/Image' },
      { type: 'boolean', const: false },
    ]);
    expect(properties.venue.anyOf[0]).toEqual({ $ref: '#/components/schemas/Venue' });
    expect(properties.venue.anyOf[1]).toMatchObject({ type: 'array', maxItems: 0 });
    expect(doc.components.schemas.Image.properties.sizes.type).toBe('object');
  });

  const examples: [string, z.ZodType, string, unknown][] = [
    ['A.1 event', Event, 'Event', EVENT_EXAMPLE],
    ['A.2 venue', Venue, 'Venue', VENUE_EXAMPLE],
    ['A.3 category', Category, 'Category', CATEGORY_EXAMPLE],
    ['A.3 tag list', TagList, 'TagList', TAG_LIST_EXAMPLE],
    ['A.4 image', Image, 'Image', IMAGE_EXAMPLE],
    ['A.5 date details', DateDetails, 'DateDetails', DATE_DETAILS_EXAMPLE],
    ...ERROR_EXAMPLES.map((e, i): [string, z.ZodType, string, unknown] => [
      `A.8 error ${i + 1}`,
      ApiError,
      'Error',
      e,
    ]),
  ];

  it.each(examples)(
    'the %s example validates against the zod schema and the generated component',
    (_, zod, name, example) => {
      expect(zod.parse(example)).toBeDefined();
      expect(componentValidator(doc)(name, example)).toEqual([]);
    },
  );

  it('the A.7 list shape, with the A.1 event as its item, validates as EventList', () => {
    const { json_ld: _, ...item } = EVENT_EXAMPLE;
    const list = {
      events: [item],
      rest_url: `${BASE}/calendar/events/v1/events/?page=1&per_page=2`,
      next_rest_url: `${BASE}/calendar/events/v1/events/?page=2&per_page=2`,
      total: 4,
      total_pages: 2,
    };
    expect(EventList.parse(list)).toBeDefined();
    expect(componentValidator(doc)('EventList', list)).toEqual([]);
  });

  it('rejects the types TEC’s own document gets wrong (integer author, integer date parts)', () => {
    const check = componentValidator(doc);
    expect(check('Event', { ...EVENT_EXAMPLE, author: 1 })).not.toEqual([]);
    expect(check('DateDetails', { ...DATE_DETAILS_EXAMPLE, year: 2027 })).not.toEqual([]);
    expect(check('Event', { ...EVENT_EXAMPLE, venue: [{}] })).not.toEqual([]);
  });
});

describe('buildOpenApi on nested components', () => {
  const Thing = z.object({ n: z.int().min(1), flag: wpBoolean.optional() });
  beforeAll(() => {
    z.globalRegistry.add(Thing, { id: 'TestThing' });
  });
  afterAll(() => {
    z.globalRegistry.remove(Thing);
  });

  it('points output schemas at the component and gives input shapes components of their own', async () => {
    const spec: RouteSpec = {
      path: '/things/{id}',
      methods: ['GET', 'PATCH'],
      summary: 'Things',
      tag: 'Things',
      args: z.object({ thing: Thing }),
      responses: [{ status: 200, description: 'Things', schema: z.object({ things: z.array(Thing) }) }],
    };
    const built: Doc = buildOpenApi([spec], h.app.config);
    const { get, patch } = built.paths['/things/{id}'];
    expect(get.operationId).toBe('getThingById');
    expect(get.responses['200'].content['application/json'].schema.properties.things.items).toEqual({
      $ref: '#/components/schemas/TestThing',
    });
    expect(built.components.schemas.TestThing.properties.n).toEqual({ type: 'integer', minimum: 1 });
    expect(get.parameters[1].schema).toEqual({ $ref: '#/components/schemas/TestThingInput' });
    expect(built.components.schemas.TestThingInput.properties.flag.anyOf).toHaveLength(4);
    const body = built.components.requestBodies[patch.requestBody.$ref.split('/').pop()];
    expect(body.content['application/json'].schema.properties.thing).toEqual({
      $ref: '#/components/schemas/TestThingInput',
    });
    expect((await new Validator().validate(structuredClone(built))).valid).toBe(true);
  });
});
