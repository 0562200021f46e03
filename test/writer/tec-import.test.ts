/**
 * The sample calendar synced into a TEC-like site (test/helpers/tec-site.ts: our real server behind a
 * fixture reproducing contract part C) under `tribe/events/v1`: the site ends up holding exactly what a clean
 * local import gives, a re-run writes nothing, and after the source changed, the updates — which replace the
 * whole event on TEC (C.4) — leave every event as a clean import of the changed file would: no organizer
 * unlinked, no zone or flag reset, nothing doubled.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ICS, writesOf } from '../e2e/helpers.ts';
import {
  cleanImport as cleanImportInto,
  executeVia,
  httpTarget,
  type Snapshot,
  sampleSpec,
  snapshotOver,
} from '../e2e/remote-run.ts';
import { startTecSite, TEC_NAMESPACE, type TecSite } from '../helpers/tec-site.ts';
import { type LoopbackServer, startServer, tempDir } from './setup.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let server: LoopbackServer;
let site: TecSite;
let changedFile: string;

beforeAll(async () => {
  tmp = await tempDir();
  server = await startServer(join(tmp.dir, 'site.db'));
  site = await startTecSite(server.url);
  // The same calendar the next day: every title of a one-off or series containing "Yoga" changed.
  const text = await readFile(SAMPLE_ICS, 'utf8');
  changedFile = join(tmp.dir, 'community-calendar.ics');
  await writeFile(changedFile, text.replace(/^SUMMARY:(.*Yoga.*)$/gm, 'SUMMARY:$1 (new teacher)'));
});
afterAll(async () => {
  await site.close();
  await server.close();
  await tmp.remove();
});

const cleanImport = (file: string, name: string) => cleanImportInto(join(tmp.dir, name), file);

function syncToSite(file: string) {
  const spec = sampleSpec({
    file,
    policies: { delete: 'keep' },
    stateFile: join(tmp.dir, 'tec.sync.db'),
    targetLabel: site.url,
  });
  return executeVia(spec, async () => httpTarget(site.url, server, { namespace: TEC_NAMESPACE }));
}

/** What the site holds, read straight from our server (under its own namespace, past the fixture). */
const siteSnapshot = () => snapshotOver(server.url, server);

const slugs = (s: Snapshot) => s.events.map((e) => e.slug);
const bySuffix = (s: Snapshot) => ({
  ...s,
  events: s.events
    .map((e) => ({ ...e, slug: String(e.slug).replace(/^.*-/, '') }))
    .sort((a, b) => a.slug.localeCompare(b.slug)),
});

describe('npm run import into a TEC-like site (tribe/events/v1)', () => {
  it('holds exactly a clean import, and a re-run writes nothing', async () => {
    const clean = await cleanImport(SAMPLE_ICS, 'clean');
    const first = await syncToSite(SAMPLE_ICS);
    expect(first.code, first.stdout).toBe(0);
    const snap = await siteSnapshot();
    expect(new Set(slugs(snap)).size).toBe(snap.events.length);
    expect(snap).toEqual(clean);

    const again = await syncToSite(SAMPLE_ICS);
    expect(again.code, again.stdout).toBe(0);
    expect(again.report && writesOf(again.report)).toBe(0);
  }, 60_000);

  it('after the source changed, the whole-event updates leave what a clean import of the new file gives', async () => {
    const clean = await cleanImport(changedFile, 'changed');
    const run = await syncToSite(changedFile);
    expect(run.code, run.stdout).toBe(0);
    const updated = run.report?.counts.event.updated ?? 0;
    expect(updated).toBeGreaterThan(0);
    expect(run.report?.counts.event.created).toBe(0);
    const snap = await siteSnapshot();
    // A slug is set at creation and kept by updates: only its key suffix is compared.
    expect(bySuffix(snap)).toEqual(bySuffix(clean));
    // The updated events kept their organizers: a partial body would have unlinked them (C.4).
    const yoga = snap.events.filter((e) => e.title.includes('(new teacher)'));
    expect(yoga.length).toBeGreaterThan(0);
    expect(yoga.some((e) => e.organizers.length > 0)).toBe(true);
  }, 60_000);
});
