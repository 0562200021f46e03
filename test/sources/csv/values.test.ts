import { describe, expect, it } from 'vitest';
import { addDays, readBoolean, readDate, readList, readTime } from '../../../src/sources/csv/values.ts';

describe('readDate', () => {
  it('reads ISO dates, padding single-digit months and days', () => {
    expect(readDate('2027-03-04', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
    expect(readDate('2027-3-4', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('reads year-first slash dates without a date format: no locale writes year-day-month', () => {
    expect(readDate('2027/03/04', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('calls 03/04/2027 ambiguous without a date format, even when the day is over 12', () => {
    expect(readDate('03/04/2027', undefined)).toMatchObject({ ok: false, ambiguous: true });
    expect(readDate('25.12.2027', undefined)).toMatchObject({ ok: false, ambiguous: true });
  });

  it('reads day-first and month-first dates by their order, with slashes, dots or dashes', () => {
    expect(readDate('03/04/2027', 'dmy')).toEqual({ ok: true, value: { date: '2027-04-03' } });
    expect(readDate('03.04.2027', 'dmy')).toEqual({ ok: true, value: { date: '2027-04-03' } });
    expect(readDate('03/04/2027', 'mdy')).toEqual({ ok: true, value: { date: '2027-03-04' } });
    expect(readDate('3-4-2027', 'mdy')).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('rejects dates that are not on the calendar, and mixed separators', () => {
    expect(readDate('2027-02-29', undefined).ok).toBe(false);
    expect(readDate('2028-02-29', undefined).ok).toBe(true);
    expect(readDate('13/13/2027', 'dmy').ok).toBe(false);
    expect(readDate('03/04.2027', 'dmy').ok).toBe(false);
    expect(readDate('next friday', undefined)).toMatchObject({ ok: false });
  });

  it('hands back a time written after the date, unread', () => {
    expect(readDate('2027-03-04 19:30', undefined)).toEqual({
      ok: true,
      value: { date: '2027-03-04', time: '19:30' },
    });
    expect(readDate('2027-03-04T19:30:00', undefined)).toEqual({
      ok: true,
      value: { date: '2027-03-04', time: '19:30:00' },
    });
    expect(readDate('04/03/2027 7:30 pm', 'dmy')).toEqual({
      ok: true,
      value: { date: '2027-03-04', time: '7:30 pm' },
    });
  });
});

describe('readTime', () => {
  it('reads 24-hour times with or without seconds', () => {
    expect(readTime('9:05')).toEqual({ ok: true, value: '09:05:00' });
    expect(readTime('19:30:15')).toEqual({ ok: true, value: '19:30:15' });
  });

  it('reads 12-hour times, with 12 am as midnight and 12 pm as noon', () => {
    expect(readTime('7:30 pm')).toEqual({ ok: true, value: '19:30:00' });
    expect(readTime('7PM')).toEqual({ ok: true, value: '19:00:00' });
    expect(readTime('12:15 a.m.')).toEqual({ ok: true, value: '00:15:00' });
    expect(readTime('12:00 PM')).toEqual({ ok: true, value: '12:00:00' });
  });

  it('rejects impossible times', () => {
    for (const text of ['24:00', '10:60', '13:00 pm', '0 am', 'noon', '1930']) {
      expect(readTime(text).ok, text).toBe(false);
    }
  });
});

describe('readBoolean and readList', () => {
  it('reads yes/no words in any case and refuses others', () => {
    for (const yes of ['yes', 'Y', 'TRUE', '1']) expect(readBoolean(yes)).toEqual({ ok: true, value: true });
    for (const no of ['No', 'n', 'false', '0']) expect(readBoolean(no)).toEqual({ ok: true, value: false });
    expect(readBoolean('maybe').ok).toBe(false);
  });

  it('splits comma lists, trimming items and dropping empties and repeats', () => {
    expect(readList(' Music, Jazz ,,Music, ')).toEqual(['Music', 'Jazz']);
    expect(readList('')).toEqual([]);
  });
});

describe('addDays', () => {
  it('crosses month and leap-year ends', () => {
    expect(addDays('2027-01-31', 1)).toBe('2027-02-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-12-31', 1)).toBe('2028-01-01');
  });
});
