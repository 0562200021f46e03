import { describe, expect, it } from 'vitest';
import {
  dateDetails,
  dayEnd,
  dayStart,
  formatUtcNow,
  isoWithOffset,
  localToUtc,
  parseDateInput,
  utcToLocal,
} from '../../src/model/datetime.ts';

describe('parseDateInput', () => {
  it('T066: reads a wall time in the zone (New York 19:00 EST = 00:00 UTC next day)', () => {
    expect(parseDateInput('2027-03-01 19:00:00', 'America/New_York')).toEqual({
      utc: '2027-03-02 00:00:00',
      local: '2027-03-01 19:00:00',
    });
  });

  it('T067: honours an explicit offset and converts to the zone', () => {
    expect(parseDateInput('2027-06-01T10:00:00+02:00', 'Europe/Berlin')).toEqual({
      utc: '2027-06-01 08:00:00',
      local: '2027-06-01 10:00:00',
    });
    expect(parseDateInput('2027-06-01T10:00:00+02:00', 'America/New_York')).toEqual({
      utc: '2027-06-01 08:00:00',
      local: '2027-06-01 04:00:00',
    });
  });

  it('T068: rejects free text but reads a digit string as a Unix timestamp', () => {
    expect(parseDateInput('tomorrow 9am', 'UTC')).toBeNull();
    expect(parseDateInput('1811844000', 'UTC')).toEqual({
      utc: '2027-06-01 10:00:00',
      local: '2027-06-01 10:00:00',
    });
    expect(parseDateInput('1811844000', 'Europe/Berlin')).toEqual({
      utc: '2027-06-01 10:00:00',
      local: '2027-06-01 12:00:00',
    });
  });

  it('T069: a UTC+2 wall time is 2 hours ahead of UTC', () => {
    expect(parseDateInput('2027-06-01 10:00:00', 'UTC+2')).toEqual({
      utc: '2027-06-01 08:00:00',
      local: '2027-06-01 10:00:00',
    });
  });

  it('accepts every B.6.1 format', () => {
    const berlin = (input: string) => parseDateInput(input, 'Europe/Berlin');
    expect(berlin('2027-06-01 10:00')).toEqual({ utc: '2027-06-01 08:00:00', local: '2027-06-01 10:00:00' });
    expect(berlin('2027-06-01')).toEqual({ utc: '2027-05-31 22:00:00', local: '2027-06-01 00:00:00' });
    expect(berlin('2027-06-01T10:00')?.utc).toBe('2027-06-01 08:00:00');
    expect(berlin('2027-06-01T10:00:30')?.utc).toBe('2027-06-01 08:00:30');
    expect(berlin('2027-06-01T10:00:30.999')?.utc).toBe('2027-06-01 08:00:30');
    expect(berlin('2027-06-01T08:00:00Z')?.local).toBe('2027-06-01 10:00:00');
    expect(berlin('2027-06-01T10:00:00+0200')?.utc).toBe('2027-06-01 08:00:00');
    expect(berlin('2027-06-01T10:00:00-03:30')?.utc).toBe('2027-06-01 13:30:00');
    expect(berlin('  2027-06-01 10:00:00  ')?.utc).toBe('2027-06-01 08:00:00');
  });

  it('rejects other formats and impossible dates', () => {
    const inputs = [
      '01/06/2027',
      '2027-02-30',
      '2027-13-01',
      '2027-02-29 10:00:00',
      '2027-06-01 24:00:00',
      '2027-06-01 10:60:00',
      '2027-06-01 10:00:60',
      '2027-06-01T10',
      '2027-06-01T10:00:00+02',
      '2027-06-01T10:00:00+02:60',
      '2027-06-01 10:00:00Z',
      '2027-6-1',
      '0000-00-00 00:00:00',
      '-1000',
      '1e9',
      '',
      'now',
    ];
    for (const input of inputs) expect(parseDateInput(input, 'UTC'), input).toBeNull();
  });

  it('accepts 29 February in a leap year', () => {
    expect(parseDateInput('2028-02-29', 'UTC')?.utc).toBe('2028-02-29 00:00:00');
  });

  it('moves a wall time in the New York spring-forward gap forward by the gap', () => {
    expect(parseDateInput('2027-03-14 02:30:00', 'America/New_York')).toEqual({
      utc: '2027-03-14 07:30:00',
      local: '2027-03-14 03:30:00',
    });
  });

  it('takes the first (EDT) occurrence of an ambiguous New York fall-back time', () => {
    expect(parseDateInput('2027-11-07 01:30:00', 'America/New_York')).toEqual({
      utc: '2027-11-07 05:30:00',
      local: '2027-11-07 01:30:00',
    });
    expect(utcToLocal('2027-11-07 06:30:00', 'America/New_York')).toBe('2027-11-07 01:30:00');
  });

  it('handles the extreme offsets UTC-12 (Etc/GMT+12) and UTC+14 (Pacific/Kiritimati)', () => {
    expect(parseDateInput('2027-01-01 00:00:00', 'Etc/GMT+12')?.utc).toBe('2027-01-01 12:00:00');
    expect(parseDateInput('2027-01-01 00:00:00', 'Pacific/Kiritimati')?.utc).toBe('2026-12-31 10:00:00');
    expect(parseDateInput('2027-01-01T12:00:00Z', 'Pacific/Kiritimati')?.local).toBe('2027-01-02 02:00:00');
    expect(parseDateInput('2027-01-01T11:59:59Z', 'Etc/GMT+12')?.local).toBe('2026-12-31 23:59:59');
  });

  it('applies UTC-3:30', () => {
    expect(parseDateInput('2027-06-01 10:00:00', 'UTC-3:30')?.utc).toBe('2027-06-01 13:30:00');
  });

  it('rejects results outside years 1–9999', () => {
    expect(parseDateInput('9999-12-31T23:00:00-05:00', 'UTC')).toBeNull();
    expect(parseDateInput('9999-12-31 23:00:00', 'UTC+2')).toEqual({
      utc: '9999-12-31 21:00:00',
      local: '9999-12-31 23:00:00',
    });
    expect(parseDateInput('999999999999', 'UTC')).toBeNull();
  });

  it('throws on an unknown zone', () => {
    expect(() => parseDateInput('2027-01-01', 'Mars/Olympus')).toThrow(RangeError);
  });
});

describe('localToUtc and utcToLocal', () => {
  it('convert between a zone’s wall time and UTC', () => {
    expect(localToUtc('2027-03-01 19:00:00', 'America/New_York')).toBe('2027-03-02 00:00:00');
    expect(utcToLocal('2027-03-02 00:00:00', 'America/New_York')).toBe('2027-03-01 19:00:00');
    expect(localToUtc('2027-07-01 00:00:00', 'Europe/Berlin')).toBe('2027-06-30 22:00:00');
    expect(utcToLocal('2027-06-30 22:00:00', 'Europe/Berlin')).toBe('2027-07-01 00:00:00');
    expect(localToUtc('2027-01-01 12:00:00', 'Asia/Kathmandu')).toBe('2027-01-01 06:15:00');
    expect(utcToLocal('2027-01-01 06:15:00', 'UTC+5:45')).toBe('2027-01-01 12:00:00');
  });

  it('are exact across a transition', () => {
    expect(utcToLocal('2027-03-14 06:59:59', 'America/New_York')).toBe('2027-03-14 01:59:59');
    expect(utcToLocal('2027-03-14 07:00:00', 'America/New_York')).toBe('2027-03-14 03:00:00');
    expect(utcToLocal('2027-11-07 05:59:59', 'America/New_York')).toBe('2027-11-07 01:59:59');
    expect(utcToLocal('2027-11-07 06:00:00', 'America/New_York')).toBe('2027-11-07 01:00:00');
    expect(localToUtc('2027-11-07 02:00:00', 'America/New_York')).toBe('2027-11-07 07:00:00');
  });

  it('accept a zone in any spelling normalizeTimezone accepts', () => {
    expect(localToUtc('2027-06-01 10:00:00', 'europe/berlin')).toBe('2027-06-01 08:00:00');
    expect(localToUtc('2027-06-01 10:00:00', '+02:00')).toBe('2027-06-01 08:00:00');
  });

  it('pass WordPress’s zero date through', () => {
    expect(localToUtc('0000-00-00 00:00:00', 'Europe/Berlin')).toBe('0000-00-00 00:00:00');
    expect(utcToLocal('0000-00-00 00:00:00', 'Europe/Berlin')).toBe('0000-00-00 00:00:00');
  });

  it('handle years before 100 and local mean time', () => {
    expect(utcToLocal('0050-06-01 12:00:00', 'UTC+2')).toBe('0050-06-01 14:00:00');
    expect(utcToLocal('1850-01-01 12:00:00', 'America/New_York')).toBe('1850-01-01 07:03:58');
  });

  it('throw on anything but the wire format', () => {
    expect(() => utcToLocal('2027-06-01T10:00:00', 'UTC')).toThrow(RangeError);
    expect(() => localToUtc('2027-06-01', 'UTC')).toThrow(RangeError);
  });
});

describe('isoWithOffset', () => {
  it('writes a wall time with its offset for JSON-LD', () => {
    expect(isoWithOffset('2027-03-01 19:00:00', 'America/New_York')).toBe('2027-03-01T19:00:00-05:00');
    expect(isoWithOffset('2027-07-01 19:00:00', 'America/New_York')).toBe('2027-07-01T19:00:00-04:00');
    expect(isoWithOffset('2026-11-21 00:00:00', 'UTC')).toBe('2026-11-21T00:00:00+00:00');
    expect(isoWithOffset('2027-06-01 10:00:00', 'UTC-3:30')).toBe('2027-06-01T10:00:00-03:30');
    expect(isoWithOffset('2027-06-01 10:00:00', 'Asia/Kathmandu')).toBe('2027-06-01T10:00:00+05:45');
  });
});

describe('small helpers', () => {
  it('dateDetails slices zero-padded strings (A.5)', () => {
    expect(dateDetails('2027-03-01 19:00:00')).toEqual({
      year: '2027',
      month: '03',
      day: '01',
      hour: '19',
      minutes: '00',
      seconds: '00',
    });
  });

  it('formatUtcNow writes a Date in UTC without milliseconds', () => {
    expect(formatUtcNow(new Date(Date.UTC(2026, 10, 21, 23, 44, 25, 999)))).toBe('2026-11-21 23:44:25');
  });

  it('dayStart and dayEnd keep the day', () => {
    expect(dayStart('2027-03-03 15:20:00')).toBe('2027-03-03 00:00:00');
    expect(dayEnd('2027-03-03 15:20:00')).toBe('2027-03-03 23:59:59');
  });
});
