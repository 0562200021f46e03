import { describe, expect, it } from 'vitest';
import { CsvOptionsError, readCsv } from '../../../src/sources/csv/index.ts';
import { codes, fixtureBytes, inChunks, readFixture, readText } from './helpers.ts';

describe('readCsv with The Events Calendar importer keys', () => {
  it('reads every TEC column of a timed event into the record', async () => {
    const result = await readFixture('tec-keys.csv');
    const jazz = result.records[0];
    expect(jazz).toMatchObject({
      origin: { file: 'tec-keys.csv', line: 2 },
      title: 'Jazz Night',
      description: '<p>Live <b>jazz</b> with the trio.</p>',
      excerpt: 'Live jazz',
      start: { kind: 'zoned', local: '2027-03-04 19:30:00', zone: 'Europe/Berlin' },
      end: { kind: 'zoned', local: '2027-03-04 22:00:00', zone: 'Europe/Berlin' },
      venue: {
        name: 'Blue Note Club',
        address: 'Hauptstr. 1',
        city: 'Berlin',
        province: 'Berlin',
        zip: '10115',
        country: 'Germany',
      },
      organizers: [{ name: 'Anna Weber', email: 'anna@example.org', phone: '+49 30 123' }],
      categories: ['Music', 'Jazz'],
      tags: ['live', 'late night'],
      cost: '€25',
      url: 'https://example.org/jazz',
      image: 'https://example.org/jazz.jpg',
      featured: true,
    });
    expect(jazz.key).toMatch(/^row-[0-9a-f]{16}$/);
  });

  it('reads an all-day row as dates with an exclusive end after the end date', async () => {
    const fair = (await readFixture('tec-keys.csv')).records[1];
    expect(fair.start).toEqual({ kind: 'date', date: '2027-04-10' });
    expect(fair.end).toEqual({ kind: 'date', date: '2027-04-12' });
  });

  it('gives several organizer names one organizer each and warns that their e-mail is not applied', async () => {
    const result = await readFixture('tec-keys.csv');
    expect(result.records[1].organizers).toEqual([{ name: 'Town Council' }, { name: 'Market Guild' }]);
    expect(codes(result)).toEqual(['csv_organizer_details_ignored@3']);
  });

  it('reads a lower-case zone name in canonical case and ends a row without end time at its start', async () => {
    const meeting = (await readFixture('tec-keys.csv')).records[2];
    expect(meeting.start).toEqual({ kind: 'zoned', local: '2027-05-02 09:00:00', zone: 'America/New_York' });
    expect(meeting.end).toEqual(meeting.start);
    expect(meeting.cost).toBe('$10-20'); // the symbol goes before a number or a range of two
    expect(meeting.venue).toBeUndefined();
  });
});

describe('readCsv with spreadsheet headers', () => {
  it('maps human headers such as "Title", "Start Date" and "Venue" without configuration', async () => {
    const result = await readFixture('human-headers.csv');
    expect(result.records.map((r) => r.title)).toEqual(['Poetry Slam', 'Book Fair']);
    expect(result.records[0]).toMatchObject({
      description: 'Open mic',
      start: { kind: 'floating', local: '2027-06-01 20:00:00' },
      end: { kind: 'floating', local: '2027-06-01 22:30:00' },
      venue: { name: 'Lyric Hall', address: '5 Main St', city: 'Springfield' },
      organizers: [{ name: 'Jo Poet' }],
      categories: ['Literature', 'Stage'],
      tags: ['open mic'],
      cost: '5',
      url: 'https://example.org/slam',
    });
    expect(result.records[1].end).toEqual({ kind: 'date', date: '2027-06-08' });
  });

  it('warns once about a header that matches no field and reads the rest', async () => {
    const result = await readFixture('human-headers.csv');
    expect(codes(result)).toEqual(['csv_unknown_column@1']);
    expect(result.problems[0].message).toContain('"Notes"');
  });

  it('matches headers regardless of case, spaces and underscores', async () => {
    const result = await readText('EVENT NAME,Event-Start-Date,event start TIME\nGala,2027-01-01,20:00\n');
    expect(result.records[0]).toMatchObject({ title: 'Gala', start: { local: '2027-01-01 20:00:00' } });
  });

  it('uses an explicit column mapping, which wins over the aliases', async () => {
    const text = 'Name,Headline,Wann,Location\nignored,Sommerfest,2027-07-01,Park\n';
    const result = await readText(text, { columns: { title: 'headline', start_date: 'WANN' } });
    expect(result.records[0]).toMatchObject({ title: 'Sommerfest', venue: { name: 'Park' } });
    expect(result.records[0].start).toEqual({ kind: 'date', date: '2027-07-01' });
  });

  it('reports one missing-column error naming the headers found when no title or start column exists', async () => {
    const result = await readText('Name,When\nGala,2027-01-01\nBall,2027-01-02\n');
    expect(result.records).toEqual([]);
    expect(codes(result)).toEqual(['csv_missing_column@1']);
    expect(result.problems[0].field).toBe('start_date');
    expect(result.problems[0].message).toContain('"When"');
  });

  it('reads start and end time columns holding dates as the dates, and reports times without dates as before', async () => {
    const dated = await readText('Title,Start Time,End Time\nGala,2027-01-01 19:00,2027-01-01 23:00\n');
    expect(dated.problems).toEqual([]);
    expect(dated.records[0]).toMatchObject({
      start: { kind: 'floating', local: '2027-01-01 19:00:00' },
      end: { kind: 'floating', local: '2027-01-01 23:00:00' },
    });
    for (const text of ['Title,Start Time\nGala,19:00\nBall,20:00\n', 'Title,Start Time\n']) {
      const timesOnly = await readText(text);
      expect(timesOnly.records).toEqual([]);
      expect(codes(timesOnly)).toEqual(['csv_missing_column@1']);
      expect(timesOnly.problems[0].message).toContain('pass --columns');
    }
  });

  it('reports an empty file as missing its columns', async () => {
    expect(codes(await readText(''))).toEqual(['csv_missing_column@1']);
    expect(codes(await readText('\uFEFF\r\n'))).toEqual(['csv_missing_column@1']);
  });

  it('rejects a mapping to a field that does not exist before reading', async () => {
    const columns = { titel: 'Titel' } as unknown as Record<string, string>;
    await expect(readText('a\n1\n', { columns })).rejects.toBeInstanceOf(CsvOptionsError);
  });
});

describe('readCsv with files from Excel', () => {
  it('reads a ;-separated UTF-8 file with BOM and CRLF lines from a German Excel', async () => {
    const columns = {
      title: 'Titel',
      start_date: 'Beginn',
      start_time: 'Uhrzeit',
      venue_name: 'Ort',
      cost: 'Preis',
    } as const;
    const result = await readFixture('excel-semicolon-bom.csv', { columns });
    expect(result.problems).toEqual([]);
    expect(result.records.map((r) => [r.origin.line, r.title, r.venue?.name, r.cost])).toEqual([
      [2, 'Weinfest', 'Marktplatz', '12,50'],
      [3, 'Konzert am Dom', 'Dom', undefined],
    ]);
    expect(result.records[0].start).toEqual({ kind: 'floating', local: '2027-09-03 18:00:00' });
  });

  it('finds the first header despite the BOM before it', async () => {
    const result = await readText('\uFEFFevent_name;event_start_date\nA;2027-01-01\n');
    expect(result.records.map((r) => r.title)).toEqual(['A']);
  });

  it('reads tab-separated text', async () => {
    const result = await readText('Title\tStart Date\tVenue\nA, B and C\t2027-01-01\tHall\n');
    expect(result.records[0]).toMatchObject({ title: 'A, B and C', venue: { name: 'Hall' } });
  });

  it('reads Windows-1252 bytes ("Café" with 0xE9) when the file is not UTF-8', async () => {
    const bytes = fixtureBytes('windows-1252.csv');
    expect(bytes.includes(0xe9)).toBe(true);
    const result = await readCsv(bytes, { file: 'windows-1252.csv' });
    expect(result.records.map((r) => [r.title, r.venue?.name, r.cost])).toEqual([
      ['Café Concert', 'Café Müller', '€10'],
      ['Soirée', 'Théâtre', undefined],
    ]);
    expect(result.problems).toEqual([]);
  });
});

describe('readCsv line numbers and bad rows', () => {
  it('counts the lines of quoted newlines, LF or CRLF, so later rows keep their true line', async () => {
    const result = await readFixture('quoted-newlines.csv');
    expect(result.records.map((r) => [r.title, r.origin.line])).toEqual([
      ['Workshop', 2],
      ['Talk', 5],
      ['Dinner', 7],
      ['Party', 10],
    ]);
    expect(result.records[0].description).toBe('Line one\nLine two\nLine three');
    expect(codes(result)).toEqual(['csv_bad_date@6']);
  });

  it('counts a cell holding nothing but a line break', async () => {
    const result = await readText(
      'Title,Start Date,Notes\nA,2027-01-01,"\n"\nB,2027-01-02,"\r"\nC,2027-01-03,\n',
    );
    expect(result.records.map((r) => r.origin.line)).toEqual([2, 4, 6]);
  });

  it('reports each bad row with its line and field and reads the good ones', async () => {
    const result = await readFixture('bad-rows.csv');
    // A row with fewer cells than the header is read with the missing ones empty, as TEC's importer does.
    expect(result.records.map((r) => r.title)).toEqual(['Good One', 'Too Few', 'Good Two']);
    expect(result.problems.map((p) => [p.code, p.origin.line, p.field, p.severity])).toEqual([
      ['csv_missing_title', 3, 'title', 'error'],
      ['csv_missing_start', 4, 'start_date', 'error'],
      ['csv_bad_time', 5, 'start_time', 'error'],
      ['csv_bad_timezone', 6, 'timezone', 'error'],
      ['csv_end_before_start', 8, 'end_date', 'error'],
      ['csv_duplicate_key', 9 + 1, 'title', 'error'],
    ]);
    expect(result.problems[3].message).toMatch(/^bad-rows\.csv:6: /);
  });

  it('reads rows with extra cells and reports them once for the file, not per row', async () => {
    const result = await readText(
      'Title,Start Date\nA,2027-01-10,extra\nB,2027-01-11\nC,2027-01-12,more,and more\nD,2027-01-13,,\n',
    );
    expect(result.records.map((r) => r.title)).toEqual(['A', 'B', 'C', 'D']);
    expect(codes(result)).toEqual(['csv_column_count@2']);
    expect(result.problems[0]).toMatchObject({ severity: 'warning' });
    expect(result.problems[0].message).toContain(
      "2 rows have more cells than the header's 2 (first at line 2)",
    );
  });

  it('reads a UTC offset zone and the default zone for rows without one', async () => {
    const text = 'Title,Start Date,Start Time,Timezone\nA,2027-01-01,10:00,UTC+2\nB,2027-01-01,11:00,\n';
    const result = await readText(text, { defaultZone: 'europe/paris' });
    expect(result.records.map((r) => r.start)).toEqual([
      { kind: 'zoned', local: '2027-01-01 10:00:00', zone: 'UTC+2' },
      { kind: 'zoned', local: '2027-01-01 11:00:00', zone: 'Europe/Paris' },
    ]);
  });

  it('reports a quote that is never closed at the line it opens, after reading the rows before it', async () => {
    const text = 'Title,Start Date\nA,2027-01-01\n"B\nC,2027-01-02\n';
    const result = await readText(text);
    expect(result.records.map((r) => r.title)).toEqual(['A']);
    expect(codes(result)).toEqual(['csv_bad_row@3']);
  });

  it('skips empty lines and delimiter-only lines but counts them', async () => {
    const result = await readText('Title,Start Date\n\nA,2027-01-01\n,\n\nB,2027-01-02\n');
    expect(result.records.map((r) => [r.title, r.origin.line])).toEqual([
      ['A', 3],
      ['B', 6],
    ]);
    expect(result.problems).toEqual([]);
  });
});

describe('readCsv dates', () => {
  it('refuses an ambiguous slash date without date_format and says which setting fixes it', async () => {
    const result = await readFixture('slash-dates.csv');
    expect(result.records.map((r) => r.title)).toEqual(['Festival']);
    expect(codes(result)).toEqual(['csv_ambiguous_date@2', 'csv_ambiguous_date@2']);
    expect(result.problems[0].message).toContain('date_format');
  });

  it('reads slash dates day first with dateFormat DD/MM/YYYY, ISO dates still as ISO', async () => {
    const result = await readFixture('slash-dates.csv', { dateFormat: 'DD/MM/YYYY' });
    expect(result.problems).toEqual([]);
    expect(result.records.map((r) => [r.start, r.end])).toEqual([
      [
        { kind: 'date', date: '2027-04-03' },
        { kind: 'date', date: '2027-04-06' },
      ],
      [
        { kind: 'date', date: '2027-04-20' },
        { kind: 'date', date: '2027-04-21' },
      ],
    ]);
  });

  it('reads the same dates month first with dateFormat MM/DD/YYYY', async () => {
    const result = await readFixture('slash-dates.csv', { dateFormat: 'MM/DD/YYYY' });
    expect(result.records[0].start).toEqual({ kind: 'date', date: '2027-03-04' });
  });

  it('makes a row all-day when all_day says yes, whatever its times', async () => {
    const text =
      'event_name,event_start_date,event_start_time,event_end_time,event_all_day\nA,2027-01-01,10:00,12:00,TRUE\n';
    const result = await readText(text);
    expect([result.records[0].start, result.records[0].end]).toEqual([
      { kind: 'date', date: '2027-01-01' },
      { kind: 'date', date: '2027-01-02' },
    ]);
  });

  it('reads a time written inside the date cell', async () => {
    const result = await readText('Title,Start,End\nA,2027-01-01T09:15,2027-01-01 5:45 pm\n', {
      defaultZone: 'UTC',
    });
    expect([result.records[0].start, result.records[0].end]).toEqual([
      { kind: 'zoned', local: '2027-01-01 09:15:00', zone: 'UTC' },
      { kind: 'zoned', local: '2027-01-01 17:45:00', zone: 'UTC' },
    ]);
  });

  it('rejects an unknown date format before reading', async () => {
    await expect(readText('a\n1\n', { dateFormat: 'D/M/YY' })).rejects.toBeInstanceOf(CsvOptionsError);
  });
});

describe('readCsv identity', () => {
  it('keys rows by the id column when there is one', async () => {
    const result = await readText(
      'id,Title,Start Date\nev-1,A,2027-01-01\nev-2,A,2027-01-01\nev-1,B,2027-01-03\n',
    );
    expect(result.records.map((r) => r.key)).toEqual(['id:ev-1', 'id:ev-2']);
    expect(codes(result)).toEqual(['csv_duplicate_key@4']);
  });

  it('keys rows without id by title and start, ignoring case and spacing of the title', async () => {
    const one = await readText('Title,Start Date\nJazz  Night,2027-01-01\n');
    const two = await readText('Description,Title,Start Date\nchanged text, jazz night ,2027-01-01\n');
    const later = await readText('Title,Start Date\nJazz Night,2027-01-08\n');
    expect(one.records[0].key).toBe(two.records[0].key);
    expect(one.records[0].key).not.toBe(later.records[0].key);
  });
});

describe('readCsv streaming', () => {
  it('reads the same records from 1-, 3- and 7-byte chunks as from one buffer', async () => {
    for (const name of [
      'tec-keys.csv',
      'windows-1252.csv',
      'quoted-newlines.csv',
      'excel-semicolon-bom.csv',
    ]) {
      const bytes = fixtureBytes(name);
      const options = {
        file: name,
        columns: name.startsWith('excel') ? { title: 'Titel', start_date: 'Beginn' } : {},
      };
      const whole = await readCsv(bytes, options);
      expect(whole.records.length).toBeGreaterThan(0);
      for (const size of [1, 3, 7]) {
        expect(await readCsv(inChunks(bytes, size), options)).toEqual(whole);
      }
    }
  });

  it('reads 10,000 rows streamed from memory in 64 KiB chunks', async () => {
    const lines = [
      'event_name,event_start_date,event_start_time,event_end_time,event_venue_name,event_category',
    ];
    for (let n = 0; n < 10_000; n++) {
      const day = String((n % 28) + 1).padStart(2, '0');
      lines.push(`Event ${n},2027-02-${day},18:00,20:00,"Hall ${n % 50}","Music, Talks"`);
    }
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const result = await readCsv(inChunks(bytes, 65_536), { file: 'big.csv' });
    expect(result.problems).toEqual([]);
    expect(result.records).toHaveLength(10_000);
    expect(result.records[9_999]).toMatchObject({ title: 'Event 9999', origin: { line: 10_001 } });
  });
});
