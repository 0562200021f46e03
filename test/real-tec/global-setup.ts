/**
 * Starts the real WordPress + The Events Calendar 6.2.6 site the real-TEC suite runs against (vitest
 * globalSetup of `npm run test:slow`), from the kit in `$TEC_KIT` or `../shared/peers/tec-6.2.6` beside the
 * repository (kit.ts): its `start.sh` installs Debian's WordPress, PHP, MariaDB and nginx when they are
 * missing and serves the site on a free loopback port. A site already running is used as it is when
 * `TEC_URL` and the other variables `start.sh` prints are set (with `TEC_KIT`, for `reset.sh`).
 *
 * Without a kit the suite skips, saying why; a kit that is there but fails to start fails the run.
 */
import type { TestProject } from 'vitest/node';
import { kitFolder, runningSite, startSite, stopSite } from './kit.ts';
import type { RealTec } from './site.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    realTec: RealTec | { skip: string };
  }
}

export default async function setup(project: TestProject) {
  const kit = kitFolder();
  if (!kit) {
    project.provide('realTec', {
      skip: 'no TEC kit: set TEC_KIT to a tec-6.2.6 kit folder (or TEC_URL and the variables its start.sh prints)',
    });
    return;
  }
  const running = runningSite(kit);
  if (running) {
    project.provide('realTec', running);
    return;
  }
  const started = Date.now();
  const site = await startSite(kit);
  console.log(`real TEC site at ${site.url} (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  project.provide('realTec', site);
  return () => stopSite(site);
}
