// The .ics fixtures (test/fixtures/ics, see its README.md) and how the tests read them: the window their
// series are expanded in, and the zone their floating times get when the file names none.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Window } from '../../../src/sources/record.ts';

export const FIXTURES = join(import.meta.dirname, '../../fixtures/ics');

export const FIXTURE_WINDOW: Window = {
  from: new Date('2027-01-01T00:00:00Z'),
  to: new Date('2028-01-01T00:00:00Z'),
};

/** Floating times in a file with neither X-WR-TIMEZONE nor exactly one VTIMEZONE get this zone. */
export const DEFAULT_ZONE = 'America/Chicago';

export const fixtureFiles = (): string[] =>
  readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.ics'))
    .sort();
