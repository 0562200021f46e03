/**
 * The defaults of a pipeline and of `npm run import`, apart from the schema that applies them
 * (definition.ts, which re-exports them): a run that has no pipeline file does not load zod for them.
 */

/** The API namespace of our own server; `tribe/events/v1` for a WordPress site with The Events Calendar. */
export const DEFAULT_NAMESPACE = 'calendar/events/v1';
/** The local target's SQLite file, relative to the current directory (the same default as `npm run serve`). */
export const DEFAULT_DATA = 'data/calendar.db';
/** Requests in flight: a remote site is a shared WordPress; the local server commits those in flight together. */
export const DEFAULT_CONCURRENCY = { local: 64, remote: 4 } as const;

/** The recurrence window around the run time, in days (spec/pipeline.md, Time). */
export const DEFAULT_WINDOW = { past_days: 30, future_days: 365 } as const;
/** Mass-delete guard: the share of a pipeline's events one run may delete without --force-delete. */
export const DEFAULT_MAX_DELETE_RATIO = 0.25;

/**
 * What every imported event gets when a pipeline's `mapping:` says nothing (and what `npm run import`
 * starts from): published, no added terms, not featured, map and map link shown. No zone: a run without
 * one reads floating times in the calendar's own X-WR-TIMEZONE (run.ts); a pipeline file defaults to
 * UTC below.
 */
export const DEFAULT_MAPPING = Object.freeze({
  status: 'publish',
  categories: Object.freeze([]) as readonly string[],
  tags: Object.freeze([]) as readonly string[],
  featured: false,
  show_map: true,
  show_map_link: true,
} as const);
/** What a run may change when `policies:` says nothing: overwrite changed events, trash removed ones. */
export const DEFAULT_POLICIES = Object.freeze({
  update: 'overwrite',
  delete: 'trash',
  max_delete_ratio: DEFAULT_MAX_DELETE_RATIO,
} as const);
