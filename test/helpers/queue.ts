// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pipeline files with ${VAR} references are written here
/**
 * What the queue's tests and bench/cluster.ts share: a calendar of n events, a pipeline file writing it to a
 * target over HTTP, `npm run worker` as a real child process, waiting for a pipeline's jobs to settle, and
 * the busiest second of a host's requests.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import { SYNC_QUEUE, type SyncJob } from '../../src/queue/jobs.ts';
import { spawnChild } from './children.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** An .ics calendar of `events` one-hour events in December 2026, UIDs `<prefix>-<i>@queue.test`. */
export function calendar(prefix: string, events: number): string {
  const lines = Array.from({ length: events }, (_, i) => [
    'BEGIN:VEVENT',
    `UID:${prefix}-${i}@queue.test`,
    'DTSTAMP:20261101T000000Z',
    `DTSTART;TZID=Europe/London:202612${String((i % 28) + 1).padStart(2, '0')}T${String(8 + (i % 12)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}00`,
    'DURATION:PT1H',
    `SUMMARY:${prefix} meeting ${i}`,
    'END:VEVENT',
  ]);
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync//queue//EN',
    ...lines.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

export interface PipelineOptions {
  /** The target's requests per second (`target.rate.requests_per_second`). */
  rate?: number;
  /** The environment variable holding the password of `importer`; default SYNC_PASSWORD. */
  password?: string;
  /** The schedule's cron expression; default "0 3 * * *". */
  cron?: string;
}

/** `<dir>/<name>.yaml` writing `<dir>/<name>.ics` (`events` events) to `url` as `importer`. */
export async function writePipeline(
  dir: string,
  name: string,
  url: string,
  events: number,
  options: PipelineOptions = {},
): Promise<string> {
  await writeFile(join(dir, `${name}.ics`), calendar(name, events));
  const file = join(dir, `${name}.yaml`);
  const yaml = [
    `name: ${name}`,
    'source:',
    '  type: ics',
    `  path: ${name}.ics`,
    'target:',
    `  url: ${url}`,
    '  auth:',
    '    type: basic',
    '    username: importer',
    `    password: \${${options.password ?? 'SYNC_PASSWORD'}}`,
    ...(options.rate ? ['  rate:', `    requests_per_second: ${options.rate}`] : []),
    'mapping:',
    '  timezone: Europe/London',
    'schedule:',
    `  cron: "${options.cron ?? '0 3 * * *'}"`,
    '  timezone: Europe/London',
    '',
  ].join('\n');
  await writeFile(file, yaml);
  return file;
}

/**
 * `npm run worker -- <args>` as a real process (spawnChild: killChildren ends it) with its working
 * directory `cwd`; resolves once it takes jobs. DEBUG_WORKERS=1 copies its stderr to ours.
 */
export async function startWorker(
  cwd: string,
  env: Record<string, string>,
  args: string[] = ['--concurrency', '1'],
): Promise<ChildProcess> {
  const child = spawnChild(process.execPath, [join(ROOT, 'src', 'cli', 'worker.ts'), ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d) => {
    out += d;
    if (process.env.DEBUG_WORKERS) process.stderr.write(`[worker ${child.pid}] ${d}`);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('worker ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
  });
  // Its output is not needed past this point: drained, so that a busy worker never blocks on a full pipe.
  child.stdout?.resume();
  return child;
}

export type Job = JobWithMetadata<SyncJob>;

export async function jobsOf(boss: PgBoss, file: string): Promise<Job[]> {
  return (await boss.findJobs<SyncJob>(SYNC_QUEUE, { data: { file } })) as Job[];
}

/** Waits until `file` has `count` jobs that are done (completed or failed for good), oldest first. */
export async function settled(boss: PgBoss, file: string, count: number, ms = 60_000): Promise<Job[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const jobs = await jobsOf(boss, file);
    const done = jobs.filter((j) => j.state === 'completed' || j.state === 'failed');
    if (done.length >= count) return jobs.sort((a, b) => +a.createdOn - +b.createdOn);
    if (Date.now() > deadline)
      throw new Error(
        `${file}: ${done.length} of ${count} runs done: ${jobs.map((j) => j.state).join(', ')}`,
      );
    await sleep(200);
  }
}

/** The most requests that reached a host within any 1,000 ms, from when each arrived (ms). */
export function busiestSecond(arrivals: readonly number[]): number {
  const at = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < at.length; j++) {
    while (at[j] - at[i] >= 1000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/** The arrivals of the busiest 1,000 ms, as gaps (ms) from the first: what a failed rate check shows. */
export function busiestWindow(arrivals: readonly number[]): number[] {
  const at = [...arrivals].sort((a, b) => a - b);
  let best: number[] = [];
  for (let i = 0, j = 0; j < at.length; j++) {
    while (at[j] - at[i] >= 1000) i++;
    if (j - i + 1 > best.length) best = at.slice(i, j + 1);
  }
  return best.map((t) => t - best[0]);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
