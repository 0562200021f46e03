/**
 * Regenerates the sample inputs: samples/community-calendar.ics and samples/community-calendar.csv.
 *
 * Usage: `npx node samples/generate.ts` (writes both files next to this script and prints what it wrote).
 * The output is deterministic; test/samples.test.ts checks that the committed files equal it.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvEvents, renderCommunityCsv } from './community-csv.ts';
import { communityEvents, renderCommunityIcs } from './community-ics.ts';

export const ICS_PATH = join(import.meta.dirname, 'community-calendar.ics');
export const CSV_PATH = join(import.meta.dirname, 'community-calendar.csv');

function main(): void {
  const ics = renderCommunityIcs();
  const csv = renderCommunityCsv();
  writeFileSync(ICS_PATH, ics);
  writeFileSync(CSV_PATH, csv);
  const events = communityEvents();
  const series = events.filter((e) => e.rrule).length;
  const overrides = events.filter((e) => e.recurrenceId).length;
  process.stdout.write(
    `${ICS_PATH}: ${events.length} VEVENTs (${series} series, ${overrides} overrides), ${Buffer.byteLength(ics)} bytes\n` +
      `${CSV_PATH}: ${csvEvents().length} rows, ${Buffer.byteLength(csv)} bytes\n`,
  );
}

if (process.argv[1] === import.meta.filename) main();
