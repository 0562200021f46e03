/**
 * Links made again (lost-links.test.ts) beside what editors and the run itself do: an editor's own choice of
 * venue, organizer or venue name stays; an organizer created again after its own update found it deleted
 * gets its events back; and the run's own writes of events are not undone by the events linked again at its
 * end, however long the target takes (cases found by a review, each failing before its fix).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { comparableText } from '../../src/model/html.ts';
import type { Kind } from '../../src/model/kind.ts';
import type { Target } from '../../src/writer/target.ts';
import { ics, type SmallEvent, smallEvents } from '../real-tec/calendar.ts';
import { tempDir } from '../writer/setup.ts';
import { writesOf } from './helpers.ts';
import { edit, idOf, removeOnSite, runs } from './site-edits.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
const at = (name: string) => join(dir.dir, name);
const { imp, sync, through } = runs(at);
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

/** title → `venue | organizers` as the site shows them. */
async function linksByTitle(data: string): Promise<Record<string, string>> {
  const site = await openLocalTarget({ dataFile: data });
  const out: Record<string, string> = {};
  try {
    for await (const e of site.list('event')) {
      const v = e.body.venue as { venue?: string } | unknown[];
      const o = (e.body.organizer as { organizer: string }[]).map((x) => comparableText(x.organizer));
      out[comparableText(String(e.body.title))] =
        `${Array.isArray(v) ? '-' : comparableText(String(v.venue))} | ${o.sort().join(', ')}`;
    }
  } finally {
    await site.close();
  }
  return out;
}

const HALL = "St Mary's Church Hall";
const quiz = "St Mary's Quiz Night (upstairs)";
const quizChanged = smallEvents(4).map((e, i) => (i === 0 ? { ...e, title: quiz } : e));

describe("links made again, beside editors' choices", () => {
  it('preserve-local-edits: an editor moved the quiz to Town Square and deleted the hall; the quiz stays at Town Square', async () => {
    const data = at('moved.db');
    await writeFile(at('moved.ics'), ics(smallEvents(4)));
    await sync('moved', 'preserve-local-edits');
    const square = await idOf(data, 'venue', 'Town Square');
    for (const t of ["St Mary's Quiz Night", 'Dawn Walk'])
      await edit(data, 'event', await idOf(data, 'event', t), { venue: square });
    await removeOnSite(data, 'venue', HALL, 'delete');
    await writeFile(at('moved.ics'), ics(quizChanged));
    const run = await sync('moved', 'preserve-local-edits');
    const links = await linksByTitle(data);
    expect(links[quiz]).toMatch(/^Town Square/);
    expect(links['Dawn Walk']).toMatch(/^Town Square/);
    expect(run.report.warnings.join('\n')).not.toMatch(/made again/);
  });

  it('preserve-local-edits: an editor replaced the quiz organizer and deleted the society; the quiz keeps only the new organizer', async () => {
    const data = at('org.db');
    await writeFile(at('org.ics'), ics(smallEvents(8)));
    await sync('org', 'preserve-local-edits');
    const lecturer = await idOf(data, 'organizer', "O'Brien Lectures");
    await edit(data, 'event', await idOf(data, 'event', "St Mary's Quiz Night"), { organizer: [lecturer] });
    await removeOnSite(data, 'organizer', 'Film & Theatre Society', 'delete');
    // The screening (the society's too) changes in the source: the society is made again for it.
    const screening = 'Film & Theatre: "Casablanca" (1942) – sold out';
    await writeFile(
      at('org.ics'),
      ics(smallEvents(8).map((e, i) => (i === 1 ? { ...e, title: screening } : e))),
    );
    await sync('org', 'preserve-local-edits');
    const links = await linksByTitle(data);
    expect(links[comparableText(screening)]).toBe('Riverside Cinema | Film & Theatre Society');
    expect(links["St Mary's Quiz Night"]).toBe("St Mary's Church Hall | O'Brien Lectures");
  });

  it('an organizer deleted on the site whose own fields changed in the source: its events are linked to it made again', async () => {
    const data = at('orgchg.db');
    await writeFile(at('orgchg.ics'), ics(smallEvents(4)));
    await imp('orgchg.ics', data);
    await removeOnSite(data, 'organizer', 'Film & Theatre Society', 'delete');
    // Only the society's e-mail changes: its events are unchanged in the source.
    await writeFile(
      at('orgchg.ics'),
      ics(smallEvents(4)).replaceAll(
        'CN="Film & Theatre Society":mailto:events@',
        'CN="Film & Theatre Society":mailto:society@',
      ),
    );
    const run = await imp('orgchg.ics', data);
    expect(run.report.counts.organizer).toMatchObject({ created: 1 });
    const links = await linksByTitle(data);
    expect(links["St Mary's Quiz Night"]).toBe("St Mary's Church Hall | Film & Theatre Society");
    expect(links['Film & Theatre: "Casablanca" (1942)']).toBe('Riverside Cinema | Film & Theatre Society');
  });

  it('preserve-local-edits: a trashed venue restored keeps the name an editor gave it', async () => {
    const data = at('renamed.db');
    await writeFile(at('renamed.ics'), ics(smallEvents(4)));
    await sync('renamed', 'preserve-local-edits');
    const hall = await idOf(data, 'venue', HALL);
    await edit(data, 'venue', hall, { venue: "St Mary's Parish Hall" });
    await removeOnSite(data, 'venue', "St Mary's Parish Hall", 'trash');
    await writeFile(at('renamed.ics'), ics(quizChanged));
    await sync('renamed', 'preserve-local-edits');
    expect((await linksByTitle(data))[quiz]).toMatch(/^St Mary's Parish Hall \|/);
  });
});

describe("links made again, beside the run's own writes", () => {
  it('events changed in the source keep their new titles when the venue they share is made again mid-run', async () => {
    const data = at('race.db');
    const base = smallEvents(4);
    const day = (i: number) =>
      new Date(Date.UTC(2027, 4, 1 + i)).toISOString().slice(0, 10).replaceAll('-', '');
    const hallEvent = (i: number, title: string): SmallEvent => ({
      ...base[3],
      uid: `hall-${i}@club.example`,
      title,
      start: `:${day(i)}T050000Z`,
      end: `:${day(i)}T063000Z`,
    });
    const filler = (i: number, title: string): SmallEvent => ({
      ...hallEvent(i, title),
      uid: `filler-${i}@club.example`,
      location: 'Library',
    });
    const N = 150;
    const FILL = 1500;
    const events = (v: string) => [
      hallEvent(0, `Hall first ${v}`),
      ...Array.from({ length: FILL }, (_, i) => filler(i + 1, `Filler ${i} ${v}`)),
      ...Array.from({ length: N }, (_, i) => hallEvent(FILL + 100 + i, `Hall late ${i} ${v}`)),
    ];
    await writeFile(at('race.ics'), ics(events('a')));
    expect((await imp('race.ics', data)).code).toBe(0);
    await removeOnSite(data, 'venue', HALL, 'delete');
    await writeFile(at('race.ics'), ics(events('b')));
    const run = await imp('race.ics', data);
    expect(run.report.counts.event.failed).toBe(0);
    // Every hall event is written by this run itself: none is linked again besides (each was written twice).
    expect(run.report.warnings.join('\n')).not.toMatch(/other events? it had been unlinked from/);
    const titles = Object.keys(await linksByTitle(data));
    const stale = titles.filter((t) => / a$/.test(t));
    expect(stale).toEqual([]);
    const again = await imp('race.ics', data);
    expect(writesOf(again.report)).toBe(0);
  });
});

describe("links made again, beside the run's own writes (a slow write)", () => {
  it('an event changed in the source and written with the venue made again is not reverted by linkOthers', async () => {
    const data = at('race2.db');
    const day = (i: number) =>
      new Date(Date.UTC(2027, 4, 1 + i)).toISOString().slice(0, 10).replaceAll('-', '');
    const ev = (uid: string, i: number, title: string, location: string): SmallEvent => ({
      uid,
      title,
      location,
      start: `:${day(i)}T050000Z`,
      end: `:${day(i)}T063000Z`,
    });
    const events = (v: string) => [
      ev('first@x', 0, `Hall first ${v}`, "St Mary's Church Hall"),
      ...Array.from({ length: 200 }, (_, i) => ev(`f${i}@x`, i + 1, `Filler ${i} ${v}`, 'Library')),
      ...Array.from({ length: 5 }, (_, i) =>
        ev(`late${i}@x`, 300 + i, `Hall late ${i} ${v}`, "St Mary's Church Hall"),
      ),
    ];
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Latency only: filler writes take 150 ms, one request (linkOthers' write of a late event) 400 ms.
    const slow = (t: Target): Target =>
      Object.assign(Object.create(t), {
        update: async (k: Kind, id: number, b: Record<string, unknown>) => {
          const title = String(b.title ?? '');
          if (k === 'event' && title.startsWith('Filler')) await sleep(150);
          if (k === 'event' && title.startsWith('Hall late') && title.endsWith(' a')) await sleep(400);
          return t.update(k, id, b);
        },
      });
    const run = through('race2', slow);
    await writeFile(at('race2.ics'), ics(events('a')));
    await run();
    await removeOnSite(data, 'venue', HALL, 'delete');
    await writeFile(at('race2.ics'), ics(events('b')));
    await run();
    const titles = Object.keys(await linksByTitle(data)).filter((t) => t.startsWith('Hall'));
    expect(titles.filter((t) => t.endsWith(' a'))).toEqual([]); // none put back as it was
  });
});
