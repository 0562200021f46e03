import { describe, expect, it } from 'vitest';
import { eventsToCsv, organizersToCsv, venuesToCsv } from '../../src/render/csv.ts';
import type { WireEvent } from '../../src/render/wire.ts';
import {
  allDayBerlin,
  berlinEvent,
  fullEvent,
  janeOrg,
  mainHall,
  minimalEvent,
  noMailOrg,
  secondVenue,
} from './fixtures.ts';

// The header lists exactly as B.12 writes them.
const EVENT_HEADER =
  'event_name, event_description, event_excerpt, event_start_date, event_start_time, event_end_date, event_end_time, event_timezone, event_all_day, event_hide, event_sticky, feature_event, event_venue_name, event_organizer_name, event_show_map_link, event_show_map, event_cost, event_currency_code, event_currency_symbol, event_currency_position, event_category, event_tags, event_website, featured_image';
const VENUE_HEADER =
  'venue_name, venue_description, venue_country, venue_address, venue_address2, venue_city, venue_state, venue_zip, venue_phone, venue_url, featured_image';
const ORGANIZER_HEADER =
  'organizer_name, organizer_description, organizer_email, organizer_website, organizer_phone, featured_image';

/** A strict RFC 4180 reader: CRLF records, quoted fields, doubled quotes; throws on stray quotes. */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < csv.length) {
    let field = '';
    if (csv[i] === '"') {
      i++;
      for (;;) {
        const q = csv.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quoted field');
        field += csv.slice(i, q);
        i = q + 1;
        if (csv[i] === '"') {
          field += '"';
          i++;
        } else break;
      }
    } else {
      const end = csv.slice(i).search(/[,\r\n"]/);
      field = end < 0 ? csv.slice(i) : csv.slice(i, i + end);
      i += field.length;
      if (csv[i] === '"') throw new Error(`quote inside an unquoted field at ${i}`);
    }
    row.push(field);
    if (csv[i] === ',') i++;
    else if (csv.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else if (i < csv.length) throw new Error(`bare line break at ${i}`);
  }
  if (row.length > 0) throw new Error('last record without CRLF');
  return rows;
}

function records(csv: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(csv);
  for (const r of rows) expect(r).toHaveLength(header.length);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

describe('eventsToCsv', () => {
  it('starts with the B.12 header row, CRLF, no BOM (T152)', () => {
    const csv = eventsToCsv([fullEvent]);
    expect(csv.split('\r\n')[0]).toBe(EVENT_HEADER.replaceAll(', ', ','));
    expect(csv.charCodeAt(0)).not.toBe(0xfeff);
    expect(eventsToCsv([])).toBe(`${EVENT_HEADER.replaceAll(', ', ',')}\r\n`);
  });

  it('writes the A.1 event in importer terms', () => {
    const [row] = records(eventsToCsv([fullEvent]));
    expect(row).toEqual({
      event_name: 'Full Event',
      event_description: 'Full description',
      event_excerpt: 'Short',
      event_start_date: '2027-03-01',
      event_start_time: '19:00:00',
      event_end_date: '2027-03-01',
      event_end_time: '22:00:00',
      event_timezone: 'America/New_York',
      event_all_day: 'false',
      event_hide: 'false',
      event_sticky: 'false',
      feature_event: 'true',
      event_venue_name: 'Main Hall',
      event_organizer_name: 'Jane Org',
      event_show_map_link: 'true',
      event_show_map: 'true',
      event_cost: '25',
      event_currency_code: '',
      event_currency_symbol: '',
      event_currency_position: '',
      event_category: 'Concerts',
      event_tags: 'Outdoor',
      event_website: 'https://example.com/full',
      featured_image: '',
    });
  });

  it('joins names and cost values, maps postfix to suffix, decodes names, keeps raw descriptions', () => {
    const [row] = records(eventsToCsv([berlinEvent]));
    expect(row.event_name).toBe('Berlin & Friends');
    expect(row.event_description).toBe('Line one\nline two\n\nPara &#8220;two&#8221;, with; commas');
    expect(row.event_excerpt).toBe('Kurz &amp; gut');
    expect(row.event_organizer_name).toBe('"Bob, & Co", Jane Org'); // a name with a comma is quoted in the list
    expect(row.event_category).toBe('Concerts, Jazz');
    expect(row.event_tags).toBe('');
    expect(row.event_cost).toBe('10 - 20');
    expect(row.event_currency_code).toBe('EUR');
    expect(row.event_currency_symbol).toBe('€');
    expect(row.event_currency_position).toBe('suffix');
    expect(row.event_venue_name).toBe('Second Venue');
    expect(row.featured_image).toBe('https://cal.example.org/wp-content/uploads/2026/11/poster.png');
  });

  it('writes all-day events with their wire times and the minimal event with empty cells', () => {
    const [allDay, minimal] = records(eventsToCsv([allDayBerlin, minimalEvent]));
    expect(allDay).toMatchObject({
      event_start_date: '2027-07-01',
      event_start_time: '00:00:00',
      event_end_date: '2027-07-03',
      event_end_time: '23:59:59',
      event_all_day: 'true',
    });
    expect(minimal).toMatchObject({
      event_venue_name: '',
      event_organizer_name: '',
      event_cost: '',
      event_category: '',
      event_description: '',
      event_website: '', // the wire's website is the permalink: the event has none of its own
    });
  });

  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    const tricky: WireEvent = {
      ...minimalEvent,
      title: 'Say &#8220;hi&#8221;, "there"',
      description: '<p>one,<br />\ntwo "three"\r\nfour</p>',
      excerpt: 'plain\rcr',
    };
    const csv = eventsToCsv([tricky]);
    expect(csv).toContain('"Say “hi”, ""there""","one,\ntwo ""three""\r\nfour","plain\rcr"');
    const [row] = records(csv);
    expect(row.event_name).toBe('Say “hi”, "there"');
    expect(row.event_description).toBe('one,\ntwo "three"\r\nfour');
    expect(row.event_excerpt).toBe('plain\rcr');
  });

  it('leaves the flags of a redacted list entry (A.10) empty', () => {
    const redacted = { ...fullEvent, all_day: null, show_map: null, featured: null };
    const [row] = records(eventsToCsv([redacted]));
    expect(row.event_all_day).toBe('');
    expect(row.event_show_map).toBe('');
    expect(row.feature_event).toBe('');
    expect(row.event_hide).toBe('false');
  });

  it('takes raw texts from the raw accessor when given, else undoes wpautop', () => {
    const csv = eventsToCsv([fullEvent, minimalEvent], {
      raw: (item, field) => (item.id === 8 && field === 'description' ? 'Stored *raw*' : undefined),
    });
    const [full, minimal] = records(csv);
    expect(full.event_description).toBe('Stored *raw*');
    expect(full.event_excerpt).toBe('Short');
    expect(minimal.event_description).toBe('');
  });
});

describe('venuesToCsv', () => {
  it('starts with the B.12 header row (T152)', () => {
    expect(venuesToCsv([]).split('\r\n')[0]).toBe(VENUE_HEADER.replaceAll(', ', ','));
  });

  it('writes stateprovince as venue_state, an empty address2, and empty cells for omitted keys', () => {
    const [hall, second] = records(venuesToCsv([mainHall, secondVenue]));
    expect(hall).toEqual({
      venue_name: 'Main Hall',
      venue_description: 'The main hall',
      venue_country: 'United States',
      venue_address: '1 Main St',
      venue_address2: '',
      venue_city: 'Springfield',
      venue_state: 'IL',
      venue_zip: '62701',
      venue_phone: "'+1 555 0100", // a leading + is a formula to a spreadsheet (OWASP)
      venue_url: 'https://example.com/hall',
      featured_image: '',
    });
    expect(second).toEqual({
      venue_name: 'Second Venue',
      venue_description: '',
      venue_country: 'Germany',
      venue_address: '',
      venue_address2: '',
      venue_city: 'Berlin',
      venue_state: 'Berlin',
      venue_zip: '10115',
      venue_phone: '',
      venue_url: '',
      featured_image: '',
    });
  });

  it('writes the venue image URL', () => {
    const withImage = {
      ...secondVenue,
      image: { url: 'https://cal.example.org/wp-content/uploads/hall.jpg', id: 81, extension: 'jpg' },
    };
    expect(records(venuesToCsv([withImage]))[0].featured_image).toBe(
      'https://cal.example.org/wp-content/uploads/hall.jpg',
    );
  });
});

describe('organizersToCsv', () => {
  it('starts with the B.12 header row and writes organizers, omitted keys empty', () => {
    const csv = organizersToCsv([janeOrg, noMailOrg]);
    expect(csv.split('\r\n')[0]).toBe(ORGANIZER_HEADER.replaceAll(', ', ','));
    expect(records(csv)).toEqual([
      {
        organizer_name: 'Jane Org',
        organizer_description: 'Organizer bio',
        organizer_email: 'jane@example.com',
        organizer_website: 'https://example.com/jane',
        organizer_phone: "'+1 555 0199",
        featured_image: '',
      },
      {
        organizer_name: 'Bob, & Co',
        organizer_description: '',
        organizer_email: '',
        organizer_website: '',
        organizer_phone: '',
        featured_image: '',
      },
    ]);
  });
});
