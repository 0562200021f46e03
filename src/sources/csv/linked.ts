// The venues and organizers files beside an events CSV. Public: LinkedKind, LinkedDetails, readLinkedCsv,
// withLinked, linkedFileOf.
//
// TEC's CSV export (and ours: `npm run export -- --out x.csv`) writes the events to `x.csv` and the
// venues' and organizers' own fields — address, city, phone, e-mail… — to `x.venues.csv` and
// `x.organizers.csv`; the events file names them only. TEC's importer takes the three files as three
// kinds. Read beside the events, they give each venue and organizer an event names its fields back; the
// events file alone still gives the names. Imported alone (`npm run import -- x.venues.csv`, or any file
// with `--kind venues`), such a file gives venues or organizers of their own (`standaloneOf`).

import { parse } from 'csv-parse/sync';
import type {
  EventRecord,
  OrganizerRecord,
  SourceProblem,
  SourceResult,
  Standalone,
  VenueRecord,
} from '../record.ts';
import { normalizeHeader } from './columns.ts';
import { toUtf8 } from './decode.ts';
import { withDelimiter } from './delimiter.ts';
import { problem } from './errors.ts';
import { unescapeFormula } from './values.ts';

export type LinkedKind = 'venues' | 'organizers';

/** Name (folded) → fields, per kind. */
export interface LinkedDetails {
  venues: Map<string, Standalone<VenueRecord>>;
  organizers: Map<string, Standalone<OrganizerRecord>>;
}

// Header (normalised) → record field, TEC's export keys first, then plain names.
// `address2`: joined to the address once read (secondAddressLine).
const VENUE_COLUMNS: Record<string, keyof VenueRecord | 'address2'> = {
  venuename: 'name',
  venue: 'name',
  name: 'name',
  venuedescription: 'description',
  description: 'description',
  venuecountry: 'country',
  country: 'country',
  venueaddress: 'address',
  address: 'address',
  venueaddress2: 'address2',
  address2: 'address2',
  venuecity: 'city',
  city: 'city',
  venuestate: 'state',
  state: 'state',
  venueprovince: 'province',
  province: 'province',
  venuezip: 'zip',
  zip: 'zip',
  venuephone: 'phone',
  phone: 'phone',
  venueurl: 'website',
  venuewebsite: 'website',
  website: 'website',
  url: 'website',
  featuredimage: 'image',
  venueimage: 'image',
  image: 'image',
};
const ORGANIZER_COLUMNS: Record<string, keyof OrganizerRecord> = {
  organizername: 'name',
  organizer: 'name',
  name: 'name',
  organizerdescription: 'description',
  description: 'description',
  organizeremail: 'email',
  email: 'email',
  organizerwebsite: 'website',
  website: 'website',
  url: 'website',
  organizerphone: 'phone',
  phone: 'phone',
  featuredimage: 'image',
  organizerimage: 'image',
  image: 'image',
};

/** `x.csv` → `x.venues.csv`. */
export function linkedFileOf(eventsFile: string, kind: LinkedKind): string {
  return `${eventsFile.replace(/\.csv$/i, '')}.${kind}.csv`;
}

const fold = (name: string) => name.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

/** A venues or organizers CSV file: each row's fields by its name. */
export async function readLinkedCsv(
  bytes: Uint8Array,
  kind: LinkedKind,
  file: string,
): Promise<{ items: Map<string, Standalone<VenueRecord | OrganizerRecord>>; problems: SourceProblem[] }> {
  const problems: SourceProblem[] = [];
  const chunks: Buffer[] = [];
  const utf8 = toUtf8(
    (async function* () {
      yield bytes;
    })(),
    'auto',
    () => {},
  );
  const { delimiter, chunks: text } = await withDelimiter(utf8, 'auto');
  for await (const chunk of text) chunks.push(chunk);
  const parsed = parse(Buffer.concat(chunks), {
    delimiter,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  const items = new Map<string, Standalone<VenueRecord | OrganizerRecord>>();
  const [header, ...body] = parsed.map((p) => p.record);
  const names = kind === 'venues' ? VENUE_COLUMNS : ORGANIZER_COLUMNS;
  const fields = (header ?? []).map((h) => names[normalizeHeader(h)] as string | undefined);
  if (!fields.includes('name')) {
    const message = `no ${kind === 'venues' ? 'venue_name' : 'organizer_name'} column: the file was not read`;
    problems.push(problem('warning', 'csv_linked_no_name', message, { file, line: 1 }));
    return { items, problems };
  }
  for (const [at, row] of body.entries()) {
    const item: Record<string, string> = {};
    row.forEach((cell, at) => {
      const field = fields[at];
      // A description as written (blank lines and all, as stored); other fields trimmed.
      const value = field === 'description' ? unescapeFormula(cell) : unescapeFormula(cell).trim();
      if (field !== undefined && value !== '' && item[field] === undefined) item[field] = value;
    });
    if (kind === 'venues') {
      provinceOutsideUs(item);
      secondAddressLine(item);
    }
    if (item.name !== undefined && !items.has(fold(item.name))) {
      const origin = { file, line: parsed[at + 1].info.lines };
      items.set(fold(item.name), { ...(item as unknown as VenueRecord), origin });
    }
  }
  return { items, problems };
}

/**
 * TEC's one `venue_state` column holds the wire's `stateprovince`: the state of a venue in the US (or
 * without a country), else its province (src/render/linked.ts). Read back the same way, so that the
 * venue shows the same `stateprovince` again.
 */
function provinceOutsideUs(item: Record<string, string>): void {
  const us = item.country === undefined || item.country === 'United States';
  if (us || item.state === undefined || item.province !== undefined) return;
  item.province = item.state;
  delete item.state;
}

/** `venue_address2` joined to the address with a space, as TEC's importer does (a venue has one address). */
function secondAddressLine(item: Record<string, string>): void {
  if (item.address2 === undefined) return;
  item.address = item.address === undefined ? item.address2 : `${item.address} ${item.address2}`;
  delete item.address2;
}

/** The records with the fields of the venues and organizers they name filled from `linked`. */
export function withLinked(result: SourceResult, linked: LinkedDetails): SourceResult {
  const fill = <T extends { name: string }>(item: T, from: Map<string, T & { origin?: unknown }>): T => {
    const found = from.get(fold(item.name));
    if (found === undefined) return item;
    const { origin: _, ...details } = found;
    return { ...details, ...item };
  };
  const records = result.records.map(
    (record): EventRecord => ({
      ...record,
      ...(record.venue ? { venue: fill(record.venue, linked.venues) } : {}),
      organizers: record.organizers.map((o) => fill(o, linked.organizers)),
    }),
  );
  return { ...result, records };
}

/** The kind a file's header names: `venue_name` → venues, `organizer_name` → organizers (TEC's keys). */
export function linkedKindOf(header: readonly string[]): LinkedKind | undefined {
  const names = header.map(normalizeHeader);
  const events = ['eventname', 'eventstartdate', 'title', 'startdate', 'subject'].some((n) =>
    names.includes(n),
  );
  if (events) return undefined;
  if (names.includes('venuename')) return 'venues';
  if (names.includes('organizername')) return 'organizers';
  return undefined;
}

/** A venues or organizers file as a source of its own: no events, the items standalone. */
export async function standaloneOf(bytes: Uint8Array, kind: LinkedKind, file: string): Promise<SourceResult> {
  const read = await readLinkedCsv(bytes, kind, file);
  const items = [...read.items.values()];
  const problems = read.problems.map((p) =>
    p.code === 'csv_linked_no_name' ? { ...p, severity: 'error' as const } : p,
  );
  return {
    records: [],
    problems,
    calendar: {},
    standalone: {
      venues: kind === 'venues' ? (items as Standalone<VenueRecord>[]) : [],
      organizers: kind === 'organizers' ? (items as Standalone<OrganizerRecord>[]) : [],
    },
  };
}
