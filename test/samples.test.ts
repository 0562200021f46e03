import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import ICAL from 'ical.js';
import ical from 'node-ical';
import { describe, expect, it } from 'vitest';
import { generateIcs, generateIcsWithStats } from '../bench/generate-ics.ts';
import { CSV_HEADERS, renderCommunityCsv } from '../samples/community-csv.ts';
import { renderCommunityIcs } from '../samples/community-ics.ts';
import { CSV_PATH, ICS_PATH } from '../samples/generate.ts';
import { escapeText, foldLine } from '../samples/ics-lines.ts';

type Component = InstanceType<typeof ICAL.Component>;

const icsText = readFileSync(ICS_PATH, 'utf8');
const csvText = readFileSync(CSV_PATH, 'utf8');

/** Parses with ical.js (which rejects invalid RFC 5545) and registers the file's own VTIMEZONEs. */
function parseIcs(text: string): { vevents: Component[]; vtimezones: Component[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const vtimezones = calendar.getAllSubcomponents('vtimezone');
  for (const tz of vtimezones) ICAL.TimezoneService.register(tz);
  return { vevents: calendar.getAllSubcomponents('vevent'), vtimezones };
}

const text = (c: Component, name: string): string => String(c.getFirstPropertyValue(name) ?? '');
const distinct = <T>(values: T[]): Set<T> => new Set(values.filter((v) => v !== '' && v !== undefined));

/** Every occurrence of every master (UTC ms, or `YYYY-MM-DD` for all-day), overrides applied, until `until`. */
function occurrences(
  vevents: Component[],
  until: number,
): { uid: string; start: number | string; status: string }[] {
  const overrides = new Map<string, Component[]>();
  for (const v of vevents.filter((v) => v.hasProperty('recurrence-id'))) {
    overrides.set(text(v, 'uid'), [...(overrides.get(text(v, 'uid')) ?? []), v]);
  }
  const out: { uid: string; start: number | string; status: string }[] = [];
  for (const v of vevents.filter((v) => !v.hasProperty('recurrence-id'))) {
    // ical.js relates every override in the file to an event unless told which are its own (spec/pipeline.md).
    const event = new ICAL.Event(v, {
      strictExceptions: true,
      exceptions: overrides.get(text(v, 'uid')) ?? [],
    });
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      const start = details.startDate.isDate
        ? details.startDate.toString()
        : details.startDate.toUnixTime() * 1000;
      if (typeof start === 'number' ? start >= until : Date.parse(`${start}T00:00:00Z`) >= until) break;
      out.push({ uid: event.uid, start, status: text(details.item.component, 'status') });
      if (!event.isRecurring()) break;
    }
  }
  return out;
}

describe('samples/ics-lines.ts', () => {
  it('folds at 75 octets, counting multi-byte characters, and unfolds to the same line', () => {
    for (const line of [
      `DESCRIPTION:${'é'.repeat(100)}`,
      `SUMMARY:${'a'.repeat(200)}`,
      `X:${'😀ab'.repeat(40)}`,
    ]) {
      const physical = foldLine(line).split('\r\n');
      expect(physical.length).toBeGreaterThan(1);
      for (const p of physical) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(75);
      expect(physical.map((p, i) => (i === 0 ? p : p.slice(1))).join('')).toBe(line);
    }
    expect(foldLine('SUMMARY:short')).toBe('SUMMARY:short');
  });

  it('escapes commas, semicolons, backslashes and newlines in TEXT values (RFC 5545 3.3.11)', () => {
    expect(escapeText('a, b; c\\ d\ne')).toBe('a\\, b\\; c\\\\ d\\ne');
  });
});

describe('samples/community-calendar.ics', () => {
  const { vevents, vtimezones } = parseIcs(icsText);

  it('is exactly what samples/generate.ts writes, so it can be regenerated', () => {
    expect(icsText).toBe(renderCommunityIcs());
  });

  it('parses with ical.js into at least 120 VEVENTs, each with a riverside.example.org UID', () => {
    expect(vevents.length).toBeGreaterThanOrEqual(120);
    for (const v of vevents) expect(text(v, 'uid')).toMatch(/^[\w.-]+@riverside\.example\.org$/);
  });

  it('parses with node-ical too, with the overrides attached to their series', () => {
    const parsed = Object.values(ical.sync.parseICS(icsText)).filter((c) => c?.type === 'VEVENT');
    const overrides = vevents.filter((v) => v.hasProperty('recurrence-id')).length;
    expect(parsed.length).toBe(vevents.length - overrides);
    // node-ical files each override under more than one key (date and date-time); count the objects.
    const attached = parsed.reduce(
      (n, e) => n + new Set(Object.values(('recurrences' in e && e.recurrences) || {})).size,
      0,
    );
    expect(attached).toBe(overrides);
  });

  it('is written like a real export: CRLF line endings and no line longer than 75 octets', () => {
    expect(icsText).not.toMatch(/[^\r]\n/);
    const longest = icsText.split('\r\n').reduce((m, line) => Math.max(m, Buffer.byteLength(line)), 0);
    expect(longest).toBeLessThanOrEqual(75);
    expect(icsText).toMatch(/\r\n [^\r\n]/); // some lines are folded
    // Folding counts octets but never splits a UTF-8 sequence (which would decode as U+FFFD).
    expect(icsText).not.toContain('\uFFFD');
    expect(vevents.some((v) => text(v, 'location').includes('Auguststraße'))).toBe(true);
    expect(icsText).toContain('X-WR-CALNAME:Riverside Community Calendar\r\n');
  });

  it('names at least 10 venues (most with GEO), 8 organizers and 8 categories', () => {
    expect(distinct(vevents.map((v) => text(v, 'location'))).size).toBeGreaterThanOrEqual(10);
    expect(vevents.filter((v) => v.hasProperty('geo')).length).toBeGreaterThan(vevents.length / 2);
    expect(distinct(vevents.map((v) => text(v, 'organizer'))).size).toBeGreaterThanOrEqual(8);
    const categories = vevents.flatMap((v) => v.getAllProperties('categories').flatMap((p) => p.getValues()));
    expect(distinct(categories.map(String)).size).toBeGreaterThanOrEqual(8);
  });

  it('has times in at least 3 TZIDs, each with its VTIMEZONE, plus UTC times and all-day dates', () => {
    const starts = vevents.map((v) => v.getFirstProperty('dtstart')!);
    const time = (p: (typeof starts)[number]) => p.getFirstValue() as InstanceType<typeof ICAL.Time>;
    const tzids = distinct(starts.map((p) => p.getParameter('tzid') as string | undefined));
    expect(tzids.size).toBeGreaterThanOrEqual(3);
    const defined = new Set(vtimezones.map((tz) => text(tz, 'tzid')));
    for (const tzid of tzids) expect(defined).toContain(tzid);
    expect(starts.some((p) => time(p).isDate)).toBe(true);
    expect(starts.some((p) => !p.getParameter('tzid') && time(p).zone === ICAL.Timezone.utcTimezone)).toBe(
      true,
    );
  });

  it('has series with COUNT, UNTIL, EXDATE and overrides, one of them cancelled', () => {
    const rules = vevents
      .filter((v) => v.hasProperty('rrule'))
      .map((v) => v.getFirstPropertyValue('rrule') as InstanceType<typeof ICAL.Recur>);
    expect(rules.some((r) => r.count)).toBe(true);
    expect(rules.some((r) => r.until)).toBe(true);
    expect(vevents.some((v) => v.hasProperty('exdate'))).toBe(true);
    const overrides = vevents.filter((v) => v.hasProperty('recurrence-id'));
    expect(overrides.some((v) => text(v, 'status') === 'CANCELLED')).toBe(true);
  });

  it('expands to at least 200 occurrences between 30 days before and a year after 2026-11-22', () => {
    const from = Date.parse('2026-10-23T00:00:00Z');
    const until = Date.parse('2027-11-22T00:00:00Z');
    const inWindow = occurrences(vevents, until).filter(
      (o) => (typeof o.start === 'number' ? o.start : Date.parse(`${o.start}T00:00:00Z`)) >= from,
    );
    expect(inWindow.length).toBeGreaterThanOrEqual(200);
  });

  it('has series that cross the 2027 DST changes, so their UTC start hour changes while the wall time does not', () => {
    const all = occurrences(vevents, Date.parse('2027-12-31T00:00:00Z'));
    const hoursByUid = new Map<string, Set<number>>();
    for (const o of all) {
      if (typeof o.start !== 'number') continue;
      hoursByUid.set(o.uid, (hoursByUid.get(o.uid) ?? new Set()).add(new Date(o.start).getUTCHours()));
    }
    const crossing = [...hoursByUid.values()].filter((hours) => hours.size === 2);
    expect(crossing.length).toBeGreaterThanOrEqual(5);
  });
});

describe('samples/community-calendar.csv', () => {
  const rows: Record<string, string>[] = parseCsv(csvText, { columns: true });

  it('is exactly what samples/generate.ts writes', () => {
    expect(csvText).toBe(renderCommunityCsv());
  });

  it("has The Events Calendar's import keys as its header row", () => {
    const header = parseCsv(csvText, { to_line: 1 })[0];
    expect(header).toEqual([...CSV_HEADERS]);
    expect(header).toContain('event_name');
    expect(header).toContain('event_start_date');
  });

  it('holds about 60 events with ISO dates, 24-hour times and ends after starts', () => {
    expect(rows.length).toBeGreaterThanOrEqual(50);
    expect(rows.length).toBeLessThanOrEqual(80);
    for (const r of rows) {
      expect(r.event_start_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.event_end_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (r.event_all_day === 'TRUE') continue;
      expect(r.event_start_time).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
      const start = `${r.event_start_date} ${r.event_start_time}`;
      expect(`${r.event_end_date} ${r.event_end_time}` > start).toBe(true);
    }
  });

  it('has all-day rows, quoted cells with commas, one cell with a line break, and some tags', () => {
    expect(rows.filter((r) => r.event_all_day === 'TRUE').length).toBeGreaterThanOrEqual(3);
    expect(rows.some((r) => r.event_name.includes(','))).toBe(true);
    expect(rows.filter((r) => Object.values(r).some((cell) => cell.includes('\n'))).length).toBe(1);
    expect(rows.filter((r) => r.event_tags !== '').length).toBeGreaterThanOrEqual(5);
    expect(distinct(rows.map((r) => r.event_venue_name)).size).toBeGreaterThanOrEqual(10);
    expect(distinct(rows.map((r) => r.event_timezone)).size).toBeGreaterThanOrEqual(3);
  });
});

describe('bench/generate-ics.ts', () => {
  const options = {
    events: 1_500,
    venues: 60,
    organizers: 30,
    categories: 12,
    tags: 20,
    recurringRatio: 0.2,
  };
  const start = new Date('2027-03-01T00:00:00Z');

  it('writes the same bytes for the same seed and different ones for another seed', () => {
    const a = generateIcs({ ...options, seed: 7, start });
    expect(generateIcs({ ...options, seed: 7, start })).toBe(a);
    expect(generateIcs({ ...options, seed: 8, start })).not.toBe(a);
  });

  it('writes exactly the requested number of VEVENTs from pools of the requested sizes, valid for ical.js', () => {
    const { ics, stats } = generateIcsWithStats({ ...options, seed: 1, start });
    const { vevents } = parseIcs(ics);
    expect(vevents.length).toBe(options.events);
    expect(distinct(vevents.map((v) => text(v, 'location'))).size).toBe(stats.venues);
    expect(stats.venues).toBeLessThanOrEqual(options.venues);
    expect(stats.venues).toBeGreaterThan(options.venues * 0.9);
    expect(distinct(vevents.map((v) => text(v, 'organizer'))).size).toBeLessThanOrEqual(options.organizers);
    expect(vevents.every((v) => v.hasProperty('geo'))).toBe(true);
    const tzids = distinct(vevents.map((v) => v.getFirstProperty('dtstart')!.getParameter('tzid') as string));
    expect([...tzids].sort()).toEqual(['America/New_York', 'Asia/Kolkata', 'Europe/Berlin', 'Europe/London']);
  });

  it('makes about recurringRatio of the events weekly series, some with EXDATEs and overrides', () => {
    const { ics, stats } = generateIcsWithStats({ ...options, seed: 2, start });
    const { vevents } = parseIcs(ics);
    const masters = vevents.filter((v) => !v.hasProperty('recurrence-id'));
    const series = masters.filter((v) => v.hasProperty('rrule'));
    expect(series.length).toBe(stats.series);
    expect(series.length / masters.length).toBeGreaterThan(0.15);
    expect(series.length / masters.length).toBeLessThan(0.25);
    expect(vevents.filter((v) => v.hasProperty('exdate')).length).toBe(stats.exdates);
    expect(stats.exdates).toBeGreaterThan(0);
    expect(vevents.filter((v) => v.hasProperty('recurrence-id')).length).toBe(stats.overrides);
    expect(stats.overrides).toBeGreaterThan(0);
  });

  it('puts every occurrence within a year from start, and expands to the occurrences it reports', () => {
    const { ics, stats } = generateIcsWithStats({ ...options, seed: 3, start });
    const all = occurrences(parseIcs(ics).vevents, Date.parse('2030-01-01T00:00:00Z'));
    expect(all.length).toBe(stats.occurrences);
    const ms = all.map((o) => (typeof o.start === 'number' ? o.start : Date.parse(`${o.start}T00:00:00Z`)));
    // The earliest wall time is 08:00 on day 0 anywhere from UTC-5 to UTC+5:30.
    expect(Math.min(...ms)).toBeGreaterThanOrEqual(start.getTime() - 6 * 3_600_000);
    expect(Math.max(...ms)).toBeLessThan(start.getTime() + 366 * 86_400_000);
  });
});
