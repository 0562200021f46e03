/**
 * The name `npm run import` gives its pipeline: the file's name or the feed's address as a slug, as before for
 * any that fits in 50 characters, and with a hash of the whole for a longer one, so that two feeds whose
 * addresses start alike (an Outlook account's calendars) are two pipelines, not one.
 */
import { describe, expect, it } from 'vitest';
import { importName } from '../../src/cli/import.ts';

describe('importName', () => {
  it('is the slug of a short file name or address, as it always was', () => {
    expect(importName('community-calendar.ics')).toBe('import-community-calendar-ics');
    expect(importName('calendar.example.org/club.ics')).toBe('import-calendar-example-org-club-ics');
    expect(importName('')).toBe('import-file');
  });

  it('ends a long one in a hash of all of it: two calendars of one Outlook account are two imports', () => {
    const account = 'outlook.office365.com/owa/calendar/4f1d2c3b5a6e4d7f8a9b0c1d2e3f4a5b@example.org';
    const work = importName(`${account}/9a8b7c6d5e4f4a3b2c1d0e9f8a7b6c5d/calendar.ics`);
    const club = importName(`${account}/1a2b3c4d5e6f4a7b8c9d0e1f2a3b4c5d/calendar.ics`);
    expect(work).not.toBe(club);
    expect(work).toMatch(/^import-outlook-office365-com-owa-calendar-4f1d2c-[0-9a-f]{8}$/);
    expect(work.length).toBeLessThanOrEqual('import-'.length + 50);
  });
});
