// One VEVENT's descriptive properties → the fields of its records, read from our content lines: TEXT
// unescaped (RFC 5545 §3.3.11), CATEGORIES split at unescaped commas (comma lists and repeated properties),
// ORGANIZER's CN, GEO, an image from IMAGE or ATTACH. Until issue 17 each VEVENT went through node-ical's
// parser for these; reading them here keeps node-ical's results for what we map (surrounding quotes of a
// URL, STATUS, X-COST, ORGANIZER or category removed) and skips a fifth of the source stage's time.
// SUMMARY, LOCATION and DESCRIPTION keep their quotes and a literal `\\n` (node-ical 0.27 turned both
// into something else, RFC 5545 §3.3.11 says neither). Dates are not read here (times.ts).

import type { EventRecord, OrganizerRecord, VenueRecord } from '../record.ts';
import { type ContentLine, unescapeText } from './lines.ts';

export type EventFields = Pick<
  EventRecord,
  'title' | 'description' | 'url' | 'status' | 'cost' | 'image' | 'venue' | 'organizers' | 'categories'
>;

/** The fields of a VEVENT from its properties, in one pass over them. */
export function readFields(props: readonly ContentLine[]): EventFields {
  const first: Partial<Record<Single, ContentLine>> = {};
  const organizerLines: ContentLine[] = [];
  const categoryLines: ContentLine[] = [];
  const imageLines: ContentLine[] = [];
  const attachLines: ContentLine[] = [];
  // Indexed: for…of allocated an iterator result per line until the optimising compiler took over.
  for (let i = 0; i < props.length; i++) {
    const p = props[i];
    const name = p.name;
    if (name === 'ORGANIZER') organizerLines.push(p);
    else if (name === 'CATEGORIES') categoryLines.push(p);
    else if (name === 'IMAGE') imageLines.push(p);
    else if (name === 'ATTACH') attachLines.push(p);
    else if (SINGLE.has(name)) first[name as Single] ??= p;
  }
  const fields: EventFields = {
    title: exactText(first.SUMMARY) ?? '',
    organizers: organizers(organizerLines),
    categories: categories(categoryLines),
  };
  const description = exactText(first.DESCRIPTION) ?? exactText(first['X-ALT-DESC']);
  if (description !== undefined) fields.description = description;
  const url = plainOf(first.URL);
  if (url !== undefined && /^https?:\/\//i.test(url)) fields.url = url;
  const status = plainOf(first.STATUS)?.toLowerCase();
  if (status === 'confirmed' || status === 'tentative' || status === 'cancelled') fields.status = status;
  const cost = plainOf(first['X-COST']);
  if (cost !== undefined) fields.cost = cost;
  const image = imageOf(imageLines, true) ?? imageOf(attachLines, false);
  if (image !== undefined) fields.image = image;
  const venue = venueOf(exactText(first.LOCATION), first.GEO?.value);
  if (venue !== undefined) fields.venue = venue;
  return fields;
}

/** Properties of which the first counts. */
type Single = 'SUMMARY' | 'DESCRIPTION' | 'X-ALT-DESC' | 'URL' | 'STATUS' | 'X-COST' | 'LOCATION' | 'GEO';
const SINGLE = new Set<string>([
  'SUMMARY',
  'DESCRIPTION',
  'X-ALT-DESC',
  'URL',
  'STATUS',
  'X-COST',
  'LOCATION',
  'GEO',
]);

/** A property as TEXT (RFC 5545 §3.3.11), trimmed; undefined when absent or blank. */
function exactText(line: ContentLine | undefined): string | undefined {
  if (line === undefined) return undefined;
  const value = unescapeText(line.value).trim();
  return value === '' ? undefined : value;
}

/** TEXT without escapes and surrounding quotes, trimmed; undefined when blank. */
function plain(value: string): string | undefined {
  let text = unescapeText(value.trim());
  const last = text.length - 1;
  if (last > 0 && text.charCodeAt(0) === 34 && text.charCodeAt(last) === 34 && !text.includes('\n'))
    text = text.slice(1, last);
  text = text.trim();
  return text === '' ? undefined : text;
}

function plainOf(line: ContentLine | undefined): string | undefined {
  return line === undefined ? undefined : plain(line.value);
}

const PARAMS = { CN: /(?:^|;)CN=("[^"]*"|[^;]*)/i, FMTTYPE: /(?:^|;)FMTTYPE=("[^"]*"|[^;]*)/i };

/** Parameter `name` of `line`, quotes removed; quoted values may hold `;` (split apart in `params`). */
function paramOf(line: ContentLine, name: 'CN' | 'FMTTYPE'): string | undefined {
  const params = line.params;
  if (params.length === 0) return undefined;
  // Without quotes no value holds a `;`: the first parameter so named is the one (ORGANIZER;CN=Jo Bloggs).
  if (!params.some((p) => p.includes('"'))) {
    const found = params.find(
      (p) => p.length > name.length && p[name.length] === '=' && startsWithName(p, name),
    );
    return found?.slice(name.length + 1);
  }
  const m = PARAMS[name].exec(params.join(';'));
  return m === null ? undefined : m[1].replace(/^"(.*)"$/, '$1');
}

function startsWithName(param: string, name: string): boolean {
  return param.slice(0, name.length).toUpperCase() === name;
}

/** Items of a comma list, split at commas not escaped by a backslash. */
function commaItems(value: string): string[] {
  const items: string[] = [];
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 44) {
      items.push(value.slice(from, i));
      from = i + 1;
    }
  }
  items.push(value.slice(from));
  return items;
}

function categories(lines: readonly ContentLine[]): string[] {
  if (lines.length === 0) return [];
  const seen = new Set<string>();
  for (const line of lines) {
    for (const item of commaItems(line.value)) {
      const name = plain(item);
      if (name !== undefined) seen.add(name);
    }
  }
  return [...seen];
}

function organizers(lines: readonly ContentLine[]): OrganizerRecord[] {
  const result: OrganizerRecord[] = [];
  for (const line of lines) {
    const email = plain(line.value)
      ?.replace(/^mailto:/i, '')
      .trim();
    const name = paramOf(line, 'CN')?.trim() || email;
    if (name === undefined || name === '') continue;
    result.push(email?.includes('@') ? { name, email } : { name });
  }
  return result;
}

const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]|$)/i;

// RFC 7986 IMAGE is always an image; ATTACH only with an image FMTTYPE or an image file name.
function imageOf(lines: readonly ContentLine[], isImage: boolean): string | undefined {
  for (const line of lines) {
    const url = plain(line.value);
    if (url === undefined || !/^https?:\/\//i.test(url)) continue;
    const type = paramOf(line, 'FMTTYPE')?.toLowerCase();
    if (isImage || type?.startsWith('image/') || (type === undefined && IMAGE_FILE.test(url))) return url;
  }
  return undefined;
}

// "Town Hall, 1 Main St, Springfield" → name "Town Hall", address "1 Main St, Springfield".
function venueOf(location: string | undefined, geo: string | undefined): VenueRecord | undefined {
  if (location === undefined) return undefined;
  const comma = location.indexOf(',');
  const venue: VenueRecord = { name: comma === -1 ? location : location.slice(0, comma).trim() };
  const address = comma === -1 ? '' : location.slice(comma + 1).trim();
  if (address !== '') venue.address = address;
  if (venue.name === '') venue.name = address;
  // GEO is `lat;lon` (RFC 5545 §3.8.1.6).
  const [lat, lon] = (geo ?? '').split(';').map(Number);
  if (geo !== undefined && Number.isFinite(lat) && Number.isFinite(lon)) {
    if (Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
      venue.latitude = lat;
      venue.longitude = lon;
    }
  }
  return venue;
}
