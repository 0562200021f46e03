import { describe, expect, it } from 'vitest';
import { readIcs } from '../../../src/sources/ics/index.ts';
import { calendar, read, vevent, YEAR_2027 } from './helpers.ts';

describe('readIcs on files real software writes', () => {
  it('drops a VEVENT without DTSTART with an error naming line, UID and field, and reads the rest', () => {
    const result = read(
      calendar(
        ...vevent('UID:good-1', 'DTSTART:20270301T180000Z'),
        ...vevent('UID:broken', 'SUMMARY:No start'),
        ...vevent('UID:good-2', 'DTSTART:20270302T180000Z'),
      ),
    );
    expect(result.records.map((r) => r.key)).toEqual(['good-1', 'good-2']);
    expect(result.problems).toMatchObject([
      {
        code: 'ics_no_dtstart',
        severity: 'error',
        uid: 'broken',
        field: 'DTSTART',
        origin: { file: 'test.ics', line: 8 },
      },
    ]);
  });

  it('drops VEVENTs with an impossible date or an end before the start', () => {
    const result = read(
      calendar(
        ...vevent('UID:bad-date', 'DTSTART:20270230T180000Z'),
        ...vevent('UID:backwards', 'DTSTART:20270301T180000Z', 'DTEND:20270301T170000Z'),
        ...vevent('UID:ok', 'DTSTART:20270301T180000Z'),
      ),
    );
    expect(result.records.map((r) => r.key)).toEqual(['ok']);
    expect(result.problems.map((p) => [p.code, p.uid, p.field, p.origin.line])).toEqual([
      ['ics_bad_date', 'bad-date', 'DTSTART', 6],
      ['ics_end_before_start', 'backwards', 'DTEND', 11],
    ]);
  });

  it('salvages the complete VEVENTs of a truncated file and reports an error (nothing may be deleted)', () => {
    const text = calendar(
      ...vevent('UID:one', 'DTSTART:20270301T180000Z'),
      ...vevent('UID:two', 'DTSTART:20270302T180000Z'),
    );
    const cut = text.slice(0, text.indexOf('UID:two') + 5);
    const result = read(cut);
    expect(result.records.map((r) => r.key)).toEqual(['one']);
    expect(result.problems).toMatchObject([
      { code: 'ics_truncated', severity: 'error', origin: { line: 8 } },
    ]);
  });

  it('imports a VEVENT without SUMMARY (optional in RFC 5545) with the placeholder title and a warning', () => {
    const result = readIcs(
      new TextEncoder().encode(
        calendar(
          ...vevent('UID:untitled', 'DTSTART:20270301T180000Z'),
          ...vevent('UID:blank', 'DTSTART:20270302T180000Z', 'SUMMARY: '),
        ),
      ),
      { file: 'untitled.ics', window: YEAR_2027 },
    );
    expect(result.records.map((r) => r.title)).toEqual(['(No title)', '(No title)']);
    expect(result.problems.map((p) => [p.code, p.severity, p.uid, p.origin.line])).toEqual([
      ['ics_no_summary', 'warning', 'untitled', 4],
      ['ics_no_summary', 'warning', 'blank', 8],
    ]);
  });

  it('decodes UTF-16LE and UTF-16BE files with a BOM', () => {
    const text = calendar(...vevent('UID:u16', 'DTSTART:20270301T180000Z', 'SUMMARY:Café über'));
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from(text, 'utf16le')]);
    const be = new Uint8Array([0xfe, 0xff, ...Buffer.from(text, 'utf16le').swap16()]);
    for (const bytes of [le, be]) {
      const result = readIcs(bytes, { file: 'u16.ics', window: YEAR_2027 });
      expect(result.records.map((r) => r.title)).toEqual(['Café über']);
      expect(result.problems).toEqual([]);
    }
  });

  it('joins a multi-byte UTF-8 character that a fold at 75 octets split, keeping every line number', () => {
    // "Café €5": a fold after the first byte of é (2 bytes) with CRLF, after two bytes of € (3) with LF.
    const enc = (s: string) => [...Buffer.from(s, 'utf8')];
    const e = enc('é');
    const euro = enc('€');
    const text = [
      ...enc('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:split\r\nDTSTART:20270301T180000Z\r\nSUMMARY:Caf'),
      e[0],
      ...enc('\r\n '),
      e[1],
      ...enc(' '),
      euro[0],
      euro[1],
      ...enc('\n\t'),
      euro[2],
      ...enc('5\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:next\r\nDTSTART:20270302T180000Z\r\n'),
      ...enc('SUMMARY:Plain\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'),
    ];
    const result = readIcs(new Uint8Array(text), { file: 'split.ics', window: YEAR_2027 });
    expect(result.records.map((r) => [r.title, r.origin.line])).toEqual([
      ['Café €5', 2],
      ['Plain', 9],
    ]);
    expect(result.problems).toEqual([]);
  });

  it('reads a truncated UTF-16 file up to its last complete VEVENT', () => {
    const text = calendar(...vevent('UID:a', 'DTSTART:20270301T180000Z'), ...vevent('UID:b', 'DTSTART:2027'));
    const bytes = new Uint8Array([
      0xff,
      0xfe,
      ...Buffer.from(text.slice(0, text.lastIndexOf('DTSTART:2027') + 10), 'utf16le'),
    ]);
    const result = readIcs(bytes.subarray(0, bytes.length - 1), { file: 'cut.ics', window: YEAR_2027 });
    expect(result.records.map((r) => r.key)).toEqual(['a']);
    expect(result.problems.map((p) => p.code)).toEqual(['ics_no_summary', 'ics_truncated']);
  });

  it('repairs an unfolded continuation line and reports it with its line', () => {
    const result = read(
      calendar(
        ...vevent(
          'UID:fold',
          'DTSTART:20270301T180000Z',
          'DESCRIPTION:First line',
          'second line: with colon',
        ),
      ),
    );
    expect(result.records[0].description).toBe('First line\nsecond line: with colon');
    expect(result.problems).toMatchObject([
      { code: 'ics_repaired_line', severity: 'warning', origin: { line: 8 } },
    ]);
  });

  it('repairs a quoted TZID that swallowed its value, blanks in an RRULE and 8-digit dates without VALUE=DATE', () => {
    const result = read(
      calendar(
        ...vevent('UID:q', 'DTSTART;TZID="Europe/Berlin:20270301T190000"'),
        ...vevent('UID:r', 'DTSTART:20270301T100000Z', 'RRULE:FREQ=DAILY; COUNT=2'),
        ...vevent('UID:d', 'DTSTART:20270301'),
      ),
    );
    expect(result.records.map((r) => [r.key, r.start])).toEqual([
      ['q', { kind: 'zoned', local: '2027-03-01 19:00:00', zone: 'Europe/Berlin' }],
      ['r@20270301T100000Z', { kind: 'zoned', local: '2027-03-01 10:00:00', zone: 'UTC' }],
      ['r@20270302T100000Z', { kind: 'zoned', local: '2027-03-02 10:00:00', zone: 'UTC' }],
      ['d', { kind: 'date', date: '2027-03-01' }],
    ]);
    expect(result.problems.map((p) => [p.code, p.origin.line])).toEqual([
      ['ics_repaired_line', 6],
      ['ics_repaired_line', 11],
      ['ics_repaired_line', 15],
    ]);
  });

  it('reads a bad RRULE as a single event with a warning', () => {
    const result = read(calendar(...vevent('UID:rr', 'DTSTART:20270301T100000Z', 'RRULE:FREQ=SOMETIMES')));
    expect(result.records.map((r) => r.key)).toEqual(['rr']);
    expect(result.problems).toMatchObject([{ code: 'ics_bad_rrule', severity: 'warning', field: 'RRULE' }]);
  });
});
