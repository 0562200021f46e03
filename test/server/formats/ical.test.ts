import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { eventsToIcal } from '../../../src/export/ical.ts';
import type { WireEvent } from '../../../src/render/wire.ts';
import {
  allDayBerlin,
  berlinEvent,
  fullEvent,
  listItem,
  longUnicodeEvent,
  makeEvent,
  minimalEvent,
  offsetZoneEvent,
} from '../../render/fixtures.ts';

const OPTS = { host: 'cal.example.org', calendarName: 'Example Events' };
const ALL = [listItem(fullEvent), minimalEvent, allDayBerlin, offsetZoneEvent, berlinEvent, longUnicodeEvent];

interface Parsed {
  uid: string;
  start: string; // ISO instant, or YYYY-MM-DD for dates
  end: string;
  isDate: boolean;
  tzid: string | undefined;
  summary: string;
  vevent: ICAL.Component;
}

function instant(t: ICAL.Time): string {
  return t.isDate ? t.toString() : t.toJSDate().toISOString();
}

function parse(ics: string): { calendar: ICAL.Component; events: Parsed[] } {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = calendar.getAllSubcomponents('vevent').map((vevent) => {
    const e = new ICAL.Event(vevent);
    return {
      uid: e.uid,
      start: instant(e.startDate),
      end: instant(e.endDate),
      isDate: e.startDate.isDate,
      tzid: vevent.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined,
      summary: e.summary,
      vevent,
    };
  });
  return { calendar, events };
}

/** Content lines with folding undone (RFC 5545 §3.1). */
function unfolded(ics: string): string[] {
  return ics.replace(/\r\n[ \t]/g, '').split('\r\n');
}

function byUid(events: Parsed[], id: number): Parsed {
  const e = events.find((p) => p.uid === `${id}@cal.example.org`);
  if (!e) throw new Error(`no event ${id}`);
  return e;
}

describe('eventsToIcal', () => {
  const ics = eventsToIcal(ALL, OPTS);
  const { calendar, events } = parse(ics);
  const lines = unfolded(ics);

  it('writes the B.12 calendar header, CRLF line ends and a final CRLF', () => {
    expect(lines.slice(0, 7)).toEqual([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//calsync//calendar/events/v1//EN',
      'CALSCALE:GREGORIAN',
      'METHOD:PUBLISH',
      'NAME:Example Events',
      'X-WR-CALNAME:Example Events',
    ]);
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('has one VEVENT per event, UID <id>@<host> (T150, T151)', () => {
    expect(events.map((e) => e.uid)).toEqual(ALL.map((e) => `${e.id}@cal.example.org`));
  });

  it('keeps the UID when an event is rescheduled (T151)', () => {
    const moved = { ...fullEvent, start_date: '2027-04-01 19:00:00', utc_start_date: '2027-04-01 23:00:00' };
    expect(parse(eventsToIcal([moved], OPTS)).events[0].uid).toBe('8@cal.example.org');
  });

  it('writes a New York event with TZID and the instants of the wire (19:00 EST = 00:00Z)', () => {
    const e = byUid(events, 8);
    expect(e.tzid).toBe('America/New_York');
    expect(lines).toContain('DTSTART;TZID=America/New_York:20270301T190000');
    expect(lines).toContain('DTEND;TZID=America/New_York:20270301T220000');
    expect(e.start).toBe('2027-03-02T00:00:00.000Z');
    expect(e.end).toBe('2027-03-02T03:00:00.000Z');
  });

  it('writes all-day events as VALUE=DATE with an exclusive DTEND (T151)', () => {
    const e = byUid(events, 10);
    expect(e.isDate).toBe(true);
    expect(e.start).toBe('2027-07-01');
    expect(e.end).toBe('2027-07-04');
    expect(lines).toContain('DTSTART;VALUE=DATE:20270701');
    expect(lines).toContain('DTEND;VALUE=DATE:20270704');
  });

  it('writes events in UTC and in offset zones like UTC+2 as UTC times', () => {
    expect(lines).toContain('DTSTART:20270510T120000Z');
    expect(lines).toContain('DTEND:20270510T143000Z');
    expect(byUid(events, 11)).toMatchObject({
      start: '2027-05-10T12:00:00.000Z',
      end: '2027-05-10T14:30:00.000Z',
    });
    expect(byUid(events, 11).tzid).toBeUndefined();
    expect(lines).toContain('DTSTART:20270302T100000Z');
  });

  it('writes a Berlin event against a generated Europe/Berlin VTIMEZONE', () => {
    const zones = calendar.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'));
    expect(zones).toEqual(['America/New_York', 'Europe/Berlin']);
    expect(lines).toContain('DTSTART;TZID=Europe/Berlin:20270601T100000');
    expect(byUid(events, 12)).toMatchObject({
      tzid: 'Europe/Berlin',
      start: '2027-06-01T08:00:00.000Z',
      end: '2027-06-01T10:00:00.000Z',
    });
    // Every event agrees with the wire's UTC instants.
    for (const wire of ALL.filter((w) => !w.all_day)) {
      const e = byUid(events, wire.id);
      expect(e.start).toBe(`${wire.utc_start_date.replace(' ', 'T')}.000Z`);
      expect(e.end).toBe(`${wire.utc_end_date.replace(' ', 'T')}.000Z`);
    }
  });

  it('writes no VTIMEZONE when no timed event has an IANA zone', () => {
    const out = eventsToIcal([minimalEvent, offsetZoneEvent, allDayBerlin], OPTS);
    expect(out).not.toContain('VTIMEZONE');
    expect(out).not.toContain('TZID');
  });

  it('writes one VTIMEZONE per zone however many events use it', () => {
    const berlin = [berlinEvent, { ...berlinEvent, id: 40 }, longUnicodeEvent];
    expect(eventsToIcal(berlin, OPTS).match(/BEGIN:VTIMEZONE/g)).toHaveLength(1);
    expect(eventsToIcal([], OPTS)).not.toContain('VTIMEZONE');
  });

  it('writes DTSTAMP and LAST-MODIFIED from modified_utc, CREATED from date_utc', () => {
    const v = byUid(events, 8).vevent;
    expect(v.getFirstPropertyValue('dtstamp')?.toString()).toBe('2026-11-21T23:44:25Z');
    expect(v.getFirstPropertyValue('last-modified')?.toString()).toBe('2026-11-21T23:44:25Z');
    expect(v.getFirstPropertyValue('created')?.toString()).toBe('2026-11-21T23:44:25Z');
  });

  it('omits CREATED and LAST-MODIFIED of a never-published draft and stamps it with now', () => {
    const draft = {
      ...minimalEvent,
      status: 'draft',
      date_utc: '0000-00-00 00:00:00',
      modified_utc: '0000-00-00 00:00:00',
    };
    const out = eventsToIcal([draft], { ...OPTS, now: new Date('2027-01-02T03:04:05Z') });
    expect(out).not.toContain('CREATED');
    expect(out).not.toContain('LAST-MODIFIED');
    expect(unfolded(out)).toContain('DTSTAMP:20270102T030405Z');
    const touched = { ...draft, modified_utc: '2027-01-01 10:00:00' };
    expect(unfolded(eventsToIcal([touched], OPTS))).toContain('LAST-MODIFIED:20270101T100000Z');
  });

  it('writes SUMMARY HTML-decoded and DESCRIPTION as escaped plain text', () => {
    const v = byUid(events, 12).vevent;
    expect(v.getFirstPropertyValue('summary')).toBe('Berlin & Friends');
    expect(v.getFirstPropertyValue('description')).toBe('Line one\nline two\n\nPara “two”, with; commas');
    expect(lines).toContain('DESCRIPTION:Line one\\nline two\\n\\nPara “two”\\, with\\; commas');
    expect(byUid(events, 9).vevent.hasProperty('description')).toBe(false);
  });

  it('writes URL, LOCATION, CATEGORIES, ORGANIZER and ATTACH', () => {
    const full = byUid(events, 8).vevent;
    expect(full.getFirstPropertyValue('url')).toBe('https://cal.example.org/event/full-event/');
    expect(full.getFirstPropertyValue('location')).toBe(
      'Main Hall, 1 Main St, Springfield, IL, 62701, United States',
    );
    expect(full.getFirstProperty('categories')?.getValues()).toEqual(['Concerts']);
    expect(lines).toContain('ORGANIZER;CN="Jane Org":mailto:jane@example.com');
    expect(full.hasProperty('attach')).toBe(false);

    const berlin = byUid(events, 12).vevent;
    // The venue has no address or state; empty parts are left out.
    expect(berlin.getFirstPropertyValue('location')).toBe('Second Venue, Berlin, Berlin, 10115, Germany');
    expect(berlin.getFirstProperty('categories')?.getValues()).toEqual(['Concerts', 'Jazz']);
    // The first organizer has no e-mail: the first one that has one is used.
    expect(berlin.getFirstProperty('organizer')?.getParameter('cn')).toBe('Jane Org');
    expect(berlin.getFirstPropertyValue('attach')).toBe(
      'https://cal.example.org/wp-content/uploads/2026/11/poster.png',
    );

    const minimal = byUid(events, 9).vevent;
    for (const p of ['location', 'categories', 'organizer', 'attach'])
      expect(minimal.hasProperty(p)).toBe(false);
  });

  it('escapes the calendar name and quotes organizer names', () => {
    const org = { ...fullEvent.organizer[0], organizer: 'Jane "JJ" Org' };
    const out = eventsToIcal([{ ...fullEvent, organizer: [org] }], {
      ...OPTS,
      calendarName: 'Events; concerts, talks',
    });
    expect(unfolded(out)).toContain('X-WR-CALNAME:Events\\; concerts\\, talks');
    expect(unfolded(out)).toContain('ORGANIZER;CN="Jane ^\'JJ^\' Org":mailto:jane@example.com');
    // TEXT escaping (RFC 5545 §3.3.11); ical.js reads neither NAME nor X-WR-CALNAME as TEXT, so no read-back.
    expect(unfolded(out)).toContain('NAME:Events\\; concerts\\, talks');
  });

  it('folds lines at 75 octets without splitting a UTF-8 character', () => {
    const physical = ics.split('\r\n');
    for (const line of physical) {
      expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
      expect(line).not.toMatch(/\p{Surrogate}/u);
    }
    const folded = physical.filter((l) => l.startsWith(' '));
    expect(folded.length).toBeGreaterThan(5);
    // Reading it back gives the whole text.
    const e = byUid(events, 13);
    expect(e.summary).toBe(
      'Silvester Grüße aus Köln — 東京 🎆 Grüße aus Köln — 東京 🎆 Grüße aus Köln — 東京 🎆 Grüße aus Köln — 東京 🎆 Grüße aus Köln — 東京 🎆 Grüße aus Köln — 東京 🎆',
    );
    expect(e.vevent.getFirstPropertyValue('description')).toBe('Ünïcödé 😀 テキスト '.repeat(20).trim());
  });
});

describe('generated VTIMEZONEs', () => {
  const ZONES = [
    'America/New_York',
    'Europe/Berlin',
    'Australia/Sydney', // southern hemisphere: DAYLIGHT starts in October
    'Australia/Lord_Howe', // 30-minute DST
    'Asia/Kolkata', // no transitions at all
    'America/Santiago', // transitions at local midnight
    'Africa/Casablanca', // DST suspended for Ramadan, shifting every year
    'Pacific/Chatham', // +12:45 / +13:45
    'America/St_Johns', // -03:30
  ];

  function timedEvent(id: number, zone: string, local: DateTime): WireEvent {
    const end = local.plus({ hours: 2 });
    const sql = (d: DateTime) => d.toFormat('yyyy-MM-dd HH:mm:ss');
    return makeEvent(id, {
      start: sql(local),
      end: sql(end),
      utcStart: sql(local.toUTC()),
      utcEnd: sql(end.toUTC()),
      timezone: zone,
      title: `${zone} ${sql(local)}`,
    });
  }

  it('agree with the time-zone database over several years and around every change, in many zones', () => {
    // Noon every tenth day, and on the day of and after each offset change (ical.js is slow: ~0.5 ms
    // an event, so not every day).
    const wire: WireEvent[] = [];
    let id = 1000;
    for (const zone of ZONES) {
      let previous = Number.NaN;
      let after = 0;
      let d = DateTime.fromObject({ year: 2026, month: 1, day: 1, hour: 12 }, { zone });
      for (let day = 0; d.year <= 2028; day++, d = d.plus({ days: 1 })) {
        if (d.offset !== previous && day > 0) after = 2;
        previous = d.offset;
        if (day % 10 === 0 || after-- > 0) wire.push(timedEvent(id++, zone, d));
      }
    }
    const { calendar, events } = parse(eventsToIcal(wire, OPTS));
    expect(calendar.getAllSubcomponents('vtimezone')).toHaveLength(ZONES.length);
    const mismatches = wire.flatMap((w, i) => {
      const e = events[i];
      const start = `${w.utc_start_date.replace(' ', 'T')}.000Z`;
      const end = `${w.utc_end_date.replace(' ', 'T')}.000Z`;
      return e.start === start && e.end === end ? [] : [`${w.title}: ${e.start} ≠ ${start}`];
    });
    expect(mismatches).toEqual([]);
  });

  it('cover years far apart without the years between', () => {
    const wire = [
      timedEvent(
        1,
        'Europe/Berlin',
        DateTime.fromObject({ year: 2027, month: 1, day: 10, hour: 9 }, { zone: 'Europe/Berlin' }),
      ),
      timedEvent(
        2,
        'Europe/Berlin',
        DateTime.fromObject({ year: 2099, month: 7, day: 10, hour: 9 }, { zone: 'Europe/Berlin' }),
      ),
      timedEvent(
        3,
        'Asia/Kolkata',
        DateTime.fromObject({ year: 2030, month: 3, day: 1, hour: 9 }, { zone: 'Asia/Kolkata' }),
      ),
    ];
    const ics = eventsToIcal(wire, OPTS);
    const { events } = parse(ics);
    expect(events.map((e) => e.start)).toEqual([
      '2027-01-10T08:00:00.000Z',
      '2099-07-10T07:00:00.000Z',
      '2030-03-01T03:30:00.000Z',
    ]);
    expect(ics).not.toContain('DTSTART:2050');
    // A zone without transitions gets one onset that only states its offset.
    expect(ics).toContain(
      'TZID:Asia/Kolkata\r\nX-LIC-LOCATION:Asia/Kolkata\r\nBEGIN:STANDARD\r\nDTSTART:20290101T053000\r\n',
    );
  });

  it('follow historical rule changes that an RRULE pair of today would get wrong', () => {
    const cases: [string, number, number, number][] = [
      ['Europe/Moscow', 2010, 7, 1], // +04 summer time then
      ['Europe/Moscow', 2012, 1, 15], // permanent +04 (2011–2014)
      ['Europe/Moscow', 2015, 1, 15], // +03 since October 2014
      ['Pacific/Apia', 2011, 12, 29], // the day before Samoa skipped 30 December 2011
      ['Pacific/Apia', 2011, 12, 31],
      ['America/New_York', 2006, 3, 20], // before the 2007 US rule change: still EST
    ];
    const wire = cases.map(([zone, year, month, day], i) =>
      timedEvent(i + 1, zone, DateTime.fromObject({ year, month, day, hour: 12 }, { zone })),
    );
    const { events } = parse(eventsToIcal(wire, OPTS));
    expect(events.map((e) => e.start)).toEqual(wire.map((w) => `${w.utc_start_date.replace(' ', 'T')}.000Z`));
  });

  it('write each onset in local time before the change, with names', () => {
    const ics = eventsToIcal([berlinEvent], OPTS);
    expect(ics).toContain(
      'BEGIN:DAYLIGHT\r\nDTSTART:20270328T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\nEND:DAYLIGHT',
    );
    expect(ics).toContain(
      'BEGIN:STANDARD\r\nDTSTART:20271031T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\nEND:STANDARD',
    );
  });
});
