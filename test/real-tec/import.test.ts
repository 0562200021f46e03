/**
 * `npm run import -- <file> --target $TEC_URL --namespace tribe/events/v1`, as the README says, into the real
 * TEC 6.2.6 site: the samples import with no failure and equal a clean local import, a re-run and a lost
 * sync state cost no write, one change costs exactly its writes, and `npm run export -- --from` gives back
 * what the site lists, as ical.js reads it.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { expect, it } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import { SAMPLE_CSV, SAMPLE_ICS, writesOf } from '../e2e/helpers.ts';
import { cleanImport } from '../e2e/remote-run.ts';
import { ics, smallEvents } from './calendar.ts';
import { resetSite } from './kit.ts';
import {
  comparable,
  credentials,
  describeRealTec,
  freshSiteEach,
  importInto,
  runCommand,
  siteSnapshot,
  tecTarget,
} from './site.ts';

/** The fields of the site's own list that the export must agree with. */
interface ListedEvent {
  title: string;
  all_day: boolean;
  start_date: string;
  utc_start_date: string;
  venue?: { venue?: string };
}

describeRealTec('npm run import into a real TEC 6.2.6 site', (tec) => {
  const ws = freshSiteEach(tec);

  it('the sample .ics: all created, equal to a clean local import; a re-run and a lost sync state write nothing', async () => {
    const clean = await cleanImport(join(ws.dir, 'clean'), SAMPLE_ICS);
    const first = await importInto(tec, ws.dir, [SAMPLE_ICS]);
    expect(first.code, first.output).toBe(0);
    expect(first.report?.counts.event).toMatchObject({ created: clean.events.length, failed: 0 });
    expect(comparable(await siteSnapshot(tec))).toEqual(comparable(clean));

    const again = await importInto(tec, ws.dir, [SAMPLE_ICS]);
    expect(again.code, again.output).toBe(0);
    expect(writesOf(again.report!)).toBe(0);

    await rm(join(ws.dir, 'data', 'sync'), { recursive: true });
    const rebuilt = await importInto(tec, ws.dir, [SAMPLE_ICS]);
    expect(rebuilt.code, rebuilt.output).toBe(0);
    expect(rebuilt.report?.counts.event).toMatchObject({
      unchanged: clean.events.length,
      created: 0,
      updated: 0,
    });
    expect(writesOf(rebuilt.report!)).toBe(0);
  });

  it('the sample .csv: all created, equal to a clean local import; a re-run writes nothing', async () => {
    const first = await importInto(tec, ws.dir, [SAMPLE_CSV]);
    expect(first.code, first.output).toBe(0);
    expect(first.report?.counts.event.failed).toBe(0);
    expect(first.report?.counts.event.created).toBeGreaterThan(50);
    expect(comparable(await siteSnapshot(tec))).toEqual(
      comparable(await cleanImport(join(ws.dir, 'clean'), SAMPLE_CSV)),
    );
    const again = await importInto(tec, ws.dir, [SAMPLE_CSV]);
    expect(again.code, again.output).toBe(0);
    expect(writesOf(again.report!)).toBe(0);
  });

  it('names and texts the site renders (quotes, ampersands, dashes): a lost state costs 0 writes, one change exactly its writes', async () => {
    const file = join(ws.dir, 'club.ics');
    const events = smallEvents(8);
    await writeFile(file, ics(events));
    const first = await importInto(tec, ws.dir, [file]);
    expect(first.code, first.output).toBe(0);
    expect(first.report?.counts.event.created).toBe(8);

    await rm(join(ws.dir, 'data', 'sync'), { recursive: true });
    const rebuilt = await importInto(tec, ws.dir, [file]);
    expect(rebuilt.code, rebuilt.output).toBe(0);
    expect(writesOf(rebuilt.report!), JSON.stringify(rebuilt.report?.counts)).toBe(0);

    // A new title, a new description, and a description removed: three event updates, nothing else.
    const changed = events.map((e) =>
      e.uid === 'quiz@club.example'
        ? { ...e, title: "St Mary's Quiz Night -- Christmas Special" }
        : e.uid === 'screening@club.example'
          ? { ...e, description: 'Now with "live" music & an interval.' }
          : e.uid === 'fair@club.example'
            ? { ...e, description: undefined }
            : e,
    );
    await writeFile(file, ics(changed));
    const update = await importInto(tec, ws.dir, [file]);
    expect(update.code, update.output).toBe(0);
    expect(update.report?.counts.event).toMatchObject({ updated: 3, created: 0, unchanged: 5 });
    expect(update.report?.requests).toMatchObject({ POST: 3, DELETE: 0 });

    const target = tecTarget(tec);
    try {
      const byTitle = new Map<string, Record<string, unknown>>();
      for await (const r of target.list('event')) byTitle.set(comparableText(String(r.body.title)), r.body);
      expect(byTitle.has("St Mary's Quiz Night - Christmas Special")).toBe(true);
      expect(comparableText(String(byTitle.get('Film & Theatre: "Casablanca" (1942)')?.description))).toBe(
        'Now with "live" music & an interval.',
      );
      expect(byTitle.get('Spring Fair')?.description).toBe('');
    } finally {
      await target.close();
    }
    const after = await importInto(tec, ws.dir, [file]);
    expect(writesOf(after.report!)).toBe(0);
  });

  it('after the site was reset (reset.sh): every event created again, once; the next run writes nothing', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(8)));
    const first = await importInto(tec, ws.dir, [file]);
    expect(first.code, first.output).toBe(0);
    const before = comparable(await siteSnapshot(tec));

    // The same address, the fresh install again: WordPress gives the next posts the ids the state knows.
    await resetSite(tec);
    const again = await importInto(tec, ws.dir, [file]);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/holds none of the events this pipeline wrote there last/);
    expect(again.report?.counts.event).toMatchObject({ created: 8, unchanged: 0, failed: 0 });
    expect(comparable(await siteSnapshot(tec))).toEqual(before);

    const third = await importInto(tec, ws.dir, [file]);
    expect(third.code, third.output).toBe(0);
    expect(writesOf(third.report!)).toBe(0);
  });

  it('after every event was trashed there (a cleanup of past events): not taken as reset, none made again', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(8)));
    expect((await importInto(tec, ws.dir, [file])).code).toBe(0);
    const byHand = tecTarget(tec);
    const ids: number[] = [];
    for await (const event of byHand.list('event')) ids.push(event.id);
    for (const id of ids) await byHand.remove('event', id, 'trash');
    await byHand.close();
    expect(ids).toHaveLength(8);

    const again = await importInto(tec, ws.dir, [file]);
    expect(again.code, again.output).toBe(0);
    expect(again.output).not.toMatch(/holds none/);
    expect(writesOf(again.report!)).toBe(0);
    expect((await siteSnapshot(tec)).events).toEqual([]);
  });

  it("a smaller calendar sharing some events: only its own are created, the shared ones stay the first import's", async () => {
    const events = smallEvents(8);
    const club = join(ws.dir, 'club.ics');
    await writeFile(club, ics(events));
    expect((await importInto(tec, ws.dir, [club])).code).toBe(0);

    // Three of the club's events and two of its own: too few to be the club's calendar again.
    const own = events
      .slice(3, 5)
      .map((e, i) => ({ ...e, uid: `own-${i}@library.example`, title: `Library ${i}` }));
    const library = join(ws.dir, 'library.ics');
    await writeFile(library, ics([...events.slice(0, 3), ...own]));
    const first = await importInto(tec, ws.dir, [library]);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/3 events were imported before as .*import-club-ics.*: left to that import/);
    expect(first.report?.counts.event).toMatchObject({ created: 2, failed: 0 });
    const titles = (await siteSnapshot(tec)).events.map((e) => e.title).sort();
    expect(titles).toHaveLength(10);
    expect(new Set(titles).size).toBe(10);

    const again = await importInto(tec, ws.dir, [library]);
    expect(again.code, again.output).toBe(0);
    expect(writesOf(again.report!)).toBe(0);
  });

  it('npm run export -- --from the site gives the events the site lists, as ical.js reads them', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(8)));
    expect((await importInto(tec, ws.dir, [file])).code).toBe(0);

    const out = join(ws.dir, 'site.ics');
    const exported = await runCommand(
      'export',
      ['--from', tec.url, '--namespace', tec.namespace, '--out', out, '--past-days', '3650'],
      ws.dir,
      credentials(tec),
    );
    expect(exported.code, exported.output).toBe(0);
    const calendar = new ICAL.Component(ICAL.parse(await readFile(out, 'utf8')));
    for (const tz of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
    const fromFeed = calendar
      .getAllSubcomponents('vevent')
      .map((v) => {
        const e = new ICAL.Event(v);
        return {
          title: comparableText(e.summary),
          start: e.startDate.isDate ? e.startDate.toString() : e.startDate.toJSDate().toISOString(),
          venue: e.location ? comparableText(e.location.split(',')[0]) : null,
        };
      })
      .sort((a, b) => a.start.localeCompare(b.start));

    // The site's own public list, read without calsync.
    const res = await fetch(
      `${tec.url}/${tec.namespace}/events?start_date=1900-01-01&end_date=2100-12-31&per_page=50`,
    );
    const listed = ((await res.json()) as { events: ListedEvent[] }).events
      .map((e) => ({
        title: comparableText(e.title),
        start: e.all_day ? e.start_date.slice(0, 10) : `${e.utc_start_date.replace(' ', 'T')}.000Z`,
        venue: e.venue?.venue ? comparableText(e.venue.venue) : null,
      }))
      .sort((a, b) => a.start.localeCompare(b.start));
    expect(fromFeed).toHaveLength(8);
    expect(fromFeed).toEqual(listed);
  });
});
