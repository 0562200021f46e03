/**
 * Crash safety, for real: `npm run import` runs as a child process and is killed with SIGKILL at seeded
 * random moments (no `finally`, no cleanup — what the OOM killer or a power-cycled container does), then
 * run again to the end. The target must then hold exactly what one clean run gives: every event, venue,
 * organizer and category once, nothing missing (spec/pipeline.md: "A crash or kill at any point, then a
 * re-run, leaves the target exactly as one clean run would"), and a further run must write nothing.
 *
 * Kill moments are spread over the write phase, anchored on the child's own `writing` log line (the last
 * thing it logs before its first write), so that a slow or loaded machine still kills it mid-write.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../../bench/prng.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { killChildren } from '../helpers/children.ts';
import { tempDir } from '../writer/setup.ts';
import { readReport, runCli, SAMPLE_ICS, snapshotOf, spawnImport, writesOf } from './helpers.ts';
import { eventDuplicates as duplicates } from './remote-run.ts';

type Snapshot = Awaited<ReturnType<typeof snapshotOf>>;

/**
 * When to kill: a delay after the spawn (anywhere in the run, start-up included), a delay after the child
 * logs its plan (writes start right after), or as soon as its sync state records `events` written events
 * (polled every few ms; a local write takes about as long, so it dies within a few events of that point).
 */
type Trigger = { after: 'spawn' | 'plan'; ms: number } | { events: number };

const describeTrigger = (t: Trigger) =>
  'events' in t ? `at ${t.events} events` : `${t.ms} ms after its ${t.after}`;

/** Events the sync state beside `data` has recorded (0 while it does not exist yet). */
function recordedEvents(data: string): number {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(data.replace(/\.db$/, '.sync.db'), { readOnly: true });
    const row = db.prepare("SELECT COUNT(*) AS n FROM items WHERE kind = 'event'").get() as { n: number };
    return row.n;
  } catch {
    return 0; // not created yet, or its tables not yet
  } finally {
    db?.close();
  }
}

/** Spawns the import and SIGKILLs it at `trigger`; resolves once the child is gone. */
async function importKilled(data: string, cwd: string, trigger: Trigger) {
  const { child, exited } = spawnImport([SAMPLE_ICS, '--data', data], cwd);
  const kill = () => child.kill('SIGKILL');
  let timer: NodeJS.Timeout | undefined;
  /** Once the child has planned: its state file exists and is set up (WAL), so reading it disturbs nothing. */
  const afterPlan = (then: () => void) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk;
      if (seen.includes('"msg":"writing"')) {
        child.stderr?.off('data', onData);
        then();
      }
    };
    child.stderr?.on('data', onData);
  };
  if ('events' in trigger) {
    const events = trigger.events;
    afterPlan(() => {
      timer = setInterval(() => recordedEvents(data) >= events && kill(), 5);
    });
  } else if (trigger.after === 'spawn') {
    timer = setTimeout(kill, trigger.ms);
  } else {
    const { ms } = trigger;
    afterPlan(() => {
      timer = setTimeout(kill, ms);
    });
  }
  const exit = await exited;
  clearInterval(timer);
  return { killed: exit.signal === 'SIGKILL', code: exit.code, output: exit.output };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let clean: Snapshot;
/** A full child run, measured: from the spawn to its plan line, and from the plan line to its exit. */
const timing = { planMs: 0, writeMs: 0 };

beforeAll(async () => {
  dir = await tempDir();
  const cleanData = join(dir.dir, 'clean', 'calendar.db');
  const run = await runCli(importMain, [SAMPLE_ICS, '--data', cleanData]);
  expect(run.code).toBe(0);
  clean = await snapshotOf(cleanData);

  const started = Date.now();
  let planAt = 0;
  const { child, exited } = spawnImport(
    [SAMPLE_ICS, '--data', join(dir.dir, 'timed', 'calendar.db')],
    dir.dir,
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    if (!planAt && String(chunk).includes('"msg":"writing"')) planAt = Date.now();
  });
  const exit = await exited;
  expect(exit.code, exit.output).toBe(0);
  timing.planMs = planAt - started;
  timing.writeMs = Date.now() - planAt;
  // The child and the in-process command are the same program: same result.
  expect(await snapshotOf(join(dir.dir, 'timed', 'calendar.db'))).toEqual(clean);
}, 30_000);
afterAll(() => dir.remove());
afterEach(killChildren);

/**
 * Each case: a seed, what its first kill is anchored on (see Trigger), and whether the re-run is killed too
 * (two unfinished runs to recover from). The `events` cases are the ones certain to die mid-write.
 */
const CASES = [
  { seed: 11, anchor: 'spawn', twice: false },
  { seed: 1009, anchor: 'plan', twice: false },
  { seed: 4242, anchor: 'events', twice: true },
  { seed: 65_537, anchor: 'events', twice: false },
] as const;

const counts = (s: Snapshot) =>
  `${s.events.length}/${clean.events.length} events, ${s.venues.length}/${clean.venues.length} venues, ` +
  `${s.organizers.length}/${clean.organizers.length} organizers, ${s.categories.length}/${clean.categories.length} categories`;

describe('an import killed with SIGKILL at a random moment, then run again', () => {
  for (const { seed, anchor, twice } of CASES) {
    const what = `first kill ${anchor === 'events' ? 'mid-write' : `timed from its ${anchor}`}${twice ? ', re-run killed too' : ''}`;
    it(`leaves the target as one clean run would, with nothing doubled or missing (seed ${seed}, ${what})`, async ({
      annotate,
    }) => {
      const random = prng(seed);
      const total = clean.events.length;
      const data = join(dir.dir, `seed-${seed}`, 'calendar.db');
      /** Somewhere after `done` events and well before the last. */
      const eventsAfter = (done: number) => done + 1 + Math.floor(random() * 0.9 * (total - done - 1));
      const trigger: Trigger =
        anchor === 'events'
          ? { events: eventsAfter(0) }
          : anchor === 'spawn'
            ? { after: 'spawn', ms: Math.round(random() * (timing.planMs + timing.writeMs)) }
            : { after: 'plan', ms: Math.round(random() * timing.writeMs) };

      const first = await importKilled(data, dir.dir, trigger);
      const before = await snapshotOf(data);
      const story = [
        `${first.killed ? 'killed' : 'not killed (it had finished)'} ${describeTrigger(trigger)} ` +
          `(a full run: plan at ${timing.planMs} ms, then ${timing.writeMs} ms of writes): ${counts(before)}`,
      ];
      const told = () => story.join('; ');
      if (anchor === 'events') {
        // The point of the test: a kill with some events written and others not.
        expect(first.killed, `${told()}\n${first.output}`).toBe(true);
        expect(before.events.length, told()).toBeGreaterThan(0);
        expect(before.events.length, told()).toBeLessThan(total);
      }
      // Whatever was there when it died, nothing in it is doubled.
      expect(duplicates(before), told()).toEqual([]);

      if (twice) {
        const again = { events: eventsAfter(recordedEvents(data)) };
        const second = await importKilled(data, dir.dir, again);
        const after = await snapshotOf(data);
        story.push(
          `re-run ${second.killed ? 'killed' : 'not killed'} ${describeTrigger(again)}: ${counts(after)}`,
        );
        expect(second.killed, `${told()}\n${second.output}`).toBe(true);
        expect(duplicates(after), told()).toEqual([]);
      }

      const reportFile = join(dir.dir, `seed-${seed}.json`);
      const rerun = await runCli(importMain, [SAMPLE_ICS, '--data', data, '--report', reportFile]);
      expect(rerun.code, `${told()}\n${rerun.stdout}${rerun.stderr}`).toBe(0);
      const recovered = await readReport(reportFile);
      story.push(
        `run to the end: ${recovered.counts.event.created} events created, ` +
          `${recovered.counts.event.unchanged} unchanged, requests ${JSON.stringify(recovered.requests)}`,
      );
      await annotate(told());

      const after = await snapshotOf(data);
      expect(duplicates(after), told()).toEqual([]);
      expect(after, told()).toEqual(clean);

      // And the state knows everything that was written: one more run has nothing to do.
      const settledFile = join(dir.dir, `seed-${seed}-settled.json`);
      const settled = await runCli(importMain, [SAMPLE_ICS, '--data', data, '--report', settledFile]);
      expect(settled.code).toBe(0);
      const last = await readReport(settledFile);
      expect(last.requests, told()).toEqual({ GET: 0, POST: 0, PUT: 0, DELETE: 0 });
      expect(last.counts.event.unchanged).toBe(total);
      expect(writesOf(last)).toBe(0);
    }, 25_000);
  }
});
