// What the CSV reader takes without configuration because the file itself says enough: the date order
// settled by one value over 12 for the whole file, a first row that is an event, `|` and UTF-16 files,
// an RRULE column expanded like .ics, and the flag named by each problem a flag can fix.

import { describe, expect, it } from 'vitest';
import { codes, readText } from './helpers.ts';

const WINDOW = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };

describe('date order settled by the file', () => {
  it('a later 19/11 settles day-first for the rows before it, held until then', async () => {
    const result = await readText('Title,Date\nA,03/04/2027\nB,05/06/2027\nC,19/11/2027\nD,01/02/2027\n');
    expect(result.problems).toEqual([]);
    expect(result.records.map((r) => [r.title, r.start])).toEqual([
      ['A', { kind: 'date', date: '2027-04-03' }],
      ['B', { kind: 'date', date: '2027-06-05' }],
      ['C', { kind: 'date', date: '2027-11-19' }],
      ['D', { kind: 'date', date: '2027-02-01' }],
    ]);
  });

  it('11/19/14 settles month-first, with the two-digit year as 2014', async () => {
    const result = await readText('Subject,Start Date,Start Time\nA,11/19/14,7:00 PM\nB,12/01/14,8:00 PM\n');
    expect(result.records.map((r) => r.start)).toEqual([
      { kind: 'floating', local: '2014-11-19 19:00:00' },
      { kind: 'floating', local: '2014-12-01 20:00:00' },
    ]);
  });

  it('a file no value settles reports each date as ambiguous, naming --date-format', async () => {
    const result = await readText('Title,Date\nA,03/04/2027\nB,05/06/2027\n');
    expect(result.records).toEqual([]);
    expect(codes(result)).toEqual(['csv_ambiguous_date@2', 'csv_ambiguous_date@3']);
    expect(result.problems[0].message).toContain('--date-format DD/MM/YYYY or MM/DD/YYYY');
  });

  it('--date-format wins over what the file suggests', async () => {
    const result = await readText('Title,Date\nA,03/04/2027\n', { dateFormat: 'MM/DD/YYYY' });
    expect(result.records[0].start).toEqual({ kind: 'date', date: '2027-03-04' });
  });
});

describe('a file without a header row', () => {
  it('is detected when its first row holds a date, and read from its content', async () => {
    const result = await readText(
      'Sa 12.04.2025;15:00;FC Nord - SV Süd;Sportplatz Nord\nSo 13.04.2025;11:00;FC Nord II - TSV;Halle\n',
    );
    expect(result.records.map((r) => [r.title, r.start, r.venue?.name])).toEqual([
      ['FC Nord - SV Süd', { kind: 'floating', local: '2025-04-12 15:00:00' }, 'Sportplatz Nord'],
      ['FC Nord II - TSV', { kind: 'floating', local: '2025-04-13 11:00:00' }, 'Halle'],
    ]);
    expect(codes(result)).toEqual(['csv_no_header@1']);
    expect(result.problems[0].message).toContain('start_date=1,start_time=2,title=3,venue_name=4');
  });

  it('with header: false, columns are named by position', async () => {
    const result = await readText('x,Concert,2027-05-01\n', {
      header: false,
      columns: { title: '2', start_date: '3' },
    });
    expect(result.records.map((r) => r.title)).toEqual(['Concert']);
    expect(result.problems).toEqual([]);
  });
});

describe('delimiters, encodings and the flags that fix them', () => {
  it('reads a |-delimited file', async () => {
    const result = await readText('Title|Start Date|Venue\nA|2027-05-01|Hall, upstairs\n');
    expect(result.records[0]).toMatchObject({ title: 'A', venue: { name: 'Hall, upstairs' } });
  });

  it('reads UTF-16LE with a BOM (Excel "Unicode Text", tab-separated)', async () => {
    const text = 'Betreff\tBeginnt am\tBeginnt um\nKonzert für Bläser\t10.05.2024\t19:30\n';
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { readCsv } = await import('../../../src/sources/csv/index.ts');
    const result = await readCsv(bytes, { file: 'u16.csv' });
    expect(result.records.map((r) => [r.title, r.start])).toEqual([
      ['Konzert für Bläser', { kind: 'floating', local: '2024-05-10 19:30:00' }],
    ]);
  });

  it('names --delimiter when the header did not split, and --columns when names are unknown', async () => {
    const split = await readText('Title;Start Date;Venue\nA;2027-05-01;Hall\n', { delimiter: ',' });
    expect(split.problems[0].message).toContain('pass --delimiter ";"');
    const names = await readText('Was,Wann\nA,2027-05-01\n');
    expect(names.problems[0].message).toContain('pass --columns title=<header>,start_date=<header>');
  });

  it('names --encoding when the bytes are not UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('Title,Date\nCaf'),
      Buffer.from([0xe9]),
      Buffer.from(',2027-05-01\n'),
    ]);
    const { readCsv } = await import('../../../src/sources/csv/index.ts');
    const result = await readCsv(bytes, { file: 'x.csv', encoding: 'utf-8' });
    expect(result.problems[0].message).toContain('--encoding windows-1252');
  });
});

describe('an RRULE column', () => {
  it('expands a series like .ics, with one record per occurrence keyed by its instance', async () => {
    const result = await readText(
      'Title,Start Date,Start Time,End Time,Time Zone,RRULE\nYoga,2027-03-22,18:00,19:00,Europe/Berlin,FREQ=WEEKLY;COUNT=3\n',
      { window: WINDOW },
    );
    expect(result.problems).toEqual([]);
    // Across the DST change of 28 March the wall time stays 18:00.
    expect(result.records.map((r) => [r.start, r.instance])).toEqual([
      [{ kind: 'zoned', local: '2027-03-22 18:00:00', zone: 'Europe/Berlin' }, '2027-03-22T17:00:00Z'],
      [{ kind: 'zoned', local: '2027-03-29 18:00:00', zone: 'Europe/Berlin' }, '2027-03-29T16:00:00Z'],
      [{ kind: 'zoned', local: '2027-04-05 18:00:00', zone: 'Europe/Berlin' }, '2027-04-05T16:00:00Z'],
    ]);
    expect(new Set(result.records.map((r) => r.key)).size).toBe(3);
    expect(result.records[1].end).toEqual({
      kind: 'zoned',
      local: '2027-03-29 19:00:00',
      zone: 'Europe/Berlin',
    });
  });

  it('reads a row with a bad rule as one event and warns', async () => {
    const result = await readText('Title,Date,RRULE\nA,2027-05-01,every tuesday\n', { window: WINDOW });
    expect(result.records).toHaveLength(1);
    expect(codes(result)).toEqual(['csv_bad_rrule@2']);
  });
});

describe('Outlook rows', () => {
  it('reads midnight to midnight as all-day, unless all_day says no', async () => {
    const result = await readText(
      'Subject,Start Date,Start Time,End Date,End Time,All day event\nA,2027-07-01,00:00,2027-07-03,00:00,\nB,2027-07-01,00:00,2027-07-02,00:00,False\n',
    );
    expect(result.records.map((r) => [r.start, r.end])).toEqual([
      [
        { kind: 'date', date: '2027-07-01' },
        { kind: 'date', date: '2027-07-03' },
      ],
      [
        { kind: 'floating', local: '2027-07-01 00:00:00' },
        { kind: 'floating', local: '2027-07-02 00:00:00' },
      ],
    ]);
  });
});
