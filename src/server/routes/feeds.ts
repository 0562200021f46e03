/**
 * Subscription feeds: `GET|HEAD /feeds/<name>.ics` (and `.csv`) for every configured feed
 * (src/export/feed-spec.ts), `?outlook=1` for the variant without X-WR-CALNAME.
 *
 * Public: `FeedRoutesOptions`, `feedRoutes` (a plugin registered at the site root by app.ts).
 *
 * HTTP caching (RFC 9110 §8.8, §13; RFC 9111 §5.2): a strong ETag (SHA-256 of the body), Last-Modified
 * (the newest change among the feed's events), `Cache-Control: public, max-age` = the feed's refresh
 * interval; If-None-Match (weak comparison, §13.1.2) or else If-Modified-Since answer 304. A rendered
 * feed is kept with its ETag and its gzip/br forms until the store's change counter (`dataVersion`) or
 * the UTC day (the window) moves, so a repeated request — and every 304 — costs a counter read and a
 * string compare: nothing is rendered, hashed or compressed again. Compressed forms are made here, once
 * per body (after a render, those asked for before are made before the new body is served), and sent
 * with Content-Encoding set, which @fastify/compress leaves alone (content-coding.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FeedSpec } from '../../export/feed-spec.ts';
import { FEED_CONTENT_TYPES } from '../../export/render.ts';
import { storageFault } from '../../store/errors.ts';
import { type Coding, compress, pickCoding } from '../content-coding.ts';
import { noRoute } from '../errors.ts';
import { type FeedJob, FeedRenderer } from '../feed-render.ts';
import { etagMatches } from '../response-cache.ts';

export interface FeedRoutesOptions {
  feeds: readonly FeedSpec[];
  /**
   * Least time between the starts of two renders of a feed while a rendered one is served (ms, default
   * 1000): under a stream of writes a feed is at most this much plus one render behind, and renders
   * stop competing with requests for the CPU.
   */
  minRenderIntervalMs?: number;
}

type Format = 'ics' | 'csv';

interface Kept {
  version: number;
  day: number;
  /** When its render started (ms, the process's clock). */
  startedAt: number;
  body: Buffer;
  etag: string;
  /** RFC 9110 HTTP-date, or null for an empty feed. */
  lastModified: string | null;
  /** Whole seconds, for If-Modified-Since. */
  lastModifiedSeconds: number;
  /** Compressed forms, made once per render: concurrent requests wait for the same one. */
  coded: Partial<Record<Coding, Promise<Buffer>>>;
}

const DAY = 86_400_000;
const FILE = /^([a-z0-9-]+)\.(ics|csv)$/;

function notModified(req: FastifyRequest, kept: Kept): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return etagMatches(inm, kept.etag);
  const ims = req.headers['if-modified-since'];
  if (ims === undefined || kept.lastModified === null) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && kept.lastModifiedSeconds <= Math.floor(since / 1000);
}

export async function feedRoutes(app: FastifyInstance, opts: FeedRoutesOptions): Promise<void> {
  const { store, config } = app;
  const feeds = new Map(opts.feeds.map((f) => [f.name, f]));
  const kept = new Map<string, Kept>();

  // Tombstones older than every feed's keep time are of no use any more.
  const keepDays = Math.max(0, ...opts.feeds.map((f) => f.tombstoneDays));
  const cutoff = new Date(config.now().getTime() - (keepDays + 1) * DAY);
  try {
    await store.pruneEventTombstones(cutoff.toISOString().slice(0, 19).replace('T', ' '));
  } catch (err) {
    // Housekeeping: a read-only or full data file is still served (they are pruned next start).
    if (!storageFault(err)) throw err;
  }

  const renderer = new FeedRenderer(store, config);
  const minInterval = opts.minRenderIntervalMs ?? 1000;
  let closed = false;
  app.addHook('onClose', () => {
    closed = true;
    return renderer.close();
  });
  /** Renders running, by feed key: a feed is never rendered twice at once. */
  const refreshing = new Map<string, Promise<Kept>>();

  /**
   * The feed to answer with. Stale-while-revalidate: when the data changed since it was rendered, the
   * kept feed is still the answer (calendar apps poll; a feed a render behind is fine) while one fresh
   * render runs; only a feed never rendered (or from another day, whose window moved) waits for it.
   */
  async function current(
    feed: FeedSpec,
    format: Format,
    outlook: boolean,
    req: FastifyRequest,
  ): Promise<Kept> {
    const key = `${feed.name}.${format}${outlook ? '.outlook' : ''}`;
    const version = await store.dataVersion();
    const day = Math.floor(config.now().getTime() / DAY);
    const old = kept.get(key);
    if (old && old.version === version && old.day === day) return old;
    // Inline renders (an in-memory store) cost the loop the same now or later: they are waited for.
    const serveOld = old !== undefined && old.day === day && renderer.offLoop;
    let fresh = refreshing.get(key);
    if (!fresh) {
      const source = `${config.siteUrl}${req.url.split('?')[0]}${outlook ? '?outlook=1' : ''}`;
      const delay = serveOld ? old.startedAt + minInterval - performance.now() : 0;
      fresh = render(key, { spec: { ...feed, format }, outlook, source }, delay);
      refreshing.set(key, fresh);
      const done = () => refreshing.delete(key);
      fresh.then(done, done);
    }
    if (serveOld) {
      fresh.catch((err) => req.log.error({ err }, `feed ${key}: render failed`));
      return old;
    }
    return fresh;
  }

  /** Renders the feed after `delayMs`, as the data and the clock are then. */
  async function render(key: string, job: Omit<FeedJob, 'nowMs'>, delayMs: number): Promise<Kept> {
    if (delayMs > 0) await sleep(delayMs, undefined, { ref: false });
    if (closed) throw new Error('the server is closing');
    const startedAt = performance.now();
    const version = await store.dataVersion();
    const now = config.now();
    const day = Math.floor(now.getTime() / DAY);
    const rendered = await renderer.render({ ...job, nowMs: now.getTime() });
    const old = kept.get(key);
    // Same bytes as before (a write elsewhere): the compressed forms still fit.
    const coded = old?.etag === rendered.etag ? old.coded : {};
    const lm = rendered.lastModifiedMs === null ? null : new Date(rendered.lastModifiedMs);
    const next: Kept = {
      version,
      day,
      startedAt,
      body: rendered.body,
      etag: rendered.etag,
      lastModified: lm ? lm.toUTCString() : null,
      lastModifiedSeconds: lm ? Math.floor(lm.getTime() / 1000) : 0,
      coded,
    };
    // While the old feed is served, the codings its clients asked for are made for the new one before it
    // replaces it: no request waits for a compression of 6 MB after each render.
    if (old && coded !== old.coded && renderer.offLoop) {
      const asked = Object.keys(old.coded) as Coding[];
      for (const c of asked) coded[c] = compress(next.body, c);
      await Promise.allSettled(asked.map((c) => coded[c]));
    }
    // A render that started earlier but finished later must not replace a newer one.
    if (!old || old.version <= version) kept.set(key, next);
    return next;
  }

  async function handler(req: FastifyRequest, reply: FastifyReply) {
    const match = FILE.exec((req.params as { file: string }).file);
    const feed = match ? feeds.get(match[1]) : undefined;
    if (!match || !feed) throw noRoute();
    const format = match[2] as Format;
    const q = req.query as Record<string, unknown>;
    const outlook = format === 'ics' && (q.outlook === '1' || q.outlook === 'true');
    const k = await current(feed, format, outlook, req);

    reply.header('etag', k.etag);
    if (k.lastModified) reply.header('last-modified', k.lastModified);
    reply.header('cache-control', `public, max-age=${feed.refreshMinutes * 60}`);
    if (notModified(req, k)) return reply.code(304).send();

    reply.type(FEED_CONTENT_TYPES[format]);
    const coding = pickCoding(req.headers['accept-encoding']);
    if (coding === null) return reply.send(k.body);
    // On the thread pool: brotli of a 10,000-event feed is ~50 ms of CPU.
    k.coded[coding] ??= compress(k.body, coding);
    const body = await k.coded[coding];
    reply.header('content-encoding', coding);
    return reply.send(body);
  }

  // Caches must keep one answer per coding (RFC 9110 §12.5.5); the root hook sets Vary before this.
  app.addHook('onSend', (_req, reply, payload, done) => {
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    done(null, payload);
  });

  app.get('/feeds/:file', handler);
}
