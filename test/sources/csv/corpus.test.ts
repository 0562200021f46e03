// The CSV corpus (test/fixtures/csv/corpus, see its README.md): files in the styles of Outlook, Google
// Calendar, Apple Numbers, Excel and LibreOffice in English, German, French, Italian and Spanish locales
// (`,` `;` tab `|`; UTF-8 with and without BOM, Windows-1252, UTF-16), TEC's export and import formats,
// meetup-style and sports-club lists, each with the events it must give. Each reads with no options, or
// with exactly the flag that the problem of its reading without options names. Parse only (fast).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CsvOptions, readCsv } from '../../../src/sources/csv/index.ts';
import { readLinkedCsv } from '../../../src/sources/csv/linked.ts';
import type { TimeValue } from '../../../src/sources/record.ts';

const CORPUS = join(import.meta.dirname, '../../fixtures/csv/corpus');
const WINDOW = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };

interface Style {
  /** The flag a user passes (as `npm run import` names it) and the option it sets; none: no options. */
  flag?: { name: string; options: Partial<CsvOptions> };
  /** `title | start | end | venue`: a date, or a wall time (with its zone when the row names one). */
  events: string[];
  /** Problem codes of the reading with the flag (warnings that tell the user something). */
  problems?: string[];
}

// biome-ignore format: one event per line
const CORPUS_STYLES: Record<string, Style> = {
  'outlook-en-us.csv': { events: [
    'Board meeting | 2027-03-04 19:00 | 2027-03-04 21:00 | Café Central',
    'Spring fair | 2027-03-20 | 2027-03-22 | Town square',
    'Dentist | 2027-04-13 08:30 | 2027-04-13 09:00 | ',
  ] },
  'outlook-de.csv': { events: [
    'Jahreshauptversammlung | 2027-03-14 19:00 | 2027-03-14 21:30 | Gasthof Krone',
    'Sommerfest | 2027-06-26 | 2027-06-27 | Sportplatz',
    'Übungsabend | 2027-04-02 18:30 | 2027-04-02 20:00 | Halle Süd',
  ] },
  'outlook-fr.csv': { events: [
    "Conseil d'école | 2027-03-04 18:00 | 2027-03-04 20:00 | Salle polyvalente",
    "Vide-grenier | 2027-05-16 | 2027-05-17 | Place de l'église",
  ] },
  'outlook-it.csv': { events: [
    'Riunione condominiale | 2027-02-05 21:00 | 2027-02-05 22:30 | Sala comune',
    'Sagra del paese | 2027-07-24 | 2027-07-26 | Piazza Garibaldi',
  ] },
  'outlook-es.csv': { events: [
    'Reunión de vecinos | 2027-02-03 19:30 | 2027-02-03 21:00 | Portal 2',
    'Fiestas patronales | 2027-08-15 | 2027-08-16 | Plaza Mayor',
  ] },
  'outlook-midnight-rows.csv': { events: [
    'Company holiday | 2027-05-14 | 2027-05-15 | ',
    'Offsite | 2027-06-01 | 2027-06-04 | Lake House',
    'Late shift | 2027-06-05 16:00 | 2027-06-06 00:00 | ',
  ] },
  'google-calendar-import.csv': { events: [
    'Final exam | 2027-05-30 10:00 | 2027-05-30 13:00 | Columbia Hall',
    'Graduation week | 2027-06-07 | 2027-06-12 | ',
    'Piano lesson | 2027-06-02 16:30 | 2027-06-02 17:15 | Room 12, Music Building',
  ] },
  'google-sheets-list.csv': { events: [
    'Open mic | 2027-02-05 19:30 | 2027-02-05 19:30 | The Crown',
    'Quiz night | 2027-02-12 20:00 | 2027-02-12 20:00 | The Crown',
    'Repair café | 2027-02-13 10:00 | 2027-02-13 13:00 | Library',
  ] },
  'apple-numbers-en.csv': { events: [
    'Book club | 2027-03-14 19:00 | 2027-03-14 20:30 | Maple Library',
    'Garden party | 2027-06-06 14:00 | 2027-06-06 18:00 | 12 Oak Lane, Springfield',
  ] },
  'apple-numbers-de.csv': { events: [
    'Lesung | 2027-03-14 19:00 | 2027-03-14 19:00 | Stadtbibliothek',
    'Flohmarkt | 2027-04-03 08:00 | 2027-04-03 14:00 | Marktplatz',
  ] },
  'apple-numbers-datetime-en.csv': { events: [
    "Carol concert | 2026-12-25 18:00 | 2026-12-25 19:30 | St Mary's",
    'New Year brunch | 2027-01-01 11:00 | 2027-01-01 14:00 | Riverside Café',
    'Twelfth night | 2027-01-06 19:00 | 2027-01-06 19:00 | The Crown',
  ] },
  'apple-numbers-datetime-de.csv': { events: [
    'Weihnachtskonzert | 2026-12-25 18:00 | 2026-12-25 19:30 | Marienkirche',
    'Neujahrsempfang | 2027-01-01 11:00 | 2027-01-01 14:00 | Rathaus',
  ] },
  'excel-en-us.csv': { events: [
    'Pancake breakfast | 2027-03-04 08:00 | 2027-03-04 11:00 | Fire Hall',
    'Charity run | 2027-03-21 09:00 | 2027-03-21 12:00 | Riverside Park',
    'Bake sale | 2027-04-03 10:00 | 2027-04-03 14:00 | Fire Hall',
  ] },
  'excel-de-semicolon.csv': { events: [
    'Frühjahrskonzert | 2027-03-20 19:30 | 2027-03-20 22:00 | Stadthalle',
    'Maibaumaufstellen | 2027-05-01 11:00 | 2027-05-01 11:00 | Dorfplatz',
    'Kinderflohmarkt | 2027-05-08 09:00 | 2027-05-08 13:00 | Grundschule Süd',
  ] },
  'excel-de-utf8-bom.csv': { events: [
    'Seniorentreff | 2024-05-10 15:15 | 2024-05-10 17:45 | Gemeindehaus',
    'Wochenmarkt | 2024-05-11 10:00 | 2024-05-11 10:00 | Marktplatz',
  ] },
  'excel-fr.csv': { events: [
    'Concert de printemps | 2027-04-02 20:30 | 2027-04-02 20:30 | Église Saint-Jean',
    'Marché aux fleurs | 2027-04-14 08:00 | 2027-04-14 08:00 | Place du marché',
    'Loto | 2027-04-17 14:00 | 2027-04-17 14:00 | Salle des fêtes',
  ] },
  'excel-it.csv': { events: [
    'Cineforum | 2027-02-03 21:00 | 2027-02-03 21:00 | Sala parrocchiale',
    'Mercatino | 2027-02-25 09:00 | 2027-02-25 09:00 | Piazza del Duomo',
  ] },
  'excel-es.csv': { events: [
    'Teatro infantil | 2027-03-13 18:00 | 2027-03-13 18:00 | Casa de Cultura',
    'Verbena | 2027-03-14 22:00 | 2027-03-14 22:00 | Plaza Mayor',
  ] },
  'excel-unicode-text.csv': { events: [
    "Choir rehearsal | 2027-01-13 19:00 | 2027-01-13 21:00 | St Mary's",
    "Tëst ünïcode 🎶 | 2027-01-20 19:00 | 2027-01-20 21:00 | St Mary's",
  ] },
  'libreoffice-en.csv': { events: [
    'Film night | 2027-03-14 19:00 | 2027-03-14 21:30 | Community Hall',
    'Litter pick | 2027-03-20 10:00 | 2027-03-20 12:00 | Green',
  ] },
  'libreoffice-de.csv': { events: [
    'Chorprobe | 2027-01-13 19:00 | 2027-01-13 21:00 | Gemeindesaal',
    'Konzert | 2027-02-27 18:00 | 2027-02-27 20:00 | Kirche St. Marien',
  ] },
  'libreoffice-fr.csv': { events: [
    'Atelier couture | 2027-01-14 14:00 | 2027-01-14 17:00 | Maison des associations',
    'Assemblée générale | 2027-02-05 18:30 | 2027-02-05 20:00 | Mairie',
  ] },
  'tec-export.csv': { events: [
    'Jazz at the Mill | 2027-07-10 20:00 Europe/London | 2027-07-10 23:00 Europe/London | The Old Mill',
    'Summer fete | 2027-07-17 Europe/London | 2027-07-19 Europe/London | Village Green',
    "=cmd|' /C calc'!A0 | 2027-07-20 18:00 Europe/London | 2027-07-20 19:00 Europe/London | ",
  ] },
  'tec-import-sample.csv': { events: [
    'Coffee with the Mayor | 2027-04-19 09:00 | 2027-04-19 10:00 | City Hall',
    'Spring Cleanup | 2027-04-24 | 2027-04-25 | Riverside Park',
    'Farmers Market | 2027-05-01 08:00 | 2027-05-01 13:00 | Main Street',
  ], problems: ['csv_column_count'] },
  'tec-import-month-names.csv': { events: [
    'Spring Concert | 2027-04-19 19:00 | 2027-04-19 21:00 | Auditorium',
    'Science Fair | 2027-05-03 10:00 | 2027-05-03 15:00 | Gym',
  ] },
  'meetup-export.csv': { events: [
    'JS Meetup: Streams | 2027-04-23 18:30 | 2027-04-23 18:30 | Tech Hub',
    'Hack night | 2027-05-06 19:00 | 2027-05-06 19:00 | Tech Hub',
  ], problems: ['csv_unknown_column'] },
  'meetup-compact-dates.csv': { events: [
    'Board games | 2027-04-19 19:00 | 2027-04-19 22:00 | Dice Café',
    'Retro gaming | 2027-05-03 19:00 | 2027-05-03 23:00 | Dice Café',
  ] },
  'sports-club-de-no-header.csv': { events: [
    'FC Nord - SV Süd | 2025-04-12 15:00 | 2025-04-12 15:00 | Sportplatz Nord',
    'FC Nord II - TSV Ost | 2025-04-13 11:00 | 2025-04-13 11:00 | Kunstrasen',
    'SV West - FC Nord | 2025-04-19 15:30 | 2025-04-19 15:30 | Waldstadion',
  ], problems: ['csv_no_header'] },
  'sports-club-en-pipe.csv': { events: [
    'Rovers v United | 2014-11-19 15:00 | 2014-11-19 15:00 | Rovers Park',
    'United v Rovers | 2014-12-06 19:45 | 2014-12-06 19:45 | United Ground',
  ] },
  'sports-club-fr.csv': { events: [
    'US Ville - AS Bourg | 2025-04-12 14:30 | 2025-04-12 14:30 | Stade municipal',
    'AS Bourg - US Ville | 2025-04-20 10:00 | 2025-04-20 10:00 | Complexe sportif',
  ] },
  'school-term-dates.csv': { events: [
    'Half term | 2027-02-15 | 2027-02-20 | ',
    'Inset day | 2027-03-05 | 2027-03-06 | ',
  ] },
  'recurring-rrule.csv': { events: [
    'Yoga | 2027-03-01 18:00 Europe/Berlin | 2027-03-01 19:00 Europe/Berlin | ',
    'Yoga | 2027-03-08 18:00 Europe/Berlin | 2027-03-08 19:00 Europe/Berlin | ',
    'Yoga | 2027-03-15 18:00 Europe/Berlin | 2027-03-15 19:00 Europe/Berlin | ',
    'Yoga | 2027-03-22 18:00 Europe/Berlin | 2027-03-22 19:00 Europe/Berlin | ',
    'Monthly committee | 2027-01-05 19:30 Europe/Berlin | 2027-01-05 21:00 Europe/Berlin | ',
    'Monthly committee | 2027-02-02 19:30 Europe/Berlin | 2027-02-02 21:00 Europe/Berlin | ',
    'Monthly committee | 2027-03-02 19:30 Europe/Berlin | 2027-03-02 21:00 Europe/Berlin | ',
  ] },
  'currency-code.csv': { events: [
    'Wine tasting | 2027-09-10 19:00 | 2027-09-10 19:00 | ',
    'Cheese course | 2027-09-17 19:00 | 2027-09-17 19:00 | ',
  ] },
  'tec-import-currency.csv': { events: [
    'Jazz brunch | 2027-05-02 11:00 | 2027-05-02 14:00 | ',
    'Wine fair | 2027-05-08 15:00 | 2027-05-08 20:00 | ',
    'Open day | 2027-05-15 10:00 | 2027-05-15 16:00 | ',
  ] },
  'ambiguous-dates.csv': { flag: { name: '--date-format', options: { dateFormat: 'DD/MM/YYYY' } }, events: [
    'Coffee morning | 2027-04-03 10:00 | 2027-04-03 10:00 | ',
    'Book swap | 2027-06-05 14:00 | 2027-06-05 14:00 | ',
  ] },
  'custom-headers.csv': {
    flag: { name: '--columns', options: { columns: { title: 'Was', start_date: 'Wann', venue_name: 'Wo' } } },
    events: [
      'Sommerfest | 2027-06-26 15:00 | 2027-06-26 15:00 | Vereinsheim',
      'Weihnachtsfeier | 2027-12-18 18:00 | 2027-12-18 18:00 | Saal',
    ],
  },
};

const when = (t: TimeValue) =>
  t.kind === 'date'
    ? `${t.date}${t.zone ? ` ${t.zone}` : ''}`
    : `${t.local.slice(0, 16)}${t.kind === 'zoned' ? ` ${t.zone}` : ''}`;

async function read(file: string, options: Partial<CsvOptions> = {}) {
  return readCsv(readFileSync(join(CORPUS, file)), { file, window: WINDOW, ...options });
}

describe('the CSV corpus', () => {
  const files = readdirSync(CORPUS).filter(
    (f) => f.endsWith('.csv') && !/\.(venues|organizers)\.csv$/.test(f),
  );

  it('has at least 30 files, each with the events it must give', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(files.sort()).toEqual(Object.keys(CORPUS_STYLES).sort());
  });

  for (const [file, style] of Object.entries(CORPUS_STYLES)) {
    it(`${file}: ${style.flag ? `imports with ${style.flag.name}, which its error names` : 'imports with no options'}`, async () => {
      if (style.flag) {
        const without = await read(file);
        const errors = without.problems.filter((p) => p.severity === 'error');
        expect(errors.length).toBeGreaterThan(0);
        for (const e of errors) expect(e.message).toContain(`pass ${style.flag.name}`);
      }
      const result = await read(file, style.flag?.options);
      expect(result.problems.map((p) => p.code)).toEqual(style.problems ?? []);
      expect(
        result.records.map((r) => `${r.title} | ${when(r.start)} | ${when(r.end)} | ${r.venue?.name ?? ''}`),
      ).toEqual(style.events);
    });
  }

  it('keeps what the styles carry beyond times: organizers with commas, costs with their currency, categories', async () => {
    const tec = await read('tec-export.csv');
    expect(tec.records[0]).toMatchObject({
      organizers: [{ name: 'Okafor, Grace' }, { name: 'Jo Bloggs' }],
      cost: '£15',
      featured: true,
      display: { sticky: true, hide_from_listings: false, show_map: false, show_map_link: true },
      categories: ['Music', 'Jazz'],
      description: 'Two sets,\r\none break', // the export's CRLF inside a quoted cell
    });
    const venues = await readLinkedCsv(
      readFileSync(join(CORPUS, 'tec-export.venues.csv')),
      'venues',
      'v.csv',
    );
    expect(venues.items.get('the old mill')).toMatchObject({
      address: '1 Mill Lane, Unit 2 Riverside', // venue_address2 joined with a space, as TEC's importer does
      phone: '+44 1632 960000',
      image: 'https://mill.example.org/mill.jpg',
    });
    const hosts = await readLinkedCsv(
      readFileSync(join(CORPUS, 'tec-export.organizers.csv')),
      'organizers',
      'o.csv',
    );
    expect(hosts.items.get('jo bloggs')).toMatchObject({
      description: 'Runs the quiz.\n\n\nAsk at the bar. ',
      image: 'https://jo.example.org/jo.png',
    });
    expect(tec.records[2]).toMatchObject({ cost: 'EUR10', currencyCode: 'EUR' }); // a code with no symbol
    expect((await read('currency-code.csv')).records[0]).toMatchObject({
      cost: 'CHF35',
      currencyCode: 'CHF',
    });
    const priced = (await read('tec-import-currency.csv')).records;
    expect(priced.map((r) => [r.cost, r.currencyCode])).toEqual([
      ['$25', 'USD'],
      ['12€', 'EUR'],
      ['0', undefined],
    ]);
    expect((await read('tec-import-sample.csv')).records[0]).toMatchObject({
      cost: 'Free',
      organizers: [{ name: "Mayor's Office" }],
      url: 'https://example.gov/coffee',
    });
  });
});
