/**
 * Crash safety over a remote target: our server runs as its own process (`npm run serve` on a loopback
 * port), and `npm run import -- … --target <url>` runs as another. Either is killed with SIGKILL at seeded
 * random moments in the middle of the writes — the importer (its sync state then lags what the server
 * committed), or the server (requests in flight die with it; it is started again on the same port and the
 * same file). After a run to the end, the server must hold exactly what one clean import gives, and one more
 * run must write nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../bench/prng.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { killChildren, spawnChild } from '../helpers/children.ts';
import { createImporter, tempDir } from '../writer/setup.ts';
import { ROOT, readReport, SAMPLE_ICS, spawnImport, writesOf } from './helpers.ts';
import {
  cleanImport,
  slugDuplicates as duplicates,
  type Snapshot,
  snapshotOver,
  whenRecorded,
} from './remote-run.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let clean: Snapshot;

beforeAll(async () => {
  dir = await tempDir();
  clean = await cleanImport(join(dir.dir, 'clean'));
}, 30_000);
afterAll(() => dir.remove());
afterEach(killChildren);

/** A server process over `data` (with an editor "importer" made first), on `port` (0: any). */
interface Site {
  url: string;
  port: number;
  child: ChildProcess;
}

async function createUser(data: string): Promise<string> {
  const store = openSqliteStore(data);
  try {
    return await createImporter(store, 'editor');
  } finally {
    await store.close();
  }
}

function serve(data: string, port = 0): Promise<Site> {
  const child = spawnChild(
    process.execPath,
    [join(ROOT, 'src', 'cli', 'serve.ts'), '--port', String(port), '--data', data, '--cache-mb', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:(\d+))\/calendar\/events\/v1/.exec(out);
      if (m) resolve({ url: m[1], port: Number(m[2]), child });
    });
    child.stderr?.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await gone;
}

const serverSnapshot = (url: string, password: string): Promise<Snapshot> =>
  snapshotOver(url, { username: 'importer', password });

const CASES = [
  { seed: 7, who: 'importer' },
  { seed: 31_337, who: 'importer' },
  { seed: 2024, who: 'server' },
] as const;

describe('an import into a remote server, SIGKILLed at a random moment mid-write, then run again', () => {
  for (const { seed, who } of CASES) {
    it(`leaves the server as one clean import would (seed ${seed}, the ${who} killed)`, async ({
      annotate,
    }) => {
      const random = prng(seed);
      const work = join(dir.dir, `seed-${seed}`);
      const data = join(work, 'site.db');
      const password = await createUser(data);
      let site = await serve(data);
      const env = { CALSYNC_USER: 'importer', CALSYNC_APP_PASSWORD: password };
      const args = () => [SAMPLE_ICS, '--target', site.url];
      try {
        const at = 1 + Math.floor(random() * 0.9 * clean.events.length);
        const run = spawnImport(args(), work, env);
        const reached = await whenRecorded(work, at, run.exited);
        expect(reached, 'the importer was still writing').toBe(true);
        if (who === 'importer') {
          await kill(run.child);
        } else {
          await kill(site.child);
          // The importer retries against a closed port; the server is back on it a moment later.
          await new Promise((r) => setTimeout(r, Math.round(random() * 300)));
          site = await serve(data, site.port);
        }
        const first = await run.exited;
        await annotate(
          `killed the ${who} at ${at} events; the importer ended with ${first.code ?? first.signal}`,
        );
        expect(duplicates(await serverSnapshot(site.url, password))).toEqual([]);

        const reportFile = join(work, 'rerun.json');
        const rerun = await spawnImport([...args(), '--report', reportFile], work, env).exited;
        expect(rerun.code, rerun.output).toBe(0);
        const after = await serverSnapshot(site.url, password);
        expect(duplicates(after)).toEqual([]);
        expect(after).toEqual(clean);

        const settledFile = join(work, 'settled.json');
        const settled = await spawnImport([...args(), '--report', settledFile], work, env).exited;
        expect(settled.code, settled.output).toBe(0);
        expect(writesOf(await readReport(settledFile))).toBe(0);
      } finally {
        await kill(site.child);
      }
    }, 90_000);
  }
});
