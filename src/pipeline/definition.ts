/**
 * The pipeline definition file (`pipelines/*.yaml|yml|json`, spec/pipeline.md "Pipeline definitions"):
 * `PipelineSchema` (zod, strict objects so a misspelt key fails instead of being ignored — Fastify's
 * options schema, vdirsyncer's config) and the types it reads into. Keys are snake_case as users write
 * them; every field is `.describe()`d because the JSON Schema for editors (src/cli/schema.ts) is generated
 * from this file. Defaults live here, with their units.
 *
 * Messages written here start with "expected …"; problems.ts appends what was got, load.ts where.
 * Secrets must be `${ENV}` references: that is checked on the raw file by load.ts (this schema sees the
 * values after substitution); the `pattern` in their metadata only tells editors.
 */

import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { normalizeTimezone } from '../model/timezone.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_DATA,
  DEFAULT_MAPPING,
  DEFAULT_NAMESPACE,
  DEFAULT_POLICIES,
  DEFAULT_WINDOW,
} from './defaults.ts';

export {
  DEFAULT_CONCURRENCY,
  DEFAULT_DATA,
  DEFAULT_MAPPING,
  DEFAULT_MAX_DELETE_RATIO,
  DEFAULT_NAMESPACE,
  DEFAULT_POLICIES,
  DEFAULT_WINDOW,
} from './defaults.ts';

/** Keys whose values must be `${VAR}` references in the file, under `target.auth`. */
export const SECRET_KEYS = ['password', 'token', 'client_secret'] as const;
/** Source options that only mean something for CSV (refused on an ics source). */
export const CSV_ONLY_KEYS = ['delimiter', 'encoding', 'date_format', 'columns', 'header', 'kind'] as const;

const SLUG = /^[a-z0-9][a-z0-9-]*$/;
const ENV_REFERENCE = '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$';

const slug = (what: string) =>
  z
    .string()
    .max(64, { error: `expected at most 64 characters for ${what}` })
    .regex(SLUG, { error: 'expected lowercase letters, digits and "-", starting with a letter or digit' });

const hasProtocol = (value: string, protocols: string[]): boolean => {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const httpUrl = z
  .string()
  .regex(/^https?:\/\/\S+$/i, { error: 'expected an http:// or https:// URL', abort: true })
  .refine((v) => hasProtocol(v, ['http:', 'https:']), { error: 'expected a valid http(s) URL' });

const secret = (description: string) =>
  z
    .string()
    .min(1, { error: `expected a \${VAR} reference to a non-empty variable` })
    .meta({
      description: `${description}. Must be a \${VAR} reference: secrets never live in the file.`,
      pattern: ENV_REFERENCE,
    });

const names = (what: string) =>
  z.array(z.string().trim().min(1, { error: 'expected a non-empty name' })).describe(what);

// ---- Source ------------------------------------------------------------------------------------

const sourceLocation = {
  path: z
    .string()
    .min(1, { error: 'expected a file path' })
    .optional()
    .describe('The source file, relative to this pipeline file. Exactly one of path and url.'),
  url: z
    .string()
    .regex(/^(?:https?|webcal):\/\/\S+$/i, {
      error: 'expected an http://, https:// or webcal:// URL',
      abort: true,
    })
    .refine((v) => hasProtocol(v, ['http:', 'https:', 'webcal:']), { error: 'expected a valid URL' })
    .optional()
    .describe('The source URL (http, https or webcal). Exactly one of path and url.'),
  timeout_ms: z
    .int()
    .min(1, { error: 'expected a timeout of at least 1 ms' })
    .max(600_000, { error: 'expected a timeout of at most 600000 ms (10 minutes)' })
    .optional()
    .describe(
      'URL sources: milliseconds to wait for the answer, and again between two chunks of its body. Default 30000.',
    ),
  max_bytes: z
    .int()
    .min(1, { error: 'expected a size of at least 1 byte' })
    .optional()
    .describe('URL sources: the largest (decoded) body accepted, in bytes. Default 52428800 (50 MiB).'),
};

const IcsSource = z.strictObject({
  type: z.literal('ics').describe('An iCalendar (.ics) file or feed.'),
  ...sourceLocation,
});

const CsvSource = z.strictObject({
  type: z.literal('csv').describe('A CSV file, e.g. exported from a spreadsheet or The Events Calendar.'),
  ...sourceLocation,
  delimiter: z
    .enum(['auto', ',', ';', '\t', '|'])
    .default('auto')
    .describe('Field separator; auto detects ",", ";", tab or "|" from the header line.'),
  encoding: z
    .enum(['auto', 'utf-8', 'windows-1252', 'utf-16le', 'utf-16be'])
    .default('auto')
    .describe(
      'Text encoding; auto reads a BOM (UTF-8, UTF-16), else UTF-8, else Windows-1252 (older Excel exports).',
    ),
  date_format: z
    .enum(['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY', 'YYYY/MM/DD'])
    .default('YYYY-MM-DD')
    .describe(
      'How short dates are written; 03/04/2025 is ambiguous: without this, the first date of the file over 12 (19/11/2025) settles it.',
    ),
  header: z
    .boolean()
    .optional()
    .describe(
      'false: the first row is an event, columns are named 1, 2… in columns. Default: detected (a first row with a date and no known header).',
    ),
  columns: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'expected a canonical field name such as start_date' }),
      z.string().min(1, { error: 'expected a column header' }),
    )
    .default({})
    .describe('Canonical field → column header, for headers the built-in aliases do not know.'),
  kind: z
    .enum(['events', 'venues', 'organizers'])
    .optional()
    .describe(
      "What the rows are: events, venues or organizers (as The Events Calendar's CSV importer takes them). Default: by the header (venue_name or organizer_name without event columns: venues or organizers).",
    ),
});

const Source = z
  .discriminatedUnion('type', [IcsSource, CsvSource])
  .superRefine((source, ctx) => {
    const given = (['path', 'url'] as const).filter((key) => source[key] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one of path and url, got ${given.length ? 'both' : 'neither'}`,
        input: source,
      });
    // Only a download can time out or be too large.
    for (const key of ['timeout_ms', 'max_bytes'] as const) {
      if (source.path !== undefined && source[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `expected no ${key} on a file source (path)`,
        });
    }
  })
  .describe('Where the events come from.');

// ---- Target ------------------------------------------------------------------------------------

const Auth = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('basic').describe('HTTP Basic: a WordPress user and one of its application passwords.'),
      username: z.string().min(1, { error: 'expected a user name' }).describe('The user (login).'),
      password: secret('The application password'),
    }),
    z.strictObject({
      type: z.literal('bearer').describe('A bearer token sent as is.'),
      token: secret('The token'),
    }),
    z.strictObject({
      type: z.literal('oauth2').describe('OAuth 2 client credentials.'),
      token_url: httpUrl.describe('The token endpoint.'),
      client_id: z.string().min(1, { error: 'expected a client id' }).describe('The client id.'),
      client_secret: secret('The client secret'),
      scope: z.string().optional().describe('Space-separated scopes to ask for.'),
    }),
  ])
  .describe('Credentials for a remote target (values from environment variables).');

const Rate = z
  .strictObject({
    concurrency: z
      .int()
      .min(1, { error: 'expected at least 1 request at a time' })
      .max(64, { error: 'expected at most 64 requests at a time' })
      .optional()
      .describe(
        `Requests in flight at once. Default ${DEFAULT_CONCURRENCY.remote} for a remote site, ${DEFAULT_CONCURRENCY.local} for local.`,
      ),
    requests_per_second: z
      .number()
      .positive({ error: 'expected a number of requests per second > 0' })
      .optional()
      .describe('Most requests started per second; unlimited when absent. Lower it for shared hosting.'),
  })
  .describe('How hard the target is pushed.');

const Target = z
  .strictObject({
    url: z
      .string()
      .regex(/^(?:local|https?:\/\/\S+)$/i, { error: 'expected "local" or an http(s) API root', abort: true })
      .refine((v) => v === 'local' || hasProtocol(v, ['http:', 'https:']), { error: 'expected a valid URL' })
      .default('local')
      .describe(
        '"local" (the embedded server on SQLite) or an API root such as https://site.example/wp-json.',
      ),
    data: z
      .string()
      .min(1, { error: 'expected a file path' })
      .optional()
      .describe(
        `Local target only: the SQLite file, relative to the current directory. Default ${DEFAULT_DATA}.`,
      ),
    namespace: z
      .string()
      .regex(/^[a-z0-9_-]+(?:\/[a-z0-9_.-]+)+$/i, { error: 'expected a namespace such as tribe/events/v1' })
      .default(DEFAULT_NAMESPACE)
      .describe(`The API namespace: ${DEFAULT_NAMESPACE} (ours) or tribe/events/v1 (The Events Calendar).`),
    auth: Auth.optional(),
    rate: Rate.prefault({}),
    timeout_ms: z
      .int()
      .min(1, { error: 'expected a timeout of at least 1 ms' })
      .max(600_000, { error: 'expected a timeout of at most 600000 ms (10 minutes)' })
      .default(30_000)
      .describe('Milliseconds before a request is abandoned (and retried if safe).'),
  })
  .superRefine((target, ctx) => {
    const local = target.url.toLowerCase() === 'local';
    if (!local && target.data !== undefined)
      ctx.addIssue({ code: 'custom', path: ['data'], message: 'expected no data file on a remote target' });
    if (local && target.auth !== undefined)
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'expected no auth on the local target' });
  })
  .transform(({ url, data, rate, ...rest }) => {
    const local = url.toLowerCase() === 'local';
    return {
      url: local ? 'local' : url.replace(/\/+$/, ''),
      data: local ? (data ?? DEFAULT_DATA) : undefined,
      ...rest,
      rate: {
        concurrency: rate.concurrency ?? DEFAULT_CONCURRENCY[local ? 'local' : 'remote'],
        requests_per_second: rate.requests_per_second,
      },
    };
  })
  .describe('Where the events go. Default: the local server.');

// ---- Mapping, window, policies, feeds ----------------------------------------------------------

/** An IANA zone name, `UTC` when absent; known aliases normalised. */
const ianaZone = (description: string) =>
  z
    .string()
    .default('UTC')
    .transform((name, ctx) => {
      const zone = normalizeTimezone(name);
      if (zone === null)
        ctx.addIssue({
          code: 'custom',
          message: 'expected an IANA time zone such as Europe/Berlin',
          input: name,
        });
      return zone ?? name;
    })
    .describe(description);

const Mapping = z
  .strictObject({
    timezone: ianaZone(
      'Zone for floating times (no zone in the source): an IANA name such as Europe/Berlin.',
    ),
    status: z
      .enum(['publish', 'draft', 'pending', 'private'])
      .default(DEFAULT_MAPPING.status)
      .describe('Post status of imported events.'),
    categories: names('Category names added to every event.').default([]),
    tags: names('Tag names added to every event.').default([]),
    featured: z.boolean().default(DEFAULT_MAPPING.featured).describe('Mark every event as featured.'),
    show_map: z.boolean().default(DEFAULT_MAPPING.show_map).describe('Show the venue map on event pages.'),
    show_map_link: z
      .boolean()
      .default(DEFAULT_MAPPING.show_map_link)
      .describe('Show a link to the map on event pages.'),
  })
  .describe('Defaults applied to every imported event.');

const days = (what: string) =>
  z
    .int()
    .min(0, { error: 'expected a number of days >= 0' })
    .max(3660, { error: 'expected at most 3660 days (10 years)' })
    .describe(what);

const Window = z
  .strictObject({
    past_days: days('Days before now from which recurring events are expanded.').default(
      DEFAULT_WINDOW.past_days,
    ),
    future_days: days('Days after now up to which recurring events are expanded.').default(
      DEFAULT_WINDOW.future_days,
    ),
  })
  .describe('Recurring series become single events within this window around the run time.');

const Policies = z
  .strictObject({
    update: z
      .enum(['overwrite', 'skip-existing', 'preserve-local-edits'])
      .default(DEFAULT_POLICIES.update)
      .describe(
        'Changed source events: overwrite, leave existing ones alone, or keep fields edited on the site.',
      ),
    delete: z
      .enum(['keep', 'draft', 'trash', 'delete'])
      .default(DEFAULT_POLICIES.delete)
      .describe(
        'Events gone from the source (or cancelled): keep them, make them drafts, trash or delete them.',
      ),
    max_delete_ratio: z
      .number()
      .min(0, { error: 'expected a ratio between 0 and 1' })
      .max(1, { error: 'expected a ratio between 0 and 1' })
      .default(DEFAULT_POLICIES.max_delete_ratio)
      .describe(
        "Mass-delete guard: refuse to remove more than this share of the pipeline's events without --force-delete.",
      ),
  })
  .describe('What a run may change on the target.');

const Feed = z.strictObject({
  name: slug('a feed name').describe("The feed's name, served as /feeds/<name>.ics."),
  format: z.enum(['ics', 'csv']).default('ics').describe('Output format.'),
  path: z
    .string()
    .min(1, { error: 'expected a file path' })
    .optional()
    .describe('A file to write the feed to after each run, relative to this pipeline file.'),
  categories: names(
    'Only events in one of these categories (slug or name; sub-categories included).',
  ).optional(),
  tags: names('Only events with one of these tags (slug or name).').optional(),
  venues: names('Only events at one of these venues (name, slug or id).').optional(),
  organizers: names('Only events by one of these organizers (name, slug or id).').optional(),
  featured: z.boolean().optional().describe('Only featured events (true) or only the others (false).'),
  past_days: days("Days of past events in the feed; default: the pipeline's window.").optional(),
  future_days: days("Days of future events in the feed; default: the pipeline's window.").optional(),
  title: z
    .string()
    .min(1)
    .optional()
    .describe("The calendar's name in subscribing apps; default the site's host."),
  description: z.string().min(1).optional().describe("The calendar's description."),
  color: z.string().min(1).optional().describe('The calendar colour, a CSS3 colour name such as steelblue.'),
  refresh_minutes: z
    .int()
    .min(1, { error: 'expected at least 1 minute' })
    .max(10080, { error: 'expected at most 10080 minutes (a week)' })
    .optional()
    .describe('How often subscribers should refresh (REFRESH-INTERVAL, HTTP max-age); default 60.'),
  tombstone_days: days(
    'Days a deleted or unpublished event stays in the feed as cancelled; default 30.',
  ).optional(),
});

const Feeds = z
  .array(Feed)
  .default([])
  .superRefine((feeds, ctx) => {
    const seen = new Set<string>();
    feeds.forEach((feed, index) => {
      if (seen.has(feed.name))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `expected a unique feed name, got "${feed.name}" twice`,
        });
      seen.add(feed.name);
    });
  })
  .describe("Calendar feeds generated from this pipeline's events.");

// ---- Schedule ----------------------------------------------------------------------------------

/**
 * When `npm run schedule` has workers run the pipeline (src/cli/schedule.ts): a cron expression read by
 * cron-parser, the parser of pg-boss's scheduler, so what passes here is what the scheduler can run.
 */
const Schedule = z
  .strictObject({
    cron: z
      .string()
      .superRefine((cron, ctx) => {
        try {
          if (cron.trim() === '') throw new Error('empty');
          CronExpressionParser.parse(cron, { tz: 'UTC', strict: false });
        } catch (err) {
          ctx.addIssue({
            code: 'custom',
            message: `expected a cron expression such as "0 3 * * *" (03:00 every day): ${(err as Error).message}`,
            input: cron,
          });
        }
      })
      .describe('Minute hour day-of-month month day-of-week, e.g. "0 3 * * *" for 03:00 every day.'),
    timezone: ianaZone('The zone the cron expression is read in: an IANA name such as Europe/Berlin.'),
  })
  .optional()
  .describe('When workers run this pipeline (npm run schedule): a cron expression and its time zone.');

// ---- The file ------------------------------------------------------------------------------------

export const PipelineSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema for editors (ignored by calsync).'),
    name: slug('a pipeline name').describe("The pipeline's identity: names its sync state and its lock."),
    source: Source,
    target: Target.prefault({}),
    mapping: Mapping.prefault({}),
    window: Window.prefault({}),
    policies: Policies.prefault({}),
    feeds: Feeds,
    schedule: Schedule,
  })
  .meta({
    title: 'calsync pipeline',
    description:
      'A calsync import/sync pipeline: source, target, mapping defaults, window, policies and feeds.',
  });

/** The file as written (defaults optional): what tests and generators build. */
export type PipelineInput = z.input<typeof PipelineSchema>;
/** The file as validated, defaults applied, before paths are resolved. */
export type PipelineDefinition = z.output<typeof PipelineSchema>;
export type SourceConfig = PipelineDefinition['source'];
export type TargetConfig = PipelineDefinition['target'];
export type AuthConfig = NonNullable<TargetConfig['auth']>;
export type MappingConfig = PipelineDefinition['mapping'];
export type WindowConfig = PipelineDefinition['window'];
export type PolicyConfig = PipelineDefinition['policies'];
export type FeedConfig = PipelineDefinition['feeds'][number];

/**
 * A loaded pipeline: the validated definition, frozen, with `file` (absolute) and every path the file
 * names (`source.path`, `feeds[].path`) absolute, resolved against the definition file's folder.
 * `target.data` stays relative to the current directory, like `npm run serve --data`.
 */
export type Pipeline = Readonly<PipelineDefinition & { file: string }>;
