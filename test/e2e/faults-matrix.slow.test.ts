/**
 * One nightly sync per kind of fault, over HTTP through the faulty proxy (test/helpers/faulty-proxy.ts) in
 * front of our real server: refused connections, resets in the middle of an answer, stalls past the
 * client's timeout, 500/502/503, 429 with and without Retry-After, keep-alive connections the server closes
 * after a few requests, slow answers. Under each, the run either finishes with exactly what a clean run
 * gives, or stops with failures that say what happened (code and status) — and the next run completes it:
 * nothing lost, nothing doubled, compared as snapshots of the whole target.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyProxy, type ProxyOptions, startFaultyProxy } from '../helpers/faulty-proxy.ts';
import { type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';
import { writesOf } from './helpers.ts';
import {
  cleanImport,
  slugDuplicates as duplicates,
  executeVia,
  httpTarget,
  type Snapshot,
  sampleSpec,
  snapshotOver,
} from './remote-run.ts';

/** The client's timeout: a stall outlasts it, a slow answer does not. */
const TIMEOUT_MS = 500;

let tmp: Awaited<ReturnType<typeof tempDir>>;
let clean: Snapshot;
let server: LoopbackServer | undefined;
let proxy: FaultyProxy | undefined;

beforeAll(async () => {
  tmp = await tempDir();
  clean = await cleanImport(join(tmp.dir, 'clean'));
});
afterAll(() => tmp.remove());
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = server = undefined;
});

/** `npm run sync` of the sample into `url` (the CLI's execute, with millisecond backoffs). */
function syncVia(url: string, stateFile: string) {
  const who = server;
  if (!who) throw new Error('no server');
  // The clean import's name (the default): slugs are derived from it.
  const spec = sampleSpec({ stateFile, targetLabel: url });
  const retries = { attempts: 4, baseMs: 5, capMs: 50 };
  return executeVia(spec, async () => httpTarget(url, who, { timeoutMs: TIMEOUT_MS, retries }));
}

function directSnapshot(): Promise<Snapshot> {
  if (!server) throw new Error('no server');
  return snapshotOver(server.url, server);
}

interface Scenario {
  name: string;
  options?: ProxyOptions;
  faults(proxy: FaultyProxy, clean: Snapshot): void;
  /** Error codes a run that stopped may report. */
  codes: string[];
  /** The run must stop with failures (a fault outlasting every attempt), not only may. */
  stops?: boolean;
  /** The faults the proxy must have dealt, at least (so a scenario that injects nothing cannot pass). */
  dealt: (proxy: FaultyProxy) => number;
}

const EVENTS = /\/events$/;
const fate = (p: FaultyProxy, f: string) => p.log.filter((l) => l.fate === f).length;

const SCENARIOS: Scenario[] = [
  {
    name: 'refused connections (the site restarts twice during the run)',
    faults: (p) => {
      p.fail({ fault: 'refuse', method: 'POST', path: EVENTS, skip: 40, delayMs: 150 });
      p.fail({ fault: 'refuse', method: 'POST', path: EVENTS, skip: 300, delayMs: 150 });
    },
    codes: ['network'],
    dealt: (p) => fate(p, 'refuse'),
  },
  {
    name: 'connections reset in the middle of an answer',
    faults: (p) => {
      p.fail({ fault: 'reset-mid-body', method: 'POST', path: EVENTS, skip: 20, times: 3 });
      p.fail({ fault: 'reset-mid-body', method: 'POST', path: /\/venues$/, skip: 2 });
      p.fail({ fault: 'reset-mid-body', method: 'GET', path: /by-slug/, times: 1 });
    },
    codes: ['network', 'bad_response'],
    dealt: (p) => fate(p, 'reset-mid-body'),
  },
  {
    name: 'stalls past the client timeout',
    faults: (p) => {
      p.fail({ fault: 'stall', method: 'POST', path: EVENTS, skip: 60 });
      p.fail({ fault: 'stall', method: 'POST', path: EVENTS, skip: 250 });
    },
    codes: ['timeout'],
    dealt: (p) => fate(p, 'stall'),
  },
  {
    name: '500, 502 and 503 answers',
    faults: (p, clean) => {
      p.fail({ fault: '500', method: 'POST', path: EVENTS, skip: 10, times: 2 });
      p.fail({ fault: '502', method: 'POST', path: EVENTS, skip: 100, times: 2 });
      p.fail({ fault: '503', method: 'POST', path: /\/organizers$/, skip: 1, times: 2 });
      // Every attempt of one create: that event fails this run, and the next run creates it.
      const slug = JSON.stringify(clean.events[200].slug);
      p.fail({ fault: '502', method: 'POST', path: EVENTS, body: new RegExp(`"slug":${slug}`), times: 4 });
    },
    codes: ['bad_response', 'internal_server_error'],
    stops: true,
    dealt: (p) => fate(p, '500') + fate(p, '502') + fate(p, '503'),
  },
  {
    name: '429 with and without Retry-After',
    faults: (p) => {
      p.fail({ fault: '429', method: 'POST', path: EVENTS, skip: 50 });
      p.fail({ fault: '429-no-retry-after', method: 'POST', path: EVENTS, skip: 150, times: 3 });
    },
    codes: ['rest_too_many_requests'],
    dealt: (p) => fate(p, '429') + fate(p, '429-no-retry-after'),
  },
  {
    name: 'keep-alive connections closed by the server after 3 requests',
    options: { closeAfter: 3 },
    faults: () => {},
    codes: ['network'],
    dealt: (p) => (p.connections > 100 ? 1 : 0),
  },
  {
    name: 'slow answers (within the timeout)',
    faults: (p) => {
      p.fail({ fault: 'slow', method: 'POST', path: EVENTS, skip: 5, times: 12, delayMs: 150 });
      p.fail({ fault: 'slow', method: 'GET', times: 2, delayMs: 150 });
    },
    codes: [],
    dealt: (p) => fate(p, 'slow'),
  },
];

describe('a nightly sync over a flaky connection', () => {
  SCENARIOS.forEach((s, i) => {
    it(`under ${s.name}, finishes clean or stops with a clear error, and the next run completes it`, async ({
      annotate,
    }) => {
      server = await startServer(join(tmp.dir, `site-${i}`, 'calendar.db'));
      proxy = await startFaultyProxy(server.url, s.options);
      s.faults(proxy, clean);
      const stateFile = join(tmp.dir, `site-${i}`, 'calendar.sync.db');

      const first = await syncVia(proxy.url, stateFile);
      expect(s.dealt(proxy), 'faults dealt').toBeGreaterThan(0);
      const failures = first.report?.failures ?? [];
      await annotate(
        `first run: exit ${first.code}, ${failures.length} failed, requests ${JSON.stringify(first.report?.requests)}`,
      );
      if (s.stops) expect(first.code, first.stdout).toBe(1);
      if (first.code === 0) {
        expect(failures).toEqual([]);
      } else {
        // Stopped: every failure says what happened, with a code this fault produces (or a reference that failed).
        expect(first.code, first.stdout).toBe(1);
        expect(failures.length).toBeGreaterThan(0);
        for (const f of failures) expect([...s.codes, 'reference_failed']).toContain(f.code);
      }
      const partial = await directSnapshot();
      expect(duplicates(partial)).toEqual([]);
      if (first.code === 0) expect(partial).toEqual(clean);

      // The next night, the site is well again: the run completes what was left.
      proxy.setOptions({});
      const second = await syncVia(proxy.url, stateFile);
      expect(second.code, second.stdout).toBe(0);
      expect(second.report?.counts.event.created).toBe(failures.filter((f) => f.kind === 'event').length);
      const snap = await directSnapshot();
      expect(duplicates(snap)).toEqual([]);
      expect(snap).toEqual(clean);
      // And the state knows everything: a third run writes nothing.
      const third = await syncVia(proxy.url, stateFile);
      expect(third.report && writesOf(third.report)).toBe(0);
    }, 60_000);
  });
});
