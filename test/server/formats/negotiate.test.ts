import { describe, expect, it } from 'vitest';
import type { MediaType } from '../../../src/server/formats/negotiate.ts';
import { contentType, negotiate } from '../../../src/server/formats/negotiate.ts';

// The routes' representations, JSON first (B.12 table).
const EVENTS: readonly MediaType[] = ['json', 'ical', 'csv', 'xml'];
const VENUES: readonly MediaType[] = ['json', 'csv', 'xml'];
const TERMS: readonly MediaType[] = ['json', 'xml'];

describe('negotiate', () => {
  it.each([[undefined], [''], ['  '], ['*/*'], ['application/*'], ['application/json']])(
    'answers JSON to Accept %j',
    (accept) => {
      expect(negotiate(accept, false, EVENTS)).toBe('json');
      expect(negotiate(accept, false, TERMS)).toBe('json');
    },
  );

  it.each([
    ['text/calendar', 'ical'],
    ['text/csv', 'csv'],
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['TEXT/CSV', 'csv'],
    ['text/calendar; charset=utf-8', 'ical'],
    ['text/csv;header=present;charset=utf-8', 'csv'],
  ] as const)('maps Accept %j to %s', (accept, expected) => {
    expect(negotiate(accept, false, EVENTS)).toBe(expected);
  });

  it('forces iCalendar with ?ical=1 whatever Accept says, where it is available', () => {
    expect(negotiate('application/json', true, EVENTS)).toBe('ical');
    expect(negotiate('text/calendar;q=0', true, EVENTS)).toBe('ical');
    expect(negotiate(undefined, true, VENUES)).toBeNull();
  });

  it('answers null (406) to unsupported types and to iCalendar on venues (T154)', () => {
    expect(negotiate('image/png', false, EVENTS)).toBeNull();
    expect(negotiate('text/calendar', false, VENUES)).toBeNull();
    expect(negotiate('text/csv', false, TERMS)).toBeNull();
    expect(negotiate('application/ld+json, text/html', false, EVENTS)).toBeNull();
  });

  it('picks the highest q-value', () => {
    expect(negotiate('text/csv;q=0.5, application/xml;q=0.8', false, EVENTS)).toBe('xml');
    expect(negotiate('text/csv;q=0.9, application/json;q=0.8', false, EVENTS)).toBe('csv');
    expect(negotiate('*/*;q=0.1, text/csv', false, EVENTS)).toBe('csv');
    expect(negotiate('application/json;q=0.001, text/calendar;q=0.002', false, EVENTS)).toBe('ical');
    expect(negotiate('text/csv ; q=0.3 , application/xml ; Q=0.4', false, EVENTS)).toBe('xml');
  });

  it('breaks q-value ties by order in the header', () => {
    expect(negotiate('text/csv, application/xml', false, EVENTS)).toBe('csv');
    expect(negotiate('application/xml, text/csv', false, EVENTS)).toBe('xml');
    expect(negotiate('text/csv;q=0.5, text/calendar;q=0.5', false, EVENTS)).toBe('csv');
  });

  it('prefers JSON among types a wildcard matches equally', () => {
    expect(negotiate('application/xml;q=0.5, */*;q=0.5', false, EVENTS)).toBe('xml');
    expect(negotiate('*/*;q=0.5, application/xml;q=0.5', false, EVENTS)).toBe('json');
  });

  it('treats q=0 as not acceptable, and a specific range overrides a wildcard', () => {
    expect(negotiate('text/calendar;q=0', false, EVENTS)).toBeNull();
    expect(negotiate('application/json;q=0, */*', false, EVENTS)).toBe('ical');
    expect(negotiate('*/*, application/json;q=0', false, TERMS)).toBe('xml');
    expect(negotiate('text/*;q=0.5, text/calendar;q=0', false, EVENTS)).toBe('csv');
    expect(negotiate('application/xml;q=0, text/xml', false, TERMS)).toBe('xml');
  });

  it('answers text/* with the first text type of the route', () => {
    expect(negotiate('text/*', false, EVENTS)).toBe('ical');
    expect(negotiate('text/*', false, VENUES)).toBe('csv');
    expect(negotiate('text/*', false, TERMS)).toBe('xml');
  });

  it('gives a browser the XML it ranks above */* (contract rule, no browser special case)', () => {
    const firefox = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(negotiate(firefox, false, EVENTS)).toBe('xml');
  });

  it('skips malformed ranges and weights, and treats a header of only those as absent', () => {
    expect(negotiate('text/csv;q=2, application/xml', false, EVENTS)).toBe('xml');
    expect(negotiate('text/csv;q=0.1234, text/calendar;q=abc, application/xml;q=0.1', false, EVENTS)).toBe(
      'xml',
    );
    expect(negotiate('garbage', false, EVENTS)).toBe('json');
    expect(negotiate('*/csv', false, EVENTS)).toBe('json');
    expect(negotiate(',,;', false, EVENTS)).toBe('json');
  });

  it('does not split at a comma inside a quoted parameter', () => {
    expect(negotiate('text/csv;foo="a,b;c";q=0.1, application/xml;q=0.2', false, EVENTS)).toBe('xml');
    expect(negotiate('text/csv;foo="a,b";q=0.3, application/xml;q=0.2', false, EVENTS)).toBe('csv');
  });

  it('falls back to the first available type when a route has no JSON', () => {
    expect(negotiate(undefined, false, ['xml'])).toBe('xml');
    expect(negotiate(undefined, false, [])).toBeNull();
  });
});

describe('contentType', () => {
  it('gives the B.12 header values', () => {
    expect(contentType('json')).toBe('application/json; charset=UTF-8');
    expect(contentType('ical')).toBe('text/calendar; charset=utf-8');
    expect(contentType('csv')).toBe('text/csv; charset=utf-8; header=present');
    expect(contentType('xml')).toBe('application/xml; charset=UTF-8');
  });
});
