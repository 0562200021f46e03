/**
 * The sample imported into our real server over HTTP, through a proxy that fails requests the way hosts
 * in front of WordPress do (test/helpers/faulty-proxy.ts): 500s, 503 pages, 429 with Retry-After,
 * connections reset before the request arrives, and answers lost after the write happened. The site must
 * end up holding exactly what one clean local import gives — nothing lost, nothing doubled — and items that
 * fail for good must be reported (file:line, HTTP status, exit code 1) and completed by the next run.
 *
 * The first test runs the real `npm run import` process with its default retry policy; the others call the
 * CLI's `execute` (the same code, minus argument parsing) with millisecond backoffs, because exhausting six
 * attempts at the default 200 ms · 2^n backoff would take seconds per item.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as importMain } from '../../src/cli/import.ts';
import type { Target } from '../../src/writer/index.ts';
import { killChildren } from '../helpers/children.ts';
import { type Fault, type FaultyProxy, startFaultyProxy } from '../helpers/faulty-proxy.ts';
import { type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';
import { readReport, runCli, SAMPLE_ICS, snapshotOf, spawnImport, writesOf } from './helpers.ts';
import {
  eventDuplicates as duplicates,
  executeVia,
  httpTarget,
  type Snapshot,
  sampleSpec,
  snapshotOver,
} from './remote-run.ts';

const ATTEMPTS = 4;

let tmp: Awaited<ReturnType<typeof tempDir>>;
let clean: Snapshot;
/** Every POST of the clean run: one per category, venue, organizer and event. */
let entities: number;

beforeAll(async () => {
  tmp = await tempDir();
  const data = join(tmp.dir, 'clean', 'calendar.db');
  const run = await runCli(importMain, [SAMPLE_ICS, '--data', data, '--report', join(tmp.dir, 'clean.json')]);
  expect(run.code).toBe(0);
  clean = await snapshotOf(data);
  entities = writesOf(await readReport(join(tmp.dir, 'clean.json')));
});
afterAll(() => tmp.remove());

/** Our server on a loopback port, the faulty proxy in front of it, and a reader that bypasses the proxy. */
interface Site {
  server: LoopbackServer;
  proxy: FaultyProxy;
  snapshot(): Promise<Snapshot>;
  target(url: string): Target;
  close(): Promise<void>;
}

let site: Site | undefined;
afterEach(killChildren);
afterEach(async () => {
  await site?.close();
  site = undefined;
});

async function startSite(name: string): Promise<Site> {
  const server = await startServer(join(tmp.dir, name, 'calendar.db'));
  const proxy = await startFaultyProxy(server.url);
  // Millisecond backoffs; `Retry-After: 1` still waits its second.
  const target = (url: string) =>
    httpTarget(url, server, { retries: { attempts: ATTEMPTS, baseMs: 5, capMs: 50 } });
  site = {
    server,
    proxy,
    target,
    snapshot: () => snapshotOver(server.url, server),
    async close() {
      await proxy.close();
      await server.close();
    },
  };
  return site;
}

/** What `npm run import -- samples/community-calendar.ics --target <proxy>` runs, with fast retries. */
function importVia(s: Site, stateFile: string) {
  const spec = sampleSpec({ policies: { delete: 'keep' }, stateFile, targetLabel: s.proxy.url });
  return executeVia(spec, async () => s.target(s.proxy.url));
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A create body carrying this exact slug (event) or name (venue). */
const bodyWith = (field: string, value: unknown) =>
  new RegExp(literal(`"${field}":${JSON.stringify(value)}`));

const CREATE = {
  event: /\/events$/,
  venue: /\/venues$/,
  organizer: /\/organizers$/,
  category: /\/categories$/,
};

describe('npm run import -- samples/community-calendar.ics --target <a flaky site>', () => {
  it('exits 0 through 500s, 503s, 429s, resets and lost answers, and the site holds exactly a clean import', async () => {
    const s = await startSite('flaky');
    // Spread over the run: `skip` lets that many matching requests through first. Concurrency is 4, so
    // several faults are in flight together.
    const spread: [Fault, RegExp, number, number][] = [
      ['503', CREATE.category, 2, 1],
      ['lose-answer', CREATE.venue, 3, 2],
      ['reset', CREATE.organizer, 4, 1],
      ['500', CREATE.event, 30, 2],
      ['503', CREATE.event, 110, 2],
      ['429', CREATE.event, 190, 2],
      ['reset', CREATE.event, 270, 2],
      ['lose-answer', CREATE.event, 350, 3],
      ['lose-answer', CREATE.event, 430, 1],
    ];
    for (const [fault, path, skip, times] of spread) {
      s.proxy.fail({ fault, method: 'POST', path, skip, times });
    }
    // A lookup after a lost answer can fail too (it is a GET: retried blindly).
    s.proxy.fail({ fault: '500', method: 'GET', path: /\/events\/by-slug\//, times: 1 });

    const env = { CALSYNC_USER: s.server.username, CALSYNC_APP_PASSWORD: s.server.password };
    const reportFile = join(tmp.dir, 'flaky.json');
    // cwd: a remote target's sync state lives in ./data/sync/.
    const run = await spawnImport([SAMPLE_ICS, '--target', s.proxy.url, '--report', reportFile], tmp.dir, env)
      .exited;
    expect(run.code, run.output).toBe(0);

    const fates = new Map<string, number>();
    for (const l of s.proxy.log) fates.set(l.fate, (fates.get(l.fate) ?? 0) + 1);
    expect(Object.fromEntries(fates)).toMatchObject({
      '500': 3,
      '503': 3,
      '429': 2,
      reset: 3,
      'lose-answer': 6,
    });

    const snap = await s.snapshot();
    expect(duplicates(snap)).toEqual([]);
    expect(snap).toEqual(clean);

    const report = await readReport(reportFile);
    expect(report.outcome).toBe('ok');
    expect(report.counts.event).toMatchObject({ created: clean.events.length, failed: 0 });
    // Retries and lookups are visible as more requests than entities.
    const requests = Object.values(report.requests).reduce((a, b) => a + b, 0);
    expect(requests).toBeGreaterThan(entities);
    expect(report.requests.GET).toBeGreaterThan(0); // the lost event creates were looked up by slug

    // The state holds every item, lost answers included: another run writes nothing.
    const againFile = join(tmp.dir, 'flaky-again.json');
    const again = await spawnImport(
      [SAMPLE_ICS, '--target', s.proxy.url, '--report', againFile],
      tmp.dir,
      env,
    ).exited;
    expect(again.code, again.output).toBe(0);
    expect(writesOf(await readReport(againFile))).toBe(0);
  }, 30_000);
});

describe('an import with items that fail for good', () => {
  it('exits 1 listing each failure with file:line and HTTP status, and the next run completes it with no duplicates', async () => {
    const s = await startSite('refusing');
    const stateFile = join(tmp.dir, 'refusing', 'calendar.sync.db');
    const refused = clean.events[100];
    const overloaded = clean.events[300];
    // A venue of one event only: the venue fails, and so does that event (its reference is missing).
    const perVenue = new Map<string, number>();
    for (const e of clean.events) if (e.venue) perVenue.set(e.venue, (perVenue.get(e.venue) ?? 0) + 1);
    const [venue] = [...perVenue].sort((a, b) => a[1] - b[1])[0];
    const atVenue = clean.events.filter((e) => e.venue === venue);
    expect([refused, overloaded].some((e) => e.venue === venue)).toBe(false);

    s.proxy.fail({ fault: '400', method: 'POST', path: CREATE.event, body: bodyWith('slug', refused.slug) });
    s.proxy.fail({
      fault: '503',
      method: 'POST',
      path: CREATE.event,
      body: bodyWith('slug', overloaded.slug),
      times: ATTEMPTS,
    });
    s.proxy.fail({ fault: '400', method: 'POST', path: CREATE.venue, body: bodyWith('venue', venue) });

    const first = await importVia(s, stateFile);
    expect(first.code, first.stdout).toBe(1);
    const failures = first.report?.failures ?? [];
    expect(failures).toHaveLength(2 + 1 + atVenue.length);
    const failure = (f: Record<string, unknown>) => expect.objectContaining(f);
    expect(failures).toContainEqual(
      failure({ kind: 'event', label: refused.title, status: 400, code: 'rest_invalid_param' }),
    );
    expect(failures).toContainEqual(failure({ kind: 'event', label: overloaded.title, status: 503 }));
    expect(failures).toContainEqual(failure({ kind: 'venue', label: venue, status: 400 }));
    for (const e of atVenue) {
      expect(failures).toContainEqual(failure({ kind: 'event', label: e.title, code: 'reference_failed' }));
    }
    for (const f of failures) {
      expect(f.file).toBe('samples/community-calendar.ics');
      expect(f.line).toBeGreaterThan(0);
    }
    // The printed list: where (file:line and UID), what, and the request with its HTTP status.
    const lines = first.stdout.split('\n').filter((l) => l.startsWith('  samples/community-calendar.ics:'));
    expect(lines).toHaveLength(failures.length);
    const where = String.raw`^ {2}samples/community-calendar\.ics:\d+(?: \(UID [^)]+\))?: `;
    const listed = (what: string) => lines.some((l) => new RegExp(where + what).test(l));
    expect(
      listed(
        `event "${literal(refused.title)}": POST /calendar/events/v1/events: HTTP 400 rest_invalid_param`,
      ),
    ).toBe(true);
    expect(listed(`event "${literal(overloaded.title)}": POST /calendar/events/v1/events: HTTP 503`)).toBe(
      true,
    );
    expect(listed(`venue "${literal(venue)}": POST /calendar/events/v1/venues: HTTP 400`)).toBe(true);

    const partial = await s.snapshot();
    expect(partial.events).toHaveLength(clean.events.length - 2 - atVenue.length);
    expect(duplicates(partial)).toEqual([]);

    const second = await importVia(s, stateFile);
    expect(second.code, second.stdout).toBe(0);
    expect(second.report?.counts.event).toMatchObject({
      created: 2 + atVenue.length,
      unchanged: clean.events.length - 2 - atVenue.length,
    });
    expect(second.report?.counts.venue).toMatchObject({ created: 1 });
    const snap = await s.snapshot();
    expect(duplicates(snap)).toEqual([]);
    expect(snap).toEqual(clean);
  }, 30_000);

  it('does not create an event twice when its last attempt was written but its answer lost', async () => {
    const s = await startSite('last-attempt');
    const stateFile = join(tmp.dir, 'last-attempt', 'calendar.sync.db');
    const event = clean.events[200];
    const body = bodyWith('slug', event.slug);
    // Every attempt but the last fails before the write; the last is written and its answer lost. Before the
    // look-up after the last attempt (src/writer/requester.ts), the run reported the event failed and the
    // next run created it again: "Knit & Natter" twice at 2027-03-24 14:00.
    s.proxy.fail({ fault: '503', method: 'POST', path: CREATE.event, body, times: ATTEMPTS - 1 });
    s.proxy.fail({ fault: 'lose-answer', method: 'POST', path: CREATE.event, body, skip: ATTEMPTS - 1 });

    const first = await importVia(s, stateFile);
    const fates = s.proxy.log.filter((l) => l.method === 'POST' && l.fate !== 'forwarded').map((l) => l.fate);
    expect(fates).toEqual([...Array(ATTEMPTS - 1).fill('503'), 'lose-answer']);
    // Found by its slug after the last attempt: written, not failed, and known to the state.
    expect(first.report?.failures).toEqual([]);
    expect(first.code, first.stdout).toBe(0);
    const snap = await s.snapshot();
    expect(duplicates(snap)).toEqual([]);
    expect(snap).toEqual(clean);

    const second = await importVia(s, stateFile);
    expect(second.code, second.stdout).toBe(0);
    expect(second.report && writesOf(second.report)).toBe(0);
    expect(await s.snapshot()).toEqual(clean);
  }, 30_000);

  it('does not create an event twice when its create was lost and the site then failed every look-up', async () => {
    const s = await startSite('lookups-down');
    const stateFile = join(tmp.dir, 'lookups-down', 'calendar.sync.db');
    const event = clean.events[250];
    // The create is written and its answer lost; then the site answers 503 to every look-up by slug, so the
    // run cannot tell and reports the event failed (status 503). The next run must look before it creates.
    s.proxy.fail({
      fault: 'lose-answer',
      method: 'POST',
      path: CREATE.event,
      body: bodyWith('slug', event.slug),
    });
    s.proxy.fail({
      fault: '503',
      method: 'GET',
      path: new RegExp(`/events/by-slug/${literal(String(event.slug))}$`),
      times: ATTEMPTS,
    });

    const first = await importVia(s, stateFile);
    expect(first.code, first.stdout).toBe(1);
    expect(first.report?.failures).toMatchObject([{ kind: 'event', status: 503, label: event.title }]);

    const second = await importVia(s, stateFile);
    expect(second.code, second.stdout).toBe(0);
    expect(second.report?.counts.event).toMatchObject({ created: 1, failed: 0 });
    const snap = await s.snapshot();
    expect(duplicates(snap)).toEqual([]);
    expect(snap).toEqual(clean);
  }, 30_000);
});
