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
import { execute } from '../../src/cli/execute.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { makeLogger } from '../../src/cli/output.ts';
import type { TargetChoice } from '../../src/cli/target.ts';
import type { RunSpec } from '../../src/pipeline/run.ts';
import { createHttpTransport, createTarget } from '../../src/writer/index.ts';
import { NOW, runCli, SAMPLE_ICS, snapshot, snapshotOf, writesOf } from '../e2e/helpers.ts';
import { startTecSite, TEC_NAMESPACE, type TecSite } from '../helpers/tec-site.ts';
import { type LoopbackServer, startServer, tempDir } from './setup.ts';

type Snapshot = Awaited<ReturnType<typeof snapshotOf>>;
/** The name `npm run import` gives a file called community-calendar.ics: slugs derive from it. */
const PIPELINE = 'import-community-calendar-ics';

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

async function cleanImport(file: string, name: string): Promise<Snapshot> {
  const data = join(tmp.dir, name, 'calendar.db');
  expect((await runCli(importMain, [file, '--data', data])).code).toBe(0);
  return snapshotOf(data);
}

async function syncToSite(file: string) {
  const stateFile = join(tmp.dir, 'tec.sync.db');
  const { username, password } = server;
  const spec: RunSpec = {
    name: PIPELINE,
    source: { type: 'ics', path: file },
    mapping: {
      status: 'publish',
      categories: [],
      tags: [],
      featured: false,
      show_map: true,
      show_map_link: true,
    },
    window: { pastDays: 30, futureDays: 365 },
    policies: { update: 'overwrite', delete: 'keep', maxDeleteRatio: 0.25 },
    stateFile,
    targetLabel: site.url,
  };
  const choice: TargetChoice = {
    label: site.url,
    stateFile,
    open: async () =>
      createTarget(createHttpTransport({ url: site.url, auth: { type: 'basic', username, password } }), {
        namespace: TEC_NAMESPACE,
        label: site.url,
      }),
  };
  let stdout = '';
  const io = {
    argv: [],
    env: { CALSYNC_NOW: NOW },
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => true },
  };
  const result = await execute(spec, choice, io, makeLogger(io, { quiet: true }), {});
  return { ...result, stdout };
}

/** What the site holds, read straight from our server (under its own namespace, past the fixture). */
async function siteSnapshot(): Promise<Snapshot> {
  const { url, username, password } = server;
  const target = createTarget(createHttpTransport({ url, auth: { type: 'basic', username, password } }), {
    namespace: 'calendar/events/v1',
    label: url,
  });
  try {
    return await snapshot(target);
  } finally {
    await target.close();
  }
}

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
