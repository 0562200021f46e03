/**
 * Export: events out of the store or any calendar API as RFC 5545 feeds and CSV. The renderers are pure
 * (strings in, strings out); the server's /feeds routes and `npm run export` share them.
 */
export type { ApiFeedOptions } from './api-feed.ts';
export { ExportError, loadApiFeed } from './api-feed.ts';
export type { FeedFilters, FeedSpec } from './feed-spec.ts';
export { defaultFeeds, FEED_DEFAULTS, feedSpec, feedsFromPipeline, feedWindow } from './feed-spec.ts';
export type { IcalOptions } from './ical.ts';
export { eventsToIcal } from './ical.ts';
export type { FeedData, FeedSite, RenderOptions } from './render.ts';
export { FEED_CONTENT_TYPES, linkedCsv, renderFeed } from './render.ts';
export type { FeedEvents } from './store-feed.ts';
export { loadStoreFeed } from './store-feed.ts';
export { vtimezone } from './vtimezone.ts';
