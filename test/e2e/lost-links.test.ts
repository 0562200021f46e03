/**
 * A venue, organizer or category deleted or trashed on the site after an import wrote it: the next run that
 * writes one of its events makes it again (a trashed one restored, a deleted one created from what was
 * written), links the event to it and the pipeline's other events the site unlinked from it, and says so,
 * instead of failing that event on every run (our server refuses such a link with a 400, as TEC 6.2.6 does a
 * deleted venue's). What an editor removed besides stays removed, under either update policy.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as stateMain } from '../../src/cli/state.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { comparableText } from '../../src/model/html.ts';
import type { Kind } from '../../src/model/kind.ts';
import type { Target } from '../../src/writer/target.ts';
import { ics, smallEvents } from '../real-tec/calendar.ts';
import { tempDir } from '../writer/setup.ts';
import { runCli, writesOf } from './helpers.ts';
import { removeOnSite, runs } from './site-edits.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
const at = (name: string) => join(dir.dir, name);
const { imp, sync, through } = runs(at);
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

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
      expect(run.report.warnings[0]).toContain(`its ${kind} "${name}" was ${said}`);
      // Its other event (the quiz: the society's, in Film & Theatre) is linked to it again at the run's end.
      expect(run.report.warnings.slice(1)).toEqual(
        others > 0
          ? [`${kind} "${name}" made again: 1 event it had been unlinked from, linked to it again`]
          : [],
      );
      const links = await linksOf(data, screening);
      expect(links.venue).toBe('Riverside Cinema (publish)');
      expect(links.organizers).toEqual(['Film & Theatre Society (publish)']);
      expect(links.categories).toEqual(['Film & Theatre']);

      const quiz = await linksOf(data, "St Mary's Quiz Night");
      expect(quiz.organizers).toEqual(['Film & Theatre Society (publish)']);
      expect(quiz.categories.sort()).toEqual(["Children's", 'Film & Theatre']);
      expect(writesOf((await imp(file, data)).report)).toBe(0);
    });
  }

  it('the other events of a deleted venue, unchanged in the source, are linked to it again in the same run', async () => {
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
      expect.stringMatching(/its venue "St Mary's Church Hall" was deleted on the target: made again$/),
      `venue "St Mary's Church Hall" made again: 1 event it had been unlinked from, linked to it again`,
    ]);
    expect((await linksOf(data, quiz)).venue).toBe(hall);
    expect((await linksOf(data, 'Dawn Walk')).venue).toBe(hall);
    expect(writesOf((await imp('hall.ics', data)).report)).toBe(0);
  });

  it('with no change in the source, npm run state -- forget makes the next run link its events again', async () => {
    const data = at('forget.db');
    await writeFile(at('forget.ics'), ics(smallEvents(4)));
    await imp('forget.ics', data);
    await removeOnSite(data, 'venue', "St Mary's Church Hall", 'delete');
    expect(writesOf((await imp('forget.ics', data)).report)).toBe(0); // nothing changed: nothing noticed

    expect((await runCli(stateMain, ['forget', 'import-forget-ics', '--data', data])).code).toBe(0);
    const run = await imp('forget.ics', data);
    expect(run.report.counts.venue).toMatchObject({ created: 1 });
    expect(run.report.counts.event).toMatchObject({ created: 0, updated: 2 });
    for (const title of ["St Mary's Quiz Night", 'Dawn Walk'])
      expect((await linksOf(data, title)).venue).toBe("St Mary's Church Hall (publish)");
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

/** Every event on the site, trashed ones too: `title [status] @ venue`. */
async function siteEvents(data: string): Promise<string[]> {
  const site = await openLocalTarget({ dataFile: data });
  const out: string[] = [];
  try {
    const all: { id: number }[] = [];
    for await (const e of site.list('event')) all.push(e);
    for (let id = 1; id <= Math.max(0, ...all.map((e) => e.id)) + 2; id++) {
      const e = await site.get('event', id);
      if (!e) continue;
      const v = e.body.venue as { venue?: string } | unknown[];
      out.push(
        `${comparableText(String(e.body.title))} [${e.body.status}] @ ${Array.isArray(v) ? '-' : comparableText(String(v.venue))}`,
      );
    }
  } finally {
    await site.close();
  }
  return out.sort();
}

describe('what the site removed besides stays removed (review of the above)', () => {
  const quiz = "St Mary's Quiz Night (upstairs)";
  const quizChanged = smallEvents(4).map((e, i) => (i === 0 ? { ...e, title: quiz } : e));

  for (const update of ['overwrite', 'preserve-local-edits']) {
    for (const mode of ['trash', 'delete'] as const) {
      it(`${update}: a dawn walk ${mode === 'trash' ? 'trashed' : 'deleted'} there with its hall stays so when the hall is made again`, async () => {
        const name = `gone-${update}-${mode}`;
        await writeFile(at(`${name}.ics`), ics(smallEvents(4)));
        await sync(name, update);
        await removeOnSite(at(`${name}.db`), 'event', 'Dawn Walk', mode);
        await removeOnSite(at(`${name}.db`), 'venue', "St Mary's Church Hall", mode);
        await writeFile(at(`${name}.ics`), ics(quizChanged));
        const run = await sync(name, update);
        expect(run.report.counts.event).toMatchObject({ created: 0, updated: 1, failed: 0 });
        expect(run.report.warnings).toEqual([expect.not.stringMatching(/other event/)]);
        const walk = mode === 'trash' ? ['Dawn Walk [trash] @ -'] : [];
        const expected = [`${quiz} [publish] @ St Mary's Church Hall`, ...walk];
        expect((await siteEvents(at(`${name}.db`))).filter((e) => /Quiz|Walk/.test(e))).toEqual(
          expected.sort(),
        );
        const again = await sync(name, update);
        expect(writesOf(again.report)).toBe(0);
        expect(again.report.warnings).toEqual([]);
      });
    }
  }

  it('preserve-local-edits: an event the site unlinked from its deleted hall is linked again, not kept unlinked as an edit', async () => {
    await writeFile(at('kept.ics'), ics(smallEvents(4)));
    await sync('kept', 'preserve-local-edits');
    await removeOnSite(at('kept.db'), 'venue', "St Mary's Church Hall", 'delete');
    await writeFile(at('kept.ics'), ics(quizChanged));
    const run = await sync('kept', 'preserve-local-edits');
    expect(run.report.warnings).toEqual([
      expect.stringMatching(/its venue "St Mary's Church Hall" was deleted on the target: made again$/),
      `venue "St Mary's Church Hall" made again: 1 event it had been unlinked from, linked to it again`,
    ]);
    expect((await siteEvents(at('kept.db'))).filter((e) => /Quiz|Walk/.test(e))).toEqual([
      "Dawn Walk [publish] @ St Mary's Church Hall",
      `${quiz} [publish] @ St Mary's Church Hall`,
    ]);
    expect(writesOf((await sync('kept', 'preserve-local-edits')).report)).toBe(0);
  });

  it("preserve-local-edits: an editor's edit of an event linked again stays an edit the source does not overwrite", async () => {
    await writeFile(at('edited.ics'), ics(smallEvents(4)));
    await sync('edited', 'preserve-local-edits');
    const site = await openLocalTarget({ dataFile: at('edited.db') });
    for await (const e of site.list('event'))
      if (e.body.title === 'Dawn Walk')
        await site.update('event', e.id, { title: 'Dawn Walk (meet at the gate)' });
    await site.close();
    await removeOnSite(at('edited.db'), 'venue', "St Mary's Church Hall", 'delete');
    await writeFile(at('edited.ics'), ics(quizChanged));
    expect((await sync('edited', 'preserve-local-edits')).report.warnings.join()).toMatch(
      /1 event it had been unlinked from/,
    );

    // The source renames the walk too: the editor's title is kept, as a conflict.
    await writeFile(
      at('edited.ics'),
      ics(quizChanged.map((e) => (e.title === 'Dawn Walk' ? { ...e, title: 'Sunrise Walk' } : e))),
    );
    const run = await sync('edited', 'preserve-local-edits');
    expect(run.report.conflicts.map((c) => [c.label, c.fields.map((f) => f.field)])).toEqual([
      ['Sunrise Walk', ['title']],
    ]);
    expect((await siteEvents(at('edited.db'))).filter((e) => /Walk/.test(e))).toEqual([
      "Dawn Walk (meet at the gate) [publish] @ St Mary's Church Hall",
    ]);
  });

  it('preserve-local-edits: the lost venue is written again, the organizer an editor chose is kept', async () => {
    await writeFile(at('chosen.ics'), ics(smallEvents(8)));
    await sync('chosen', 'preserve-local-edits');
    const site = await openLocalTarget({ dataFile: at('chosen.db') });
    let lecturer = 0;
    for await (const o of site.list('organizer'))
      if (comparableText(String(o.body.organizer)) === "O'Brien Lectures") lecturer = o.id;
    for await (const e of site.list('event'))
      if (e.body.title === "St Mary's Quiz Night")
        await site.update('event', e.id, { organizer: [lecturer] });
    await site.close();
    await removeOnSite(at('chosen.db'), 'venue', "St Mary's Church Hall", 'delete');
    await writeFile(
      at('chosen.ics'),
      ics(smallEvents(8).map((e, i) => (i === 0 ? { ...e, title: quiz } : e))),
    );
    const run = await sync('chosen', 'preserve-local-edits');
    expect(run.report.warnings.join('\n')).toMatch(/kept, edited on the target: organizers/);
    expect(await linksOf(at('chosen.db'), quiz)).toMatchObject({
      venue: "St Mary's Church Hall (publish)",
      organizers: ["O'Brien Lectures (publish)"],
    });
  });

  it('an event deleted on the site whose venue was deleted too: created again, with its venue made again', async () => {
    const data = at('both-gone.db');
    await writeFile(at('both-gone.ics'), ics(smallEvents(4)));
    await imp('both-gone.ics', data);
    await removeOnSite(data, 'event', 'Film & Theatre: "Casablanca" (1942)', 'delete');
    await removeOnSite(data, 'venue', 'Riverside Cinema', 'delete');
    const changed = 'Film & Theatre: "Casablanca" (1942) – sold out';
    await writeFile(
      at('both-gone.ics'),
      ics(smallEvents(4).map((e, i) => (i === 1 ? { ...e, title: changed } : e))),
    );
    const run = await imp('both-gone.ics', data);
    expect(run.report.counts.event).toMatchObject({ created: 1, failed: 0 });
    expect(run.report.warnings[0]).toMatch(
      /deleted on the target.*created again.*its venue "Riverside Cinema" was deleted on the target: made again/,
    );
    expect((await linksOf(data, changed)).venue).toBe('Riverside Cinema (publish)');
    expect(writesOf((await imp('both-gone.ics', data)).report)).toBe(0);
  });

  it('two venue keys the site took for one venue (one with its address, one without): both point at it made again', async () => {
    const data = at('merged.db');
    const events = smallEvents(4).map((e) =>
      e.title === 'Dawn Walk' ? { ...e, location: "St Mary's Church Hall" } : e,
    );
    events.push({
      ...events[3],
      uid: 'dusk@club.example',
      title: 'Dusk Walk',
      start: ':20270421T170000Z',
      end: ':20270421T183000Z',
    });
    await writeFile(at('merged.ics'), ics(events));
    await imp('merged.ics', data);
    await removeOnSite(data, 'venue', "St Mary's Church Hall", 'delete');
    await writeFile(
      at('merged.ics'),
      ics(events.map((e) => (/Quiz|Dawn/.test(e.title) ? { ...e, title: `${e.title}!` } : e))),
    );
    const run = await imp('merged.ics', data);
    expect(run.report.counts.event).toMatchObject({ updated: 2, failed: 0 });
    expect((await siteEvents(data)).filter((e) => / @ -$/.test(e))).toEqual([]);
    expect(writesOf((await imp('merged.ics', data)).report)).toBe(0);
  });

  it('on a target that drops a deleted category in silence (as TEC 6.2.6), a venue and a category lost at once are both made again', async () => {
    const data = at('silent.db');
    // Like TEC 6.2.6 (contract B.6.2): a category id that does not exist is dropped from the event in silence.
    const dropping = (t: Target): Target => {
      const drop = async (kind: Kind, body: Record<string, unknown>) => {
        if (kind !== 'event' || !Array.isArray(body.categories)) return body;
        const kept = [];
        for (const id of body.categories) if (await t.get('category', id as number)) kept.push(id);
        return { ...body, categories: kept };
      };
      return Object.assign(Object.create(t), {
        create: async (k: Kind, b: Record<string, unknown>) => t.create(k, await drop(k, b)),
        update: async (k: Kind, id: number, b: Record<string, unknown>) => t.update(k, id, await drop(k, b)),
      });
    };
    const run = through('silent', dropping);
    await writeFile(at('silent.ics'), ics(smallEvents(4)));
    await run();
    await removeOnSite(data, 'venue', 'Riverside Cinema', 'delete');
    await removeOnSite(data, 'category', 'Film & Theatre', 'delete');
    const screening = 'Film & Theatre: "Casablanca" (1942) – sold out';
    await writeFile(
      at('silent.ics'),
      ics(smallEvents(4).map((e, i) => (i === 1 ? { ...e, title: screening } : e))),
    );
    const { report } = await run();
    expect(report.warnings[0]).toMatch(
      /its venue "Riverside Cinema".*made again.*its category "Film & Theatre".*made again/,
    );
    expect(await linksOf(data, screening)).toMatchObject({
      venue: 'Riverside Cinema (publish)',
      categories: ['Film & Theatre'],
    });
    expect(writesOf((await run()).report)).toBe(0);
  });
});
