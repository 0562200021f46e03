/**
 * The feed properties of the .ics renderer (src/export/ical.ts) beyond the API's negotiated answer
 * (test/server/formats/ical.test.ts): calendar properties of RFC 7986 and the X-WR ones, SEQUENCE and
 * STATUS:CANCELLED, GEO, IMAGE, the Outlook variant, folding at 75 octets and byte-identical re-renders.
 */
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { eventsToIcal, type IcalOptions } from '../../src/export/ical.ts';
import type { WireEvent } from '../../src/render/wire.ts';
import { allDayBerlin, berlinEvent, longUnicodeEvent, makeEvent, secondVenue } from '../render/fixtures.ts';

const geoEvent: WireEvent = makeEvent(20, {
  start: '2027-06-01 18:00:00',
  end: '2027-06-01 21:00:00',
  utcStart: '2027-06-01 16:00:00',
  utcEnd: '2027-06-01 19:00:00',
  timezone: 'Europe/Berlin',
  title: 'Open air',
  venue: { ...secondVenue, geo_lat: 52.52, geo_lng: 13.405 } as never,
});

const OPTS: IcalOptions = {
  host: 'cal.example.org',
  calendarName: 'Concerts; and more',
  description: 'Every concert, in one feed',
  timezone: 'Europe/Berlin',
  refreshMinutes: 90,
  source: 'https://cal.example.org/feeds/concerts.ics',
  color: 'steelblue',
  sequence: (e) => (e.id === berlinEvent.id ? 3 : 0),
  cancelled: (e) => e.id === allDayBerlin.id,
};
const EVENTS = [berlinEvent, allDayBerlin, longUnicodeEvent, geoEvent];

const unfolded = (ics: string) => ics.replace(/\r\n[ \t]/g, '').split('\r\n');

describe('a feed rendered to .ics', () => {
  it('carries the calendar properties of RFC 7986 and their X-WR forms', () => {
    const ics = eventsToIcal(EVENTS, OPTS);
    const calendar = new ICAL.Component(ICAL.parse(ics));
    expect(calendar.getFirstPropertyValue('description')).toBe('Every concert, in one feed');
    // ical.js types NAME and the X- properties as unknown and leaves their TEXT escapes alone.
    expect(unfolded(ics)).toEqual(
      expect.arrayContaining([
        'NAME:Concerts\\; and more',
        'X-WR-CALNAME:Concerts\\; and more',
        'X-WR-CALDESC:Every concert\\, in one feed',
      ]),
    );
    expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Berlin');
    expect(calendar.getFirstPropertyValue('color')).toBe('steelblue');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    const lines = unfolded(ics);
    expect(lines).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H30M');
    expect(lines).toContain('X-PUBLISHED-TTL:PT1H30M');
    expect(lines).toContain('SOURCE;VALUE=URI:https://cal.example.org/feeds/concerts.ics');
  });

  it('writes SEQUENCE, STATUS:CANCELLED for tombstones, GEO and IMAGE', () => {
    const calendar = new ICAL.Component(ICAL.parse(eventsToIcal(EVENTS, OPTS)));
    const byUid = new Map(
      calendar.getAllSubcomponents('vevent').map((v) => [String(v.getFirstPropertyValue('uid')), v]),
    );
    const berlin = byUid.get(`${berlinEvent.id}@cal.example.org`)!;
    expect(berlin.getFirstPropertyValue('sequence')).toBe(3);
    expect(berlin.getFirstPropertyValue('status')).toBeNull();
    expect(berlin.getFirstPropertyValue('image')).toBe(berlinEvent.image ? berlinEvent.image.url : null);
    expect(byUid.get(`${allDayBerlin.id}@cal.example.org`)!.getFirstPropertyValue('status')).toBe(
      'CANCELLED',
    );
    expect(byUid.get(`${geoEvent.id}@cal.example.org`)!.getFirstPropertyValue('geo')).toEqual([
      52.52, 13.405,
    ]);
  });

  it('writes named entities of the wire HTML as the characters they name', () => {
    const cafe = makeEvent(21, {
      start: '2027-06-02 18:00:00',
      end: '2027-06-02 21:00:00',
      utcStart: '2027-06-02 16:00:00',
      utcEnd: '2027-06-02 19:00:00',
      timezone: 'Europe/Berlin',
      title: 'Caf&eacute; &#038; cr&egrave;me',
      description: '<p>Soir&eacute;e<br />\nau caf&eacute;</p>\n<p>Entr&eacute;e libre</p>',
    });
    const vevent = new ICAL.Component(ICAL.parse(eventsToIcal([cafe], OPTS))).getFirstSubcomponent('vevent')!;
    expect(vevent.getFirstPropertyValue('summary')).toBe('Café & crème');
    expect(vevent.getFirstPropertyValue('description')).toBe('Soirée\nau café\n\nEntrée libre');
  });

  it('has no X-WR-CALNAME in the Outlook variant, NAME kept', () => {
    const ics = eventsToIcal(EVENTS, { ...OPTS, outlook: true });
    expect(ics).not.toContain('X-WR-CALNAME');
    expect(unfolded(ics)).toContain('NAME:Concerts\\; and more');
  });

  it('folds every line at 75 octets without splitting a character, and renders byte-identically twice', () => {
    const ics = eventsToIcal(EVENTS, OPTS);
    for (const line of ics.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(ics).not.toContain('\uFFFD');
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(eventsToIcal(EVENTS, OPTS)).toBe(ics);
    // Unfolded, the long Unicode title is whole again.
    const summary = new ICAL.Component(ICAL.parse(ics))
      .getAllSubcomponents('vevent')
      .find((v) => v.getFirstPropertyValue('uid') === `${longUnicodeEvent.id}@cal.example.org`)!
      .getFirstPropertyValue('summary');
    expect(summary).toBe(
      new ICAL.Component(ICAL.parse(eventsToIcal([longUnicodeEvent], OPTS)))
        .getFirstSubcomponent('vevent')!
        .getFirstPropertyValue('summary'),
    );
    expect(String(summary).length).toBeGreaterThan(75);
  });
});
