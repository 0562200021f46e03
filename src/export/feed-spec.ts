/**
 * What a feed is: its name, format, filters, window and calendar properties, with defaults in one place.
 *
 * Public: `FeedSpec`, `FeedFilters`, `FEED_DEFAULTS`, `feedSpec`, `feedsFromPipeline`, `defaultFeeds`,
 * `serverFeeds`, `feedWindow`.
 *
 * Feeds come from a pipeline file's `feeds:` section (src/pipeline/definition.ts, via
 * `feedsFromPipeline`) or from the server's options; `npm run serve` with neither serves `all` (every
 * published event) so that a fresh import can be subscribed to at once. Filters name categories and tags
 * by slug or name (a category includes its sub-categories, as the API's `categories` does), venues and
 * organizers by name, slug or id; within a filter any value matches, across filters all must.
 */
import type { FeedConfig } from '../pipeline/definition.ts';

export interface FeedFilters {
  categories?: readonly string[];
  tags?: readonly string[];
  venues?: readonly string[];
  organizers?: readonly string[];
  featured?: boolean;
  /** Events that end at most this many days before today (UTC) are still listed; none = no bound. */
  pastDays?: number;
  /** Events that start at most this many days after today (UTC) are listed; none = no bound. */
  futureDays?: number;
}

export interface FeedSpec extends FeedFilters {
  /** `[a-z0-9-]+`: served as /feeds/<name>.ics (or .csv). */
  name: string;
  format: 'ics' | 'csv';
  /** `NAME`/`X-WR-CALNAME`; default the site's host name and the feed name. */
  title?: string;
  description?: string;
  /** `COLOR` (RFC 7986), a CSS3 colour name. */
  color?: string;
  /** Minutes: REFRESH-INTERVAL, X-PUBLISHED-TTL and the HTTP Cache-Control max-age. */
  refreshMinutes: number;
  /** Days a deleted or unpublished event stays in the feed as STATUS:CANCELLED. */
  tombstoneDays: number;
  /** A file `npm run sync` writes the feed to (absolute); none = served only. */
  path?: string;
}

export const FEED_DEFAULTS = Object.freeze({
  /** An hour: what Google Calendar and Apple Calendar poll at best anyway. */
  refreshMinutes: 60,
  /** A month: clients that refresh at least monthly all see the cancellation. */
  tombstoneDays: 30,
  /** Yesterday's and older events stay a month (a subscriber's recent history), the future unbounded. */
  pastDays: 30,
});

/** A spec with the defaults applied to what `input` leaves out or sets to `undefined`. */
export function feedSpec(input: Partial<FeedSpec> & { name: string }): FeedSpec {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return Object.freeze({
    format: 'ics' as const,
    refreshMinutes: FEED_DEFAULTS.refreshMinutes,
    tombstoneDays: FEED_DEFAULTS.tombstoneDays,
    pastDays: FEED_DEFAULTS.pastDays,
    ...given,
  }) as FeedSpec;
}

/** The feed `npm run serve` offers when none is configured: every published event. */
export function defaultFeeds(): FeedSpec[] {
  return [feedSpec({ name: 'all' })];
}

/** A pipeline file's `feeds:` entries; a window the entry leaves out is the pipeline's own. */
export function feedsFromPipeline(
  feeds: readonly FeedConfig[],
  window: { past_days: number; future_days: number },
): FeedSpec[] {
  return feeds.map((f) =>
    feedSpec({
      name: f.name,
      format: f.format,
      path: f.path,
      categories: f.categories,
      tags: f.tags,
      venues: f.venues,
      organizers: f.organizers,
      featured: f.featured,
      pastDays: f.past_days ?? window.past_days,
      futureDays: f.future_days ?? window.future_days,
      title: f.title,
      description: f.description,
      color: f.color,
      refreshMinutes: f.refresh_minutes ?? FEED_DEFAULTS.refreshMinutes,
      tombstoneDays: f.tombstone_days ?? FEED_DEFAULTS.tombstoneDays,
    }),
  );
}

/**
 * The feeds `npm run serve -- --feeds <pipeline file>` serves: every file's `feeds:` entries, plus
 * `all` unless one of them is named so; a name used twice is an error.
 */
export async function serverFeeds(files: readonly string[], env: NodeJS.ProcessEnv): Promise<FeedSpec[]> {
  const feeds = new Map<string, FeedSpec>();
  // Loaded here: the pipeline reader (yaml, cron-parser) is no part of an app built without feed files
  // (the local import target's).
  const { loadPipeline } = await import('../pipeline/load.ts');
  for (const file of files) {
    const p = await loadPipeline(file, env);
    for (const f of feedsFromPipeline(p.feeds, p.window)) {
      if (feeds.has(f.name))
        throw new Error(`${file}: feeds: the name "${f.name}" is already used by another file`);
      feeds.set(f.name, f);
    }
  }
  if (!feeds.has('all')) feeds.set('all', defaultFeeds()[0]);
  return [...feeds.values()];
}

const DAY = 86_400_000;

/**
 * The UTC bounds (`YYYY-MM-DD HH:MM:SS`) of a feed's window, counted from the start of `now`'s UTC day
 * so that a feed stays byte-identical all day while its data does.
 */
export function feedWindow(f: FeedFilters, now: Date): { endsAfter?: string; startsBefore?: string } {
  const today = Math.floor(now.getTime() / DAY) * DAY;
  const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  return {
    endsAfter: f.pastDays === undefined ? undefined : fmt(today - f.pastDays * DAY),
    startsBefore: f.futureDays === undefined ? undefined : fmt(today + (f.futureDays + 1) * DAY),
  };
}
