/**
 * A feed's events read from any calendar API — ours or a WordPress site running The Events Calendar —
 * over the writer's HTTP transport (src/writer/http-transport.ts: keep-alive, Basic/Bearer auth).
 *
 * Public: `ApiFeedOptions`, `loadApiFeed`, `ExportError`.
 *
 * What a real TEC site needs (contract part C): an explicit wide `start_date`/`end_date` window (its
 * default lists only upcoming events, C.12), `per_page` 50 at most, and paging by `total_pages`; a page
 * past the end may be a 404 `event-archive-page-not-found` (C.13). Filters go as the list's own
 * parameters: `categories`/`tags` as slugs or ids, `venue`/`organizer` as ids, `featured`.
 * An API does not tell how often an event's time changed, so SEQUENCE is 0, and it lists no deleted
 * events, so there are no tombstones: a served feed (from the store) has both.
 */
import type { WireEvent } from '../render/wire.ts';
import type { HttpAuth } from '../writer/http-transport.ts';
import { createHttpTransport } from '../writer/http-transport.ts';
import type { TransportRequest } from '../writer/transport.ts';
import type { FeedFilters } from './feed-spec.ts';
import type { FeedEvents } from './store-feed.ts';

export interface ApiFeedOptions {
  /** API root: `http://127.0.0.1:8080`, `https://site.example/wp-json`. */
  url: string;
  /** `calendar/events/v1` (ours) or `tribe/events/v1` (TEC). */
  namespace: string;
  auth?: HttpAuth;
  /** Requests' own deadline, ms; default 30 s. */
  timeoutMs?: number;
  /** Called after each page, for progress. */
  onPage?: (page: number, totalPages: number) => void;
}

export class ExportError extends Error {
  readonly code: string;
  readonly url: string;
  readonly status: number | undefined;
  constructor(code: string, message: string, where: { url: string; status?: number }) {
    super(message);
    this.name = 'ExportError';
    this.code = code;
    this.url = where.url;
    this.status = where.status;
  }
}

const PER_PAGE = 50;
const DAY = 86_400_000;

function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The list parameters of a feed's filters and window (B.5 names, which TEC shares). */
function listQuery(f: FeedFilters, now: Date): Record<string, string> {
  const today = Math.floor(now.getTime() / DAY) * DAY;
  const q: Record<string, string> = {
    // Published only: with an editor's credentials both APIs would list drafts too (B.5 default status).
    status: 'publish',
    start_date:
      f.pastDays === undefined ? '1900-01-01 00:00:00' : `${ymd(today - f.pastDays * DAY)} 00:00:00`,
    end_date:
      f.futureDays === undefined ? '2100-12-31 23:59:59' : `${ymd(today + f.futureDays * DAY)} 23:59:59`,
  };
  if (f.categories?.length) q.categories = f.categories.join(',');
  if (f.tags?.length) q.tags = f.tags.join(',');
  if (f.venues?.length) q.venue = f.venues.join(',');
  if (f.organizers?.length) q.organizer = f.organizers.join(',');
  if (f.featured !== undefined) q.featured = String(f.featured);
  return q;
}

/** Every event the API lists for the feed, page by page. */
export async function loadApiFeed(opts: ApiFeedOptions, f: FeedFilters, now: Date): Promise<FeedEvents> {
  const transport = createHttpTransport({ url: opts.url, auth: opts.auth, timeoutMs: opts.timeoutMs });
  const path = `/${opts.namespace.replace(/^\/+|\/+$/g, '')}/events`;
  const base = listQuery(f, now);
  const events: WireEvent[] = [];
  let newest = '';
  try {
    for (let page = 1; ; page++) {
      const req: TransportRequest = { method: 'GET', path, query: { ...base, page, per_page: PER_PAGE } };
      const where = `${opts.url.replace(/\/+$/, '')}${path}?page=${page}`;
      let res: Awaited<ReturnType<typeof transport.send>>;
      try {
        res = await transport.send(req);
      } catch (err) {
        throw new ExportError('export-unreachable', `no answer from ${where}: ${(err as Error).message}`, {
          url: where,
        });
      }
      let doc: { events?: unknown; total_pages?: unknown; code?: unknown } | undefined;
      try {
        doc = JSON.parse(res.text);
      } catch {
        doc = undefined;
      }
      if (res.status === 404 && typeof doc?.code === 'string' && doc.code.endsWith('-archive-page-not-found'))
        break; // C.13: past the last page
      if (res.status !== 200 || !doc || !Array.isArray(doc.events)) {
        const code = typeof doc?.code === 'string' ? ` (${doc.code})` : '';
        throw new ExportError(
          'export-bad-response',
          `expected a list of events from ${where}, got HTTP ${res.status}${code}`,
          { url: where, status: res.status },
        );
      }
      for (const e of doc.events as WireEvent[]) {
        events.push(e);
        if (typeof e.modified_utc === 'string' && e.modified_utc > newest) newest = e.modified_utc;
      }
      const totalPages = typeof doc.total_pages === 'number' ? doc.total_pages : 0;
      opts.onPage?.(page, totalPages);
      if (page >= totalPages || doc.events.length === 0) break;
    }
  } finally {
    await transport.close();
  }
  return {
    events,
    sequences: new Map(),
    cancelled: new Set(),
    lastModified: newest ? new Date(`${newest.replace(' ', 'T')}Z`) : null,
  };
}
