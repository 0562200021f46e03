/**
 * The README's remote example, `pipelines/remote/wordpress-example.yaml`, run as written against the real TEC
 * 6.2.6 site (its variables set as the file's header says): the sample lands as drafts within the file's
 * window and rate, and after an editor published one of them, the next run writes nothing and leaves it
 * published (`preserve-local-edits`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { comparableText } from '../../src/model/html.ts';
import { resendBody } from '../../src/writer/resend-body.ts';
import { writesOf } from '../e2e/helpers.ts';
import { credentials, describeRealTec, freshSiteEach, ROOT, runCommand, tecTarget } from './site.ts';

describeRealTec('pipelines/remote/wordpress-example.yaml against a real TEC 6.2.6 site', (tec) => {
  const ws = freshSiteEach(tec);

  it('imports the sample as drafts; a draft published on the site stays published; a re-run writes nothing', async () => {
    const example = join(ROOT, 'pipelines', 'remote', 'wordpress-example.yaml');
    const env = { ...credentials(tec), CALSYNC_SITE_URL: tec.url };
    const report = join(ws.dir, 'report.json');
    const sync = async () => {
      const run = await runCommand('sync', [example, '--report', report], ws.dir, env);
      return { ...run, report: JSON.parse(await readFile(report, 'utf8'))[0] };
    };
    const first = await sync();
    expect(first.code, first.output).toBe(0);
    expect(first.report.counts.event.failed).toBe(0);
    expect(first.report.counts.event.created).toBeGreaterThan(100);

    const target = tecTarget(tec);
    try {
      const drafts = [];
      for await (const e of target.list('event')) drafts.push(e);
      expect(new Set(drafts.map((e) => e.status))).toEqual(new Set(['draft']));
      // An editor publishes one.
      const chosen = drafts[0];
      await target.update('event', chosen.id, { ...resendBody('event', chosen.body), status: 'publish' });

      const again = await sync();
      expect(again.code, again.output).toBe(0);
      expect(writesOf(again.report)).toBe(0);
      expect((await target.get('event', chosen.id))?.status).toBe('publish');
      expect(comparableText(String((await target.get('event', chosen.id))?.body.title))).toBe(
        comparableText(String(chosen.body.title)),
      );
    } finally {
      await target.close();
    }
  });
});
