/**
 * `npm run sync` of several pipelines into the one real TEC site (they share the host's request queue, so
 * together they keep the strictest rate, counted in the site's own access log), and what a user with a wrong
 * password or too weak a role sees.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ics, smallEvents } from './calendar.ts';
import { describeRealTec, freshSiteEach, importInto, pipelineFile, siteSnapshot, syncInto } from './site.ts';

const RPS = 4;

describeRealTec('npm run sync and credentials against a real TEC 6.2.6 site', (tec) => {
  const ws = freshSiteEach(tec);

  it('three pipelines into one site share its queue: all written, together at most the strictest rate', async () => {
    const files: string[] = [];
    for (const name of ['choir', 'chess', 'cinema']) {
      const events = smallEvents(6).map((e) => ({
        ...e,
        uid: `${name}-${e.uid}`,
        title: `${name}: ${e.title}`,
      }));
      await writeFile(join(ws.dir, `${name}.ics`), ics(events));
      const rate = name === 'chess' ? [`  rate: { requests_per_second: ${RPS} }`] : [];
      // Rate lines go under target: (pipelineFile ends the target block with the auth lines).
      files.push(await pipelineFile(tec, ws.dir, name, `${name}.ics`, rate));
    }
    const log = join(tec.workdir, 'logs', 'nginx-access.log');
    const logBefore = (await readFile(log, 'utf8')).length;
    const run = await syncInto(tec, ws.dir, files);
    expect(run.code, run.output).toBe(0);
    expect(run.reports.map((r) => [r.pipeline, r.outcome, r.counts.event.created])).toEqual([
      ['choir', 'ok', 6],
      ['chess', 'ok', 6],
      ['cinema', 'ok', 6],
    ]);
    // nginx writes its access log from a buffer at least once a second. Read it before the snapshot below,
    // whose own requests to the site are not the run's.
    await new Promise((done) => setTimeout(done, 1500));
    const runLog = (await readFile(log, 'utf8')).slice(logBefore);
    const site = await siteSnapshot(tec);
    expect(site.events).toHaveLength(18);

    // The site logs each request when it ends, to the second ([25/Nov/2026:14:20:37 +0000]); latency moves
    // a request's line into the next second, so the rate is checked over every three seconds.
    const perSecond = new Map<number, number>();
    for (const line of runLog.split('\n')) {
      const at = /\[(\d+)\/(\w+)\/(\d+):(\d+:\d+:\d+) ([+-]\d+)\] "(?:GET|POST|DELETE) \/wp-json\/tribe/.exec(
        line,
      );
      if (!at) continue;
      const second = Date.parse(`${at[1]} ${at[2]} ${at[3]} ${at[4]} GMT${at[5]}`) / 1000;
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    const total = [...perSecond.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(18 + 3 * 5);
    const seconds = [...perSecond.keys()];
    const busiest = Math.max(
      ...seconds.map(
        (s) => (perSecond.get(s) ?? 0) + (perSecond.get(s + 1) ?? 0) + (perSecond.get(s + 2) ?? 0),
      ),
    );
    expect(busiest).toBeLessThanOrEqual(3 * RPS + 1);
  });

  it('a wrong application password: exit 1, the 401 named, nothing written', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(3)));
    const run = await importInto(tec, ws.dir, [file], { password: 'wrong wrong wrong wrong' });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      /did not accept the credentials \(HTTP 401 .*\nhint: the target refused CALSYNC_USER\/CALSYNC_APP_PASSWORD/,
    );
    const site = await siteSnapshot(tec);
    expect(site.events).toEqual([]);
  });

  it('a subscriber (too weak a role): exit 1, the refusal named, nothing written', async () => {
    const file = join(ws.dir, 'club.ics');
    await writeFile(file, ics(smallEvents(3)));
    const run = await importInto(tec, ws.dir, [file], { role: 'subscriber' });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      /user subscriber1 \(role subscriber\) may not create events.*\n.*hint: .*needs an editor/,
    );
    const site = await siteSnapshot(tec);
    expect(site.events).toEqual([]);
    expect(site.venues).toEqual([]);
  });
});
