/**
 * `startTecSite(upstream)`: a loopback HTTP server that looks like a WordPress site running The Events
 * Calendar 6.2.6 — routes under `/wp-json/tribe/events/v1/` — in front of our real server, rewriting what
 * passes so that it behaves as contract part C says real sites do where ours deliberately differs:
 *
 * - updates replace (C.4, D1): an event update resets every absent field TEC resets — `timezone` to the
 *   site's (UTC), `cost`, `website`, `image`, the five flags and `all_day`, **all organizers unlinked**,
 *   `status` to publish — keeping title, description, excerpt, slug, dates, venue and terms; a venue update
 *   drops an absent `image` and `stateprovince` and resets `show_map*` to true; an organizer update drops
 *   an absent `image` (E10);
 * - unknown ids and slugs answer 400 `rest_invalid_param` naming `id` or `slug` instead of 404 (C.15, D2);
 * - venue and organizer creates are create-or-find *with overwrite* (C.10, E8): the submitted fields are
 *   written onto the item found by name, with its `show_map*` reset;
 * - venue `show_map*` as JSON booleans are refused, 400 "show_map is not of type string." (C.9);
 * - `DELETE …?force=true` only trashes (C.16, D4);
 * - `""` refused where TEC's validators want a non-empty string (C.21): an event's `description`, `excerpt`,
 *   `image` and `slug`, a term's `description`, `slug` and `parent` — 400 naming them all, as TEC does;
 * - titles, descriptions and venue, organizer and term names come back texturized (C.22): apostrophes and
 *   quotes curly, `--` an en dash, `...` an ellipsis, as entities (`St Mary&#8217;s`).
 *
 * What our server already does the TEC way is passed through unchanged: `per_page` silently clamped to 50,
 * a page past the end 404 `event-archive-page-not-found` (venues, organizers alike) and 200 `[]` for terms
 * (C.13), the default list window yesterday … +2 years when no date is given (C.12), `status=any` → 400,
 * a second DELETE → 410 `*-is-in-trash` (C.16), term DELETE permanent. Not reproduced: `date` set to now
 * by updates, drafts without slugs (C.17), the `include` window (E1), the credentials check (`/wp/v2/users/me`, answered 404 here, so the writer skips it), image downloads refused
 * from private hosts. test/real-tec/ runs the same writer against a real TEC 6.2.6 site for all of those.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

export interface TecSite {
  /** The API root to give the writer, e.g. `http://127.0.0.1:41234/wp-json` (namespace `tribe/events/v1`). */
  url: string;
  /** Every request as the site saw it, with the status it answered. */
  log: { method: string; url: string; status: number }[];
  close(): Promise<void>;
}

export const TEC_NAMESPACE = 'tribe/events/v1';
const PREFIX = `/wp-json/${TEC_NAMESPACE}`;
const UPSTREAM_NS = '/calendar/events/v1';

type Doc = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** C.4: what an event update without these fields sets them to on TEC 6.2.6 [live]. */
const EVENT_RESETS: Doc = {
  timezone: 'UTC',
  cost: null,
  // Empty after an update without it [live 2026-11-25]; a create without it shows the permalink.
  website: '',
  image: null,
  all_day: false,
  featured: false,
  sticky: false,
  hide_from_listings: false,
  show_map: false,
  show_map_link: false,
  organizer: [],
  status: 'publish',
};
/** E10: venue and organizer updates [live]. */
const VENUE_RESETS: Doc = { image: null, stateprovince: null, show_map: 'true', show_map_link: 'true' };
const ORGANIZER_RESETS: Doc = { image: null };
const RESETS: Record<string, Doc> = {
  events: EVENT_RESETS,
  venues: VENUE_RESETS,
  organizers: ORGANIZER_RESETS,
};

export async function startTecSite(upstream: string): Promise<TecSite> {
  const log: TecSite['log'] = [];
  const sockets = new Set<Socket>();

  const send = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const res = await request(`${upstream}${path}`, {
      method: method as 'GET',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body,
    });
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (k === 'content-type' || k.startsWith('x-tec-') || k === 'retry-after') out[k] = String(v);
    }
    return { status: res.statusCode, headers: out, body: await res.body.text() };
  };

  const handle = async (req: IncomingMessage): Promise<Answer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://site');
    if (!url.pathname.startsWith(PREFIX)) return json(404, noRoute());
    const rest = url.pathname.slice(PREFIX.length);
    const route = /^\/(events|venues|organizers|categories|tags)(?:\/(\d+|by-slug\/[^/]+))?\/?$/.exec(rest);
    const method = req.method ?? 'GET';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const collection = route?.[1];
    const item = route?.[2];
    const upstreamPath = (q: URLSearchParams) =>
      `${UPSTREAM_NS}${rest}${q.size > 0 ? `?${q.toString()}` : ''}`;

    // C.16, D4: `force` is ignored; DELETE always trashes (terms are permanent anyway).
    if (method === 'DELETE') url.searchParams.delete('force');

    let body: Doc | undefined;
    if (text && (method === 'POST' || method === 'PUT' || method === 'PATCH')) {
      try {
        body = JSON.parse(text) as Doc;
      } catch {
        return json(400, {
          code: 'rest_invalid_json',
          message: 'Invalid JSON body passed.',
          data: { status: 400 },
        });
      }
      // C.9: TEC 6.2.6 validates venue show_map* as strings.
      if (collection === 'venues') {
        for (const key of ['show_map', 'show_map_link']) {
          if (typeof body[key] === 'boolean') return json(400, notString(key));
        }
      }
      // C.21: empty strings TEC's validators refuse, all named in one answer.
      const refused = (EMPTY_REFUSED[collection ?? ''] ?? []).filter((key) => body?.[key] === '');
      if (refused.length > 0) return json(400, invalidParams(refused));
      // C.4: an update replaces: what is not sent is reset.
      if (item && collection && RESETS[collection]) body = { ...RESETS[collection], ...body };
    }

    let answer = await send(method, upstreamPath(url.searchParams), headers, body && JSON.stringify(body));

    // C.10, E8: create-or-find overwrites the found item with what was sent (a new one is unchanged by it).
    if (
      method === 'POST' &&
      !item &&
      (collection === 'venues' || collection === 'organizers') &&
      answer.status === 201 &&
      body
    ) {
      const found = JSON.parse(answer.body) as Doc;
      const overwrite = { ...RESETS[collection], ...body };
      delete overwrite.slug;
      const updated = await send(
        'POST',
        `${UPSTREAM_NS}/${collection}/${found.id}`,
        headers,
        JSON.stringify(overwrite),
      );
      if (updated.status === 200) answer = { ...updated, status: 201 };
    }

    // C.15, D2: an unknown id or slug is 400 rest_invalid_param naming the parameter.
    if (item && answer.status === 404 && /-not-found"/.test(answer.body)) {
      const param = item.startsWith('by-slug/') ? 'slug' : 'id';
      return json(400, {
        code: 'rest_invalid_param',
        message: `Invalid parameter(s): ${param}`,
        data: { status: 400, params: { [param]: 'Invalid parameter.' } },
      });
    }
    return answer.headers['content-type']?.includes('json')
      ? { ...answer, body: texturizeAnswer(answer.body) }
      : answer;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    handle(req)
      .then((answer) => {
        log.push({ method: req.method ?? '', url: req.url ?? '', status: answer.status });
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      })
      .catch(() => req.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/wp-json`,
    log,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const json = (status: number, doc: unknown): Answer => ({
  status,
  headers: { 'content-type': 'application/json; charset=UTF-8' },
  body: JSON.stringify(doc),
});

const noRoute = () => ({
  code: 'rest_no_route',
  message: 'No route was found matching the URL and request method.',
  data: { status: 404 },
});

/** C.21 [live 2026-11-25]: the fields TEC 6.2.6 answers `""` for with 400 rest_invalid_param. */
const EMPTY_REFUSED: Record<string, readonly string[]> = {
  events: ['description', 'excerpt', 'image', 'slug'],
  categories: ['description', 'slug', 'parent'],
  tags: ['description', 'slug', 'parent'],
};

const invalidParams = (keys: readonly string[]) => ({
  code: 'rest_invalid_param',
  message: `Invalid parameter(s): ${keys.join(', ')}`,
  data: { status: 400, params: Object.fromEntries(keys.map((k) => [k, 'Invalid parameter.'])), details: [] },
});

/** The text fields of an answer that WordPress texturizes (C.22), at any depth (an event's venue, terms). */
const TEXTURIZED = new Set(['title', 'description', 'excerpt', 'venue', 'organizer', 'name']);

function texturizeAnswer(body: string): string {
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') return key && TEXTURIZED.has(key) ? texturize(value) : value;
    if (Array.isArray(value)) return value.map((v) => walk(v, key));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  try {
    return JSON.stringify(walk(JSON.parse(body)));
  } catch {
    return body;
  }
}

/**
 * The part of WordPress's wptexturize() that changes everyday text, outside tags: `---` and ` -- ` → em dash, `--` and ` - ` → en dash,
 * `...` → ellipsis, apostrophes → &#8217;, double quotes → &#8220; &#8221;. (Quotes may already arrive as
 * `&quot;`: WordPress texturizes the raw text; our server escapes only `&`, `<` and `>` in titles.)
 */
function texturize(html: string): string {
  return html
    .split(/(<[^>]*>)/)
    .map((part) =>
      part.startsWith('<')
        ? part
        : part
            .replace(/---| -- /g, (m) => (m === '---' ? '&#8212;' : ' &#8212; '))
            .replace(/--| - /g, (m) => (m === '--' ? '&#8211;' : ' &#8211; '))
            .replace(/\.\.\./g, '&#8230;')
            .replace(/(^|[\s([{])"/g, '$1&#8220;')
            .replace(/"/g, '&#8221;')
            .replace(/'/g, '&#8217;'),
    )
    .join('');
}

const notString = (key: string) => ({
  code: 'rest_invalid_param',
  message: `Invalid parameter(s): ${key}`,
  data: { status: 400, params: { [key]: `${key} is not of type string.` } },
});
