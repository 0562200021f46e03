import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/model/index.ts';
import type { WriteContext } from '../../../src/server/services/context.ts';
import { resolveTermRefs } from '../../../src/server/services/term-write.ts';
import { seedEvent } from '../fixtures.ts';
import { BASE, type Harness, makeApp, SITE } from '../harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeApp();
});
afterEach(async () => {
  await h.app.close();
});

const NSURL = `${BASE}/calendar/events/v1`;

const create = (kind: 'categories' | 'tags', body: Record<string, unknown>, as?: Role) =>
  h.created(`/${kind}`, body, as);

describe('POST /categories and /tags', () => {
  it('T130 creates a category with count 0, parent 0, meta [], its permalink, _links and a Location', async () => {
    const res = await h.call('POST', '/categories', {
      as: 'administrator',
      body: { name: 'Concerts', slug: 'concerts' },
    });
    expect(res.status).toBe(201);
    const c = res.json;
    expect(c).toEqual({
      id: c.id,
      count: 0,
      description: '',
      name: 'Concerts',
      slug: 'concerts',
      taxonomy: 'tribe_events_cat',
      parent: 0,
      meta: [],
      url: `${SITE}/events/category/concerts/`,
      urls: { self: `${NSURL}/categories/${c.id}`, collection: `${NSURL}/categories` },
      _links: {
        self: [{ href: `${NSURL}/categories/${c.id}` }],
        collection: [{ href: `${NSURL}/categories` }],
      },
    });
    expect(Object.keys(c)).toEqual([
      'id',
      'count',
      'description',
      'name',
      'slug',
      'taxonomy',
      'parent',
      'meta',
      'url',
      'urls',
      '_links',
    ]);
    expect(res.headers.location).toBe(`${NSURL}/categories/${c.id}`);
  });

  it('T131 a child category links up and nests its permalink; tags have no parent and taxonomy post_tag', async () => {
    const concerts = await create('categories', { name: 'Concerts' });
    const jazz = await create('categories', { name: 'Jazz', parent: concerts.id, description: 'Swing' });
    expect(jazz).toMatchObject({
      parent: concerts.id,
      description: 'Swing',
      url: `${SITE}/events/category/concerts/jazz/`,
      urls: { up: `${NSURL}/categories/${concerts.id}` },
      _links: { up: [{ embeddable: true, href: `${NSURL}/categories/${concerts.id}` }] },
    });
    const bebop = await create('categories', { name: 'Bebop', parent: String(jazz.id) });
    expect(bebop.url).toBe(`${SITE}/events/category/concerts/jazz/bebop/`);
    const tag = await create('tags', { name: 'Outdoor', parent: concerts.id });
    expect(tag).not.toHaveProperty('parent');
    expect(tag).toMatchObject({ taxonomy: 'post_tag', url: `${SITE}/tag/outdoor/`, slug: 'outdoor' });
    expect(tag.urls).not.toHaveProperty('up');
  });

  it('T132 a duplicate name under the same parent is term_exists with data.term_id; no name is missing', async () => {
    const concerts = await create('categories', { name: 'Concerts' });
    const dup = await h.call('POST', '/categories', { as: 'administrator', body: { name: 'concerts' } });
    expect(dup.status).toBe(400);
    expect(dup.json).toEqual({
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, term_id: concerts.id },
    });
    const child = await create('categories', { name: 'Concerts', parent: concerts.id });
    expect(child.slug).toBe('concerts-2');
    const missing = await h.call('POST', '/categories', { as: 'administrator', body: { description: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): name',
    });
    const tag = await create('tags', { name: 'Outdoor' });
    const dupTag = await h.call('POST', '/tags', { as: 'administrator', body: { name: 'OUTDOOR' } });
    expect(dupTag.json.code).toBe('term_exists');
    expect(dupTag.json.data.term_id).toBe(tag.id);
  });

  it('B.11 a taken slug is duplicate_term_slug; a missing or foreign parent is a 400; bad input writes nothing', async () => {
    await create('categories', { name: 'Concerts', slug: 'live' });
    const slug = await h.call('POST', '/categories', {
      as: 'administrator',
      body: { name: 'Gigs', slug: 'Live' },
    });
    expect(slug.status).toBe(400);
    expect(slug.json.code).toBe('duplicate_term_slug');
    const tag = await create('tags', { name: 'Outdoor' });
    for (const parent of [999999, tag.id, -1, 'abc']) {
      const res = await h.call('POST', '/categories', {
        as: 'administrator',
        body: { name: 'Child', parent },
      });
      expect(res.status, String(parent)).toBe(400);
      expect(res.json.code).toBe('rest_invalid_param');
      expect(res.json.data.params).toHaveProperty('parent');
    }
    for (const body of [
      { name: '' },
      { name: 5 },
      { name: '<i></i>' },
      { name: 'X', slug: '' },
      { name: 'X', description: 5 },
    ]) {
      const res = await h.call('POST', '/categories', { as: 'administrator', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const list = await h.call('GET', '/categories?hide_empty=false');
    expect(list.json.total).toBe(1);
  });

  it('T022 categories need author rights and tags editor rights; anonymous is 401', async () => {
    const contrib = await h.call('POST', '/categories', { as: 'contributor', body: { name: 'Nope' } });
    expect(contrib.status).toBe(403);
    expect(contrib.json.code).toBe('rest_forbidden');
    expect((await h.call('POST', '/categories', { as: 'author', body: { name: 'Yes' } })).status).toBe(201);
    expect((await h.call('POST', '/tags', { as: 'author', body: { name: 'Nope' } })).status).toBe(403);
    expect((await h.call('POST', '/tags', { as: 'editor', body: { name: 'Yes' } })).status).toBe(201);
    const anon = await h.call('POST', '/tags', { body: {} });
    expect(anon.status).toBe(401);
    expect((await h.call('POST', '/tags', { as: 'subscriber', body: {} })).status).toBe(403);
  });

  it('A.0 slugs are folded to ASCII and made unique; names without ASCII still get a slug', async () => {
    expect((await create('tags', { name: 'Café Zürich' })).slug).toBe('cafe-zurich');
    expect((await create('tags', { name: 'Cafe: Zurich' })).slug).toBe('cafe-zurich-2');
    expect((await create('tags', { name: '✓' })).slug).toBe('tag');
    expect((await create('tags', { name: 'Odd', slug: '%E2%9C%93 ok' })).slug).toBe('e2-9c-93-ok');
  });
});

describe('GET /categories/{id}', () => {
  it('T136 a single term has _links.self equal to urls.self; list items have no _links', async () => {
    const c = await create('categories', { name: 'Concerts' });
    const one = await h.call('GET', `/categories/${c.id}`);
    expect(one.status).toBe(200);
    expect(one.json._links.self[0].href).toBe(one.json.urls.self);
    expect(one.json).toEqual(c);
    const list = await h.call('GET', '/categories?hide_empty=false');
    expect(list.json.categories[0]).not.toHaveProperty('_links');
    expect(list.json.categories[0]).toEqual(
      Object.fromEntries(Object.entries(c).filter(([k]) => k !== '_links')),
    );
  });

  it('B.9 unknown ids, and ids of the other taxonomy, are 404 category-not-found / tag-not-found', async () => {
    const tag = await create('tags', { name: 'Outdoor' });
    const res = await h.call('GET', '/categories/999999');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      code: 'category-not-found',
      message: 'Category with ID 999999 does not exist.',
      data: { status: 404 },
    });
    expect((await h.call('GET', `/categories/${tag.id}`)).json.code).toBe('category-not-found');
    expect((await h.call('GET', '/tags/999999')).json).toMatchObject({
      code: 'tag-not-found',
      message: 'Tag with ID 999999 does not exist.',
    });
  });

  it('T006 malformed term routes are 404 rest_no_route', async () => {
    for (const [method, path] of [
      ['GET', '/categories/abc'],
      ['DELETE', '/categories'],
      ['GET', '/tags/by-slug/outdoor'],
      ['GET', '/tags/%E2%9C%93'],
      ['GET', '/tags/a%2Fb'],
    ] as const) {
      const res = await h.call(method, path, { as: 'administrator' });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe('rest_no_route');
    }
  });

  it('B.12 terms offer XML, not CSV', async () => {
    const c = await create('categories', { name: 'Concerts' });
    const xml = await h.call('GET', `/categories/${c.id}`, { headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(200);
    expect(xml.body).toContain('<meta type="array"/>');
    const csv = await h.call('GET', '/categories', { headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(406);
    expect(csv.headers['x-tec-total']).toBeUndefined();
  });
});

describe('PUT|PATCH /categories/{id} and /tags/{id}', () => {
  it('T138 renaming a tag keeps its slug; count counts published events only', async () => {
    const tag = await create('tags', { name: 'Outdoor' });
    await seedEvent(h.store, { tag_ids: [tag.id] });
    await seedEvent(h.store, { tag_ids: [tag.id], status: 'draft', slug: '' });
    const res = await h.call('PUT', `/tags/${tag.id}`, { as: 'editor', body: { name: 'Open Air' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: tag.id, name: 'Open Air', slug: 'outdoor', count: 1 });
    expect(res.json).toHaveProperty('_links');
  });

  it('D1 updates are partial; a new slug must be free; description null clears', async () => {
    const c = await create('categories', { name: 'Concerts', description: 'Live music' });
    await create('categories', { name: 'Talks' });
    const slug = await h.call('PATCH', `/categories/${c.id}`, {
      as: 'administrator',
      body: { slug: 'talks' },
    });
    expect(slug.json.code).toBe('duplicate_term_slug');
    const same = await h.call('PATCH', `/categories/${c.id}`, {
      as: 'administrator',
      body: { slug: 'concerts' },
    });
    expect(same.status).toBe(200);
    const renamed = await h.call('POST', `/categories/${c.id}`, {
      as: 'administrator',
      body: { slug: 'gigs' },
    });
    expect(renamed.json).toMatchObject({ name: 'Concerts', slug: 'gigs', description: 'Live music' });
    const cleared = await h.call('PATCH', `/categories/${c.id}`, {
      as: 'administrator',
      body: { description: null },
    });
    expect(cleared.json.description).toBe('');
    const clash = await h.call('PATCH', `/categories/${c.id}`, {
      as: 'administrator',
      body: { name: 'TALKS' },
    });
    expect(clash.json.code).toBe('term_exists');
    for (const body of [{ name: null }, { name: '' }, { parent: null }]) {
      const res = await h.call('PATCH', `/categories/${c.id}`, { as: 'administrator', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('B.11 a parent may not be the category itself or one of its descendants', async () => {
    const a = await create('categories', { name: 'A' });
    const b = await create('categories', { name: 'B', parent: a.id });
    const c = await create('categories', { name: 'C', parent: b.id });
    for (const parent of [a.id, b.id, c.id]) {
      const res = await h.call('PATCH', `/categories/${a.id}`, { as: 'administrator', body: { parent } });
      expect(res.status).toBe(400);
      expect(res.json.data.params).toHaveProperty('parent');
    }
    const moved = await h.call('PATCH', `/categories/${c.id}`, { as: 'administrator', body: { parent: 0 } });
    expect(moved.json).toMatchObject({ parent: 0, url: `${SITE}/events/category/c/` });
    expect(moved.json.urls).not.toHaveProperty('up');
  });

  it('B.0 term updates check rights before the id and the id before the body', async () => {
    expect((await h.call('PATCH', '/tags/999999', { body: { name: '' } })).status).toBe(401);
    expect((await h.call('PATCH', '/tags/999999', { as: 'author', body: { name: '' } })).status).toBe(403);
    const res = await h.call('PATCH', '/tags/999999', { as: 'editor', body: { name: '' } });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('tag-not-found');
    const c = await create('categories', { name: 'Mine' }, 'author');
    expect(
      (await h.call('PATCH', `/categories/${c.id}`, { as: 'author', body: { name: 'Ours' } })).status,
    ).toBe(200);
  });
});

describe('DELETE /categories/{id} and /tags/{id}', () => {
  it('T137 deletes for good with the term as it was and no _links; then 404', async () => {
    const tag = await create('tags', { name: 'Outdoor' });
    const res = await h.call('DELETE', `/tags/${tag.id}?force=false`, { as: 'editor' });
    expect(res.status).toBe(200);
    const { _links, ...before } = tag;
    expect(res.json).toEqual(before);
    const again = await h.call('GET', `/tags/${tag.id}`);
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('tag-not-found');
    expect((await h.call('DELETE', `/tags/${tag.id}`, { as: 'editor' })).json.code).toBe('tag-not-found');
  });

  it("B.11 children move to the deleted category's parent and events lose the term", async () => {
    const top = await create('categories', { name: 'Top' });
    const mid = await create('categories', { name: 'Mid', parent: top.id });
    const leaf = await create('categories', { name: 'Leaf', parent: mid.id });
    const event = await seedEvent(h.store, { category_ids: [mid.id, leaf.id] });
    const res = await h.call('DELETE', `/categories/${mid.id}`, { as: 'author' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: mid.id, count: 1, parent: top.id });
    const moved = await h.call('GET', `/categories/${leaf.id}`);
    expect(moved.json).toMatchObject({ parent: top.id, url: `${SITE}/events/category/top/leaf/` });
    expect((await h.store.getEvent(event.id))!.category_ids).toEqual([leaf.id]);
    expect((await h.call('DELETE', `/categories/${top.id}`, { as: 'contributor' })).status).toBe(403);
  });
});

describe('GET /categories and /tags', () => {
  it('T133 hides unused terms by default; hide_empty=0 or false shows them', async () => {
    const used = await create('categories', { name: 'Used' });
    await create('categories', { name: 'Unused' });
    const draftOnly = await create('categories', { name: 'Draft Only' });
    await seedEvent(h.store, { category_ids: [used.id] });
    await seedEvent(h.store, { category_ids: [draftOnly.id], status: 'draft', slug: '' });
    const names = (res: { json: { categories: { name: string }[] } }) =>
      res.json.categories.map((c) => c.name);
    const hidden = await h.call('GET', '/categories');
    expect(names(hidden)).toEqual(['Used']);
    expect(hidden.json.rest_url).toBe(`${NSURL}/categories/`);
    for (const q of ['hide_empty=0', 'hide_empty=false']) {
      const all = await h.call('GET', `/categories?${q}`);
      expect(names(all)).toEqual(['Draft Only', 'Unused', 'Used']);
      expect(all.json.rest_url).toBe(`${NSURL}/categories/?hide_empty=false`);
    }
  });

  it('T134 lists have rest_url, total, total_pages, then the terms; per_page clamps; past the end is 200 []', async () => {
    for (const name of ['a', 'b', 'c']) await create('tags', { name });
    const res = await h.call('GET', '/tags?hide_empty=false&per_page=1000');
    expect(Object.keys(res.json)).toEqual(['rest_url', 'total', 'total_pages', 'tags']);
    expect(res.json.rest_url).toBe(`${NSURL}/tags/?per_page=50&hide_empty=false`);
    expect(res.headers['x-tec-total']).toBe('3');
    expect(res.headers['x-tec-totalpages']).toBe('1');
    const first = await h.call('GET', '/tags?hide_empty=false&per_page=2');
    expect(first.json.next_rest_url).toBe(`${NSURL}/tags/?page=2&per_page=2&hide_empty=false`);
    const second = await h.call('GET', '/tags?hide_empty=false&per_page=2&page=2');
    expect(Object.keys(second.json)).toEqual([
      'rest_url',
      'total',
      'total_pages',
      'tags',
      'previous_rest_url',
    ]);
    expect(second.json.previous_rest_url).toBe(`${NSURL}/tags/?per_page=2&hide_empty=false`);
    const past = await h.call('GET', '/tags?hide_empty=false&per_page=2&page=9');
    expect(past.status).toBe(200);
    expect(past.json.tags).toEqual([]);
    expect(past.json.total).toBe(3);
    expect(past.json.previous_rest_url).toBe(`${NSURL}/tags/?page=2&per_page=2&hide_empty=false`);
    expect(past.json).not.toHaveProperty('next_rest_url');
  });

  it('T134 an empty store lists [] with zero totals and X-TEC headers', async () => {
    const res = await h.call('GET', '/tags');
    expect(res.json).toEqual({ rest_url: `${NSURL}/tags/`, total: 0, total_pages: 0, tags: [] });
    expect(res.headers['x-tec-total']).toBe('0');
    expect(res.headers['x-tec-totalpages']).toBe('0');
  });

  it('T135 orderby= and unknown include ids are 400; orderby=id&order=desc sorts ids descending', async () => {
    const ids: number[] = [];
    for (const name of ['b', 'c', 'a']) ids.push((await create('categories', { name })).id);
    const empty = await h.call('GET', '/categories?orderby=');
    expect(empty.status).toBe(400);
    expect(empty.json.data.params).toHaveProperty('orderby');
    for (const q of [`include=999999`, `include=${ids[0]},999999`, 'exclude=999999']) {
      const res = await h.call('GET', `/categories?${q}`);
      expect(res.status, q).toBe(400);
    }
    const desc = await h.call('GET', '/categories?hide_empty=false&orderby=id&order=desc');
    expect(desc.json.categories.map((c: { id: number }) => c.id)).toEqual([...ids].sort((x, y) => y - x));
    const byName = await h.call('GET', '/categories?hide_empty=false');
    expect(byName.json.categories.map((c: { name: string }) => c.name)).toEqual(['a', 'b', 'c']);
    const included = await h.call(
      'GET',
      `/categories?hide_empty=false&include=${ids[2]},${ids[0]}&orderby=include`,
    );
    expect(included.json.categories.map((c: { id: number }) => c.id)).toEqual([ids[2], ids[0]]);
    expect(included.json.rest_url).toBe(
      `${NSURL}/categories/?include=${ids[2]}%2C${ids[0]}&orderby=include&hide_empty=false`,
    );
    for (const q of ['order=up', 'per_page=0', 'page=0', 'hide_empty=maybe', 'parent=abc', 'search=']) {
      expect((await h.call('GET', `/categories?${q}`)).status, q).toBe(400);
    }
  });

  it('B.11 filters by search, parent, slug and event (event wins over post)', async () => {
    const concerts = await create('categories', { name: 'Concerts' });
    const jazz = await create('categories', { name: 'Jazz', parent: concerts.id });
    await create('categories', { name: 'Talks' });
    const event = await seedEvent(h.store, { category_ids: [jazz.id] });
    const other = await seedEvent(h.store, { category_ids: [concerts.id] });
    const names = async (q: string) =>
      (await h.call('GET', `/categories?hide_empty=false&${q}`)).json.categories.map(
        (c: { name: string }) => c.name,
      );
    expect(await names('search=conc')).toEqual(['Concerts']);
    expect(await names('search=JAZ')).toEqual(['Jazz']);
    expect(await names(`parent=${concerts.id}`)).toEqual(['Jazz']);
    expect(await names('slug=talks')).toEqual(['Talks']);
    expect(await names(`event=${event.id}`)).toEqual(['Jazz']);
    expect(await names(`post=${other.id}&event=${event.id}`)).toEqual(['Jazz']);
    expect(await names(`post=${other.id}`)).toEqual(['Concerts']);
    const unknown = await h.call('GET', '/categories?event=999999');
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.params).toHaveProperty('event');
  });
});

describe('resolveTermRefs (categories and tags of event writes)', () => {
  const ctxFor = (role: Role | null): WriteContext => ({
    store: h.store,
    cfg: h.app.config,
    caller: role ? h.users[role] : null,
    now: '2026-11-21 12:00:00',
  });

  it('B.6.2 resolves ids, slugs and names case-insensitively, and creates unknown names once', async () => {
    const concerts = await create('categories', { name: 'Concerts', slug: 'live-music' });
    const ids = await resolveTermRefs(ctxFor('author'), 'categories', [
      { id: concerts.id },
      { name: 'live-music' },
      { name: 'CONCERTS' },
      { name: 'New Name' },
      { name: 'new name' },
    ]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(concerts.id);
    const created = (await h.store.getTerm('categories', ids[1]))!;
    expect(created).toMatchObject({ name: 'New Name', slug: 'new-name', parent: 0 });
  });

  it('T023 unknown ids are 400 naming the field; new names need term rights (403 naming the field)', async () => {
    const tag = await create('tags', { name: 'Outdoor' });
    await expect(resolveTermRefs(ctxFor('contributor'), 'tags', [{ id: 999999 }])).rejects.toThrow(
      expect.objectContaining({
        status: 400,
        code: 'rest_invalid_param',
        data: expect.objectContaining({ params: { tags: expect.any(String) } }),
      }),
    );
    const cat = await create('categories', { name: 'Concerts' });
    await expect(resolveTermRefs(ctxFor('administrator'), 'categories', [{ id: tag.id }])).rejects.toThrow(
      expect.objectContaining({ status: 400 }),
    );
    await expect(
      resolveTermRefs(ctxFor('contributor'), 'categories', [{ name: 'Brand New' }]),
    ).rejects.toThrow(
      expect.objectContaining({ status: 403, code: 'rest_forbidden', data: { params: ['categories'] } }),
    );
    await expect(resolveTermRefs(ctxFor('author'), 'tags', [{ name: 'Brand New' }])).rejects.toThrow(
      expect.objectContaining({ status: 403, data: { params: ['tags'] } }),
    );
    // 400 wins over 403, and nothing is created on the way.
    await expect(
      resolveTermRefs(ctxFor('contributor'), 'categories', [{ name: 'Brand New' }, { id: 999999 }]),
    ).rejects.toThrow(expect.objectContaining({ status: 400 }));
    expect(await h.store.findTermByName('categories', 'Brand New')).toBeUndefined();
    expect(
      await resolveTermRefs(ctxFor('contributor'), 'categories', [{ id: cat.id }, { name: 'concerts' }]),
    ).toEqual([cat.id]);
    await expect(resolveTermRefs(ctxFor('subscriber'), 'tags', [{ id: tag.id }])).rejects.toThrow(
      expect.objectContaining({ status: 403 }),
    );
    expect(await resolveTermRefs(ctxFor(null), 'tags', [])).toEqual([]);
  });
});
