// Property test: random RRULEs (FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, COUNT or UNTIL) in random IANA zones
// with DST, DTSTART within days of a DST change, timed or all-day — readIcs and the ical.js oracle must give
// the same occurrences. Left out, because we differ from ical.js on purpose (see oracle.test.ts): sub-daily
// frequencies, wall times in a DST gap or overlap (04:00–22:59 only: Cairo and Santiago fall back at midnight), DTSTARTs the rule does not produce
// (BYDAY/BYMONTHDAY always include DTSTART's; UNTIL at least a day after it), and yearly rules from a 29th–31st.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readIcs } from '../../../src/sources/ics/index.ts';
import type { Window } from '../../../src/sources/record.ts';
import { oracleOccurrences, ourOccurrences } from './oracle.ts';

const WINDOW: Window = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
const ZONES = [
  'America/New_York',
  'America/Los_Angeles',
  'Europe/Berlin',
  'Europe/London',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
  'America/Santiago',
  'America/Havana',
  'America/St_Johns',
  'Asia/Jerusalem',
  'Africa/Cairo',
];
const DAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const pad = (n: number) => String(n).padStart(2, '0');

/** UTC days (epoch ms at 00:00Z) in 2027 on which `zone` changes its offset. */
function changeDays(zone: string): number[] {
  const format = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' });
  const offset = (ms: number) => format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value;
  const days: number[] = [];
  for (let day = Date.UTC(2027, 0, 1); day < Date.UTC(2028, 0, 1); day += 86_400_000)
    if (offset(day) !== offset(day + 86_400_000)) days.push(day);
  return days;
}
const CHANGES = new Map(ZONES.map((zone) => [zone, changeDays(zone)]));

const ruleCase = fc.record({
  zone: fc.constantFrom(...ZONES),
  change: fc.nat(),
  daysFromChange: fc.integer({ min: -12, max: 12 }),
  hour: fc.integer({ min: 4, max: 21 }),
  minute: fc.constantFrom(0, 15, 30, 45),
  allDay: fc.boolean(),
  lengthMinutes: fc.integer({ min: 15, max: 300 }),
  lengthDays: fc.integer({ min: 1, max: 3 }),
  freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
  interval: fc.integer({ min: 1, max: 4 }),
  extraDays: fc.subarray([0, 1, 2, 3, 4, 5, 6]),
  extraMonthDays: fc.subarray([1, 5, 10, 15, 20, 28]),
  byMonth: fc.boolean(),
  end: fc.oneof(
    fc.record({ count: fc.integer({ min: 1, max: 30 }) }),
    fc.record({ untilDays: fc.integer({ min: 1, max: 400 }) }),
  ),
});

type RuleCase = typeof ruleCase extends fc.Arbitrary<infer T> ? T : never;

function calendarOf(c: RuleCase): string {
  const changes = CHANGES.get(c.zone) ?? [];
  const day = new Date(
    (changes[c.change % changes.length] ?? Date.UTC(2027, 5, 1)) + c.daysFromChange * 86_400_000,
  );
  const [y, m, d] = [
    day.getUTCFullYear(),
    day.getUTCMonth() + 1,
    Math.min(day.getUTCDate(), c.freq === 'YEARLY' ? 28 : 31),
  ];
  const date = `${y}${pad(m)}${pad(d)}`;
  const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  const parts = [`FREQ=${c.freq}`, `INTERVAL=${c.interval}`];
  if (c.freq === 'WEEKLY' || (c.freq === 'DAILY' && c.extraDays.length > 0))
    parts.push(`BYDAY=${[...new Set([weekday, ...c.extraDays])].map((i) => DAYS[i]).join(',')}`);
  if (c.freq === 'MONTHLY' && c.extraMonthDays.length > 0)
    parts.push(`BYMONTHDAY=${[...new Set([d, ...c.extraMonthDays])].join(',')}`);
  if (c.freq === 'DAILY' && c.byMonth) parts.push(`BYMONTH=${m},${(m % 12) + 1}`);
  if ('count' in c.end) parts.push(`COUNT=${c.end.count}`);
  else {
    const until = new Date(Date.UTC(y, m - 1, d) + c.end.untilDays * 86_400_000);
    parts.push(`UNTIL=${until.toISOString().slice(0, 10).replaceAll('-', '')}${c.allDay ? '' : 'T235959Z'}`);
  }
  // The end stays on the same day before 23:00, so that it never falls in a DST gap or overlap either.
  const minutes = Math.max(1, Math.min(c.lengthMinutes, 22 * 60 + 59 - (c.hour * 60 + c.minute)));
  const end = new Date(Date.UTC(y, m - 1, d, c.hour, c.minute) + minutes * 60_000);
  const endDay = new Date(Date.UTC(y, m - 1, d) + c.lengthDays * 86_400_000);
  const compact = (t: Date) => t.toISOString().slice(0, 19).replace(/[-:]/g, '');
  const times = c.allDay
    ? [`DTSTART;VALUE=DATE:${date}`, `DTEND;VALUE=DATE:${compact(endDay).slice(0, 8)}`]
    : [
        `DTSTART;TZID=${c.zone}:${date}T${pad(c.hour)}${pad(c.minute)}00`,
        `DTEND;TZID=${c.zone}:${compact(end)}`,
      ];
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync property test//EN',
    `X-WR-TIMEZONE:${c.zone}`,
    'BEGIN:VEVENT',
    'UID:random-rule',
    'DTSTAMP:20261201T000000Z',
    ...times,
    `RRULE:${parts.join(';')}`,
    'SUMMARY:Random rule',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

describe('readIcs against the ical.js oracle on random rules', () => {
  it('gives the same occurrences for random rules in DST zones, starting near DST changes', () => {
    fc.assert(
      fc.property(ruleCase, (c) => {
        const text = calendarOf(c);
        const result = readIcs(new TextEncoder().encode(text), { file: 'random.ics', window: WINDOW });
        expect(result.problems).toEqual([]);
        expect(ourOccurrences(result.records, c.zone)).toEqual(oracleOccurrences(text, WINDOW, c.zone));
      }),
      { numRuns: 300 },
    );
  });
});
