import { describe, expect, it } from 'vitest';
import { timezoneAbbr } from '../../src/model/timezone-abbr.ts';

describe('timezoneAbbr', () => {
  it('T066: New York in winter is EST, in summer EDT', () => {
    expect(timezoneAbbr('America/New_York', '2027-03-02 00:00:00')).toBe('EST');
    expect(timezoneAbbr('America/New_York', '2027-07-01 00:00:00')).toBe('EDT');
  });

  it('T069: a fixed-offset zone repeats its name', () => {
    expect(timezoneAbbr('UTC+2', '2027-06-01 08:00:00')).toBe('UTC+2');
    expect(timezoneAbbr('UTC-3:30', '2027-06-01 08:00:00')).toBe('UTC-3:30');
    expect(timezoneAbbr('UTC', '2027-06-01 08:00:00')).toBe('UTC');
  });

  it('gives the letters PHP prints for Europe', () => {
    expect(timezoneAbbr('Europe/Berlin', '2027-01-15 12:00:00')).toBe('CET');
    expect(timezoneAbbr('Europe/Berlin', '2027-07-15 12:00:00')).toBe('CEST');
    expect(timezoneAbbr('Europe/London', '2027-01-15 12:00:00')).toBe('GMT');
    expect(timezoneAbbr('Europe/London', '2027-07-15 12:00:00')).toBe('BST');
    expect(timezoneAbbr('Europe/Dublin', '2027-07-15 12:00:00')).toBe('IST');
    expect(timezoneAbbr('Europe/Moscow', '2027-07-15 12:00:00')).toBe('MSK');
  });

  it('gives the letters PHP prints elsewhere', () => {
    expect(timezoneAbbr('Asia/Kolkata', '2027-07-15 12:00:00')).toBe('IST');
    expect(timezoneAbbr('Asia/Tokyo', '2027-07-15 12:00:00')).toBe('JST');
    expect(timezoneAbbr('Australia/Sydney', '2027-01-15 12:00:00')).toBe('AEDT');
    expect(timezoneAbbr('Pacific/Auckland', '2027-07-15 12:00:00')).toBe('NZST');
    expect(timezoneAbbr('Africa/Nairobi', '2027-07-15 12:00:00')).toBe('EAT');
    expect(timezoneAbbr('Etc/UTC', '2027-07-15 12:00:00')).toBe('UTC');
  });

  it('prints the numeric offset where tzdata has no letters', () => {
    expect(timezoneAbbr('Etc/GMT+12', '2027-07-15 12:00:00')).toBe('-12');
    expect(timezoneAbbr('Pacific/Kiritimati', '2027-07-15 12:00:00')).toBe('+14');
    expect(timezoneAbbr('Asia/Kathmandu', '2027-07-15 12:00:00')).toBe('+0545');
    expect(timezoneAbbr('America/Sao_Paulo', '2027-07-15 12:00:00')).toBe('-03');
    expect(timezoneAbbr('Asia/Dubai', '2027-07-15 12:00:00')).toBe('+04');
    expect(timezoneAbbr('Atlantic/Azores', '2027-07-15 12:00:00')).toBe('+00');
  });

  it('answers the same from the cache', () => {
    const first = timezoneAbbr('America/Chicago', '2027-01-15 12:00:00');
    expect(timezoneAbbr('America/Chicago', '2027-02-15 12:00:00')).toBe(first);
    expect(first).toBe('CST');
  });
});
