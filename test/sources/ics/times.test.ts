import { describe, expect, it } from 'vitest';
import { calendar, read, vevent } from './helpers.ts';

describe('readIcs times', () => {
  it('reads an all-day event as dates with an exclusive end, one day when DTEND is missing', () => {
    const result = read(
      calendar(
        ...vevent('UID:a', 'DTSTART;VALUE=DATE:20270301', 'DTEND;VALUE=DATE:20270303'),
        ...vevent('UID:b', 'DTSTART;VALUE=DATE:20271231'),
      ),
    );
    expect(result.records.map((r) => [r.start, r.end])).toEqual([
      [
        { kind: 'date', date: '2027-03-01' },
        { kind: 'date', date: '2027-03-03' },
      ],
      [
        { kind: 'date', date: '2027-12-31' },
        { kind: 'date', date: '2028-01-01' },
      ],
    ]);
  });

  it('reads the forms of DATE and DATE-TIME real files write, and drops impossible ones with their line', () => {
    const result = read(
      calendar(
        ...vevent('UID:lower', 'DTSTART:20270301t190000z'),
        ...vevent('UID:minutes', 'DTSTART;TZID=Europe/Berlin:20270301T1930'),
        ...vevent('UID:stray-z', 'DTSTART;VALUE=DATE:20270302Z'),
        ...vevent('UID:leap', 'DTSTART;VALUE=DATE:20280229'),
        ...vevent('UID:time-as-date', 'DTSTART;value=date:20270303T101500'),
        ...vevent('UID:feb29', 'DTSTART;VALUE=DATE:20270229'),
        ...vevent('UID:midnight24', 'DTSTART:20270301T240000Z'),
        ...vevent('UID:second60', 'DTSTART:20270301T235960Z'),
        ...vevent('UID:short', 'DTSTART:20270301T19'),
      ),
      { window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2029-01-01T00:00:00Z') } },
    );
    expect(Object.fromEntries(result.records.map((r) => [r.key, r.start]))).toEqual({
      lower: { kind: 'zoned', local: '2027-03-01 19:00:00', zone: 'UTC' },
      minutes: { kind: 'zoned', local: '2027-03-01 19:30:00', zone: 'Europe/Berlin' },
      'stray-z': { kind: 'date', date: '2027-03-02' },
      leap: { kind: 'date', date: '2028-02-29' },
      'time-as-date': { kind: 'date', date: '2027-03-03' },
    });
    expect(result.problems.map((p) => [p.code, p.message.split(';')[0]])).toEqual([
      ['ics_bad_date', 'test.ics:26: DTSTART: bad date "20270229"'],
      ['ics_bad_date', 'test.ics:30: DTSTART: bad date-time "20270301T240000Z"'],
      ['ics_bad_date', 'test.ics:34: DTSTART: bad date-time "20270301T235960Z"'],
      ['ics_bad_date', 'test.ics:38: DTSTART: expected a date or date-time, got "20270301T19"'],
    ]);
  });

  it('reads TZID and UTC times as wall times in their zone', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:a',
          'DTSTART;TZID=america/new_york:20270301T190000',
          'DTEND;TZID=America/New_York:20270301T210000',
        ),
        ...vevent('UID:b', 'DTSTART:20270301T190000Z', 'DURATION:PT1H30M'),
      ),
    );
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'America/New_York',
    });
    expect(result.records[0].end).toEqual({
      kind: 'zoned',
      local: '2027-03-01 21:00:00',
      zone: 'America/New_York',
    });
    expect(result.records[1].start).toEqual({ kind: 'zoned', local: '2027-03-01 19:00:00', zone: 'UTC' });
    expect(result.records[1].end).toEqual({ kind: 'zoned', local: '2027-03-01 20:30:00', zone: 'UTC' });
  });

  it('maps a Windows zone name to its IANA zone', () => {
    const result = read(calendar(...vevent('UID:a', 'DTSTART;TZID=W. Europe Standard Time:20270301T190000')));
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'Europe/Berlin',
    });
  });

  it('resolves a custom VTIMEZONE name by its offsets (Lotus Notes "Eastern")', () => {
    const result = read(
      calendar(
        'BEGIN:VTIMEZONE',
        'TZID:Eastern',
        'BEGIN:STANDARD',
        'DTSTART:19501105T020000',
        'TZOFFSETFROM:-0400',
        'TZOFFSETTO:-0500',
        'END:STANDARD',
        'BEGIN:DAYLIGHT',
        'DTSTART:19500312T020000',
        'TZOFFSETFROM:-0500',
        'TZOFFSETTO:-0400',
        'END:DAYLIGHT',
        'END:VTIMEZONE',
        ...vevent('UID:a', 'DTSTART;TZID=Eastern:20270301T190000'),
      ),
    );
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'America/New_York',
    });
  });

  it('keeps a floating time floating when the file and the caller name no zone', () => {
    const result = read(calendar(...vevent('UID:a', 'DTSTART:20270301T190000')));
    expect(result.records[0].start).toEqual({ kind: 'floating', local: '2027-03-01 19:00:00' });
    expect(result.records[0].end).toEqual({ kind: 'floating', local: '2027-03-01 19:00:00' });
  });

  it('gives floating times X-WR-TIMEZONE before the default zone, and reports it on the calendar', () => {
    const result = read(
      calendar('X-WR-TIMEZONE:Europe/Paris', ...vevent('UID:a', 'DTSTART:20270301T190000')),
      {
        defaultZone: 'Asia/Tokyo',
      },
    );
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'Europe/Paris',
      floating: true,
    });
    expect(result.calendar.timezone).toBe('Europe/Paris');
  });

  it('gives floating times the default zone when the file names none', () => {
    const result = read(calendar(...vevent('UID:a', 'DTSTART:20270301T190000')), {
      defaultZone: 'asia/tokyo',
    });
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'Asia/Tokyo',
      floating: true,
    });
  });

  it('reads an unknown TZID like a floating time and warns', () => {
    const result = read(calendar(...vevent('UID:a', 'DTSTART;TZID=Mars/Olympus:20270301T190000')), {
      defaultZone: 'Europe/Berlin',
    });
    expect(result.records[0].start).toEqual({
      kind: 'zoned',
      local: '2027-03-01 19:00:00',
      zone: 'Europe/Berlin',
      floating: true,
    });
    expect(result.problems).toMatchObject([
      { code: 'ics_unknown_zone', severity: 'warning', field: 'DTSTART' },
    ]);
  });
});
