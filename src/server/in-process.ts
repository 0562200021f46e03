/**
 * `inProcessApi(options)`: requests to the API handled without HTTP and without building the Fastify app —
 * for the local import target (src/embedded/local-target.ts), which sends ~15,000 writes per 10,000-event
 * file and reads what is there before its first. Its `call` runs the parts of Fastify's lifecycle that decide the answer, with the same
 * functions the app's hooks and handler run, of the same core (core.ts) when the target later builds the
 * app for what `call` does not take (`buildApp(options, core)`):
 *
 * 1. `admit` (app.ts's onRequest hook): authentication by the same scheme table, then scheduled publishing;
 * 2. the route found among `defineRoute`'s (routes/spec.ts), its path parameters as Fastify's router gives
 *    them, the query parsed by the router's parser (`parseNested`) and the body by the JSON body parser
 *    (`parseJsonBody`);
 * 3. the route's handler (X-HTTP-Method-Override included), with the request and reply parts handlers may
 *    use (`ApiRequest`, `ApiReply`);
 * 4. errors rendered by the app's error handler (`errorAnswer`), and the common headers (`commonHeaders`).
 *
 * What it leaves out only concerns a network client: no socket, light-my-request or Fastify hook chain,
 * and none of the hooks that have nothing to do for these requests — security headers (helmet), the
 * cross-origin write check (no `Origin`), the failed-authentication throttle (only the in-process
 * schemes are taken here, never a password or token to guess), the response cache (which gives a GET
 * the answer its handler would make) and compression (no `Accept-Encoding`). A request it cannot take as
 * Fastify would (HEAD or OPTIONS, another header, a path no route declares or one Fastify would decode differently, a body over the limit) is
 * `null`, and the caller sends it through `app.inject`: the answers are the same either way
 * (test/server/in-process.test.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import { parseJsonBody, parseNested } from './body.ts';
import { type Answer, type ApiCore, apiCore, type CoreOptions } from './core.ts';
import type { ApiReply, ApiRequest, ApiServer } from './request.ts';
import { declareResourceRoutes } from './routes/index.ts';
import type { Method, RouteEntry, RouteHost } from './routes/spec.ts';

export interface InProcessRequest {
  method: Method;
  /** As on the wire: the API prefix, the path and `?query`, percent-encoded. */
  url: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  /** The JSON text of the body, as a client would send it. */
  payload?: string;
}

/**
 * Headers with lower-case names, as the handler and the app's hooks set them. `json`: the document the
 * handler answered with, when it answered with one (`send` in routes/respond.ts), whose JSON text the
 * body is: the text is then made only when first read, and the local target hands the document itself
 * to the writer (src/embedded/local-target.ts).
 */
export type InProcessAnswer = Answer & { json?: unknown };

export type InProcessCaller = (req: InProcessRequest) => Promise<InProcessAnswer | null>;

export interface InProcessApi {
  /** A request's answer, or `null` for a request to send through the app (`app.inject`). */
  call: InProcessCaller;
  /** What admits and answers requests besides the routes: give it to `buildApp` for the rest. */
  core: ApiCore;
}

/**
 * The resources' routes (routes/index.ts) declared on a route table of their own, with `core`'s store,
 * settings and password gate as `req.server`, behind the caller below; no Fastify app is built or loaded.
 */
export async function inProcessApi(options: CoreOptions): Promise<InProcessApi> {
  const core = apiCore(options);
  const server: RouteHost & ApiServer = {
    prefix: `${core.config.apiPrefix}/calendar/events/v1`,
    store: core.store,
    config: core.config,
    credentials: core.credentials,
    routeSpecs: [],
    routeEntries: [],
    // defineRoute's own record (routeEntries) is the table; there is no router to give the route to.
    route: () => undefined,
  };
  await declareResourceRoutes(server);
  return { call: inProcessCaller({ core, server, routes: server.routeEntries }), core };
}

export interface InProcessDeps {
  core: Pick<ApiCore, 'admit' | 'errorAnswer' | 'commonHeaders' | 'extraSchemes' | 'config'>;
  /** `req.server` of the handlers. */
  server: ApiServer;
  routes: readonly RouteEntry[];
  /** Where a 500's error goes; default nowhere, as the local target's app (`logger: false`). */
  log?: Pick<FastifyBaseLogger, 'error'>;
}

const NO_LOG: Pick<FastifyBaseLogger, 'error'> = { error: () => undefined };
const TAKEN_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** The headers taken here; a request with any other goes through Fastify, whose hooks may read it. */
const TAKEN_HEADERS: ReadonlySet<string> = new Set(['authorization', 'content-type']);
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The caller over `routes`. Only the schemes of `core.extraSchemes` (`Local`), which exist only in-process,
 * are taken here: Basic and Bearer credentials go through Fastify, where the failed-authentication
 * throttle counts and blocks guesses.
 */
export function inProcessCaller(deps: InProcessDeps): InProcessCaller {
  const { core, server, routes } = deps;
  const log = deps.log ?? NO_LOG;
  const { bodyLimit } = core.config;
  return async (request) => {
    if (!TAKEN_METHODS.has(request.method)) return null;
    for (const name in request.headers) if (!TAKEN_HEADERS.has(name)) return null;
    const auth = request.headers.authorization;
    if (auth !== undefined && !core.extraSchemes.has(auth.split(' ', 1)[0].toLowerCase())) return null;
    const type = request.headers['content-type'];
    if (request.payload !== undefined && type !== 'application/json') return null;
    if (request.payload !== undefined && Buffer.byteLength(request.payload) > bodyLimit) return null;
    const q = request.url.indexOf('?');
    const path = q < 0 ? request.url : request.url.slice(0, q);
    const found = match(routes, request.method, path);
    if (!found) return null;

    const req: ApiRequest & { responseCacheSlot: null } = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      query: q < 0 ? {} : parseNested(request.url.slice(q + 1)),
      // Fastify gives a body only to a request that has one; an empty JSON text is `{}` as there.
      body: request.payload === undefined ? undefined : parseJsonBody(request.payload),
      params: found.params,
      caller: null,
      server,
      ip: '127.0.0.1',
      responseCacheSlot: null,
    };
    const reply = new Reply(req);
    let answer: InProcessAnswer;
    try {
      await core.admit(req);
      const payload = await found.route.handler(req, reply);
      answer = serialised(reply.statusCode, reply.headerValues, payload);
    } catch (err) {
      answer = core.errorAnswer(err, log);
      for (const [k, v] of Object.entries(reply.headerValues)) answer.headers[k] ??= v;
    }
    const { headers } = answer;
    core.commonHeaders({ header: (k, v) => (headers[k] = v) }, req.caller, found.route.config.allow);
    return answer;
  };
}

/** The route and its decoded parameters, or null when none matches or a parameter does not decode. */
function match(
  routes: readonly RouteEntry[],
  method: Method,
  path: string,
): { route: RouteEntry; params: Record<string, string> } | null {
  for (const route of routes) {
    if (!route.methods.includes(method)) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]);
      });
    } catch {
      return null;
    }
    return { route, params };
  }
  return null;
}

/**
 * As Fastify sends a handler's value: text and bytes as they are, anything else as JSON (Fastify's
 * serializer without response schemas is `JSON.stringify`). A document that is JSON data (`isJsonData`)
 * is the answer's `json`, and its text is made when the body is first read; any other value is
 * serialised here, so that a failure is this request's error answer, as in Fastify.
 */
function serialised(status: number, headers: Record<string, string>, payload: unknown): InProcessAnswer {
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) return { status, headers, body: payload };
  headers['content-type'] ??= JSON_TYPE;
  if (payload === undefined) return { status, headers, body: '' };
  if (!isJsonData(payload)) return { status, headers, body: JSON.stringify(payload) };
  let text: string | undefined;
  return {
    status,
    headers,
    json: payload,
    get body() {
      text ??= JSON.stringify(payload);
      return text;
    },
  };
}

/**
 * `value` is JSON data as `JSON.parse` makes it: null, booleans, strings, finite numbers other than -0,
 * arrays without holes and objects of the plain prototype, of such values, nested at most 64 deep (so no
 * cycles). Then `JSON.parse(JSON.stringify(value))` reads exactly as `value` does, but for identity: the
 * local target's writer takes it instead of parsing the text, and only reads it.
 */
export function isJsonData(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= 64) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i++) if (!isJsonData(value[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const record = value as Record<string, unknown>;
      for (const key in record) if (!isJsonData(record[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** The reply a handler writes its status and headers on (`ApiReply`). */
class Reply implements ApiReply {
  statusCode = 200;
  readonly headerValues: Record<string, string> = {};
  readonly request: ApiReply['request'];

  constructor(request: ApiReply['request']) {
    this.request = request;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: unknown): this {
    this.headerValues[name.toLowerCase()] = String(value);
    return this;
  }

  headers(values: Record<string, unknown>): this {
    for (const [k, v] of Object.entries(values)) this.header(k, v);
    return this;
  }

  type(contentType: string): this {
    return this.header('content-type', contentType);
  }
}
