/**
 * A venue, organizer or category an import wrote, trashed or deleted on the real TEC 6.2.6 site afterwards:
 * the next run that writes one of its events makes it again and links the event to it, and the other events
 * the site unlinked from it, but not one an editor trashed. Before, a deleted venue failed that event with a
 * 400 on every run, a trashed one was linked all the same (shown `trash` to the public), and a deleted
 * category was dropped from the event in silence.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import type { Remote } from '../../src/writer/target.ts';
import { writesOf } from '../e2e/helpers.ts';
import { ics, smallEvents } from './calendar.ts';
import { siteSql } from './kit.ts';
import { describeRealTec, freshSiteEach, importInto, type RealTec, siteSnapshot, tecTarget } from './site.ts';

const SCREENING = 'Film & Theatre: "Casablanca" (1942) - sold out';

/** The first item of `kind` on the site whose name is `name`. */
async function find(tec: RealTec, kind: 'venue' | 'organizer' | 'category', name: string): Promise<Remote> {
  const target = tecTarget(tec);
  try {
    for await (const item of target.list(kind))
      if (comparableText(String(item.body.venue ?? item.body.organizer ?? item.body.name)) === name)
        return item;
  } finally {
    await target.close();
  }
  throw new Error(`no ${kind} ${name}`);
}

/** The screening as the site lists it: its venue (with status) and categories by name. */
async function screening(tec: RealTec) {
  const target = tecTarget(tec);
  try {
    for await (const e of target.list('event')) {
      if (comparableText(String(e.body.title)) !== SCREENING) continue;
      const venue = e.body.venue as { venue?: string; status?: string } | unknown[];
      return {
        venue: Array.isArray(venue) ? undefined : `${comparableText(String(venue.venue))} (${venue.status})`,
        categories: (e.body.categories as { name: string }[]).map((c) => comparableText(c.name)),
      };
    }
  } finally {
    await target.close();
  }
  throw new Error('no screening');
}

/** The categories of the event titled `title`, by name. */
async function categoriesOf(tec: RealTec, title: string): Promise<string[]> {
  const target = tecTarget(tec);
  try {
    for await (const e of target.list('event'))
      if (comparableText(String(e.body.title)) === title)
        return (e.body.categories as { name: string }[]).map((c) => comparableText(c.name));
  } finally {
    await target.close();
  }
  throw new Error(`no event ${title}`);
}

describeRealTec('a venue, organizer or category removed on a real TEC 6.2.6 site', (tec) => {
  const ws = freshSiteEach(tec);

  // What an admin does in wp-admin: "Move to Trash", then "Delete Permanently" from the trash (which the
  // REST API cannot do: TEC 6.2.6 ignores force=true, C.16), or a category's "Delete".
  const remove = async (kind: 'venue' | 'organizer' | 'category', name: string, permanently = true) => {
    const { id } = await find(tec, kind, name);
    const target = tecTarget(tec);
    await target.remove(kind, id, kind === 'category' ? 'delete' : 'trash');
    await target.close();
    if (kind !== 'category' && permanently)
      await siteSql(
        tec,
        `DELETE FROM wp_postmeta WHERE post_id = ${id}; DELETE FROM wp_posts WHERE ID = ${id};`,
      );
  };
  const cases: [string, () => Promise<void>, RegExp, number][] = [
    [
      'venue trashed',
      () => remove('venue', 'Riverside Cinema', false),
      /its venue "Riverside Cinema" was in the trash on the target: restored/,
      0,
    ],
    [
      'venue deleted permanently (trashed, then "Delete Permanently")',
      () => remove('venue', 'Riverside Cinema'),
      /its venue "Riverside Cinema" was deleted on the target: made again/,
      0,
    ],
    [
      'organizer deleted permanently',
      () => remove('organizer', 'Film & Theatre Society'),
      /its organizer "Film & Theatre Society" was deleted on the target: made again/,
      1,
    ],
    [
      'category deleted',
      () => remove('category', 'Film & Theatre'),
      /its category "Film & Theatre" was deleted on the target: made again/,
      1,
    ],
  ];
  for (const [what, removeIt, said, others] of cases) {
    it(`${what}: made again when its event is written next, and the event linked to it`, async () => {
      const file = join(ws.dir, 'club.ics');
      const events = smallEvents(4);
      await writeFile(file, ics(events));
      expect((await importInto(tec, ws.dir, [file])).report?.counts.event.created).toBe(4);
      await removeIt();

      await writeFile(file, ics(events.map((e, i) => (i === 1 ? { ...e, title: SCREENING } : e))));
      const run = await importInto(tec, ws.dir, [file]);
      expect(run.code, run.output).toBe(0);
      expect(run.report?.counts.event).toMatchObject({ updated: 1, failed: 0 });
      expect(run.report?.warnings.join('\n')).toMatch(said);
      expect(await screening(tec)).toEqual({
        venue: 'Riverside Cinema (publish)',
        categories: ['Film & Theatre'],
      });

      // The category's other event (the quiz), unlinked from it when it went, is linked again in the same run.
      if (others > 0)
        expect(run.report?.warnings.join('\n')).toMatch(
          /made again: 1 event it had been unlinked from, linked to it again/,
        );
      expect((await categoriesOf(tec, "St Mary's Quiz Night")).sort()).toEqual([
        "Children's",
        'Film & Theatre',
      ]);
      expect(writesOf((await importInto(tec, ws.dir, [file])).report!)).toBe(0);
    });
  }

  it('an event an editor trashed with its venue stays in the trash when the venue is restored for another event', async () => {
    const file = join(ws.dir, 'club.ics');
    const events = smallEvents(4);
    await writeFile(file, ics(events));
    await importInto(tec, ws.dir, [file]);
    const target = tecTarget(tec);
    for await (const e of target.list('event'))
      if (comparableText(String(e.body.title)) === 'Dawn Walk') await target.remove('event', e.id, 'trash');
    await target.close();
    await remove('venue', "St Mary's Church Hall", false);

    const quiz = "St Mary's Quiz Night (upstairs)";
    await writeFile(file, ics(events.map((e, i) => (i === 0 ? { ...e, title: quiz } : e))));
    const run = await importInto(tec, ws.dir, [file]);
    expect(run.code, run.output).toBe(0);
    expect(run.report?.warnings).toEqual([
      expect.stringMatching(/its venue "St Mary's Church Hall" was in the trash on the target: restored$/),
    ]);
    const titles = (await siteSnapshot(tec)).events.map((e) => comparableText(String(e.title)));
    expect(titles).toContain(quiz);
    expect(titles).not.toContain('Dawn Walk');
    expect(writesOf((await importInto(tec, ws.dir, [file])).report!)).toBe(0);
  });
});
