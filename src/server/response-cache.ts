/**
 * Whole responses of read routes, kept until the stored data changes. A list page of 50 events
 * costs ~5 ms to load, render and serialise, and a busy calendar serves the same pages over and over
 * between writes; a kept page costs what writing its bytes costs.
 *
 * Public: `registerResponseCache(app, store, limits)` (root hooks, after authentication),
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
 * Staleness: every entry carries the store's `dataVersion()` as read *before* the handler ran, and
 * the whole cache is dropped as soon as a lookup sees another version — a write of this server, or a
 * commit of another process on the same file. A write racing with a miss can only make the kept
 * answer newer than its version, never older, and the next lookup drops it anyway.
 *
 * Conditional requests (RFC 9110 §8.8.3, §13.1.2): every 200 of such a route carries a strong ETag,
 * a hash of its bytes, made once when the answer is made and kept with it; an `If-None-Match` naming
 * it is answered 304 with no body, from a kept answer without touching the handler. (No
 * Last-Modified: a list's bytes also change with data its items do not show, such as totals.)
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatUtcNow, utcToLocal } from '../model/datetime.ts';
import type { Store } from '../store/store.ts';
import type { Config } from './config.ts';
import type { MediaType } from './formats/negotiate.ts';
import { negotiated } from './routes/respond.ts';

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

/** Per request: the key and version looked up, and whether the answer came from the cache. */
interface Slot {
  key: string;
  version: number;
  hit: boolean;
  /** Set by `uncacheable`. */
  skip: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    responseCacheSlot: Slot | null;
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
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #version = Number.NaN;

  constructor(limits: ResponseCacheLimits) {
    this.#limits = limits;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, version: number): Entry | undefined {
    if (version !== this.#version) {
      this.#entries.clear();
      this.#bytes = 0;
      this.#version = version;
      return undefined;
    }
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, version: number, entry: Entry): void {
    // Computed under a version the cache has already left: newer answers are on their way.
    if (version !== this.#version) return;
    const { maxEntries, maxBytes } = this.#limits;
    if (maxEntries === 0 || entry.body.length > maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.body.length;
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#entries.size <= maxEntries && this.#bytes <= maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= oldEntry.body.length;
    }
  }
}

/** The answer of this request depends on more than the cache key (e.g. the current time): not kept. */
export function uncacheable(reply: FastifyReply): void {
  const slot = reply.request.responseCacheSlot;
  if (slot) slot.skip = true;
}

export function registerResponseCache(
  app: FastifyInstance,
  store: Store,
  limits: ResponseCacheLimits,
): ResponseCache {
  const cache = new ResponseCache(limits);
  app.decorateRequest('responseCacheSlot', null);
  const caching = limits.maxEntries > 0;

  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config as CacheConfig | undefined;
    if (!config?.cache || (req.method !== 'GET' && req.method !== 'HEAD')) return;
    const format = negotiated(req, config.formats);
    if (format === null) return; // a 406, answered by the handler
    const key = `${req.caller?.id ?? 0} ${siteDate(app.config)} ${format} ${req.url}`;
    const version = store.dataVersion();
    const entry = caching ? cache.get(key, version) : undefined;
    req.responseCacheSlot = { key, version, hit: entry !== undefined, skip: false };
    if (entry) {
      reply.code(entry.status).headers(entry.headers);
      if (notModified(req, entry.headers.etag)) return reply.code(304).send();
      return reply.send(entry.body);
    }
  });

  // Registered after the root onSend hook of app.ts, so the common headers are in what is kept.
  app.addHook('onSend', async (req, reply, payload) => {
    const slot = req.responseCacheSlot;
    if (!slot || slot.hit || reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const etag = strongEtag(body);
    reply.header('etag', etag);
    if (caching && !slot.skip) {
      const { 'content-length': _length, ...headers } = reply.getHeaders();
      cache.set(slot.key, slot.version, { status: 200, headers: headers as Entry['headers'], body });
    }
    if (notModified(req, etag)) {
      reply.code(304);
      return '';
    }
    return body;
  });
  return cache;
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
