/**
 * Runs of a pipeline against a site that behaves like The Events Calendar (test/helpers/tec-site.ts in
 * front of our real server on a loopback port): there, updates replace the whole event (contract C.4), so
 * a field kept under preserve-local-edits must be sent back as the site has it, and nothing else the site
 * holds may be lost on the way; and a lost sync state is rebuilt from the site's lists, creating nothing.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileRunSpec } from '../../src/pipeline/file-run-spec.ts';
import { type RunSpec, runPipeline } from '../../src/pipeline/run.ts';
import type { Target } from '../../src/writer/index.ts';
import { resendBody } from '../../src/writer/resend-body.ts';
import { httpTarget } from '../e2e/remote-run.ts';
import { startTecSite, TEC_NAMESPACE, type TecSite } from '../helpers/tec-site.ts';
import { type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: LoopbackServer;
let site: TecSite;
const NOW = new Date('2026-11-22T12:00:00Z');

beforeAll(async () => {
  dir = await tempDir();
  server = await startServer(join(dir.dir, 'site.db'));
  site = await startTecSite(server.url);
});
afterAll(async () => {
  await site.close();
  await server.close();
  await dir.remove();
});

const open = async (): Promise<Target> => httpTarget(site.url, server, { namespace: TEC_NAMESPACE });

function calendar(titles: string[], start = '190000'): string {
  const events = titles.flatMap((title, i) => [
    'BEGIN:VEVENT',
    `UID:tec-${i + 1}@tec.test`,
    'DTSTAMP:20261101T000000Z',
    `DTSTART;TZID=America/Chicago:2026121${i}T${i === 0 ? start : '190000'}`,
    `DTEND;TZID=America/Chicago:2026121${i}T230000`,
    `SUMMARY:${title}`,
    'LOCATION:Orchestra Hall\\, 220 S Michigan Ave',
    'ORGANIZER;CN=Symphony Society:mailto:info@symphony.example',
    'CATEGORIES:Concerts',
    'URL:https://symphony.example/concerts',
    'END:VEVENT',
  ]);
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync//tec//EN',
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const spec = (name: string, update: RunSpec['policies']['update']): RunSpec =>
  fileRunSpec({
    name,
    source: { type: 'ics', path: join(dir.dir, `${name}.ics`) },
    mapping: { timezone: 'UTC' },
    policies: { update },
    stateFile: join(dir.dir, `${name}.sync.db`),
    targetLabel: site.url,
  });

const run = (s: RunSpec) => runPipeline(s, { openTarget: open, now: NOW });

async function events(): Promise<Map<string, Record<string, unknown>>> {
  const target = await open();
  try {
    const found = new Map<string, Record<string, unknown>>();
    for await (const e of target.list('event')) found.set(e.slug, e.body);
    return found;
  } finally {
    await target.close();
  }
}

describe('against a TEC-like site, where updates replace the whole event', () => {
  it('preserve-local-edits sends an edited title back as the site has it, and loses none of the rest', async () => {
    const s = spec('tec-preserve', 'preserve-local-edits');
    await writeFile(s.source.path as string, calendar(['Brahms', 'Mahler']));
    expect((await run(s)).report.outcome).toBe('ok');

    // An editor retitles the first concert through the REST API (a whole body, as TEC needs).
    const before = [...(await events()).values()].find((e) => e.title === 'Brahms') as Record<
      string,
      unknown
    >;
    const target = await open();
    await target.update('event', before.id as number, {
      ...resendBody('event', before),
      title: 'Brahms (sold out)',
    });
    await target.close();

    await writeFile(s.source.path as string, calendar(['Brahms: Symphony No. 4', 'Mahler'], '200000'));
    const { plan, report } = await run(s);
    expect(plan.counts.event.conflict).toBe(1);
    expect(report.conflicts[0].fields).toEqual([
      { field: 'title', written: 'Brahms', source: 'Brahms: Symphony No. 4', target: 'Brahms (sold out)' },
    ]);
    const after = (await events()).get(String(before.slug)) as Record<string, unknown>;
    expect(after.title).toBe('Brahms (sold out)');
    expect(after.start_date).toBe('2026-12-10 20:00:00');
    // What a partial body would have reset on TEC is all still there.
    expect(after.timezone).toBe('America/Chicago');
    expect((after.organizer as unknown[]).length).toBe(1);
    expect(after.website).toBe('https://symphony.example/concerts');
    expect((after.venue as { id: number }).id).toBe((before.venue as { id: number }).id);
  });

  it('a lost sync state is rebuilt from the site: nothing created twice, nothing written', async () => {
    const s = spec('tec-lost', 'overwrite');
    await writeFile(s.source.path as string, calendar(['Bach', 'Haydn', 'Ravel']));
    expect((await run(s)).report.counts.event.created).toBe(3);
    const count = (await events()).size;

    const lost = { ...s, stateFile: join(dir.dir, 'tec-lost-again.sync.db') };
    const { report } = await run(lost);
    expect(report.outcome).toBe('ok');
    for (const kind of ['category', 'venue', 'organizer', 'event'] as const)
      expect(report.counts[kind].created).toBe(0);
    expect((report.requests.POST ?? 0) + (report.requests.DELETE ?? 0)).toBe(0);
    expect(report.counts.event.unchanged).toBe(3);
    expect((await events()).size).toBe(count);
  });
});
