/**
 * The pipeline's policies against the real TEC 6.2.6 site: each deletion policy for an event that left the
 * file, events imported as drafts (found again by slug after a lost state), `preserve-local-edits` with edits
 * made on the site, and images by URL.
 */

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import type { Remote } from '../../src/writer/index.ts';
import { resendBody } from '../../src/writer/resend-body.ts';
import { writesOf } from '../e2e/helpers.ts';
import { ics, smallEvents } from './calendar.ts';
import {
  describeRealTec,
  freshSiteEach,
  importInto,
  pipelineFile,
  type RealTec,
  syncInto,
  tecTarget,
} from './site.ts';

/** Every event on the site, any status but trash, and trashed ones by id. */
async function siteEvents(tec: RealTec): Promise<Remote[]> {
  const target = tecTarget(tec);
  try {
    const out: Remote[] = [];
    for await (const r of target.list('event')) out.push(r);
    return out;
  } finally {
    await target.close();
  }
}

const titled = (events: Remote[], title: string) =>
  events.filter((e) => comparableText(String(e.body.title)) === title);

describeRealTec('pipeline policies on a real TEC 6.2.6 site', (tec) => {
  const ws = freshSiteEach(tec);

  for (const [policy, expected] of [
    ['keep', 'publish'],
    ['draft', 'draft'],
    ['trash', 'trash'],
    // TEC 6.2.6 ignores `force=true` and trashes (C.16).
    ['delete', 'trash'],
  ] as const) {
    it(`--deletions ${policy}: an event that left the file ends ${expected} on the site, the others untouched`, async () => {
      const file = join(ws.dir, 'club.ics');
      const events = smallEvents(8);
      await writeFile(file, ics(events));
      const first = await importInto(tec, ws.dir, [file]);
      expect(first.code, first.output).toBe(0);
      const walk = titled(await siteEvents(tec), 'Dawn Walk')[0];
      expect(walk).toBeDefined();

      await writeFile(file, ics(events.filter((e) => e.uid !== 'walk@club.example')));
      const run = await importInto(tec, ws.dir, [file, '--deletions', policy]);
      expect(run.code, run.output).toBe(0);
      expect(run.report?.counts.event).toMatchObject({
        deleted: policy === 'keep' ? 0 : 1,
        unchanged: 7,
        updated: 0,
      });
      const target = tecTarget(tec);
      try {
        expect((await target.get('event', walk.id))?.status).toBe(expected);
      } finally {
        await target.close();
      }
      const listed = await siteEvents(tec);
      expect(listed.filter((e) => e.status === 'publish')).toHaveLength(policy === 'keep' ? 8 : 7);
      const again = await importInto(tec, ws.dir, [file, '--deletions', policy]);
      expect(writesOf(again.report!)).toBe(0);
    });
  }

  it('--status draft: events wait as drafts under their own slugs, found again after a lost sync state', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(8)));
    const first = await importInto(tec, ws.dir, [file, '--status', 'draft']);
    expect(first.code, first.output).toBe(0);
    const drafts = await siteEvents(tec);
    expect(drafts.map((e) => e.status)).toEqual(Array(8).fill('draft'));
    expect(new Set(drafts.map((e) => e.slug)).size).toBe(8);
    expect(drafts.every((e) => /-[0-9a-f]{10}$/.test(e.slug))).toBe(true);

    await rm(join(ws.dir, 'data', 'sync'), { recursive: true });
    const rebuilt = await importInto(tec, ws.dir, [file, '--status', 'draft']);
    expect(rebuilt.code, rebuilt.output).toBe(0);
    expect(writesOf(rebuilt.report!)).toBe(0);
    expect(await siteEvents(tec)).toHaveLength(8);
  });

  it('preserve-local-edits: a title edited on the site is kept; where the source changed it too, a conflict is reported', async () => {
    await writeFile(join(ws.dir, 'club.ics'), ics(smallEvents(8)));
    const yaml = await pipelineFile(tec, ws.dir, 'club', 'club.ics', [
      'policies:',
      '  update: preserve-local-edits',
    ]);
    const first = await syncInto(tec, ws.dir, [yaml]);
    expect(first.code, first.output).toBe(0);

    // An editor fixes two titles on the site (a whole-event update, as wp-admin saves it).
    const target = tecTarget(tec);
    const events = await siteEvents(tec);
    const edit = async (title: string, newTitle: string) => {
      const e = titled(events, title)[0];
      await target.update('event', e.id, { ...resendBody('event', e.body), title: newTitle });
      return e.id;
    };
    const quiz = await edit("St Mary's Quiz Night", "St Mary's Quiz Night (upstairs)");
    const fair = await edit('Spring Fair', 'Spring Fair & Flea Market');
    await target.close();

    // The next day the source changes the quiz's title (conflict) and the fair's description (no conflict).
    const changed = smallEvents(8).map((e) =>
      e.uid === 'quiz@club.example'
        ? { ...e, title: "St Mary's Grand Quiz" }
        : e.uid === 'fair@club.example'
          ? { ...e, description: 'Two days of stalls and music.' }
          : e,
    );
    await writeFile(join(ws.dir, 'club.ics'), ics(changed));
    const second = await syncInto(tec, ws.dir, [yaml]);
    const report = second.reports[0];
    expect(report.conflicts.map((c) => [c.uid, c.fields.map((f) => f.field)])).toEqual([
      ['quiz@club.example', ['title']],
    ]);
    expect(report.counts.event).toMatchObject({ updated: 1, skipped: 1, failed: 0 });

    const after = tecTarget(tec);
    try {
      const q = await after.get('event', quiz);
      const f = await after.get('event', fair);
      expect(comparableText(String(q?.body.title))).toBe("St Mary's Quiz Night (upstairs)");
      expect(comparableText(String(f?.body.title))).toBe('Spring Fair & Flea Market');
      expect(comparableText(String(f?.body.description))).toBe('Two days of stalls and music.');
    } finally {
      await after.close();
    }
    // The conflict is listed again on the next run, and nothing is written.
    const third = await syncInto(tec, ws.dir, [yaml]);
    expect(third.reports[0].conflicts).toHaveLength(1);
    expect(writesOf(third.reports[0])).toBe(0);
  });

  it('preserve-local-edits: an event an editor trashed stays in the trash when the source changes it, and no copy is made', async () => {
    await writeFile(join(ws.dir, 'club.ics'), ics(smallEvents(8)));
    const yaml = await pipelineFile(tec, ws.dir, 'club', 'club.ics', [
      'policies:',
      '  update: preserve-local-edits',
    ]);
    expect((await syncInto(tec, ws.dir, [yaml])).code).toBe(0);
    const target = tecTarget(tec);
    const quiz = titled(await siteEvents(tec), "St Mary's Quiz Night")[0];
    await target.remove('event', quiz.id, 'trash');
    await target.close();

    const changed = smallEvents(8).map((e) =>
      e.uid === 'quiz@club.example' ? { ...e, title: "St Mary's Grand Quiz" } : e,
    );
    await writeFile(join(ws.dir, 'club.ics'), ics(changed));
    const second = await syncInto(tec, ws.dir, [yaml]);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toMatch(/"St Mary.s Grand Quiz": trashed on the target, and kept so/);
    expect(second.reports[0].counts.event).toMatchObject({ created: 0, updated: 0, skipped: 1, failed: 0 });
    const events = await siteEvents(tec);
    expect(events).toHaveLength(7);
    expect(titled(events, "St Mary's Grand Quiz")).toEqual([]);
    const after = tecTarget(tec);
    try {
      const trashed = await after.get('event', quiz.id);
      expect(trashed?.body.status).toBe('trash');
      expect(comparableText(String(trashed?.body.title))).toBe("St Mary's Quiz Night");
    } finally {
      await after.close();
    }
  });

  it('images by URL: sideloaded by the site; an image it cannot fetch costs the image, not the event, and is reported', async () => {
    // WordPress downloads only from public hosts or its own host and port (wp_safe_remote_get): the poster
    // is served by the site's own web server. A loopback server on another port passes TEC's HEAD check but
    // not the download, and the site answers 201 without the image; a URL that is 404 is a 400.
    const dir = join(tec.workdir, 'wordpress', 'calsync-test');
    await mkdir(dir, { recursive: true });
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
      .png()
      .toFile(join(dir, 'poster.png'));
    const elsewhere: Server = createServer((req, res) =>
      req.url === '/elsewhere.png'
        ? res.writeHead(200, { 'content-type': 'image/png' }).end()
        : res.writeHead(404).end(),
    );
    await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
    try {
      const events = smallEvents(3);
      events[0].attach = `${tec.siteUrl}/calsync-test/poster.png`;
      events[1].attach = `${base}/missing.png`;
      events[2].attach = `${base}/elsewhere.png`;
      const file = join(ws.dir, 'club.ics');
      await writeFile(file, ics(events));
      const run = await importInto(tec, ws.dir, [file]);
      expect(run.code, run.output).toBe(0);
      expect(run.report?.counts.event).toMatchObject({ created: 3, failed: 0 });
      const warnings = run.report?.warnings ?? [];
      expect(warnings).toHaveLength(2);
      expect(warnings.join('\n')).toMatch(/missing\.png was refused \(.*HTTP 400/);
      expect(warnings.join('\n')).toContain('elsewhere.png was not attached by the target');
      const listed = await siteEvents(tec);
      const poster = titled(listed, "St Mary's Quiz Night")[0].body.image as { id?: number; url?: string };
      expect(poster.id).toBeGreaterThan(0);
      expect(poster.url).toMatch(/\/uploads\/.*poster.*\.png$/);
      expect(titled(listed, 'Film & Theatre: "Casablanca" (1942)')[0].body.image).toBe(false);
      expect(titled(listed, 'Spring Fair')[0].body.image).toBe(false);
      // Not retried on every run: a changed URL in the source is.
      const again = await importInto(tec, ws.dir, [file]);
      expect(writesOf(again.report!)).toBe(0);
    } finally {
      elsewhere.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
