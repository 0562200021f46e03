import { describe, expect, it } from 'vitest';
import { eventSlug, eventTimes, type MapOptions, mapRecords } from '../../src/pipeline/map.ts';
import type { EventRecord } from '../../src/sources/record.ts';

const options: MapOptions = {
  pipeline: 'club',
  timezone: 'Europe/Berlin',
  status: 'publish',
  categories: ['Community'],
  tags: [],
  featured: false,
  show_map: true,
  show_map_link: true,
};

const record = (over: Partial<EventRecord> = {}): EventRecord => ({
  origin: { file: 'club.ics', line: 10 },
  key: 'uid-1',
  uid: 'uid-1',
  title: 'Jazz night',
  start: { kind: 'zoned', local: '2027-03-01 19:00:00', zone: 'Europe/Berlin' },
  end: { kind: 'zoned', local: '2027-03-01 22:00:00', zone: 'Europe/Berlin' },
  organizers: [],
  categories: [],
  tags: [],
  ...over,
});

describe('mapRecords', () => {
  it('gives each venue, organizer and term one entity, shared by the events that mention it', () => {
    const venue = { name: 'Main Hall', address: '1 Main St' };
    const { entities } = mapRecords(
      [
        record({
          venue,
          categories: ['Music', 'music '],
          organizers: [{ name: 'Jo', email: 'jo@example.org' }],
        }),
        record({ key: 'uid-2', venue: { name: 'main  hall', address: '1 Main St' }, categories: ['MUSIC'] }),
      ],
      options,
    );
    const kinds = entities.map((e) => e.kind);
    expect(kinds).toEqual(['category', 'category', 'venue', 'organizer', 'event', 'event']);
    expect(entities.filter((e) => e.kind === 'category').map((e) => e.label)).toEqual(['Music', 'Community']);
    const [first, second] = entities.filter((e) => e.kind === 'event');
    expect(first.refs).toEqual({
      categories: ['music', 'community'],
      tags: [],
      organizers: ['jo'],
      venue: 'main hall|1 main st',
    });
    expect(second.refs.venue).toBe(first.refs.venue);
  });

  it('writes zoned times as wall time plus zone, and converts an end written in another zone', () => {
    const { entities } = mapRecords(
      [record({ end: { kind: 'zoned', local: '2027-03-01 21:00:00', zone: 'UTC' } })],
      options,
    );
    const event = entities.find((e) => e.kind === 'event');
    expect(event?.fields).toMatchObject({
      start_date: '2027-03-01 19:00:00',
      end_date: '2027-03-01 22:00:00',
      timezone: 'Europe/Berlin',
      all_day: false,
    });
  });

  it('keeps the hash of an unchanged record and changes it when a field changes', () => {
    const a = mapRecords([record()], options).entities.find((e) => e.kind === 'event');
    const b = mapRecords([record()], options).entities.find((e) => e.kind === 'event');
    const c = mapRecords([record({ title: 'Jazz night!' })], options).entities.find(
      (e) => e.kind === 'event',
    );
    expect(a?.hash).toBe(b?.hash);
    expect(c?.hash).not.toBe(a?.hash);
  });

  it('marks cancelled records and reports duplicate keys with both lines', () => {
    const { entities, problems } = mapRecords(
      [record(), record({ status: 'cancelled', origin: { file: 'club.ics', line: 40 } })],
      options,
    );
    expect(entities.filter((e) => e.kind === 'event')).toHaveLength(1);
    expect(entities.find((e) => e.kind === 'event')?.cancelled).toBe(true);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'duplicate_key', origin: { file: 'club.ics', line: 40 } }),
    ]);
  });
});

describe('eventTimes', () => {
  it('turns an exclusive all-day end into the last day, whatever the zone', () => {
    expect(
      eventTimes(
        { kind: 'date', date: '2027-03-27' },
        { kind: 'date', date: '2027-03-29' },
        'Pacific/Kiritimati',
      ),
    ).toEqual({
      start: '2027-03-27 00:00:00',
      end: '2027-03-28 23:59:59',
      timezone: 'Pacific/Kiritimati',
      allDay: true,
      endClamped: false,
    });
  });

  it('gives floating times the pipeline zone', () => {
    const t = eventTimes(
      { kind: 'floating', local: '2027-07-01 09:00:00' },
      { kind: 'floating', local: '2027-07-01 10:00:00' },
      'America/New_York',
    );
    expect(t).toMatchObject({
      start: '2027-07-01 09:00:00',
      end: '2027-07-01 10:00:00',
      timezone: 'America/New_York',
    });
  });

  it('clamps an end before the start to the start and says so', () => {
    const t = eventTimes(
      { kind: 'zoned', local: '2027-07-01 09:00:00', zone: 'UTC' },
      { kind: 'zoned', local: '2027-07-01 08:00:00', zone: 'UTC' },
      'UTC',
    );
    expect(t).toMatchObject({ end: '2027-07-01 09:00:00', endClamped: true });
  });
});

describe('eventSlug', () => {
  it('is readable, stable, and unique to pipeline and key', () => {
    const slug = eventSlug('club', 'uid-1', 'Jazz Night at the Café');
    expect(slug).toMatch(/^jazz-night-at-the-cafe-[0-9a-f]{10}$/);
    expect(eventSlug('club', 'uid-1', 'Jazz Night at the Café')).toBe(slug);
    expect(eventSlug('other', 'uid-1', 'Jazz Night at the Café')).not.toBe(slug);
    expect(eventSlug('club', 'uid-1', '東京')).toMatch(/^event-[0-9a-f]{10}$/);
  });
});
