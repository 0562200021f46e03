import { describe, expect, it } from 'vitest';
import { zoneByName } from '../../../src/sources/ics/zones.ts';
import { calendar, read, vevent } from './helpers.ts';

describe('zone names of real files', () => {
  it('reads Outlook display labels without a VTIMEZONE by their cities or US region names', () => {
    expect(zoneByName('(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna')).toBe(
      'Europe/Amsterdam',
    );
    expect(zoneByName('(UTC+05:30) Chennai, Kolkata, Mumbai, New Delhi')).toBe('Asia/Kolkata');
    expect(zoneByName('(UTC-05:00) Eastern Time (US & Canada)')).toBe('America/New_York');
    expect(zoneByName('(GMT-08.00) Pacific Time (US & Canada)')).toBe('America/Los_Angeles');
    expect(zoneByName('(UTC+09:00) Osaka, Sapporo, Tokyo')).toBe('Asia/Tokyo');
  });

  it('does not take a city whose zone has another standard offset than the label', () => {
    // "Perth" is Australia/Perth (UTC+8), not a UTC+10 zone.
    expect(zoneByName('(UTC+10:00) Perth')).toBeNull();
  });

  it('keeps 19:00 Berlin wall time for a display-label TZID with no VTIMEZONE, across the March change', () => {
    const tzid = '"(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"';
    const result = read(
      calendar(
        ...vevent(
          'UID:label',
          `DTSTART;TZID=${tzid}:20270322T190000`,
          `DTEND;TZID=${tzid}:20270322T200000`,
          'RRULE:FREQ=WEEKLY;COUNT=2',
        ),
      ),
    );
    expect(result.problems).toEqual([]);
    expect(result.records.map((r) => r.key)).toEqual(['label@20270322T180000Z', 'label@20270329T170000Z']);
  });

  it('falls back to the standard offset of a label it cannot place, with no VTIMEZONE', () => {
    const result = read(
      calendar(...vevent('UID:brasilia', 'DTSTART;TZID="(UTC-03:00) Brasilia":20270601T100000')),
    );
    expect(result.records[0].start).toEqual({ kind: 'zoned', local: '2027-06-01 10:00:00', zone: 'UTC-3' });
  });
});

describe('zones defined after the events', () => {
  it('reads a custom VTIMEZONE and X-WR-TIMEZONE that come after the VEVENTs using them', () => {
    const result = read(
      calendar(
        ...vevent('UID:late-zone', 'DTSTART;TZID=Eastern:20270601T090000'),
        ...vevent('UID:floating', 'DTSTART:20270601T090000'),
        'X-WR-TIMEZONE:Europe/Paris',
        'BEGIN:VTIMEZONE',
        'TZID:Eastern',
        'BEGIN:STANDARD',
        'DTSTART:16010101T020000',
        'TZOFFSETFROM:-0400',
        'TZOFFSETTO:-0500',
        'RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11',
        'END:STANDARD',
        'BEGIN:DAYLIGHT',
        'DTSTART:16010101T020000',
        'TZOFFSETFROM:-0500',
        'TZOFFSETTO:-0400',
        'RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3',
        'END:DAYLIGHT',
        'END:VTIMEZONE',
      ),
    );
    expect(result.problems).toEqual([]);
    expect(result.records.map((r) => r.start)).toEqual([
      { kind: 'zoned', local: '2027-06-01 09:00:00', zone: 'America/New_York' },
      { kind: 'zoned', local: '2027-06-01 09:00:00', zone: 'Europe/Paris', floating: true },
    ]);
  });
});
