import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import { eventSlug, eventTimes } from '../../src/pipeline/map.ts';
import type { Plan } from '../../src/pipeline/plan.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { readIcs } from '../../src/sources/ics/index.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { tempDir } from '../writer/setup.ts';
import { NOW, runCli, SAMPLE_ICS, snapshotOf } from './helpers.ts';

const DAY = 86_400_000;
const PIPELINE = 'import-community-calendar-ics';

let dir: Awaited<ReturnType<typeof tempDir>>;
let data: string;
beforeAll(async () => {
  dir = await tempDir();
  data = join(dir.dir, 'calendar.db');
});
afterAll(() => dir.remove());

const report = async (file: string): Promise<RunReport> => JSON.parse(await readFile(file, 'utf8'));
const entitiesOtherThanEvents = (r: RunReport) =>
  (['category', 'tag', 'venue', 'organizer'] as const).reduce((n, k) => n + r.counts[k].created, 0);
const writes = (r: RunReport) => (r.requests.POST ?? 0) + (r.requests.PUT ?? 0) + (r.requests.DELETE ?? 0);

describe('npm run import -- samples/community-calendar.ics', () => {
  it('imports every event of the file with its times, venue, organizers and categories', async () => {
    const run = await runCli(importMain, [
      SAMPLE_ICS,
      '--data',
      data,
      '--report',
      join(dir.dir, 'first.json'),
    ]);
    expect(run.code).toBe(0);
    // Not a terminal: the log is NDJSON on stderr, with no warning or error in it.
    const logs = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logs.filter((l) => l.level >= 40)).toEqual([]);
    expect(logs.at(-1)).toMatchObject({ msg: 'run ok', pipeline: PIPELINE });
    expect(run.stdout).toMatch(/import-community-calendar-ics: \d+ events \(\d+ created/);

    // What the file says, read the way the importer reads it, then compared with what the API serves.
    const now = new Date(NOW).getTime();
    const source = readIcs(await readFile(SAMPLE_ICS), {
      file: 'sample',
      window: { from: new Date(now - 30 * DAY), to: new Date(now + 365 * DAY) },
    });
    const live = source.records.filter((r) => r.status !== 'cancelled');
    expect(live.length).toBeGreaterThanOrEqual(200);
    const snap = await snapshotOf(data);
    expect(snap.events).toHaveLength(live.length);
    const bySlug = new Map(snap.events.map((e) => [e.slug, e]));
    for (const record of live) {
      const event = bySlug.get(eventSlug(PIPELINE, record.key, record.title));
      expect(event, `${record.key} on the target`).toBeDefined();
      const times = eventTimes(record.start, record.end, source.calendar.timezone ?? 'UTC');
      expect({
        title: event?.title,
        start_date: event?.start_date,
        end_date: event?.end_date,
        all_day: event?.all_day,
        venue: event?.venue,
        organizers: event?.organizers,
        categories: event?.categories,
      }).toEqual({
        title: record.title,
        start_date: times.start,
        end_date: times.end,
        all_day: times.allDay,
        venue: record.venue?.name ?? null,
        organizers: record.organizers.map((o) => o.name).sort(),
        categories: [...new Set(record.categories)].sort(),
      });
      if (!times.allDay) expect(event?.timezone).toBe(times.timezone);
    }
    const distinct = (values: (string | undefined)[]) => [...new Set(values.filter(Boolean))].sort();
    expect(snap.venues).toEqual(distinct(live.map((r) => r.venue?.name)));
    expect(snap.organizers).toEqual(distinct(live.flatMap((r) => r.organizers.map((o) => o.name))));
    expect(snap.categories).toEqual(distinct(source.records.flatMap((r) => r.categories)));

    const first = await report(join(dir.dir, 'first.json'));
    expect(first.counts.event.created).toBe(live.length);
    // One write per entity: no lookups, no retries, no second requests.
    const entities = live.length + snap.venues.length + snap.organizers.length + snap.categories.length;
    expect(writes(first)).toBe(entities);
  });

  it('writes nothing on a second run of the unchanged file', async () => {
    const run = await runCli(importMain, [
      SAMPLE_ICS,
      '--data',
      data,
      '--report',
      join(dir.dir, 'second.json'),
    ]);
    expect(run.code).toBe(0);
    const second = await report(join(dir.dir, 'second.json'));
    expect(writes(second)).toBe(0);
    expect(second.requests.GET ?? 0).toBe(0);
    expect(second.counts.event.created + second.counts.event.updated).toBe(0);
    expect(second.counts.event.unchanged).toBeGreaterThanOrEqual(200);
  });

  it('gives exactly one update for one event changed in the file, with the change visible in the API', async () => {
    const copy = join(dir.dir, 'community-calendar.ics');
    const text = await readFile(SAMPLE_ICS, 'utf8');
    // The first single (non-recurring) VEVENT: one event on the target.
    const blocks = text.split('BEGIN:VEVENT').slice(1);
    const single = blocks.find((b) => !/^(RRULE|RECURRENCE-ID)/m.test(b)) as string;
    const summary = /^SUMMARY:(.*)\r?$/m.exec(single)?.[1] as string;
    const changed = single.replace(`SUMMARY:${summary}`, `SUMMARY:${summary} (moved indoors)`);
    await writeFile(copy, text.replace(single, changed));
    // Same file name, so the same pipeline (import-community-calendar-ics) and sync state.
    const plan = await runCli(importMain, [copy, '--data', data, '--dry-run']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(`title: "${summary}" → "${summary} (moved indoors)"`);
    await runCli(importMain, [copy, '--data', data, '--report', join(dir.dir, 'third.json')]);
    const third = await report(join(dir.dir, 'third.json'));
    expect(third.counts.event.updated).toBe(1);
    expect(writes(third)).toBe(1);
    const snap = await snapshotOf(data);
    expect(snap.events.filter((e) => e.title === `${summary} (moved indoors)`)).toHaveLength(1);
  });

  it('takes over its events by slug when the sync state was lost, instead of doubling them', async () => {
    const before = await snapshotOf(data);
    await rm(join(dir.dir, 'calendar.sync.db'));
    const run = await runCli(importMain, [
      SAMPLE_ICS,
      '--data',
      data,
      '--report',
      join(dir.dir, 'lost.json'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/events of an earlier run found on the target by slug/);
    const after = await snapshotOf(data);
    expect(after.events).toHaveLength(before.events.length);
    expect(new Set(after.events.map((e) => e.slug)).size).toBe(after.events.length);
    const lost = await report(join(dir.dir, 'lost.json'));
    // Taken over, not created: only the event whose title the earlier test changed is written back.
    expect(lost.counts.event.created + entitiesOtherThanEvents(lost)).toBe(0);
    expect(lost.requests.POST ?? 0).toBe(lost.counts.event.updated);
    expect(lost.counts.event.updated).toBe(1);
    // And the state is whole again: the next run writes nothing.
    await runCli(importMain, [SAMPLE_ICS, '--data', data, '--report', join(dir.dir, 'after-lost.json')]);
    expect(writes(await report(join(dir.dir, 'after-lost.json')))).toBe(0);
  });

  it('imports everything again into a new data file, though the sync state beside it is from the old one', async () => {
    const before = await snapshotOf(data);
    const again = (name: string, ...flags: string[]) =>
      runCli(importMain, [SAMPLE_ICS, '--data', data, '--report', join(dir.dir, `${name}.json`), ...flags]);
    for (const suffix of ['', '-wal', '-shm']) await rm(`${data}${suffix}`, { force: true });
    // A dry run plans the creates, and makes no file.
    const dry = await again('deleted-dry', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as { plan: Plan };
    expect(planned.plan.counts.event).toMatchObject({ create: before.events.length, unchanged: 0 });
    await expect(readFile(data)).rejects.toThrow(/ENOENT/);

    const run = await again('deleted');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/recorded for another calendar database/);
    const after = await snapshotOf(data);
    expect(after.events.map((e) => e.slug).sort()).toEqual(before.events.map((e) => e.slug).sort());
    const created = await report(join(dir.dir, 'deleted.json'));
    expect(created.counts.event.created).toBe(before.events.length);

    // The same when something else made the new file first (`npm run serve` on an empty data file).
    for (const suffix of ['', '-wal', '-shm']) await rm(`${data}${suffix}`, { force: true });
    await openSqliteStore(data).close();
    await again('replaced');
    expect((await snapshotOf(data)).events).toHaveLength(before.events.length);
    await again('replaced-again');
    expect(writes(await report(join(dir.dir, 'replaced-again.json')))).toBe(0);

    // A sync state from before it recorded its data file (schema 3) is asked of the store itself.
    const sync = new DatabaseSync(data.replace(/\.db$/, '.sync.db'));
    sync.exec('DELETE FROM meta');
    sync.close();
    for (const suffix of ['', '-wal', '-shm']) await rm(`${data}${suffix}`, { force: true });
    await openSqliteStore(data).close();
    const upgraded = await again('upgraded');
    expect(upgraded.stderr).toMatch(/recorded for another calendar database/);
    expect((await report(join(dir.dir, 'upgraded.json'))).counts.event.created).toBe(before.events.length);
    // And that same store is recognised as its own on the next run.
    await again('upgraded-again');
    expect(writes(await report(join(dir.dir, 'upgraded-again.json')))).toBe(0);
  });

  it('leaves no data file behind when the file to import cannot be read', async () => {
    const own = await tempDir();
    try {
      const store = join(own.dir, 'calendar.db');
      const html = join(own.dir, 'calendar.ics');
      await writeFile(html, '<!doctype html><html><body>Sign in to see this calendar</body></html>\n');
      for (const file of [join(own.dir, 'missing.ics'), html]) {
        const run = await runCli(importMain, [file, '--data', store]);
        expect(run.code, run.stderr).not.toBe(0);
        expect(run.stderr).toContain(file);
        await expect(readFile(store)).rejects.toThrow(/ENOENT/);
      }
    } finally {
      await own.remove();
    }
  });
});

describe('npm run import of a calendar saved again under another name', () => {
  it('updates the earlier import of the same calendar instead of creating its events twice', async () => {
    const own = await tempDir();
    try {
      const store = join(own.dir, 'calendar.db');
      const copy = join(own.dir, 'community-calendar (1).ics');
      await writeFile(copy, await readFile(SAMPLE_ICS));
      const run = (file: string, name: string, ...flags: string[]) =>
        runCli(importMain, [file, '--data', store, '--report', join(own.dir, `${name}.json`), ...flags]);
      expect((await run(SAMPLE_ICS, 'first')).code).toBe(0);
      const first = await snapshotOf(store);

      const again = await run(copy, 'again');
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(
        /478 of its 479 events were imported before as \\"import-community-calendar-ics\\" \(which holds 476 events not yet past\): the same calendar/,
      );
      const updated = await report(join(own.dir, 'again.json'));
      expect(updated.pipeline).toBe(PIPELINE);
      expect(writes(updated)).toBe(0);
      expect((await snapshotOf(store)).events).toHaveLength(first.events.length);
      // The match is remembered: the copy's next run goes to the same import.
      const later = await run(copy, 'later');
      expect(later.stderr).toMatch(
        /imported before as \\"import-community-calendar-ics\\" \(the same calendar\)/,
      );
      expect((await report(join(own.dir, 'later.json'))).pipeline).toBe(PIPELINE);

      // A smaller calendar that shares some of its events is a calendar of its own, and takes nothing over:
      // the events only it has stay its own, out of reach of the big calendar's deletions, and the ones it
      // shares stay the big calendar's, not created a second time.
      const blocks = (await readFile(SAMPLE_ICS, 'utf8')).split(
        /(?=BEGIN:VEVENT)|(?<=END:VEVENT\r?\n)(?=END:VCALENDAR)/,
      );
      const [head, tail] = [blocks[0], blocks.at(-1) as string];
      const single = blocks.slice(1, -1).filter((v) => !/^(RRULE|RDATE|RECURRENCE-ID)[:;]/m.test(v));
      const shared = single.slice(0, 30);
      const own10 = shared.slice(0, 10).map((v, i) => v.replace(/^UID:.*$/m, `UID:club-${i}@example.org`));
      const club = join(own.dir, 'club.ics');
      await writeFile(club, head + [...shared, ...own10].join('') + tail);
      const small = await run(club, 'club');
      expect(small.stderr).toMatch(
        /30 of its 40 events .* \(which holds 476 events not yet past\): too few to be the same calendar/,
      );
      expect(small.stderr).toMatch(
        /30 events were imported before as \\"import-community-calendar-ics\\": left to that import, not created a second time/,
      );
      const clubReport = await report(join(own.dir, 'club.json'));
      expect(clubReport.pipeline).toBe('import-club-ics');
      expect(clubReport.counts.event).toMatchObject({ created: 10, unchanged: 0 });
      expect((await snapshotOf(store)).events).toHaveLength(first.events.length + 10);
      const clubAgain = await run(club, 'club-again');
      expect(clubAgain.stderr).toMatch(/30 events were imported before .*: left to that import/);
      expect(writes(await report(join(own.dir, 'club-again.json')))).toBe(0);
      const deleting = await run(SAMPLE_ICS, 'trash', '--deletions', 'trash');
      expect((await report(join(own.dir, 'trash.json'))).counts.event.deleted).toBe(0);
      expect(deleting.code).toBe(0);

      // Asked for by name, a separate copy is what it gets.
      // Nor does one event saved from it ("add to my calendar").
      const one = join(own.dir, 'event.ics');
      await writeFile(one, head + single[0] + tail);
      const saved = await run(one, 'one');
      expect(saved.stderr).toMatch(/1 of its 1 events .*: too few to be the same calendar/);
      expect(saved.stderr).toMatch(/1 event was imported before .*: left to that import/);
      expect((await report(join(own.dir, 'one.json'))).counts.event.created).toBe(0);

      const held = (await snapshotOf(store)).events.length;
      const named = await run(copy, 'named', '--name', 'community-copy');
      expect(named.code).toBe(0);
      expect((await report(join(own.dir, 'named.json'))).counts.event.created).toBe(first.events.length);
      expect((await snapshotOf(store)).events).toHaveLength(held + first.events.length);

      const bad = await run(copy, 'bad', '--name', 'Community Copy');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--name: expected lower-case letters, digits and dashes/);
    } finally {
      await own.remove();
    }
  });

  it('knows the calendar months later, when part of what it imported has passed', async () => {
    const own = await tempDir();
    try {
      const store = join(own.dir, 'calendar.db');
      const run = (file: string, name: string, now: string) =>
        runCli(importMain, [file, '--data', store, '--report', join(own.dir, `${name}.json`)], {
          CALSYNC_NOW: now,
        });
      const club = join(own.dir, 'club.ics');
      await writeFile(club, await readFile(SAMPLE_ICS));
      expect((await run(club, 'first', NOW)).code).toBe(0);
      const later = new Date(new Date(NOW).getTime() + 190 * DAY).toISOString();
      const copy = join(own.dir, 'club (1).ics');
      await writeFile(copy, await readFile(SAMPLE_ICS));
      const again = await run(copy, 'again', later);
      expect(again.stderr).toMatch(/: the same calendar/);
      const updated = await report(join(own.dir, 'again.json'));
      expect(updated.pipeline).toBe('import-club-ics');
      // Only what the later window reaches that the first did not is new; nothing is created twice.
      const events = (await snapshotOf(store)).events;
      expect(new Set(events.map((e) => `${e.start_date} ${e.title}`)).size).toBe(events.length);

      // Another calendar saved under the copy's name later is not taken for the one it stood for.
      const other = (await readFile(SAMPLE_ICS, 'utf8')).replace(/^UID:/gm, 'UID:other-');
      await writeFile(copy, other);
      const different = await run(copy, 'different', later);
      expect(different.stderr).not.toMatch(/the same calendar/);
      expect((await report(join(own.dir, 'different.json'))).pipeline).toBe('import-club-1-ics');
    } finally {
      await own.remove();
    }
  });
});
