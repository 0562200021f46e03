import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../../src/sources/record.ts';
import { calendar, read, vevent } from './helpers.ts';

const wall = (r: EventRecord) => (r.start.kind === 'date' ? r.start.date : r.start.local);

describe('readIcs recurrence', () => {
  it('keeps a weekly 19:00 Europe/Berlin event at 19:00 across the March and October DST changes', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:club',
          'DTSTART;TZID=Europe/Berlin:20270315T190000',
          'DTEND;TZID=Europe/Berlin:20270315T210000',
          'RRULE:FREQ=WEEKLY;UNTIL=20271110T000000Z',
        ),
      ),
    );
    const records = result.records;
    expect(records).toHaveLength(35);
    for (const r of records) {
      expect(r.start).toMatchObject({ kind: 'zoned', zone: 'Europe/Berlin' });
      expect(wall(r).slice(11)).toBe('19:00:00');
      expect(r.end.kind === 'zoned' && r.end.local.slice(11)).toBe('21:00:00');
    }
    // The UTC instance moves by an hour when Berlin changes offset (last Sunday of March / October).
    expect(records.map((r) => r.key)).toContain('club@20270322T180000Z');
    expect(records.map((r) => r.key)).toContain('club@20270329T170000Z');
    expect(records.map((r) => r.key)).toContain('club@20271101T180000Z');
  });

  it('keeps a weekly 18:30 America/New_York event at 18:30 across the US DST changes', () => {
    const result = read(
      calendar(
        ...vevent('UID:ny', 'DTSTART;TZID=America/New_York:20270301T183000', 'RRULE:FREQ=WEEKLY;COUNT=40'),
      ),
    );
    expect(result.records).toHaveLength(40);
    expect(new Set(result.records.map((r) => wall(r).slice(11)))).toEqual(new Set(['18:30:00']));
    expect(result.records[0].key).toBe('ny@20270301T233000Z');
    expect(result.records[2].key).toBe('ny@20270315T223000Z'); // after 14 March: EDT
  });

  it('expands only occurrences that overlap the window', () => {
    const result = read(calendar(...vevent('UID:d', 'DTSTART:20260101T100000Z', 'RRULE:FREQ=DAILY')), {
      window: { from: new Date('2027-03-01T10:30:00Z'), to: new Date('2027-03-04T00:00:00Z') },
    });
    expect(result.records.map((r) => r.key)).toEqual(['d@20270302T100000Z', 'd@20270303T100000Z']);
  });

  it('keeps single events outside the window', () => {
    const result = read(calendar(...vevent('UID:old', 'DTSTART:20100101T100000Z')));
    expect(result.records.map((r) => r.key)).toEqual(['old']);
  });

  it('leaves out EXDATE occurrences, in the series zone and as bare dates', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:x',
          'DTSTART;TZID=Europe/Berlin:20270301T190000',
          'RRULE:FREQ=DAILY;COUNT=5',
          'EXDATE;TZID=Europe/Berlin:20270302T190000,20270303T190000',
          'EXDATE:20270304',
        ),
      ),
    );
    expect(result.records.map((r) => wall(r))).toEqual(['2027-03-01 19:00:00', '2027-03-05 19:00:00']);
  });

  it('adds RDATE occurrences and drops duplicate instances', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:r',
          'DTSTART:20270301T100000Z',
          'RRULE:FREQ=DAILY;COUNT=2',
          'RDATE:20270301T100000Z,20270310T100000Z',
        ),
      ),
    );
    expect(result.records.map((r) => r.key)).toEqual([
      'r@20270301T100000Z',
      'r@20270302T100000Z',
      'r@20270310T100000Z',
    ]);
  });

  it('replaces a moved and retitled occurrence by its override, keeping the occurrence key', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:s',
          'DTSTART;TZID=Europe/Berlin:20270301T190000',
          'DTEND;TZID=Europe/Berlin:20270301T200000',
          'RRULE:FREQ=WEEKLY;COUNT=3',
          'SUMMARY:Choir',
          'LOCATION:Church Hall',
        ),
        ...vevent(
          'UID:s',
          'RECURRENCE-ID;TZID=Europe/Berlin:20270308T190000',
          'DTSTART;TZID=Europe/Berlin:20270309T200000',
          'DTEND;TZID=Europe/Berlin:20270309T220000',
          'SUMMARY:Choir (moved)',
        ),
      ),
    );
    expect(result.records.map((r) => [r.key, wall(r), r.title])).toEqual([
      ['s@20270301T180000Z', '2027-03-01 19:00:00', 'Choir'],
      ['s@20270308T180000Z', '2027-03-09 20:00:00', 'Choir (moved)'],
      ['s@20270315T180000Z', '2027-03-15 19:00:00', 'Choir'],
    ]);
    expect(result.records[1].origin.line).toBe(12);
    expect(result.records[1].venue?.name).toBe('Church Hall');
  });

  it('hands on a cancelled occurrence as a record with status cancelled', () => {
    const result = read(
      calendar(
        ...vevent('UID:c', 'DTSTART:20270301T100000Z', 'RRULE:FREQ=DAILY;COUNT=3', 'SUMMARY:Yoga'),
        ...vevent('UID:c', 'RECURRENCE-ID:20270302T100000Z', 'DTSTART:20270302T100000Z', 'STATUS:CANCELLED'),
      ),
    );
    expect(result.records.map((r) => [r.key, r.status ?? 'none'])).toEqual([
      ['c@20270301T100000Z', 'none'],
      ['c@20270302T100000Z', 'cancelled'],
      ['c@20270303T100000Z', 'none'],
    ]);
  });

  it('reads an override without its series as a standalone event keyed by its instance', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:orphan',
          'RECURRENCE-ID:20100302T100000Z',
          'DTSTART:20100302T120000Z',
          'SUMMARY:Lonely',
        ),
      ),
    );
    expect(result.records).toHaveLength(1);
    expect(result.records[0]).toMatchObject({ key: 'orphan@20100302T100000Z', title: 'Lonely' });
  });

  it('matches a date-time RECURRENCE-ID to the day of an all-day series', () => {
    const result = read(
      calendar(
        ...vevent('UID:fair', 'DTSTART;VALUE=DATE:20270301', 'RRULE:FREQ=DAILY;COUNT=2', 'SUMMARY:Fair'),
        ...vevent(
          'UID:fair',
          'RECURRENCE-ID:20270302T000000',
          'DTSTART;VALUE=DATE:20270302',
          'SUMMARY:Fair day 2',
        ),
      ),
    );
    expect(result.records.map((r) => [r.key, r.title])).toEqual([
      ['fair@20270301', 'Fair'],
      ['fair@20270302', 'Fair day 2'],
    ]);
  });

  it('reads floating series at the same wall time in the default zone', () => {
    const result = read(
      calendar(...vevent('UID:f', 'DTSTART:20270320T190000', 'RRULE:FREQ=WEEKLY;COUNT=2')),
      {
        defaultZone: 'Europe/Berlin',
      },
    );
    expect(result.records.map((r) => wall(r))).toEqual(['2027-03-20 19:00:00', '2027-03-27 19:00:00']);
    // Keyed by wall time, not by the instant the default zone makes of it: another default zone must
    // not re-key the series (it would delete and re-create every occurrence).
    expect(result.records.map((r) => r.key)).toEqual(['f@20270320T190000', 'f@20270327T190000']);
    const tokyo = read(calendar(...vevent('UID:f', 'DTSTART:20270320T190000', 'RRULE:FREQ=WEEKLY;COUNT=2')), {
      defaultZone: 'Asia/Tokyo',
    });
    expect(tokyo.records.map((r) => r.key)).toEqual(result.records.map((r) => r.key));
  });

  it('keeps a floating series floating when no zone is known, keyed by wall time without Z', () => {
    const result = read(
      calendar(
        ...vevent('UID:w', 'DTSTART:20270327T193000', 'DTEND:20270327T203000', 'RRULE:FREQ=DAILY;COUNT=2'),
      ),
    );
    expect(result.records.map((r) => [r.key, r.start, r.end])).toEqual([
      [
        'w@20270327T193000',
        { kind: 'floating', local: '2027-03-27 19:30:00' },
        { kind: 'floating', local: '2027-03-27 20:30:00' },
      ],
      [
        'w@20270328T193000',
        { kind: 'floating', local: '2027-03-28 19:30:00' },
        { kind: 'floating', local: '2027-03-28 20:30:00' },
      ],
    ]);
  });
});
