import { describe, expect, it } from 'vitest';
import { readTime, readTimeRange } from '../../../src/sources/csv/clock.ts';
import { addDays, orderHint, readDate } from '../../../src/sources/csv/dates.ts';
import { readBoolean, readList, unescapeFormula } from '../../../src/sources/csv/values.ts';

describe('readDate', () => {
  it('reads ISO dates, padding single-digit months and days', () => {
    expect(readDate('2027-03-04', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
    expect(readDate('2027-3-4', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('reads year-first slash dates without a date format: no locale writes year-day-month', () => {
    expect(readDate('2027/03/04', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('calls 03/04/2027 ambiguous without an order, and names the flag that settles it', () => {
    expect(readDate('03/04/2027', undefined)).toMatchObject({ ok: false, ambiguous: true });
    expect(readDate('19/11/2014', undefined)).toMatchObject({
      ok: false,
      ambiguous: true,
      reason: expect.stringContaining('--date-format DD/MM/YYYY or MM/DD/YYYY'),
    });
  });

  it('says which order a value settles for its column: a number over 12 cannot be a month', () => {
    expect(orderHint('19/11/2014')).toBe('dmy');
    expect(orderHint('11/19/14 7:00 PM')).toBe('mdy');
    expect(orderHint('03/04/2027')).toBeUndefined();
    expect(orderHint('2027-03-04')).toBeUndefined();
  });

  it('reads dotted dates day first without an order: every locale that writes dots puts the day first', () => {
    expect(readDate('25.12.2027', undefined)).toEqual({ ok: true, value: { date: '2027-12-25' } });
    expect(readDate('4.3.27', undefined)).toEqual({ ok: true, value: { date: '2027-03-04' } });
  });

  it('reads two-digit years with the POSIX pivot: 00-68 are 20xx, 69-99 are 19xx', () => {
    expect(readDate('11/19/14', 'mdy')).toEqual({ ok: true, value: { date: '2014-11-19' } });
    expect(readDate('01.01.68', undefined)).toEqual({ ok: true, value: { date: '2068-01-01' } });
    expect(readDate('01.01.69', undefined)).toEqual({ ok: true, value: { date: '1969-01-01' } });
  });

  it('reads compact YYYYMMDD, and YYYYMMDDTHHMMSS with its time', () => {
    expect(readDate('20240510', undefined)).toEqual({ ok: true, value: { date: '2024-05-10' } });
    expect(readDate('20240510T193000', undefined)).toEqual({
      ok: true,
      value: { date: '2024-05-10', time: '19:30:00' },
    });
    expect(readDate('20241310', undefined).ok).toBe(false);
  });

  it.each([
    ['apr 19, 2016', '2016-04-19'],
    ['April 19, 2016', '2016-04-19'],
    ['19 April 2016', '2016-04-19'],
    ['19. März 2024', '2024-03-19'],
    ['1er mars 2024', '2024-03-01'],
    ['12 févr. 2025', '2025-02-12'],
    ['3 gennaio 2025', '2025-01-03'],
    ['10 de mayo de 2024', '2024-05-10'],
    ['03-Mar-24', '2024-03-03'],
    ['Sept 9 2025', '2025-09-09'],
    ['Fr., 10.05.2024', '2024-05-10'],
    ['Friday, May 10, 2024', '2024-05-10'],
    ['vendredi 10 mai 2024', '2024-05-10'],
    ['sábado, 11 de mayo de 2024', '2024-05-11'],
    ['Sa 12.04.25', '2025-04-12'],
    ['Mar 3, 2024', '2024-03-03'],
  ])('reads month names and weekday prefixes: %s', (cell, date) => {
    expect(readDate(cell, undefined)).toEqual({ ok: true, value: { date } });
  });

  it('keeps the time after a named or dotted date', () => {
    expect(readDate('apr 19, 2016 7:30 pm', undefined)).toEqual({
      ok: true,
      value: { date: '2016-04-19', time: '7:30 pm' },
    });
    expect(readDate('Fr., 10.05.2024 15:15 - 17:45 Uhr', undefined)).toEqual({
      ok: true,
      value: { date: '2024-05-10', time: '15:15 - 17:45 Uhr' },
    });
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
    expect(readDate('31 April 2027', undefined)).toMatchObject({ ok: false });
    expect(readDate('Frühling 2027', undefined)).toMatchObject({ ok: false });
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

  it('reads the ways people write 24-hour times: dots, h, Uhr', () => {
    expect(readTime('19.30')).toEqual({ ok: true, value: '19:30:00' });
    expect(readTime('19h30')).toEqual({ ok: true, value: '19:30:00' });
    expect(readTime('19 Uhr')).toEqual({ ok: true, value: '19:00:00' });
    expect(readTime('7 p. m.')).toEqual({ ok: true, value: '19:00:00' });
  });

  it('reads a start and an end written in one cell', () => {
    expect(readTimeRange('15:15 - 17:45 Uhr')).toEqual({
      ok: true,
      value: { start: '15:15:00', end: '17:45:00' },
    });
    expect(readTimeRange('7–9 pm')).toEqual({ ok: true, value: { start: '19:00:00', end: '21:00:00' } });
    expect(readTimeRange('10:00 am - 12:30 pm')).toEqual({
      ok: true,
      value: { start: '10:00:00', end: '12:30:00' },
    });
    expect(readTimeRange('19:00 bis 22:00')).toEqual({
      ok: true,
      value: { start: '19:00:00', end: '22:00:00' },
    });
    expect(readTimeRange('19:30')).toEqual({ ok: true, value: { start: '19:30:00' } });
    expect(readTimeRange('later - maybe').ok).toBe(false);
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
    for (const yes of ['WAHR', 'vrai', 'Ja', 'sì'])
      expect(readBoolean(yes)).toEqual({ ok: true, value: true });
    for (const no of ['FALSCH', 'faux', 'nein', 'FALSO'])
      expect(readBoolean(no)).toEqual({ ok: true, value: false });
    expect(readBoolean('maybe').ok).toBe(false);
  });

  it('splits comma lists, trimming items and dropping empties and repeats', () => {
    expect(readList(' Music, Jazz ,,Music, ')).toEqual(['Music', 'Jazz']);
    expect(readList('')).toEqual([]);
  });
});

describe('unescapeFormula', () => {
  it("drops the ' a CSV writer put before a formula-like cell, and nothing else", () => {
    expect(unescapeFormula("'=SUM(A1)")).toBe('=SUM(A1)');
    expect(unescapeFormula("'+49 30 1234")).toBe('+49 30 1234');
    expect(unescapeFormula("'quoted'")).toBe("'quoted'");
    expect(unescapeFormula("'")).toBe("'");
    expect(unescapeFormula("''-J")).toBe("'-J"); // the export doubled a ' that came before a formula character
  });
});

describe('addDays', () => {
  it('crosses month and leap-year ends', () => {
    expect(addDays('2027-01-31', 1)).toBe('2027-02-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-12-31', 1)).toBe('2028-01-01');
  });
});
