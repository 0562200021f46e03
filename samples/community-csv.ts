/**
 * Renders one-off events of the Riverside sample in The Events Calendar's CSV import format: TEC's column
 * keys as headers, ISO dates, 24-hour times, `TRUE`/`FALSE` as a spreadsheet writes them, CRLF records.
 *
 * Public: `CSV_HEADERS`, `renderCommunityCsv()`.
 * TEC's importer takes an all-day event's end date as its last day (inclusive), unlike DTEND;VALUE=DATE,
 * so the exclusive iCalendar end is moved back a day here.
 */

import { stringify } from 'csv-stringify/sync';
import { ORGANIZERS, type SampleEvent, VENUES } from './community-data.ts';
import { SINGLES } from './community-singles.ts';

export const CSV_HEADERS = [
  'event_name',
  'event_description',
  'event_excerpt',
  'event_start_date',
  'event_start_time',
  'event_end_date',
  'event_end_time',
  'event_all_day',
  'event_timezone',
  'event_venue_name',
  'venue_address',
  'venue_city',
  'venue_state',
  'venue_zip',
  'venue_country',
  'event_organizer_name',
  'organizer_email',
  'organizer_phone',
  'event_category',
  'event_tags',
  'event_cost',
  'event_website',
  'event_featured',
] as const;

/** The one row whose description keeps its line breaks: a quoted multi-line cell, as Excel writes Alt+Enter. */
const MULTILINE_TITLE = 'Riverside Beer & Cider Festival';
/** Rows from December to September (about 60); at most two dates of one template, so the file stays varied. */
const FROM = '2026-12-01';
const UNTIL = '2027-10-01';
const PER_TITLE = 2;

function previousDay(date: string): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() - 1);
  return t.toISOString().slice(0, 10);
}

const bool = (flag: boolean | undefined): string => (flag ? 'TRUE' : 'FALSE');

function row(e: SampleEvent): string[] {
  const venue = VENUES[e.venue];
  const organizer = ORGANIZERS[e.organizer];
  const allDay = e.start.length === 10;
  const description = e.title === MULTILINE_TITLE ? e.description : e.description.replace(/\n/g, ' ');
  const excerpt = /^[^\n]*?[.!?](?= |$)/m.exec(e.description)?.[0] ?? e.description.split('\n')[0];
  return [
    e.title,
    description,
    excerpt,
    e.start.slice(0, 10),
    allDay ? '' : e.start.slice(11),
    allDay ? previousDay(e.end) : e.end.slice(0, 10),
    allDay ? '' : e.end.slice(11),
    bool(allDay),
    e.zone,
    venue.name,
    venue.street,
    venue.city,
    venue.state,
    venue.zip,
    venue.country,
    organizer.name,
    organizer.email,
    organizer.phone,
    e.categories.join(', '),
    (e.tags ?? []).join(', '),
    e.cost ?? '',
    e.url ?? '',
    bool(e.featured),
  ];
}

/** The CSV events: one-offs from December 2026 to September 2027, at most two dates per title, in start order. */
export function csvEvents(): SampleEvent[] {
  const seen = new Map<string, number>();
  return SINGLES.filter((e) => {
    if (e.start < FROM || e.start >= UNTIL) return false;
    const n = (seen.get(e.title) ?? 0) + 1;
    seen.set(e.title, n);
    return n <= PER_TITLE;
  });
}

/** The whole CSV file, header row first, CRLF between records. */
export function renderCommunityCsv(): string {
  return stringify([[...CSV_HEADERS], ...csvEvents().map(row)], { record_delimiter: 'windows' });
}
