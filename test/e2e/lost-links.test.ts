/**
 * A venue, organizer or category deleted or trashed on the site after an import wrote it: the next run that
 * writes one of its events makes it again (a trashed one restored, a deleted one created from what was
 * written), links the event to it and says so, instead of failing that event on every run (our server
 * refuses such a link with a 400, as TEC 6.2.6 does a deleted venue's).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { comparableText } from '../../src/model/html.ts';
import type { RemovalMode } from '../../src/writer/target.ts';
import { ics, smallEvents } from '../real-tec/calendar.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
const at = (name: string) => join(dir.dir, name);
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

async function imp(file: string, data: string) {
  const run = await runCli(importMain, [at(file), '--data', data, '--json']);
  return { ...run, report: JSON.parse(run.stdout) };
}

/** Removes the linked item of `kind` named `name` on the site, as an admin would. */
async function removeOnSite(
  data: string,
  kind: 'venue' | 'organizer' | 'category',
  name: string,
  mode: RemovalMode,
) {
  const site = await openLocalTarget({ dataFile: data });
  try {
    for await (const item of site.list(kind)) {
      const label = String(item.body.venue ?? item.body.organizer ?? item.body.name);
      if (comparableText(label) === name) return await site.remove(kind, item.id, mode);
    }
    throw new Error(`no ${kind} ${name}`);
  } finally {
    await site.close();
  }
}

/** The event titled `title` as the site shows it: its venue, organizers and categories by name. */
async function linksOf(data: string, title: string) {
  const site = await openLocalTarget({ dataFile: data });
  try {
    for await (const e of site.list('event')) {
      if (comparableText(String(e.body.title)) !== comparableText(title)) continue;
      const b = e.body as Record<string, unknown> & {
        venue: { venue?: string; status?: string } | unknown[];
        organizer: { organizer: string; status?: string }[];
        categories: { name: string }[];
      };
      return {
        venue: Array.isArray(b.venue)
          ? undefined
          : `${comparableText(String(b.venue.venue))} (${b.venue.status})`,
        organizers: b.organizer.map((o) => `${comparableText(o.organizer)} (${o.status})`),
        categories: b.categories.map((c) => comparableText(c.name)),
      };
    }
    throw new Error(`no event ${title}`);
  } finally {
    await site.close();
  }
}

describe('a linked item removed on the site', () => {
  // The screening is the cinema's one event; the quiz is the society's, and in Film & Theatre, too.
  const cases = [
    ['venue', 'Riverside Cinema', 'delete', 'deleted on the target: made again', 0],
    ['venue', 'Riverside Cinema', 'trash', 'in the trash on the target: restored', 0],
    ['organizer', 'Film & Theatre Society', 'delete', 'deleted on the target: made again', 1],
    ['category', 'Film & Theatre', 'delete', 'deleted on the target: made again', 1],
  ] as const;
  for (const [kind, name, mode, said, others] of cases) {
    it(`${kind} ${mode === 'delete' ? 'deleted' : 'trashed'}: made again when its event is written next, and linked`, async () => {
      const data = at(`${kind}-${mode}.db`);
      const file = `${kind}-${mode}.ics`;
      const events = smallEvents(4);
      await writeFile(at(file), ics(events));
      expect((await imp(file, data)).report.counts.event.created).toBe(4);
      await removeOnSite(data, kind, name, mode);

      // The screening (at the cinema, by the society, in Film & Theatre) changes in the source.
      const screening = 'Film & Theatre: "Casablanca" (1942) – sold out';
      await writeFile(at(file), ics(events.map((e, i) => (i === 1 ? { ...e, title: screening } : e))));
      const run = await imp(file, data);
      expect(run.code, run.stderr).toBe(0);
      expect(run.report.counts.event).toMatchObject({ updated: 1, failed: 0 });
      expect(run.report.warnings).toEqual([expect.stringContaining(`its ${kind} "${name}" was ${said}`)]);
      const links = await linksOf(data, screening);
      expect(links.venue).toBe('Riverside Cinema (publish)');
      expect(links.organizers).toEqual(['Film & Theatre Society (publish)']);
      expect(links.categories).toEqual(['Film & Theatre']);

      // Its other events, unlinked when it went, are written again by the next run; then nothing is.
      const again = await imp(file, data);
      expect(again.report.counts.event).toMatchObject({ updated: others, failed: 0 });
      expect(writesOf((await imp(file, data)).report)).toBe(0);
    });
  }

  it('the other events of a deleted venue, unchanged in the source, are linked to it again by the next run', async () => {
    const data = at('hall.db');
    const events = smallEvents(4);
    await writeFile(at('hall.ics'), ics(events));
    await imp('hall.ics', data);
    await removeOnSite(data, 'venue', "St Mary's Church Hall", 'delete');
    const hall = "St Mary's Church Hall (publish)";

    // The quiz changes; the dawn walk, at the same hall, does not.
    const quiz = "St Mary's Quiz Night (upstairs)";
    await writeFile(at('hall.ics'), ics(events.map((e, i) => (i === 0 ? { ...e, title: quiz } : e))));
    const run = await imp('hall.ics', data);
    expect(run.report.warnings).toEqual([
      expect.stringMatching(
        /its venue "St Mary's Church Hall" was deleted on the target: made again, and the 2 events linking it are written again/,
      ),
    ]);
    expect((await linksOf(data, quiz)).venue).toBe(hall);
    expect((await linksOf(data, 'Dawn Walk')).venue).toBeUndefined();

    const next = await imp('hall.ics', data);
    expect(next.report.counts.event).toMatchObject({ updated: 1, unchanged: 3 });
    expect((await linksOf(data, 'Dawn Walk')).venue).toBe(hall);
    expect(writesOf((await imp('hall.ics', data)).report)).toBe(0);
  });

  it('two events written at once at a trashed venue: it is restored once, both are linked, one warning says so', async () => {
    const data = at('both.db');
    const events = smallEvents(4);
    await writeFile(at('both.ics'), ics(events));
    await imp('both.ics', data);
    await removeOnSite(data, 'venue', "St Mary's Church Hall", 'trash');

    const moved = (title: string) => `${title} (moved)`;
    await writeFile(
      at('both.ics'),
      ics(events.map((e, i) => (i === 0 || i === 3 ? { ...e, title: moved(e.title) } : e))),
    );
    const run = await imp('both.ics', data);
    expect(run.report.counts.event).toMatchObject({ updated: 2, failed: 0 });
    expect(run.report.warnings).toEqual([
      expect.stringMatching(/its venue "St Mary's Church Hall" was in the trash on the target: restored/),
    ]);
    for (const title of [moved("St Mary's Quiz Night"), moved('Dawn Walk')])
      expect((await linksOf(data, title)).venue).toBe("St Mary's Church Hall (publish)");
    expect(writesOf((await imp('both.ics', data)).report)).toBe(0);
  });
});
