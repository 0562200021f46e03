// One VEVENT's descriptive properties through node-ical: each VEVENT is handed to node-ical on its own (so
// its UID merging, random keys for UID-less events and override collapsing never apply) with only the
// properties we map, which also keeps the parse fast. node-ical unescapes TEXT, splits CATEGORIES (comma
// lists and repeated properties), reads GEO and parameters, and builds the RRULE object from the DTSTART the
// reader normalised. Dates are not read here (times.ts).

import ical, { type VEvent } from 'node-ical';
import type { EventRecord, OrganizerRecord, VenueRecord } from '../record.ts';
import { type ContentLine, unescapeText } from './lines.ts';
import type { RuleSource } from './recurrence.ts';

export type EventFields = Pick<
  EventRecord,
  'title' | 'description' | 'url' | 'status' | 'cost' | 'image' | 'venue' | 'organizers' | 'categories'
>;

export interface ParsedProperties {
  fields: EventFields;
  rule?: RuleSource;
}

// node-ical stores `X-COST` as `COST`, others lower-cased. SUMMARY, LOCATION, DESCRIPTION and X-ALT-DESC are
// read here, not by node-ical (see readProperties); the long ones were also the largest single cost of
// node-ical's parse in the source stage (bench/parse.ts).
const MAPPED = new Set('UID URL STATUS CATEGORIES GEO ORGANIZER ATTACH IMAGE X-COST'.split(' '));

/**
 * The fields of a VEVENT; with `recurrence` (a normalised DTSTART line and the RRULE line) also the rule.
 * Throws what node-ical throws (an RRULE rrule-temporal rejects).
 */
export function readProperties(
  props: ContentLine[],
  recurrence?: { dtstart: string; rrule: string },
): ParsedProperties {
  const out = ['BEGIN:VCALENDAR', 'BEGIN:VEVENT'];
  for (const p of props) {
    if (MAPPED.has(p.name))
      out.push(p.params.length === 0 ? `${p.name}:${p.value}` : `${p.name};${p.params.join(';')}:${p.value}`);
  }
  if (recurrence !== undefined) out.push(recurrence.dtstart, recurrence.rrule);
  out.push('END:VEVENT', 'END:VCALENDAR');
  const parsed = ical.sync.parseICS(out.join('\r\n'));
  const event = Object.values(parsed).find((c) => c?.type === 'VEVENT') as VEvent | undefined;
  const raw = (event ?? {}) as unknown as Record<string, unknown>;
  // SUMMARY and LOCATION are unescaped here, not by node-ical: 0.27 turns an escaped backslash before `n`
  // (`\\n`, a literal backslash and n) into a line break and strips quotes around a whole value, and
  // RFC 5545 §3.3.11 says neither.
  const fields: EventFields = {
    title: exactText(props, 'SUMMARY') ?? '',
    organizers: organizers(raw.organizer),
    categories: categories(raw.categories),
  };
  const description = exactText(props, 'DESCRIPTION') ?? exactText(props, 'X-ALT-DESC');
  if (description !== undefined) fields.description = description;
  const url = text(raw.url);
  if (url !== undefined && /^https?:\/\//i.test(url)) fields.url = url;
  const status = text(raw.status)?.toLowerCase();
  if (status === 'confirmed' || status === 'tentative' || status === 'cancelled') fields.status = status;
  const cost = text(raw.COST);
  if (cost !== undefined) fields.cost = cost;
  const image = imageOf(raw.image, true) ?? imageOf(raw.attach, false);
  if (image !== undefined) fields.image = image;
  const venue = venueOf(exactText(props, 'LOCATION'), raw.geo);
  if (venue !== undefined) fields.venue = venue;
  const rule = event?.rrule as RuleSource | undefined;
  return rule === undefined ? { fields } : { fields, rule };
}

/** The first `name` property as TEXT (RFC 5545 §3.3.11), trimmed; undefined when absent or blank. */
function exactText(props: ContentLine[], name: string): string | undefined {
  const line = props.find((p) => p.name === name);
  if (line === undefined) return undefined;
  const value = unescapeText(line.value).trim();
  return value === '' ? undefined : value;
}

type Valued = { params?: Record<string, unknown>; val?: unknown };

function list(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A node-ical value: a string, `{params, val}`, or an array of these (repeated property: the first). */
function text(value: unknown): string | undefined {
  const first = list(value)[0];
  const raw = typeof first === 'object' && first !== null ? (first as Valued).val : first;
  if (raw === undefined || raw === null) return undefined;
  const trimmed = String(raw).trim();
  return trimmed === '' ? undefined : trimmed;
}

function paramOf(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const p = (value as Valued).params?.[name];
  return p === undefined ? undefined : String(p).replace(/^"(.*)"$/, '$1');
}

function categories(value: unknown): string[] {
  const seen = new Set<string>();
  for (const item of list(value).flat()) {
    const name = text(item);
    if (name !== undefined) seen.add(name);
  }
  return [...seen];
}

function organizers(value: unknown): OrganizerRecord[] {
  const result: OrganizerRecord[] = [];
  for (const item of list(value)) {
    const address = text(item);
    const email = address?.replace(/^mailto:/i, '').trim();
    const name = paramOf(item, 'CN')?.trim() || email;
    if (name === undefined || name === '') continue;
    result.push(email?.includes('@') ? { name, email } : { name });
  }
  return result;
}

const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]|$)/i;

// RFC 7986 IMAGE is always an image; ATTACH only with an image FMTTYPE or an image file name.
function imageOf(value: unknown, isImage: boolean): string | undefined {
  for (const item of list(value)) {
    const url = text(item);
    if (url === undefined || !/^https?:\/\//i.test(url)) continue;
    const type = paramOf(item, 'FMTTYPE')?.toLowerCase();
    if (isImage || type?.startsWith('image/') || (type === undefined && IMAGE_FILE.test(url))) return url;
  }
  return undefined;
}

// "Town Hall, 1 Main St, Springfield" → name "Town Hall", address "1 Main St, Springfield".
function venueOf(location: string | undefined, geo: unknown): VenueRecord | undefined {
  if (location === undefined) return undefined;
  const comma = location.indexOf(',');
  const venue: VenueRecord = { name: comma === -1 ? location : location.slice(0, comma).trim() };
  const address = comma === -1 ? '' : location.slice(comma + 1).trim();
  if (address !== '') venue.address = address;
  if (venue.name === '') venue.name = address;
  const { lat, lon } = (geo ?? {}) as { lat?: unknown; lon?: unknown };
  if (typeof lat === 'number' && typeof lon === 'number' && Number.isFinite(lat) && Number.isFinite(lon)) {
    if (Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
      venue.latitude = lat;
      venue.longitude = lon;
    }
  }
  return venue;
}
