/**
 * CSV rendering of events, venues and organizers in the column layout of TEC's CSV importer
 * (contract B.12, D6), so an export can be imported into a TEC site as it is.
 *
 * Public: `EVENT_CSV_COLUMNS`, `VENUE_CSV_COLUMNS`, `ORGANIZER_CSV_COLUMNS`, `CsvOptions`, `StoredTexts`,
 * `storedTexts`, `rawFrom`, `neutralizeFormula`, `eventsToCsv`, `venuesToCsv`, `organizersToCsv`.
 *
 * RFC 4180: CRLF record ends (csv-stringify defaults to LF), fields quoted when they hold a comma, a
 * quote or a line break, quotes doubled; UTF-8 without BOM; a header row even when there are no rows.
 * Cells: dates `YYYY-MM-DD` and times `HH:MM:SS` event-local, booleans `true`/`false` (empty for the
 * `null` of a redacted list entry, A.10), names HTML-decoded and `, `-joined, descriptions raw (see
 * `CsvOptions.raw`), a key the wire omits (A.2) an empty cell.
 *
 * Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`,
 * `@`, tab or CR as a formula, and titles come from any imported .ics. Such a cell gets a leading `'`
 * (which Excel, LibreOffice and Sheets show as text and do not display); our CSV reader strips it again.
 * `formulas: 'keep'` writes cells as they are, for machine consumers.
 */

import { stringify } from 'csv-stringify/sync';
import type { EventRecord, LinkedRecord } from '../store/store.ts';
import { decodeEntities, unautop } from './text.ts';
import type { WireEvent, WireOrganizer, WireVenue } from './wire.ts';
import { imageUrl, venueOf } from './wire.ts';

export const EVENT_CSV_COLUMNS = [
  'event_name',
  'event_description',
  'event_excerpt',
  'event_start_date',
  'event_start_time',
  'event_end_date',
  'event_end_time',
  'event_timezone',
  'event_all_day',
  'event_hide',
  'event_sticky',
  'feature_event',
  'event_venue_name',
  'event_organizer_name',
  'event_show_map_link',
  'event_show_map',
  'event_cost',
  'event_currency_code',
  'event_currency_symbol',
  'event_currency_position',
  'event_category',
  'event_tags',
  'event_website',
  'featured_image',
] as const;

export const VENUE_CSV_COLUMNS = [
  'venue_name',
  'venue_description',
  'venue_country',
  'venue_address',
  'venue_address2',
  'venue_city',
  'venue_state',
  'venue_zip',
  'venue_phone',
  'venue_url',
  'featured_image',
] as const;

export const ORGANIZER_CSV_COLUMNS = [
  'organizer_name',
  'organizer_description',
  'organizer_email',
  'organizer_website',
  'organizer_phone',
  'featured_image',
] as const;

export interface CsvOptions {
  /**
   * The stored raw text of an item's `description` or `excerpt`. Default: the wire value with the
   * wpautop markup undone (`unautop`), which gives the raw text back except for `<p>` tags the author
   * typed. Return `undefined` to fall back to that default for one item.
   */
  raw?: (item: WireEvent | WireVenue | WireOrganizer, field: 'description' | 'excerpt') => string | undefined;
  /** `escape` (default): a cell a spreadsheet would run as a formula gets a leading `'`; `keep`: as is. */
  formulas?: 'escape' | 'keep';
}

/**
 * The stored text of descriptions and excerpts by post id (events, venues and organizers share one id
 * sequence, A.0): what a CSV export carries, so that importing it gives the same text back — the wire's
 * wpautop HTML loses blank lines in a row and blanks before a line break, which `unautop` cannot restore.
 */
export type StoredTexts = ReadonlyMap<number, { description: string; excerpt?: string }>;

/**
 * `StoredTexts` of events and of the venues and organizers they show. Leave out the events whose wire
 * is redacted (password-protected, A.10): their text is not the reader's.
 */
export function storedTexts(events: readonly EventRecord[], linked: Iterable<LinkedRecord>): StoredTexts {
  const texts = new Map<number, { description: string; excerpt?: string }>();
  for (const e of events) texts.set(e.id, { description: e.description, excerpt: e.excerpt });
  for (const item of linked) texts.set(item.id, { description: item.description });
  return texts;
}

/** `CsvOptions.raw` reading `texts`. */
export function rawFrom(texts: StoredTexts | undefined): CsvOptions['raw'] {
  return texts && ((item, field) => texts.get(item.id)?.[field]);
}

/**
 * A cell a spreadsheet would read as a formula (OWASP's list of first characters), or one that already
 * starts with `'` before one: that gets a second `'`, so that stripping one on import gives it back as it was.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** `cell`, with a leading `'` when a spreadsheet would run it as a formula. */
export function neutralizeFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

const STRINGIFY_OPTIONS = {
  header: true,
  record_delimiter: '\r\n', // RFC 4180 §2.1
  // An explicit record_delimiter turns off quoting of fields holding a bare LF or CR (csv-stringify 6.9
  // normalize_options); RFC 4180 §2.6 wants them quoted.
  quote_record_delimiter: true,
  bom: false,
} as const;

function render(columns: readonly string[], rows: string[][], opts: CsvOptions | undefined): string {
  if (rows.length === 0) return `${columns.join(',')}\r\n`;
  const cells = opts?.formulas === 'keep' ? rows : rows.map((row) => row.map(neutralizeFormula));
  return stringify(cells, { ...STRINGIFY_OPTIONS, columns: columns as string[] });
}

function bool(v: boolean | null | undefined): string {
  return v === true ? 'true' : v === false ? 'false' : '';
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function rawText(
  item: WireEvent | WireVenue | WireOrganizer,
  field: 'description' | 'excerpt',
  opts: CsvOptions | undefined,
): string {
  return opts?.raw?.(item, field) ?? unautop(text((item as Record<string, unknown>)[field]));
}

/**
 * Names as one `, `-separated cell, as TEC's importer reads them; a name that holds a comma or a quote is
 * quoted inside the cell (`"Okafor, Grace", Jo`) so that it reads back as one name (sources/csv readList).
 */
function list(names: readonly string[]): string {
  return names.map((name) => (/[",]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name)).join(', ');
}

// The wire's A.6 position is `prefix`/`postfix`; the importer reads `prefix`/`suffix`.
const POSITION: Readonly<Record<string, string>> = { prefix: 'prefix', postfix: 'suffix', suffix: 'suffix' };

function eventRow(e: WireEvent, opts: CsvOptions | undefined): string[] {
  const venue = venueOf(e);
  const cost = e.cost_details;
  return [
    decodeEntities(e.title),
    rawText(e, 'description', opts),
    rawText(e, 'excerpt', opts),
    e.start_date.slice(0, 10),
    e.start_date.slice(11, 19),
    e.end_date.slice(0, 10),
    e.end_date.slice(11, 19),
    e.timezone,
    bool(e.all_day),
    bool(e.hide_from_listings),
    bool(e.sticky),
    bool(e.featured),
    decodeEntities(text(venue?.venue)),
    list(e.organizer.map((o) => decodeEntities(text(o.organizer)))),
    bool(e.show_map_link),
    bool(e.show_map),
    (cost?.values ?? []).join(' - '),
    text(cost?.currency_code),
    text(cost?.currency_symbol),
    POSITION[text(cost?.currency_position)] ?? '',
    list(e.categories.map((t) => decodeEntities(t.name))),
    list(e.tags.map((t) => decodeEntities(t.name))),
    e.website === e.url ? '' : e.website, // the wire's fallback to the permalink is no website of its own
    imageUrl(e.image),
  ];
}

function venueRow(v: WireVenue, opts: CsvOptions | undefined): string[] {
  return [
    decodeEntities(text(v.venue)),
    rawText(v, 'description', opts),
    text(v.country),
    text(v.address),
    '', // venue_address2: the wire has no second address line
    text(v.city),
    text(v.stateprovince),
    text(v.zip),
    text(v.phone),
    text(v.website),
    imageUrl(v.image),
  ];
}

function organizerRow(o: WireOrganizer, opts: CsvOptions | undefined): string[] {
  return [
    decodeEntities(text(o.organizer)),
    rawText(o, 'description', opts),
    text(o.email),
    text(o.website),
    text(o.phone),
    imageUrl(o.image),
  ];
}

/** Events (list page or a single event) as CSV with the `EVENT_CSV_COLUMNS` header. */
export function eventsToCsv(events: readonly WireEvent[], opts?: CsvOptions): string {
  return render(
    EVENT_CSV_COLUMNS,
    events.map((e) => eventRow(e, opts)),
    opts,
  );
}

/** Venues as CSV with the `VENUE_CSV_COLUMNS` header. */
export function venuesToCsv(venues: readonly WireVenue[], opts?: CsvOptions): string {
  return render(
    VENUE_CSV_COLUMNS,
    venues.map((v) => venueRow(v, opts)),
    opts,
  );
}

/** Organizers as CSV with the `ORGANIZER_CSV_COLUMNS` header. */
export function organizersToCsv(organizers: readonly WireOrganizer[], opts?: CsvOptions): string {
  return render(
    ORGANIZER_CSV_COLUMNS,
    organizers.map((o) => organizerRow(o, opts)),
    opts,
  );
}
