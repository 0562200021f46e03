import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNamespaceIndex } from '../../../src/server/routes/root.ts';
import { BASE, type Harness, makeApp } from '../harness.ts';

const ROUTES = [
  '/calendar/events/v1',
  '/calendar/events/v1/doc',
  '/calendar/events/v1/events',
  '/calendar/events/v1/events/(?P<id>\\d+)',
  '/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)',
  '/calendar/events/v1/venues',
  '/calendar/events/v1/venues/(?P<id>\\d+)',
  '/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)',
  '/calendar/events/v1/organizers',
  '/calendar/events/v1/organizers/(?P<id>\\d+)',
  '/calendar/events/v1/organizers/by-slug/(?P<slug>[^/]+)',
  '/calendar/events/v1/categories',
  '/calendar/events/v1/categories/(?P<id>\\d+)',
  '/calendar/events/v1/tags',
  '/calendar/events/v1/tags/(?P<id>\\d+)',
];

let h: Harness;
beforeAll(async () => {
  h = await makeApp();
});
afterAll(async () => {
  await h.app.close();
});

describe('GET /calendar/events/v1 (B.3)', () => {
  it('T001 answers 200 with the namespace, its 15 route patterns and an up link to the API root', async () => {
    const res = await h.call('GET', '');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json.namespace).toBe('calendar/events/v1');
    expect(Object.keys(res.json.routes)).toEqual(ROUTES);
    expect(res.json._links).toEqual({ up: [{ href: `${BASE}/` }] });
    for (const route of Object.values(res.json.routes) as { namespace: string }[]) {
      expect(route.namespace).toBe('calendar/events/v1');
    }
  });

  it('answers with and without a trailing slash, and to HEAD', async () => {
    const slash = await h.call('GET', '/');
    expect(slash.status).toBe(200);
    expect(Object.keys(slash.json.routes)).toEqual(ROUTES);
    expect((await h.call('HEAD', '')).status).toBe(200);
  });

  it('T002 lists GET, DELETE, POST, PUT, PATCH on events/{id}, endpoints in that order', async () => {
    const { json } = await h.call('GET', '');
    const route = json.routes['/calendar/events/v1/events/(?P<id>\\d+)'];
    expect(route.methods).toEqual(['GET', 'DELETE', 'POST', 'PUT', 'PATCH']);
    expect(route.endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([
      ['GET'],
      ['DELETE'],
      ['POST', 'PUT', 'PATCH'],
    ]);
    expect(json.routes['/calendar/events/v1/events'].methods).toEqual(['GET', 'POST']);
  });

  it('links only routes without path parameters to themselves', async () => {
    const { json } = await h.call('GET', '');
    expect(json.routes['/calendar/events/v1/events']._links).toEqual({
      self: [{ href: `${BASE}/calendar/events/v1/events` }],
    });
    expect(json.routes['/calendar/events/v1']._links).toEqual({
      self: [{ href: `${BASE}/calendar/events/v1` }],
    });
    expect(json.routes['/calendar/events/v1/events/(?P<id>\\d+)']._links).toBeUndefined();
    expect(json.routes['/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)']._links).toBeUndefined();
  });

  it('describes arguments from the validation schemas: type, description, default, items, required', async () => {
    const { json } = await h.call('GET', '');
    const [list, create] = json.routes['/calendar/events/v1/events'].endpoints;
    expect(list.args.page).toEqual({
      type: 'integer',
      description: 'archive page, default 1',
      required: false,
    });
    expect(list.args.categories).toMatchObject({
      type: 'array',
      items: { type: ['string', 'number'] },
      required: false,
    });
    expect(list.args.venue.items).toEqual({ type: 'integer' });
    expect(list.args.status.items.enum).toContain('draft');
    expect(list.args.featured.type).toBe('boolean');
    expect(create.args.title).toMatchObject({ type: 'string', required: true });
    expect(create.args.start_date.required).toBe(true);
    expect(create.args.description.type).toEqual(['string', 'null']);
    expect(create.args.all_day.required).toBe(false);

    const [read] = json.routes['/calendar/events/v1/events/(?P<id>\\d+)'].endpoints;
    expect(read.args.id).toMatchObject({ type: 'integer', required: true });
    const [bySlug] = json.routes['/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)'].endpoints;
    expect(bySlug.args.slug).toMatchObject({ type: 'string', required: true });

    const [root] = json.routes['/calendar/events/v1'].endpoints;
    expect(root.args.namespace).toMatchObject({
      type: 'string',
      default: 'calendar/events/v1',
      required: false,
    });
    expect(root.args.context).toMatchObject({ type: 'string', default: 'view', required: false });
  });

  it('T003 answers 404 rest_invalid_namespace to another namespace, 200 to its own', async () => {
    const other = await h.call('GET', '?namespace=other');
    expect(other.status).toBe(404);
    expect(other.json).toEqual({
      code: 'rest_invalid_namespace',
      message: 'The specified namespace could not be found.',
      data: { status: 404 },
    });
    expect((await h.call('GET', '?namespace=calendar/events/v1')).status).toBe(200);
  });

  it('adds each route’s response schema with context=help, and none with context=view', async () => {
    const help = await h.call('GET', '?context=help');
    expect(help.status).toBe(200);
    const event = help.json.routes['/calendar/events/v1/events/(?P<id>\\d+)'].schema;
    expect(event.properties.author.type).toBe('string');
    expect(event.$defs.DateDetails.properties.year.type).toBe('string');
    expect(help.json.routes['/calendar/events/v1/events'].schema.properties.events.type).toBe('array');

    const view = await h.call('GET', '?context=view');
    expect(view.json.routes['/calendar/events/v1/events/(?P<id>\\d+)'].schema).toBeUndefined();
  });

  it('rejects an unknown context with 400 rest_invalid_param naming it', async () => {
    const res = await h.call('GET', '?context=edit');
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('rest_invalid_param');
    expect(Object.keys(res.json.data.params)).toEqual(['context']);
  });

  it('sends Allow: GET on the namespace root', async () => {
    const res = await h.call('GET', '');
    expect(res.headers.allow).toBe('GET');
  });

  it('is public: anonymous and authenticated callers get the same document', async () => {
    const anon = await h.call('GET', '');
    const admin = await h.call('GET', '', { as: 'administrator' });
    expect(admin.status).toBe(200);
    expect(admin.body).toBe(anon.body);
  });

  it('serves the document buildNamespaceIndex derives from the route registry', async () => {
    const res = await h.call('GET', '');
    expect(res.json).toEqual(buildNamespaceIndex(h.app.routeSpecs, h.app.config));
  });
});

describe('routing (B.0 step 2)', () => {
  it.each([
    ['GET', '/nope'],
    ['DELETE', '/events'],
    ['GET', '/events/abc'],
  ] as const)('T006 %s %s → 404 rest_no_route', async (method, path) => {
    const res = await h.call(method, path);
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('rest_no_route');
    expect(res.json.data).toEqual({ status: 404 });
  });
});
