import { describe, expect, it } from 'vitest';
import { calendar, read, vevent } from './helpers.ts';

describe('readIcs fields', () => {
  it('keeps TEXT exactly as RFC 5545 escapes it: a literal backslash before n, and quotes around a value', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:exact',
          'DTSTART:20270301T180000Z',
          'SUMMARY:C:\\\\new folder',
          'LOCATION:"The Barn"',
          'DESCRIPTION:"Quoted" \\\\n is not a line break',
        ),
      ),
    );
    expect(result.records[0]).toMatchObject({
      title: 'C:\\new folder',
      venue: { name: '"The Barn"' },
      description: '"Quoted" \\n is not a line break',
    });
  });

  it('maps SUMMARY, DESCRIPTION, URL, STATUS, LOCATION, GEO, ORGANIZER, CATEGORIES and an image ATTACH', () => {
    const result = read(
      calendar(
        'X-WR-CALNAME:City Arts',
        'X-WR-CALDESC:Everything on in town',
        ...vevent(
          'UID:full',
          'DTSTART:20270301T180000Z',
          'SUMMARY:Jazz\\, blues \\; more',
          'DESCRIPTION:Line one\\nLine two',
          'URL:https://example.org/jazz',
          'STATUS:TENTATIVE',
          'LOCATION:Town Hall\\, 1 Main St\\, Springfield',
          'GEO:39.7817;-89.6501',
          'ORGANIZER;CN="Doe, Jane":mailto:jane@example.org',
          'ORGANIZER:mailto:box@example.org',
          'CATEGORIES:Music,Jazz',
          'CATEGORIES:Outdoor',
          'ATTACH;FMTTYPE=application/pdf:https://example.org/flyer.pdf',
          'ATTACH;FMTTYPE=image/jpeg:https://example.org/poster.jpg',
          'X-COST:10-25',
        ),
      ),
    );
    expect(result.records[0]).toMatchObject({
      title: 'Jazz, blues ; more',
      description: 'Line one\nLine two',
      url: 'https://example.org/jazz',
      status: 'tentative',
      venue: { name: 'Town Hall', address: '1 Main St, Springfield', latitude: 39.7817, longitude: -89.6501 },
      organizers: [
        { name: 'Doe, Jane', email: 'jane@example.org' },
        { name: 'box@example.org', email: 'box@example.org' },
      ],
      categories: ['Music', 'Jazz', 'Outdoor'],
      image: 'https://example.org/poster.jpg',
      cost: '10-25',
      tags: [],
    });
    expect(result.calendar).toEqual({ name: 'City Arts', description: 'Everything on in town' });
  });

  it('leaves optional fields out when the VEVENT has none', () => {
    const [record] = read(calendar(...vevent('UID:bare', 'DTSTART:20270301T180000Z'))).records;
    expect(record).toEqual({
      origin: { file: 'test.ics', line: 4 },
      key: 'bare',
      uid: 'bare',
      title: '(No title)', // no SUMMARY: the placeholder calendar apps show
      start: { kind: 'zoned', local: '2027-03-01 18:00:00', zone: 'UTC' },
      end: { kind: 'zoned', local: '2027-03-01 18:00:00', zone: 'UTC' },
      organizers: [],
      categories: [],
      tags: [],
    });
  });

  it('takes a LOCATION without commas as the venue name only', () => {
    const [record] = read(
      calendar(...vevent('UID:v', 'DTSTART:20270301T180000Z', 'LOCATION:Riverside Park')),
    ).records;
    expect(record.venue).toEqual({ name: 'Riverside Park' });
  });
});
