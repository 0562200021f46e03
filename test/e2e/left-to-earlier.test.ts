/**
 * `npm run import` of a file that shares some events with an earlier import leaves those to it
 * (pipeline/shared.ts) — and only while that import really has them: not after the data file was replaced
 * (the state's items are forgotten), not once that import made them drafts; and what is left out changes
 * neither the plan of a dry run nor the mass-delete guard.
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { ics, smallEvents } from '../real-tec/calendar.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli, snapshotOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
const at = (name: string) => join(dir.dir, name);
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const events = smallEvents(6);
// Two of the city's events and three of its own: too few to be the city's calendar again.
const own = events
  .slice(2, 5)
  .map((e, i) => ({ ...e, uid: `own-${i}@library.example`, title: `Library ${i}` }));

async function imp(file: string, data: string, flags: string[] = [], env: Record<string, string> = {}) {
  const run = await runCli(importMain, [at(file), '--data', data, '--json', ...flags], env);
  expect(run.code, run.stderr).toBe(0);
  return { ...run, report: JSON.parse(run.stdout) };
}

describe('events left to an earlier import', () => {
  it('after the data file was replaced, nothing is left: a dry run plans what the real run then does', async () => {
    const data = at('replaced.db');
    await writeFile(at('city.ics'), ics(events));
    await writeFile(at('library.ics'), ics([...events.slice(0, 2), ...own]));
    await imp('city.ics', data);
    expect((await imp('library.ics', data)).stderr).toMatch(/2 events were imported before/);

    await rm(data);
    // A file never imported, and the library's, each looked at by a dry run: the data file is not made.
    await writeFile(at('fresh.ics'), ics([...events.slice(0, 1), ...own.slice(0, 2)]));
    expect((await imp('fresh.ics', data, ['--dry-run'])).report.plan.counts.event.create).toBe(3);
    const dry = await imp('library.ics', data, ['--dry-run']);
    expect(existsSync(data)).toBe(false);
    expect(dry.stderr).not.toMatch(/left to that import/);
    expect(dry.report.plan.counts.event.create).toBe(5);
    const real = await imp('library.ics', data);
    expect(real.stderr).not.toMatch(/left to that import/);
    expect(real.report.counts.event.created).toBe(5);
  });

  it('an event the earlier import made a draft is published by the file that still lists it', async () => {
    const data = at('drafted.db');
    await writeFile(at('city-d.ics'), ics(events));
    await writeFile(at('club-d.ics'), ics([...events.slice(0, 2), ...own]));
    await imp('city-d.ics', data, ['--deletions', 'draft']);
    expect((await imp('club-d.ics', data)).stderr).toMatch(/2 events were imported before/);

    // The city's calendar drops its quiz night (its import makes that a draft); the club's still lists it.
    await writeFile(at('city-d.ics'), ics(events.slice(1)));
    expect((await imp('city-d.ics', data, ['--deletions', 'draft'])).report.counts.event.deleted).toBe(1);
    const club = await imp('club-d.ics', data);
    expect(club.stderr).toMatch(/1 event was imported before/);
    expect(club.report.counts.event.created).toBe(1);
    const quiz = (await snapshotOf(data)).events.filter((e) => /Quiz/.test(String(e.title)));
    expect(quiz.map((e) => e.status).sort()).toEqual(['draft', 'publish']);
  });

  it('count as the source’s events for the mass-delete guard, in a dry run and a real one alike', async () => {
    const data = at('guard.db');
    const soon = [0, 1, 2].map((i) => ({
      uid: `soon-${i}@library.example`,
      title: `Soon ${i}`,
      start: `:202611${25 + i}T100000Z`,
      end: `:202611${25 + i}T110000Z`,
    }));
    await writeFile(at('city-g.ics'), ics(events));
    await imp('city-g.ics', data);
    await writeFile(at('library-g.ics'), ics([...soon, { ...events[3], uid: 'mine@library.example' }]));
    await imp('library-g.ics', data);

    // Weeks later the file holds one event, and the city's import has it: nothing of the source is lost.
    await writeFile(at('library-g.ics'), ics([events[0]]));
    const later = { CALSYNC_NOW: '2027-01-15T12:00:00Z' };
    const dry = await imp('library-g.ics', data, ['--dry-run', '--deletions', 'trash'], later);
    const real = await imp('library-g.ics', data, ['--deletions', 'trash'], later);
    expect(dry.report.guard).toBeUndefined();
    expect(real.report.guard).toBeUndefined();
    expect(dry.report.plan.counts.event.delete).toBe(1);
    expect(real.report.counts.event.deleted).toBe(1);
  });
});
