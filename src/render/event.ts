/**
 * The event representation (A.1), password redaction in lists (A.10) and the event's
 * JSON-LD. Related items of a whole page are loaded in three batch queries first
 * (`loadRelated`), so that rendering 50 events costs no per-event query, and each venue,
 * organizer and term of a list page is rendered once however many of its events show it.
 */

import { type Caller, canRead } from '../model/capabilities.ts';
import { type ParsedCost, parseCost } from '../model/cost.ts';
import { dateDetails, isoWithOffset } from '../model/datetime.ts';
import { escapeTitle, htmlToText, wpautop } from '../model/html.ts';
import { timezoneAbbr } from '../model/timezone-abbr.ts';
import type {
  AttachmentRecord,
  EventRecord,
  LinkedRecord,
  OrganizerRecord,
  Store,
  TermRecord,
  VenueRecord,
} from '../store/store.ts';
import type { RenderConfig } from './config.ts';
import { organizerJsonLd, renderOrganizer, renderVenue, venueJsonLd } from './linked.ts';
import { globalIds, permalink, postDates, renderImage } from './post.ts';
import { renderEmbeddedTerm } from './term.ts';

export interface Related {
  linked: Map<number, LinkedRecord>;
  attachments: Map<number, AttachmentRecord>;
  terms: Map<number, TermRecord>;
  /** List renderings of linked items and terms by id, filled as the page is rendered. */
  rendered?: { linked: Map<number, Record<string, unknown>>; terms: Map<number, EmbeddedTerm> };
}

type EmbeddedTerm = ReturnType<typeof renderEmbeddedTerm>;

/** `known`: venues and organizers already at hand (just written), not read again. */
export async function loadRelated(
  store: Store,
  events: readonly EventRecord[],
  caller: Caller,
  known?: ReadonlyMap<number, LinkedRecord>,
): Promise<Related> {
  const linkedIds = new Set<number>();
  const termIds = new Set<number>();
  const imageIds = new Set<number>();
  for (const e of events) {
    if (e.venue_id) linkedIds.add(e.venue_id);
    for (const id of e.organizer_ids) linkedIds.add(id);
    for (const id of e.category_ids) termIds.add(id);
    for (const id of e.tag_ids) termIds.add(id);
    if (e.image_id) imageIds.add(e.image_id);
  }
  const missing = known ? [...linkedIds].filter((id) => !known.has(id)) : [...linkedIds];
  const linked = missing.length > 0 ? await store.getLinkedMany(missing) : new Map<number, LinkedRecord>();
  if (known) for (const id of linkedIds) if (known.has(id)) linked.set(id, known.get(id)!);
  for (const p of linked.values()) {
    // A draft or private venue or organizer stays hidden inside a published event (B.2).
    if (!canRead(caller, p)) linked.delete(p.id);
    else if (p.image_id) imageIds.add(p.image_id);
  }
  return {
    linked,
    attachments: await store.getAttachmentsMany([...imageIds]),
    terms: await store.getTermsMany([...termIds]),
    rendered: { linked: new Map(), terms: new Map() },
  };
}

/**
 * `cost` and `cost_details` of a stored cost, by site currency and stored text: a calendar has few
 * distinct costs, and parsing one (JSON, then A.6) took ~2 µs of every event rendered. The results
 * are shared between events, so they are frozen.
 */
const parsedCosts = new WeakMap<RenderConfig, Map<string, ParsedCost>>();
const MAX_PARSED_COSTS = 1_000;

function costOf(stored: string | null, cfg: RenderConfig): ParsedCost {
  let byText = parsedCosts.get(cfg);
  if (!byText) {
    byText = new Map();
    parsedCosts.set(cfg, byText);
  }
  const key = stored ?? '';
  let cost = byText.get(key);
  if (!cost) {
    cost = parseCost(stored === null ? null : JSON.parse(stored), cfg.currency);
    Object.freeze(cost.cost_details.values);
    Object.freeze(cost.cost_details);
    if (byText.size >= MAX_PARSED_COSTS) byText.clear();
    byText.set(key, Object.freeze(cost));
  }
  return cost;
}

export interface RenderOptions {
  /** Single GETs carry `json_ld`, list items do not (A.7). */
  single: boolean;
  /** A protected event the caller has not unlocked, in a list (A.10). */
  redact?: boolean;
}

// The collator localeCompare uses without arguments, made once: localeCompare looks it up per call.
const collator = new Intl.Collator();
const byName = (a: { name: string }, b: { name: string }) => collator.compare(a.name, b.name);

export function renderEvent(e: EventRecord, rel: Related, cfg: RenderConfig, opts: RenderOptions) {
  const { venue, organizers } = linkedOf(e, rel);
  const image = (id: number | null) => (id ? rel.attachments.get(id) : undefined);
  // Singles carry json_ld in their venue and organizers, so only list renderings are shared.
  const memo = opts.single ? undefined : rel.rendered;
  const term = (t: TermRecord) => {
    let wire = memo?.terms.get(t.id);
    if (!wire) {
      wire = renderEmbeddedTerm(t, cfg);
      memo?.terms.set(t.id, wire);
    }
    return wire;
  };
  const linked = (p: LinkedRecord) => {
    let wire = memo?.linked.get(p.id);
    if (!wire) {
      wire =
        p.kind === 'venue'
          ? renderVenue(p, image(p.image_id), cfg, opts.single)
          : renderOrganizer(p, image(p.image_id), cfg, opts.single);
      memo?.linked.set(p.id, wire);
    }
    return wire;
  };

  const out = eventHead(e, image(e.image_id), cfg);
  // The tail, in this order, after the head: event-json.ts builds list items the same way.
  out.categories = sortedTerms(e.category_ids, rel).map(term);
  out.tags = sortedTerms(e.tag_ids, rel).map(term);
  out.venue = venue ? linked(venue) : [];
  out.organizer = organizers.map(linked);
  if (opts.single) {
    const costValues = (out.cost_details as ParsedCost['cost_details']).values;
    out.json_ld = eventJsonLd(e, out, venue, organizers, costValues, cfg);
  }
  if (opts.redact) redact(out);
  return out;
}

/** An event's fields before its terms, venue and organizers, in A.1 order. */
export function eventHead(
  e: EventRecord,
  image: AttachmentRecord | undefined,
  cfg: RenderConfig,
): Record<string, unknown> {
  const url = permalink(e, cfg);
  const cost = costOf(e.cost, cfg);
  return {
    id: e.id,
    ...globalIds(e.id, cfg),
    author: String(e.author),
    status: e.status,
    ...postDates(e, cfg),
    url,
    rest_url: `${cfg.apiBase}/calendar/events/v1/events/${e.id}`,
    title: escapeTitle(e.title),
    description: wpautop(e.description),
    excerpt: wpautop(e.excerpt),
    slug: e.slug,
    image: renderImage(image),
    all_day: e.all_day,
    start_date: e.start_local,
    start_date_details: dateDetails(e.start_local),
    end_date: e.end_local,
    end_date_details: dateDetails(e.end_local),
    utc_start_date: e.start_utc,
    utc_start_date_details: dateDetails(e.start_utc),
    utc_end_date: e.end_utc,
    utc_end_date_details: dateDetails(e.end_utc),
    timezone: e.timezone,
    timezone_abbr: timezoneAbbr(e.timezone, e.start_utc),
    cost: cost.cost,
    // The stored code (TEC's _EventCurrencyCode), whatever the cost text says.
    cost_details: e.currency_code
      ? { ...cost.cost_details, currency_code: e.currency_code }
      : cost.cost_details,
    website: e.website ?? url,
    show_map: e.show_map,
    show_map_link: e.show_map_link,
    hide_from_listings: e.hide_from_listings,
    sticky: e.sticky,
    featured: e.featured,
  };
}

/** The event's venue and organizers that exist, organizers in the event's order. */
export function linkedOf(e: EventRecord, rel: Related) {
  const venue = e.venue_id ? (rel.linked.get(e.venue_id) as VenueRecord | undefined) : undefined;
  const organizers = e.organizer_ids
    .map((id) => rel.linked.get(id))
    .filter((o): o is OrganizerRecord => o?.kind === 'organizer');
  return { venue, organizers };
}

/**
 * The terms of these ids that exist, by name (A.3). Kept per ids array while each id finds the same
 * record: the row memo hands every page the same frozen event and term records, and sorting by the
 * collator was ~7 % of a fresh list page.
 */
export function sortedTerms(ids: readonly number[], rel: Related): readonly TermRecord[] {
  const kept = sortedByIds.get(ids);
  if (kept !== undefined && sameTerms(kept.found, ids, rel)) return kept.sorted;
  const found = ids.map((id) => rel.terms.get(id));
  const sorted = Object.freeze(found.filter((t): t is TermRecord => t !== undefined).sort(byName));
  sortedByIds.set(ids, { found, sorted });
  return sorted;
}

const sortedByIds = new WeakMap<
  readonly number[],
  { found: (TermRecord | undefined)[]; sorted: readonly TermRecord[] }
>();

function sameTerms(found: (TermRecord | undefined)[], ids: readonly number[], rel: Related): boolean {
  if (found.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (rel.terms.get(ids[i]) !== found[i]) return false;
  return true;
}

const REDACT_EMPTY = [
  'description',
  'excerpt',
  'cost',
  'website',
  'email',
  'phone',
  'stateprovince',
  'zip',
  'province',
  'country',
  'city',
  'address',
];
const REDACT_NULL = ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'];

/** A.10: what a list shows of a password-protected event the caller has not unlocked. */
function redact(out: Record<string, unknown>): void {
  for (const k of REDACT_EMPTY) if (k in out) out[k] = '';
  for (const k of REDACT_NULL) out[k] = null;
  out.image = false;
  out.cost_details = { currency_symbol: '', currency_position: '', currency_code: '', values: [] };
  out.categories = [];
  out.tags = [];
  out.venue = [];
  out.organizer = [];
}

function eventJsonLd(
  e: EventRecord,
  wire: Record<string, unknown>,
  venue: VenueRecord | undefined,
  organizers: OrganizerRecord[],
  costValues: string[],
  cfg: RenderConfig,
): Record<string, unknown> {
  const ld: Record<string, unknown> = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: e.title,
    description: htmlToText(e.excerpt || e.description),
    url: wire.url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(e.start_local, e.timezone),
    endDate: isoWithOffset(e.end_local, e.timezone),
  };
  const image = wire.image as { url?: string } | false;
  if (image) ld.image = image.url;
  if (venue) ld.location = venueJsonLd(venue);
  if (organizers[0]) ld.organizer = organizerJsonLd(organizers[0]);
  const prices = costValues.filter((v) => /^\d/.test(v)).map(Number);
  if (prices.length) {
    const details = wire.cost_details as { currency_code: string };
    ld.offers = {
      '@type': 'Offer',
      price: String(Math.min(...prices)),
      priceCurrency: details.currency_code || cfg.currency.code,
      url: wire.url,
      category: 'primary',
      availability: 'inStock',
      validFrom: isoWithOffset((wire.date_utc as string).replace(/ .*/, ' 00:00:00'), 'UTC'),
    };
  }
  ld.performer = 'Organization';
  return ld;
}
