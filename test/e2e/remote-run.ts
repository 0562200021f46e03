/**
 * The sample imported into a site over HTTP the way the end-to-end suites need it (faults, the fault
 * matrix, SIGKILL over a remote target, the TEC-like site): a clean local import to compare against, the
 * CLI's `execute` against a target the test builds (fast retries, a short timeout, a proxy in front), and
 * the site read back past any proxy. Each suite had its own copy of these; they differed only in options.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { execute } from '../../src/cli/execute.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { makeLogger } from '../../src/cli/output.ts';
import type { TargetChoice } from '../../src/cli/target.ts';
import { DEFAULT_NAMESPACE } from '../../src/pipeline/definition.ts';
import { type FileRunInput, fileRunSpec } from '../../src/pipeline/file-run-spec.ts';
import type { RunSpec } from '../../src/pipeline/run.ts';
import { createHttpTransport, createTarget, type RetryOptions, type Target } from '../../src/writer/index.ts';
import { NOW, runCli, SAMPLE_ICS, snapshot, snapshotOf } from './helpers.ts';

export type Snapshot = Awaited<ReturnType<typeof snapshotOf>>;

/** The name `npm run import` gives a file called community-calendar.ics: event slugs derive from it. */
export const SAMPLE_PIPELINE = 'import-community-calendar-ics';

export interface Credentials {
  username: string;
  password: string;
}

export interface HttpTargetOptions {
  /** Default ours, calendar/events/v1. */
  namespace?: string;
  timeoutMs?: number;
  retries?: RetryOptions;
}

/** A writer target on `url` with Basic credentials. */
export function httpTarget(url: string, who: Credentials, options: HttpTargetOptions = {}): Target {
  const auth = { type: 'basic' as const, username: who.username, password: who.password };
  return createTarget(createHttpTransport({ url, timeoutMs: options.timeoutMs, auth }), {
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    label: url,
    retries: options.retries,
  });
}

/** What the server at `url` holds, read under our own namespace (past any proxy or TEC fixture). */
export async function snapshotOver(url: string, who: Credentials): Promise<Snapshot> {
  const target = httpTarget(url, who);
  try {
    return await snapshot(target);
  } finally {
    await target.close();
  }
}

/** `file` imported into a fresh local store under `dir`, read back: what every other target must equal. */
export async function cleanImport(dir: string, file = SAMPLE_ICS): Promise<Snapshot> {
  const data = join(dir, 'calendar.db');
  const run = await runCli(importMain, [file, '--data', data]);
  if (run.code !== 0)
    throw new Error(`clean import of ${file} exited ${run.code}: ${run.stdout}${run.stderr}`);
  return snapshotOf(data);
}

/** Events that share a slug, or a title at the same start: what a crash-made duplicate looks like. */
export function eventDuplicates(snap: Snapshot): string[] {
  const seen = new Map<string, number>();
  for (const e of snap.events) {
    for (const k of [`slug ${e.slug}`, `"${e.title}" at ${e.start_date}`])
      seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
}

/** Event slugs that occur more than once, with their count: `[]` when nothing was created twice. */
export function slugDuplicates(snap: Snapshot): string[] {
  const seen = new Map<string, number>();
  for (const e of snap.events) seen.set(String(e.slug), (seen.get(String(e.slug)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
}

/** What `npm run import -- <file> --target <label>` runs: the sample's name unless told otherwise. */
export function sampleSpec(
  input: Omit<FileRunInput, 'name' | 'source'> & { name?: string; file?: string },
): RunSpec {
  const { name = SAMPLE_PIPELINE, file = SAMPLE_ICS, ...rest } = input;
  return fileRunSpec({ name, source: { type: 'ics', path: file }, ...rest });
}

/** The CLI's `execute` of `spec` into the target `open` makes, quiet, at the tests' NOW; output captured. */
export async function executeVia(spec: RunSpec, open: () => Promise<Target>) {
  const choice: TargetChoice = { label: spec.targetLabel, stateFile: spec.stateFile, open };
  let stdout = '';
  let stderr = '';
  const io = {
    argv: [],
    env: { CALSYNC_NOW: NOW },
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  };
  const result = await execute(spec, choice, io, makeLogger(io, { quiet: true }), {});
  return { ...result, stdout, stderr };
}

/** Events the importer's sync state (in `cwd`/data/sync/) has recorded so far. */
export function recordedEvents(cwd: string): number {
  let db: DatabaseSync | undefined;
  try {
    const folder = join(cwd, 'data', 'sync');
    const file = readdirSync(folder).find((f) => f.endsWith('.db'));
    if (!file) return 0;
    db = new DatabaseSync(join(folder, file), { readOnly: true });
    return (db.prepare("SELECT COUNT(*) AS n FROM items WHERE kind = 'event'").get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db?.close();
  }
}

/** Resolves once `recordedEvents(cwd)` reaches `n` (polled), or the importer exits first. */
export function whenRecorded(cwd: string, n: number, exited: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (recordedEvents(cwd) >= n) {
        clearInterval(timer);
        resolve(true);
      }
    }, 5);
    exited.then(() => {
      clearInterval(timer);
      resolve(false);
    });
  });
}
