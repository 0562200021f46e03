// Inline .ics for the tests: a calendar around the given lines, read with a window over 2027.
import { readIcs } from '../../../src/sources/ics/index.ts';
import type { SourceResult, Window } from '../../../src/sources/record.ts';

export const YEAR_2027: Window = {
  from: new Date('2027-01-01T00:00:00Z'),
  to: new Date('2028-01-01T00:00:00Z'),
};

export function calendar(...lines: string[]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync tests//EN',
    ...lines,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

export function vevent(...lines: string[]): string[] {
  return ['BEGIN:VEVENT', ...lines, 'END:VEVENT'];
}

/**
 * `text` read as a file; the VEVENTs of these tests mostly leave SUMMARY out, so the warning for that
 * (ics_no_summary, tested in malformed.test.ts) is left out of the problems.
 */
export function read(text: string, options: { window?: Window; defaultZone?: string } = {}): SourceResult {
  const result = readIcs(new TextEncoder().encode(text), {
    file: 'test.ics',
    window: options.window ?? YEAR_2027,
    ...options,
  });
  return { ...result, problems: result.problems.filter((p) => p.code !== 'ics_no_summary') };
}
