/**
 * A feed's body: its events as RFC 5545 or as CSV in TEC's importer columns, with its calendar
 * properties. Pure: the same spec and events give the same bytes (no clock is read).
 *
 * Public: `FeedSite`, `FeedData`, `RenderOptions`, `renderFeed`, `icalOptions`, `linkedCsv`,
 * `FEED_CONTENT_TYPES`.
 */
import { eventsToCsv, organizersToCsv, rawFrom, type StoredTexts, venuesToCsv } from '../render/csv.ts';
import type { WireEvent, WireOrganizer, WireVenue } from '../render/wire.ts';
import { venueOf } from '../render/wire.ts';
import type { FeedSpec } from './feed-spec.ts';
import { eventsToIcal, type IcalOptions } from './ical.ts';

/** Where the feed is published. */
export interface FeedSite {
  /** `{host}` of UIDs: host name + path of the site (contract A.0). */
  host: string;
  /** The site's zone, for `X-WR-TIMEZONE`. */
  timezone?: string;
  /** The feed's own URL, for `SOURCE`; none for a file. */
  source?: string;
}

export interface FeedData {
  events: readonly WireEvent[];
  sequences?: ReadonlyMap<number, number>;
  cancelled?: ReadonlySet<number>;
  /**
   * CSV: the stored descriptions and excerpts (a local store has them), written instead of the wire's
   * HTML with its markup undone, which is not always the text that was stored (src/render/csv.ts).
   */
  texts?: StoredTexts;
}

export const FEED_CONTENT_TYPES = Object.freeze({
  ics: 'text/calendar; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
});

export interface RenderOptions {
  /** The Outlook variant of an .ics feed: no X-WR-CALNAME. */
  outlook?: boolean;
  /** CSV: `keep` writes formula-like cells as they are (src/render/csv.ts); default escaped. */
  formulas?: 'escape' | 'keep';
}

export function renderFeed(feed: FeedSpec, data: FeedData, site: FeedSite, opts: RenderOptions = {}): string {
  if (feed.format === 'csv') {
    const cancelled = data.cancelled;
    const events = cancelled?.size ? data.events.filter((e) => !cancelled.has(e.id)) : data.events;
    return eventsToCsv(events, { formulas: opts.formulas, raw: rawFrom(data.texts) });
  }
  return eventsToIcal(data.events, {
    ...icalOptions(feed, site, opts),
    sequence: (e) => data.sequences?.get(e.id) ?? 0,
    cancelled: (e) => data.cancelled?.has(e.id) ?? false,
  });
}

/** The calendar's properties of an .ics feed. */
export function icalOptions(feed: FeedSpec, site: FeedSite, opts: RenderOptions = {}): IcalOptions {
  return {
    host: site.host,
    calendarName: feed.title ?? (feed.name === 'all' ? site.host : `${site.host} – ${feed.name}`),
    description: feed.description,
    timezone: site.timezone,
    refreshMinutes: feed.refreshMinutes,
    source: site.source,
    color: feed.color,
    outlook: opts.outlook,
  };
}

/**
 * The venues and organizers of a CSV export, as the two further files TEC's CSV importer takes (it
 * imports venues and organizers before the events that name them). Each once, in order of appearance.
 */
export function linkedCsv(
  data: Pick<FeedData, 'events' | 'texts'>,
  opts: RenderOptions = {},
): { venues: string; organizers: string } {
  const { events } = data;
  const venues = new Map<number, WireVenue>();
  const organizers = new Map<number, WireOrganizer>();
  for (const e of events) {
    const v = venueOf(e);
    if (v && !venues.has(v.id)) venues.set(v.id, v);
    for (const o of e.organizer) if (!organizers.has(o.id)) organizers.set(o.id, o);
  }
  const csv = { formulas: opts.formulas, raw: rawFrom(data.texts) };
  return {
    venues: venuesToCsv([...venues.values()], csv),
    organizers: organizersToCsv([...organizers.values()], csv),
  };
}
