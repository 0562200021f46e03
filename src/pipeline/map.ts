/**
 * Mapping (pure): event records from any source → desired categories, tags, venues, organizers and
 * events, each with its stable source key (spec/pipeline.md, Identity):
 * - events: the record's key (UID + instance, or the CSV id / title+start hash);
 * - venues, organizers: the source's explicit id, else the normalised name (+ address for venues);
 * - categories, tags: the normalised name.
 * Times become the contract's wire form (B.6.1): local `YYYY-MM-DD HH:MM:SS` + an IANA `timezone`, which
 * is also what a real TEC site needs (C.6: offsets are ignored there).
 */
import { hash } from 'node:crypto';
import { localToUtc, utcToLocal } from '../model/datetime.ts';
import { detached } from '../model/detached.ts';
import type { Kind } from '../model/kind.ts';
import { slugify } from '../model/slug.ts';
import { normalizeTimezone } from '../model/timezone.ts';
import type {
  EventRecord,
  OrganizerRecord,
  Origin,
  SourceProblem,
  SourceResult,
  TimeValue,
  VenueRecord,
} from '../sources/record.ts';
import { canonicalHash, type Desired, type Refs } from './desired.ts';

export interface MapOptions {
  /** The pipeline's name: part of every event slug, so two pipelines never claim each other's events. */
  pipeline: string;
  /** Zone for floating times and all-day events (`UTC` if none). */
  timezone?: string;
  status: 'publish' | 'draft' | 'pending' | 'private';
  categories: readonly string[];
  tags: readonly string[];
  featured: boolean;
  show_map: boolean;
  show_map_link: boolean;
}

export interface Mapped {
  /** In dependency order: categories, tags, venues, organizers, events. */
  entities: Desired[];
  problems: SourceProblem[];
}

export function mapRecords(
  records: readonly EventRecord[],
  options: MapOptions,
  standalone?: SourceResult['standalone'],
): Mapped {
  return new Mapper(options, standalone).map(records);
}

/**
 * The mapping of a source read in batches (pipeline/stream.ts): venues, organizers and terms are keyed
 * across batches, so each is handed on once, in the batch of the first event that names it and before that
 * batch's events (the dependency order). `mapRecords` is one batch. Events of one key: within a batch the
 * later one replaces the earlier (as in one batch of the whole file); across batches the caller leaves out
 * the earlier ones (`superseded`), so that only the later one is written.
 */
export class Mapper {
  readonly #options: MapOptions;
  readonly #zone: string;
  /** Keys of the venues, organizers and terms handed on so far. */
  readonly #known: Record<Exclude<Kind, 'event'>, Set<string>> = {
    category: new Set(),
    tag: new Set(),
    venue: new Set(),
    organizer: new Set(),
  };
  /** Event key → line of its last record so far, for the duplicate_key warning across batches. */
  readonly #eventLines = new Map<string, number | undefined>();
  /** The source gives each key once (an .ics stream): no key is kept past its batch. */
  readonly #uniqueKeys: boolean;
  #standalone: SourceResult['standalone'];

  constructor(options: MapOptions, standalone?: SourceResult['standalone'], uniqueKeys = false) {
    this.#options = options;
    this.#uniqueKeys = uniqueKeys;
    this.#zone = normalizeTimezone(options.timezone ?? 'UTC') ?? 'UTC';
    this.#standalone = standalone;
  }

  /**
   * The entities first named in `records`, in dependency order (categories, tags, venues, organizers,
   * events), with the problems found. `superseded(i)`: record i is replaced by a later record of its key
   * in a later batch — it is mapped (its venue, terms and warnings count) but its event is not handed on.
   */
  map(records: readonly EventRecord[], superseded?: (index: number) => boolean): Mapped {
    const options = this.#options;
    const zone = this.#zone;
    const known = this.#known;
    const byKind: Record<Kind, Map<string, Desired>> = {
      category: new Map(),
      tag: new Map(),
      venue: new Map(),
      organizer: new Map(),
      event: new Map(),
    };
    // Entities handed on in an earlier batch are not handed on again.
    const fresh = (kind: Exclude<Kind, 'event'>): Registry => ({
      has: (key) => known[kind].has(key),
      set: (key, d) => {
        known[kind].add(key);
        byKind[kind].set(key, d);
      },
    });
    const venues = fresh('venue');
    const organizers = fresh('organizer');
    const terms = { category: fresh('category'), tag: fresh('tag') };
    const problems: SourceProblem[] = [];
    // Across batches only when a key may come again (a source read whole): the keys of every event of a
    // large file would otherwise stay, and with them the text they were cut from.
    const eventLines = this.#uniqueKeys ? new Map<string, number | undefined>() : this.#eventLines;

    const term = (kind: 'category' | 'tag', name: string, record: EventRecord): string | undefined => {
      const key = normalise(name);
      if (!key) return undefined;
      if (!terms[kind].has(key)) {
        const label = collapsed(name);
        terms[kind].set(key, entity(kind, key, label, { name: label }, record));
      }
      return key;
    };

    // Venues and organizers a source lists on their own (a venues CSV): keyed as events would key them.
    const standalone = this.#standalone;
    this.#standalone = undefined;
    for (const venue of standalone?.venues ?? []) addVenue(venues, venue, placeholder(venue.origin), options);
    for (const organizer of standalone?.organizers ?? [])
      addOrganizer(organizers, organizer, placeholder(organizer.origin));

    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      const times = eventTimes(record.start, record.end, zone);
      if (times.endClamped) {
        problems.push({
          code: 'end_before_start',
          message: `"${record.title}" ends before it starts; its end is set to its start`,
          origin: record.origin,
          uid: record.uid,
          field: 'end',
          severity: 'warning',
        });
      }
      const refs: Refs = {
        categories: keysOf(record.categories, options.categories, (c) => term('category', c, record)),
        tags: keysOf(record.tags, options.tags, (t) => term('tag', t, record)),
        organizers: keysOf(record.organizers, [], (o) => addOrganizer(organizers, o, record)),
      };
      if (record.venue?.name.trim()) refs.venue = addVenue(venues, record.venue, record, options);

      const fields = {
        title: record.title,
        description: record.description ?? '',
        excerpt: record.excerpt ?? '',
        start_date: times.start,
        end_date: times.end,
        timezone: times.timezone,
        all_day: times.allDay,
        status: options.status,
        cost: record.cost ?? '',
        // Only when the source names one: an empty field in every event would change the hash of each one
        // already written, and rewrite them all once.
        ...(record.currencyCode ? { currency_code: record.currencyCode } : {}),
        website: record.url && /^https?:\/\//i.test(record.url) ? record.url : '',
        image: record.image ?? '',
        featured: record.featured ?? options.featured,
        show_map: record.display?.show_map ?? options.show_map,
        show_map_link: record.display?.show_map_link ?? options.show_map_link,
        hide_from_listings: record.display?.hide_from_listings ?? false,
        sticky: record.display?.sticky ?? false,
      };
      if (eventLines.has(record.key)) {
        problems.push({
          code: 'duplicate_key',
          message: `a second event with key "${record.key}" (first at line ${eventLines.get(record.key) ?? '?'}); the later one is used`,
          origin: record.origin,
          uid: record.uid,
          severity: 'warning',
        });
      }
      eventLines.set(record.key, record.origin.line);
      if (superseded?.(i)) continue;
      const event = entity('event', record.key, record.title, fields, record, refs);
      event.slug = eventSlug(options.pipeline, record.key, record.title);
      event.cancelled = record.status === 'cancelled';
      byKind.event.set(record.key, event);
    }
    const entities = (['category', 'tag', 'venue', 'organizer', 'event'] as const).flatMap((k) => [
      ...byKind[k].values(),
    ]);
    return { entities, problems };
  }
}

/**
 * `jazz-night-3f9a1c2b7d`: readable, and unique to (pipeline, key) so that a create whose answer was lost,
 * or a lost sync state, can be found on the target by slug instead of being created twice.
 */
export function eventSlug(pipeline: string, key: string, title: string): string {
  const suffix = hash('sha256', `${pipeline}\n${key}`, 'hex').slice(0, 10);
  const base = slugBase(title);
  return base ? `${base}-${suffix}` : `event-${suffix}`;
}

// Titles repeat (a series' occurrences, a weekly class): each is slugified once. Bounded: titles are user text.
const slugBases = new Map<string, string>();
const MAX_SLUG_BASES = 5000;

function slugBase(title: string): string {
  let base = slugBases.get(title);
  if (base === undefined) {
    if (slugBases.size >= MAX_SLUG_BASES) slugBases.clear();
    base = slugify(title).slice(0, 60).replace(/-+$/, '');
    // Both kept for the run: neither may hold the piece of the file the title was read from.
    base = detached(base);
    slugBases.set(detached(title), base);
  }
  return base;
}

/** Where venues, organizers and terms are kept by key as they are first named. */
interface Registry {
  has(key: string): boolean;
  set(key: string, entity: Desired): void;
}

function addVenue(venues: Registry, venue: VenueRecord, record: EventRecord, options: MapOptions): string {
  const name = venue.name.trim();
  const key = venue.id
    ? `id:${venue.id}`
    : venue.address
      ? `${normalise(name)}|${normalise(venue.address)}`
      : normalise(name);
  if (!venues.has(key)) {
    const fields: Record<string, unknown> = { venue: name };
    for (const field of [
      'description',
      'address',
      'city',
      'province',
      'state',
      'zip',
      'country',
      'phone',
    ] as const) {
      if (venue[field]) fields[field] = venue[field];
    }
    if (venue.website && /^https?:\/\//i.test(venue.website)) fields.website = venue.website;
    if (venue.image && /^https?:\/\//i.test(venue.image)) fields.image = venue.image;
    // Strings, not booleans: TEC 6.2.6 rejects JSON booleans here (contract C.9).
    fields.show_map = String(options.show_map);
    fields.show_map_link = String(options.show_map_link);
    venues.set(key, entity('venue', key, name, fields, record));
  }
  return key;
}

/** The record an item with no event is reported as coming from: only its origin is read. */
function placeholder(origin: Origin): EventRecord {
  const none: TimeValue = { kind: 'date', date: '1970-01-01' };
  return { origin, key: '', title: '', start: none, end: none, organizers: [], categories: [], tags: [] };
}

function addOrganizer(organizers: Registry, organizer: OrganizerRecord, record: EventRecord) {
  const name = organizer.name.trim();
  if (!name) return undefined;
  const key = organizer.id ? `id:${organizer.id}` : normalise(name);
  if (!organizers.has(key)) {
    const fields: Record<string, unknown> = { organizer: name };
    if (organizer.description) fields.description = organizer.description;
    if (organizer.email) fields.email = organizer.email;
    if (organizer.phone) fields.phone = organizer.phone;
    if (organizer.website && /^https?:\/\//i.test(organizer.website)) fields.website = organizer.website;
    if (organizer.image && /^https?:\/\//i.test(organizer.image)) fields.image = organizer.image;
    organizers.set(key, entity('organizer', key, name, fields, record));
  }
  return key;
}

function entity(
  kind: Kind,
  key: string,
  label: string,
  fields: Record<string, unknown>,
  record: EventRecord,
  refs: Refs = {},
): Desired {
  return {
    kind,
    key,
    origin: record.origin,
    uid: kind === 'event' ? record.uid : undefined,
    label,
    fields,
    refs,
    cancelled: false,
    hash: canonicalHash({ fields, refs }),
  };
}

interface WireTimes {
  start: string;
  end: string;
  timezone: string;
  allDay: boolean;
  endClamped: boolean;
}

/**
 * B.6.1 wire times. All-day: the first and last day (the source's end is exclusive, RFC 5545 3.6.1),
 * `00:00:00`–`23:59:59`, never shifted by a zone. Zoned: wall times in the start's zone (an end in another
 * zone is converted through UTC). Floating: wall times in the pipeline's zone.
 */
export function eventTimes(start: TimeValue, end: TimeValue, fallbackZone: string): WireTimes {
  if (start.kind === 'date') {
    const first = start.date;
    const exclusive = end.kind === 'date' ? end.date : first;
    const last = exclusive > first ? addDays(exclusive, -1) : first;
    return {
      start: `${first} 00:00:00`,
      end: `${last} 23:59:59`,
      timezone: (start.zone && normalizeTimezone(start.zone)) || fallbackZone,
      allDay: true,
      endClamped: end.kind === 'date' && end.date < first,
    };
  }
  const timezone = start.kind === 'zoned' ? (normalizeTimezone(start.zone) ?? fallbackZone) : fallbackZone;
  const startLocal = start.local;
  let endLocal: string;
  if (end.kind === 'zoned' && normalizeTimezone(end.zone) !== timezone) {
    endLocal = utcToLocal(localToUtc(end.local, normalizeTimezone(end.zone) ?? timezone), timezone);
  } else if (end.kind === 'date') {
    endLocal = `${end.date} 00:00:00`;
  } else {
    endLocal = end.local;
  }
  const endClamped = endLocal < startLocal;
  return { start: startLocal, end: endClamped ? startLocal : endLocal, timezone, allDay: false, endClamped };
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Blanks trimmed and runs of them made one: a term's label. */
const collapsed = (s: string) => s.trim().replace(/\s+/g, ' ');

// Names repeat on every event that names them (a venue, an organizer, a category): each is normalised once.
// Bounded: names are user text.
const normalised = new Map<string, string>();
const MAX_NORMALISED = 5000;

/** A name as keys compare it: collapsed and lower-case. */
function normalise(s: string): string {
  let key = normalised.get(s);
  if (key === undefined) {
    if (normalised.size >= MAX_NORMALISED) normalised.clear();
    key = collapsed(s).toLowerCase();
    key = detached(key);
    normalised.set(detached(s), key);
  }
  return key;
}

/** The keys `keyOf` gives the items of `a` then `b`, each once, in order, without the undefined ones. */
function keysOf<T>(a: readonly T[], b: readonly T[], keyOf: (item: T) => string | undefined): string[] {
  // Indexed loops, no list of the two lists: three calls per event, each allocated ~300 bytes of
  // iterators and arrays that way (the heap profile's largest share of the mapping).
  const keys: string[] = [];
  for (let i = 0; i < a.length + b.length; i++) {
    const key = keyOf(i < a.length ? a[i] : b[i - a.length]);
    if (key !== undefined && !keys.includes(key)) keys.push(key);
  }
  return keys;
}
