/**
 * Whole responses of read routes, kept until the stored data changes. A list page of 50 events
 * costs ~5 ms to load, render and serialise, and a busy calendar serves the same pages over and over
 * between writes; a kept page costs what writing its bytes costs.
 *
 * Public: `registerResponseCache(app, store, limits)` (root hooks, after authentication; the cache is
 * `app.responseCache`, with its `hits` and `misses`),
 * `uncacheable(reply)` for a handler whose answer depends on more than the key below, `strongEtag` and
 * `etagMatches` (also used by the feeds, routes/feeds.ts).
 *
 * A route opts in with `cache: true` in its spec (routes/spec.ts). The key is everything such a
 * handler reads: the URL without the method (GET and HEAD share answers; GET has no body), the
 * negotiated representation, the caller (0 for anonymous: permissions and visibility follow the
 * user, and their role is stored data) and the site-local date (the default list window starts
 * yesterday). Only 200s are kept, with their headers (`X-TEC-*`, `Allow`, …) and body as bytes, so a
 * hit costs no UTF-8 encoding either.
 *
 * Staleness, by what an answer read (issue 15: every write dropped every answer, so a stream of event
 * creates left the venue lists uncached too): the handler of a request runs with a collector of the
 * tables its statements read (Store.collectReads, carried along its async calls), and its entry keeps
 * them with the store's change number read *before* the handler ran. The entry is the answer until one
 * of those tables changes after that number — a write of this server to the table, to one whose
 * triggers or foreign keys write it, or any commit of another process on the same file. An
 * authenticated caller's answers also depend on the `users` table (authentication read the role).
 *
 * Conditional requests (RFC 9110 §8.8.3, §13.1.2): every 200 of such a route carries a strong ETag,
 * a hash of its bytes (or the handler's own, made of what the bytes are made of: event list pages),
 * made once when the answer is made and kept with it; an `If-None-Match` naming
 * it is answered 304 with no body, from a kept answer without touching the handler. (No
 * Last-Modified: a list's bytes also change with data its items do not show, such as totals.)
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatUtcNow, utcToLocal } from '../model/datetime.ts';
import type { Store } from '../store/store.ts';
import type { Config } from './config.ts';
import { type Coding, compress, MIN_COMPRESS_BYTES, pickCoding } from './content-coding.ts';
import { type MediaType, negotiate } from './formats/negotiate.ts';
import { DEFAULT_FORMATS, negotiated } from './routes/respond.ts';

export interface ResponseCacheLimits {
  /** Entries kept; 0 turns the cache off. */
  maxEntries: number;
  /** Summed body bytes kept; one body may take at most a quarter. */
  maxBytes: number;
}

interface Entry {
  status: number;
  headers: Record<string, string | number | string[]>;
  body: Buffer;
}

interface Kept extends Entry {
  /** The store's change number before the handler ran, and the tables it read. */
  since: number;
  tables: readonly string[];
  /** The body in the codings clients asked for, made once (content-coding.ts); `ready` once made. */
  coded: Partial<Record<Coding, Promise<Buffer>>>;
  ready: Partial<Record<Coding, Buffer>>;
}

/** Per request: the key looked up, and whether the answer came from the cache. */
interface Slot {
  key: string;
  since: number;
  hit: boolean;
  /** Set by `uncacheable`. */
  skip: boolean;
  /** The tables its handler read. */
  tables: Set<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    responseCacheSlot: Slot | null;
  }
  interface FastifyInstance {
    /** The kept answers, for their counts. */
    responseCache: ResponseCache;
  }
}

/** A route's `config` as routes/spec.ts fills it in. */
interface CacheConfig {
  cache?: boolean;
  formats?: readonly MediaType[];
}

/** Least recently used first: a Map keeps insertion order, and a hit is re-inserted. */
export class ResponseCache {
  readonly #limits: ResponseCacheLimits;
  readonly #entries = new Map<string, Kept>();
  #bytes = 0;
  /** Answers served from here, and answers looked up here but made again. */
  hits = 0;
  misses = 0;
  /** Of the hits, those answered before routing (`registerKeptAnswers`'s EarlyAnswer). */
  earlyHits = 0;

  constructor(limits: ResponseCacheLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The kept answer, unless `stale` says it is no longer good (it is then dropped). */
  async get(key: string, stale: (entry: Kept) => Promise<boolean>): Promise<Kept | undefined> {
    const entry = this.#entries.get(key);
    const good = entry !== undefined && !(await stale(entry));
    // Another request may have replaced or dropped the entry while `stale` was answered.
    const still = entry !== undefined && this.#entries.get(key) === entry;
    if (still) this.#entries.delete(key);
    if (!good) {
      if (still) this.#bytes -= sizeOf(entry!);
      this.misses++;
      return undefined;
    }
    if (still) this.#entries.set(key, entry);
    this.hits++;
    return entry;
  }

  /**
   * The kept answer if it is there and good, counted as a hit; otherwise undefined, nothing counted and
   * nothing dropped (the request then goes the whole way, and its `get` counts the miss).
   */
  async peek(key: string, stale: (entry: Kept) => Promise<boolean>): Promise<Kept | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined || (await stale(entry)) || this.#entries.get(key) !== entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.hits++;
    return entry;
  }

  set(key: string, entry: Kept): void {
    const { maxEntries, maxBytes } = this.#limits;
    if (maxEntries === 0 || entry.body.length > maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= sizeOf(old);
    }
    this.#entries.set(key, entry);
    this.#bytes += sizeOf(entry);
    this.#trim();
  }

  /** `entry`'s body in `coding`, made on the thread pool the first time; counted once made. */
  coded(key: string, entry: Kept, coding: Coding): Promise<Buffer> {
    let made = entry.coded[coding];
    if (!made) {
      made = compress(entry.body, coding);
      entry.coded[coding] = made;
      made.then(
        (bytes) => {
          entry.ready[coding] = bytes;
          if (this.#entries.get(key) !== entry) return;
          this.#bytes += bytes.length;
          this.#trim();
        },
        () => {},
      );
    }
    return made;
  }

  #trim(): void {
    const { maxEntries, maxBytes } = this.#limits;
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#entries.size <= maxEntries && this.#bytes <= maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= sizeOf(oldEntry);
    }
  }
}

/** The bytes an entry holds: its body and the codings made of it. */
function sizeOf(entry: Kept): number {
  let n = entry.body.length;
  for (const bytes of Object.values(entry.ready)) n += bytes.length;
  return n;
}

/** Answers worth a content coding: large enough, and text. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|xml|javascript|[\w.+-]*\+(?:json|xml))\b)/i;

function codingFor(acceptEncoding: string | undefined, entry: Entry): Coding | null {
  if (entry.body.length < MIN_COMPRESS_BYTES) return null;
  if (!COMPRESSIBLE.test(String(entry.headers['content-type'] ?? ''))) return null;
  return pickCoding(acceptEncoding);
}

/** Headers of a body sent in `coding`, made here: @fastify/compress then leaves it alone. */
function markCoded(reply: FastifyReply, coding: Coding): FastifyReply {
  return reply.header('content-encoding', coding);
}

/** Kept answers are sent in the coding a client asks for (the root hook sets Vary anew on each answer). */
function varyOnCoding(reply: FastifyReply): void {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/\baccept-encoding\b/i.test(vary))
    reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
}

/** The answer of this request depends on more than the cache key (e.g. the current time): not kept. */
export function uncacheable(reply: { request: Pick<FastifyRequest, 'responseCacheSlot'> }): void {
  const slot = reply.request.responseCacheSlot;
  if (slot) slot.skip = true;
}

/**
 * What the server's request listener asks before Fastify routes a request (app.ts): true once it has
 * written the answer, false (at once or later) when the request must go to Fastify.
 */
export type EarlyAnswer = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | false;

/** The most URLs `registerKeptAnswers` remembers as taken by the router to a kept route. */
const MAX_ROUTED_URLS = 10_000;

/**
 * The cache, and the first of the root `onRequest` hooks: an anonymous GET whose answer is kept is
 * answered there, before the security headers, authentication and the rest of the hooks run (the kept
 * headers hold what those set: helmet's, the common ones). What the hooks it skips would decide for such
 * a request is known without them: no `Authorization` header is the anonymous caller and no credentials
 * for the throttle, a GET is no cross-site write, and `publishDue` runs first here too. Anything else
 * (a miss, a caller) goes the whole way, to `registerResponseCache`'s hook.
 *
 * Returns the same answer for the server's request listener, before routing: for a URL the hook has
 * answered from the cache (so the router takes exactly that URL to a kept route, with those formats),
 * the same key, the same checks and the same bytes, without Fastify's routing, request objects and
 * logger (~a quarter of a kept page's CPU).
 */
export function registerKeptAnswers(
  app: FastifyInstance,
  store: Store,
  limits: ResponseCacheLimits,
  publishDue: () => Promise<void>,
): EarlyAnswer {
  const cache = new ResponseCache(limits);
  app.decorate('responseCache', cache);
  app.decorateRequest('responseCacheSlot', null);
  if (limits.maxEntries === 0) return () => false;
  const stale = staleIn(store);
  const lookUp = (key: string, socket: boolean) =>
    publishDue()
      .then(() => store.changeNumber({ onceThisTurn: socket }))
      .then(async (since) => ({ since, entry: await cache.peek(key, stale) }));

  /** Raw URLs the hook answered from the cache, and their route's formats. */
  const routed = new Map<string, readonly MediaType[]>();
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true; // Fastify answers 503 from now on (return503OnClosing)
    done();
  });

  app.addHook('onRequest', (req, reply, done) => {
    if (req.headers.authorization !== undefined || (req.method !== 'GET' && req.method !== 'HEAD'))
      return done();
    const config = req.routeOptions.config as CacheConfig | undefined;
    if (!config?.cache) return done();
    const format = negotiated(req, config.formats);
    if (format === null) return done();
    const key = keyOf(app.config, null, format, req.url);
    lookUp(key, fromSocket(req)).then(({ since, entry }) => {
      if (!entry) return done();
      // `?ical=` chooses the format by the query, which the early answer does not read.
      if ((req.query as Record<string, unknown>).ical === undefined) {
        if (routed.size >= MAX_ROUTED_URLS) routed.clear();
        routed.set(req.url, config.formats ?? DEFAULT_FORMATS);
      }
      if (
        req.method === 'GET' &&
        quiet(req.log) &&
        sendDirect(req.headers, reply.raw, entry, () => reply.hijack())
      )
        return;
      answerKept(cache, req, reply, { key, since, hit: true, skip: false, tables: new Set() }, entry);
    }, done);
  });

  return (req, res) => {
    if (closing || req.method !== 'GET' || req.headers.authorization !== undefined) return false;
    // A GET with a body is left to Fastify, which reads (or refuses) it.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      return false;
    const formats = routed.get(req.url ?? '');
    if (formats === undefined || !quiet(app.log)) return false;
    const format = negotiate(req.headers.accept, false, formats);
    if (format === null) return false;
    return lookUp(keyOf(app.config, null, format, req.url!), true).then(({ entry }) => {
      if (entry === undefined || !sendDirect(req.headers, res, entry)) return false;
      cache.earlyHits++;
      return true;
    });
  };
}

/** The cache key: the caller (0 for anonymous), the site-local date, the representation, the URL. */
const keyOf = (cfg: Config, caller: { id: number } | null, format: MediaType, url: string) =>
  `${caller?.id ?? 0} ${siteDate(cfg)} ${format} ${url}`;

/**
 * Read from a socket (not `inject`, whose requests are made in the middle of a turn by code that may
 * have just written through another connection): the store may then look for other processes' commits
 * once per turn of the event loop (Store.changeNumber).
 */
const fromSocket = (req: FastifyRequest) => req.raw.socket instanceof Socket;

const staleIn = (store: Store) => (entry: Kept) => store.changedSince(entry.tables, entry.since);

/** Requests are not logged at `info` (pino's level check; Fastify's logger when off has none). */
function quiet(logger: unknown): boolean {
  const log = logger as { isLevelEnabled?: (level: string) => boolean; level?: string };
  return log.isLevelEnabled ? !log.isLevelEnabled('info') : log.level === undefined || log.level === 'silent';
}

/**
 * A kept 200 whose bytes are ready, written to the socket directly (after `take`, which takes the
 * response from Fastify, when it has it): the onSend hooks would set the headers it holds again (app.ts's
 * common headers, Vary) and leave the rest alone (no challenge, no 401, a coded body), and Fastify's part
 * of a send was ~a third of a kept compressed page's CPU. For GETs only, and not when requests are logged
 * at `info` (Fastify logs "request completed" only for answers it sends); the caller checks both.
 */
function sendDirect(
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  entry: Kept,
  take: () => void = () => {},
): boolean {
  if (entry.status !== 200 || etagMatches(headers['if-none-match'], entry.headers.etag)) return false;
  const coding = codingFor(headers['accept-encoding'], entry);
  const bytes = coding === null ? entry.body : entry.ready[coding];
  if (!bytes) return false;
  const out: OutgoingHttpHeaders = { ...entry.headers, 'content-length': bytes.length };
  if (coding !== null) out['content-encoding'] = coding;
  take();
  res.writeHead(200, out);
  res.end(bytes);
  return true;
}

/** Sends a kept answer: a 304 for a matching `If-None-Match`, else its body in the client's coding. */
function answerKept(cache: ResponseCache, req: FastifyRequest, reply: FastifyReply, slot: Slot, entry: Kept) {
  req.responseCacheSlot = slot;
  reply.code(entry.status).headers(entry.headers);
  if (notModified(req, entry.headers.etag)) {
    reply.code(304).send();
    return;
  }
  const coding = codingFor(req.headers['accept-encoding'], entry);
  if (coding === null) reply.send(entry.body);
  else if (entry.ready[coding]) markCoded(reply, coding).send(entry.ready[coding]);
  else
    cache.coded(slot.key, entry, coding).then(
      (bytes) => markCoded(reply, coding).send(bytes),
      () => reply.send(entry.body),
    );
}

/**
 * The hooks that key, look up and keep answers of every caller (the cache made by `registerKeptAnswers`),
 * registered after authentication.
 */
export function registerResponseCache(app: FastifyInstance, store: Store, limits: ResponseCacheLimits): void {
  const cache = app.responseCache;
  const caching = limits.maxEntries > 0;
  const stale = staleIn(store);

  /** The kept answer for the request, if good; `undefined` when the handler must make it. */
  const lookUp = async (
    req: FastifyRequest,
    key: string,
  ): Promise<{ since: number; entry: Kept | undefined }> => {
    const since = await store.changeNumber({ onceThisTurn: fromSocket(req) });
    return { since, entry: caching ? await cache.get(key, stale) : undefined };
  };

  // A callback hook: the rest of the request (its handler) runs inside `collectReads`.
  app.addHook('onRequest', (req, reply, done) => {
    const config = req.routeOptions.config as CacheConfig | undefined;
    if (req.responseCacheSlot || !config?.cache || (req.method !== 'GET' && req.method !== 'HEAD'))
      return done();
    const format = negotiated(req, config.formats);
    if (format === null) return done(); // a 406, answered by the handler
    const key = keyOf(app.config, req.caller, format, req.url);
    lookUp(req, key).then(({ since, entry }) => {
      const tables = new Set<string>(req.caller ? ['users'] : []);
      const slot = { key, since, hit: entry !== undefined, skip: false, tables };
      if (entry) return answerKept(cache, req, reply, slot, entry);
      req.responseCacheSlot = slot;
      if (caching) void store.collectReads(tables, async () => done());
      else done();
    }, done);
  });

  // Registered after the root onSend hook of app.ts, so the common headers are in what is kept.
  app.addHook('onSend', async (req, reply, payload) => {
    const slot = req.responseCacheSlot;
    if (!slot) return payload;
    varyOnCoding(reply);
    if (slot.hit || reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    // A handler that knows its body's validator sets it (list pages, from their fragments' digests).
    const preset = reply.getHeader('etag');
    const etag = typeof preset === 'string' ? preset : strongEtag(body);
    reply.header('etag', etag);
    if (!caching || slot.skip) {
      if (!notModified(req, etag)) return body;
      reply.code(304);
      return '';
    }
    const { 'content-length': _length, ...headers } = reply.getHeaders();
    const kept: Kept = {
      status: 200,
      headers: headers as Entry['headers'],
      body,
      since: slot.since,
      tables: [...slot.tables],
      coded: {},
      ready: {},
    };
    cache.set(slot.key, kept);
    if (notModified(req, etag)) {
      reply.code(304);
      return '';
    }
    // Compressed once, off the event loop, and kept for the next clients asking for the same coding.
    const coding = codingFor(req.headers['accept-encoding'], kept);
    if (coding === null) return body;
    const coded = await cache.coded(slot.key, kept, coding).catch(() => null);
    if (coded === null) return body;
    markCoded(reply, coding);
    return coded;
  });
}

/** A strong validator from the bytes: equal bytes, equal tag, across restarts and processes. */
export function strongEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`. */
export function etagMatches(header: string | undefined, etag: unknown): boolean {
  if (header === undefined || typeof etag !== 'string') return false;
  if (header.trim() === '*') return true;
  for (const tag of header.split(',')) {
    const t = tag.trim();
    if (t === etag || t === `W/${etag}`) return true;
  }
  return false;
}

function notModified(req: FastifyRequest, etag: unknown): boolean {
  return etagMatches(req.headers['if-none-match'], etag);
}

/**
 * Today in the site's zone: the default event list window is counted from it (B.5). Worked out once
 * a second (~4 µs, a sixth of a cached answer's own cost); offsets are whole seconds, so a day never
 * starts inside one.
 */
function siteDate(cfg: Config): string {
  const now = cfg.now();
  const second = Math.floor(now.getTime() / 1000);
  let last = lastDates.get(cfg);
  if (last?.second !== second) {
    last = { second, date: utcToLocal(formatUtcNow(now), cfg.siteTimezone).slice(0, 10) };
    lastDates.set(cfg, last);
  }
  return last.date;
}

const lastDates = new WeakMap<Config, { second: number; date: string }>();
