import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { normalizeTimezone, offsetAt, zoneInfo } from '../../src/model/timezone.ts';

describe('normalizeTimezone', () => {
  it('spells IANA names canonically whatever the case', () => {
    expect(normalizeTimezone('europe/berlin')).toBe('Europe/Berlin');
    expect(normalizeTimezone('AMERICA/NEW_YORK')).toBe('America/New_York');
    expect(normalizeTimezone(' America/Argentina/Buenos_Aires ')).toBe('America/Argentina/Buenos_Aires');
    expect(normalizeTimezone('pacific/kiritimati')).toBe('Pacific/Kiritimati');
  });

  it('keeps aliases as given, in tzdata case, instead of ICU’s target', () => {
    expect(normalizeTimezone('us/eastern')).toBe('US/Eastern');
    expect(normalizeTimezone('asia/kolkata')).toBe('Asia/Kolkata');
    expect(normalizeTimezone('Asia/Calcutta')).toBe('Asia/Calcutta');
    expect(normalizeTimezone('europe/kyiv')).toBe('Europe/Kyiv');
    expect(normalizeTimezone('etc/gmt+12')).toBe('Etc/GMT+12');
    expect(normalizeTimezone('est5edt')).toBe('EST5EDT');
    expect(normalizeTimezone('america/knox_in')).toBe('America/Knox_IN');
    expect(normalizeTimezone('chile/easterisland')).toBe('Chile/EasterIsland');
    expect(normalizeTimezone('Europe/Isle_Of_Man')).toBe('Europe/Isle_of_Man');
  });

  it('reads UTC, Z and GMT as UTC', () => {
    for (const input of ['UTC', 'utc', 'Z', 'z', 'GMT', 'UTC+0', '+00:00', '-00:00']) {
      expect(normalizeTimezone(input)).toBe('UTC');
    }
  });

  it('writes offsets as UTC±H[:MM]', () => {
    expect(normalizeTimezone('UTC+2')).toBe('UTC+2');
    expect(normalizeTimezone('utc+02')).toBe('UTC+2');
    expect(normalizeTimezone('UTC+2:30')).toBe('UTC+2:30');
    expect(normalizeTimezone('+02:00')).toBe('UTC+2');
    expect(normalizeTimezone('-03:30')).toBe('UTC-3:30');
    expect(normalizeTimezone('UTC-3:30')).toBe('UTC-3:30');
    expect(normalizeTimezone('UTC+0545')).toBe('UTC+5:45');
    expect(normalizeTimezone('UTC+5.5')).toBe('UTC+5:30');
    expect(normalizeTimezone('UTC+14')).toBe('UTC+14');
    expect(normalizeTimezone('UTC-12')).toBe('UTC-12');
  });

  it('rejects what names no zone', () => {
    const inputs = [
      'Mars/Olympus',
      '',
      '  ',
      'UTC+25',
      'UTC+14:30',
      'UTC+2:60',
      'GMT+2',
      'Factory',
      '12',
      'x',
    ];
    for (const input of inputs) expect(normalizeTimezone(input), input).toBeNull();
  });
});

describe('offsetAt', () => {
  it('gives the offsets luxon’s IANAZone gave, to the second, in every zone (issue 17: read from Intl directly)', () => {
    const DAY = 86_400_000;
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const luxon = IANAZone.create(zone);
      const info = zoneInfo(zone);
      // Local mean time (seconds), the 20th century's changes, today's DST rules, far futures.
      for (let ms = Date.UTC(1850, 0, 1); ms < Date.UTC(2100, 0, 1); ms += 997.3 * DAY) {
        const expected = Math.round(luxon.offset(ms) * 60) * 1000;
        if (offsetAt(info, ms) !== expected)
          expect({ zone, at: new Date(ms), offset: offsetAt(info, ms) }).toBe(expected);
      }
    }
  });
});
