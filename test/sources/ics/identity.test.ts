import { describe, expect, it } from 'vitest';
import { calendar, read, vevent } from './helpers.ts';

describe('readIcs keys', () => {
  it('keys a single event by its UID and points at its BEGIN:VEVENT line', () => {
    const result = read(
      calendar(...vevent('UID:concert-1@example.org', 'DTSTART:20270301T180000Z', 'SUMMARY:Concert')),
    );
    expect(result.records).toHaveLength(1);
    expect(result.records[0]).toMatchObject({
      key: 'concert-1@example.org',
      uid: 'concert-1@example.org',
      origin: { file: 'test.ics', line: 4 },
    });
    expect(result.records[0].instance).toBeUndefined();
  });

  it('keys each occurrence of a series by UID and UTC occurrence start', () => {
    const result = read(
      calendar(
        ...vevent('UID:club', 'DTSTART;TZID=Europe/Berlin:20270301T190000', 'RRULE:FREQ=WEEKLY;COUNT=2'),
      ),
    );
    expect(result.records.map((r) => r.key)).toEqual(['club@20270301T180000Z', 'club@20270308T180000Z']);
    expect(result.records[0].instance).toBe('2027-03-01T18:00:00Z');
  });

  it('keys occurrences of an all-day series by date', () => {
    const result = read(
      calendar(...vevent('UID:fair', 'DTSTART;VALUE=DATE:20270301', 'RRULE:FREQ=DAILY;COUNT=2')),
    );
    expect(result.records.map((r) => r.key)).toEqual(['fair@20270301', 'fair@20270302']);
  });

  it('gives a UID-less VEVENT the same nouid- key on every read, and different events different keys', () => {
    const text = calendar(
      ...vevent('DTSTART:20270301T180000Z', 'SUMMARY:Open mic', 'LOCATION:Cafe'),
      ...vevent('DTSTART:20270301T180000Z', 'SUMMARY:Open mic', 'LOCATION:Library'),
    );
    const first = read(text).records.map((r) => r.key);
    const second = read(text).records.map((r) => r.key);
    expect(first).toEqual(second);
    expect(first[0]).toMatch(/^nouid-[0-9a-f]{16}$/);
    expect(first[0]).not.toBe(first[1]);
  });

  it('keeps the higher SEQUENCE of two VEVENTs with the same UID and warns', () => {
    const result = read(
      calendar(
        ...vevent('UID:dup', 'SEQUENCE:2', 'DTSTART:20270301T180000Z', 'SUMMARY:New title'),
        ...vevent('UID:dup', 'SEQUENCE:1', 'DTSTART:20270301T180000Z', 'SUMMARY:Old title'),
      ),
    );
    expect(result.records.map((r) => r.title)).toEqual(['New title']);
    expect(result.problems).toMatchObject([
      { code: 'ics_duplicate', severity: 'warning', origin: { line: 10 } },
    ]);
  });
});
