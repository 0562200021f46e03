/**
 * SIGKILL mid-sync against the real TEC 6.2.6 site: `npm run import -- … --target $TEC_URL` is killed at
 * seeded random moments while it writes (its sync state then lags what WordPress committed, and a create in
 * flight may have landed without its answer), run again — perhaps killed again — and finally to the end.
 * The site must hold exactly what one clean run gives, no event twice, and one more run must write nothing.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { prng } from '../../bench/prng.ts';
import { spawnImport, writesOf } from '../e2e/helpers.ts';
import { cleanImport, slugDuplicates, whenRecorded } from '../e2e/remote-run.ts';
import { ics, smallEvents } from './calendar.ts';
import { comparable, credentials, describeRealTec, freshSiteEach, importInto, siteSnapshot } from './site.ts';

const EVENTS = 40;
const CASES = [
  { seed: 11, status: 'publish' },
  { seed: 4242, status: 'draft' },
] as const;

describeRealTec('an import into a real TEC site, SIGKILLed mid-write, then run again', (tec) => {
  const ws = freshSiteEach(tec);

  for (const { seed, status } of CASES) {
    it(`leaves the site as one clean run would (seed ${seed}, status ${status})`, async ({ annotate }) => {
      const random = prng(seed);
      const file = join(ws.dir, 'club.ics');
      await writeFile(file, ics(smallEvents(EVENTS)));
      const args = [file, '--target', tec.url, '--namespace', tec.namespace, '--status', status];
      const kills: number[] = [];
      for (let round = 0; round < 2; round++) {
        const at = 1 + Math.floor(random() * (EVENTS - 2));
        const run = spawnImport(args, ws.dir, credentials(tec));
        if (await whenRecorded(ws.dir, at, run.exited)) {
          run.child.kill('SIGKILL');
          kills.push(at);
        }
        await run.exited;
      }
      await annotate(`killed after ${kills.join(' and ')} recorded events`);
      expect(kills.length).toBeGreaterThan(0);

      const last = await importInto(tec, ws.dir, [file, '--status', status]);
      expect(last.code, last.output).toBe(0);
      const site = await siteSnapshot(tec);
      expect(slugDuplicates(site)).toEqual([]);
      const clean = await cleanImport(join(ws.dir, 'clean'), file);
      expect(comparable(site)).toEqual(
        comparable({ ...clean, events: clean.events.map((e) => ({ ...e, status })) }),
      );
      const again = await importInto(tec, ws.dir, [file, '--status', status]);
      expect(writesOf(again.report!)).toBe(0);
    });
  }
});
