/**
 * A remote site keeps its address when it is reset, and has no store id: the sync state's items there may be
 * gone. `npm run import -- <file> --target <url>` (a real process, against our server on a loopback port)
 * looks up the pipeline's events written last before each run: a site that holds none of them gets every
 * event again, once (also those another import held there before the reset), and a site that lost only
 * some (one deleted by hand), or whose events were all trashed there, is left as the state knows it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/report.ts';
import { buildApp } from '../../src/server/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Target } from '../../src/writer/target.ts';
import { killChildren } from '../helpers/children.ts';
import { ics, smallEvents } from '../real-tec/calendar.ts';
import { createImporter, tempDir } from '../writer/setup.ts';
import { readReport, spawnImport, writesOf } from './helpers.ts';
import { httpTarget, slugDuplicates, snapshotOver } from './remote-run.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let site: { app: FastifyInstance; url: string; password: string } | undefined;
const at = (name: string) => join(dir.dir, name);

beforeAll(async () => {
  dir = await tempDir();
  await writeFile(at('club.ics'), ics(smallEvents(6)));
});
afterAll(async () => {
  await site?.app.close();
  await dir.remove();
});
afterEach(killChildren);

/** Our server over `data` on `port` (0: any), with an `importer` made in a new store; the last one closed. */
async function serve(data: string, port = 0): Promise<{ url: string; port: number }> {
  await site?.app.close();
  const store = openSqliteStore(data);
  const password = await createImporter(store, 'editor');
  const app = await buildApp({ store, siteUrl: 'http://127.0.0.1:8080' });
  const url = await app.listen({ host: '127.0.0.1', port });
  site = { app, url, password };
  return { url, port: Number(new URL(url).port) };
}

async function importInto(url: string, report: string, flags: string[] = [], file = 'club.ics') {
  const run = spawnImport([at(file), '--target', url, '--report', at(report), ...flags], dir.dir, {
    CALSYNC_USER: 'importer',
    CALSYNC_APP_PASSWORD: site?.password ?? '',
  });
  const { code, output } = await run.exited;
  expect(code, output).toBe(0);
  return { report: await readReport<RunReport>(at(report)), output };
}

/** The id of the event the site made last. */
async function latest(target: Target): Promise<number> {
  let newest = 0;
  for await (const event of target.list('event')) newest = Math.max(newest, event.id);
  return newest;
}

const held = () => snapshotOver(site?.url ?? '', { username: 'importer', password: site?.password ?? '' });

describe('npm run import into a remote site', () => {
  it('after the site was reset: every event created again, once; the next run writes nothing', async () => {
    const { url, port } = await serve(at('site.db'));
    const first = await importInto(url, 'first.json');
    expect(first.report.counts.event.created).toBe(6);
    const before = await held();

    // Reset: the same address, a new store (the importer made again, as a site's admin would).
    await serve(at('reset.db'), port);
    expect((await held()).events).toEqual([]);
    const dry = await importInto(url, 'dry.json', ['--dry-run']);
    expect(dry.output).toMatch(/forgets the \d+ items it knew.*\(by a real run: a dry run changes nothing\)/);
    expect(dry.output.match(/^create +event /gm)).toHaveLength(6);
    const again = await importInto(url, 'again.json');
    expect(again.output).toMatch(/holds none of the events this pipeline wrote there last/);
    expect(again.report.counts.event).toMatchObject({ created: 6, unchanged: 0 });
    const after = await held();
    expect(after).toEqual(before);
    expect(slugDuplicates(after)).toEqual([]);

    const third = await importInto(url, 'third.json');
    expect(third.output).not.toMatch(/holds none/);
    expect(writesOf(third.report)).toBe(0);
  });

  it('after a reset, a file that shared events with another import gets them, and that import leaves them to it', async () => {
    const events = smallEvents(6);
    // Two of the club's events and three of its own: too few to be the club's calendar again.
    const own = events
      .slice(2, 5)
      .map((e, i) => ({ ...e, uid: `own-${i}@library.example`, title: `Library ${i}` }));
    await writeFile(at('library.ics'), ics([...events.slice(0, 2), ...own]));
    const { url, port } = await serve(at('shared.db'));
    await importInto(url, 's-club.json');
    const library = await importInto(url, 's-library.json', [], 'library.ics');
    expect(library.report.pipeline).toBe('import-library-ics');
    expect(library.output).toMatch(
      /2 events were imported before as .*import-club-ics.*: left to that import/,
    );
    expect(library.report.counts.event.created).toBe(3);

    // Reset: the library's file comes first, and gets the two events the club's import no longer has there.
    await serve(at('shared-reset.db'), port);
    const first = await importInto(url, 's-library-again.json', [], 'library.ics');
    expect(first.output).toMatch(/holds none of the events this pipeline wrote there last/);
    expect(first.output).not.toMatch(/left to that import/);
    expect(first.report.counts.event.created).toBe(5);
    const club = await importInto(url, 's-club-again.json');
    expect(club.output).toMatch(/holds none of the events this pipeline wrote there last/);
    expect(club.output).toMatch(
      /2 events were imported before as .*import-library-ics.*: left to that import/,
    );
    expect(club.report.counts.event.created).toBe(4);
    const titles = (await held()).events.map((e) => e.title);
    expect(titles).toHaveLength(9);
    expect(new Set(titles).size).toBe(9);
  });

  it('that lost one event (deleted there by hand): not taken as reset, nothing written', async () => {
    const { url } = await serve(at('hand.db'));
    await importInto(url, 'hand-first.json');
    const byHand = httpTarget(url, { username: 'importer', password: site?.password ?? '' });
    const newest = await latest(byHand);
    await byHand.remove('event', newest, 'trash');
    await byHand.close();
    const again = await importInto(url, 'hand-again.json');
    expect(again.output).not.toMatch(/holds none/);
    expect(writesOf(again.report)).toBe(0);
  });

  it('whose events were all trashed there (a cleanup of past events): not taken as reset, none made again', async () => {
    const { url } = await serve(at('trashed.db'));
    await importInto(url, 'trashed-first.json');
    const byHand = httpTarget(url, { username: 'importer', password: site?.password ?? '' });
    for await (const event of byHand.list('event')) await byHand.remove('event', event.id, 'trash');
    await byHand.close();
    const again = await importInto(url, 'trashed-again.json');
    expect(again.output).not.toMatch(/holds none/);
    expect(writesOf(again.report)).toBe(0);
    expect((await held()).events).toEqual([]);
  });
});
