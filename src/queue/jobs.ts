/**
 * Pipeline runs as pg-boss jobs. pg-boss was chosen over graphile-worker by measurement
 * (bench/queue-engines.ts, ARCHITECTURE.md "Workers and the queue"): both pick a job up in ~6 ms when
 * woken by NOTIFY, but a SIGKILLed worker's job is run again by pg-boss once its heartbeat is missed
 * (~12 s here), by graphile-worker only after its lock has aged 4 hours.
 *
 * One queue, `calsync-sync`, with the `stately` policy: per singleton key (one pipeline on one target) at
 * most one run active and one waiting, so a run that outlasts its cron interval is not stacked up behind.
 */
import { PgBoss, type SendOptions } from 'pg-boss';

export const SYNC_QUEUE = 'calsync-sync';

/** A job's payload: the pipeline file, absolute — every worker must see it at the same path. */
export interface SyncJob {
  file: string;
}

export interface RetryPolicy {
  /** Retries after the first run; default 3. */
  retries: number;
  /** Seconds before the first retry, doubling each time (pg-boss's backoff with jitter); default 60. */
  delaySeconds: number;
}

export const DEFAULT_JOB_RETRY: RetryPolicy = { retries: 3, delaySeconds: 60 };

/**
 * A worker sends a heartbeat every 5 s while it runs a job; one missed for 10 s (a SIGKILL, a lost host)
 * fails the attempt and it is retried (pg-boss's minimum is 10).
 */
export const HEARTBEAT_SECONDS = 10;

/** Runs, failed ones with their report, are kept this long in the job table. */
const KEEP_SECONDS = 14 * 24 * 3600;

export interface BossOptions {
  /** Workers supervise (fail the jobs of missed heartbeats) and fire due schedules; a sender need not. */
  role: 'worker' | 'sender';
  /** Database connections, at least the worker's concurrency + 2. */
  connections?: number;
  /**
   * How often a worker looks for due schedules, seconds (1–45; default 30, pg-boss's). A run starts up to
   * this late (plus up to 5 s for the send); every check is a query, so lower only where that matters.
   */
  cronCheckSeconds?: number;
}

export const DEFAULT_CRON_CHECK_SECONDS = 30;

export async function openBoss(url: string, options: BossOptions): Promise<PgBoss> {
  const worker = options.role === 'worker';
  const boss = new PgBoss({
    connectionString: url,
    max: options.connections ?? 4,
    useListenNotify: worker,
    supervise: worker,
    schedule: worker,
    superviseIntervalSeconds: 5,
    // pg-boss evaluates cron expressions every `cronMonitorIntervalSeconds` (an occurrence within the last
    // 60 s is due) and sends what is due through its own queue, polled every `cronWorkerIntervalSeconds`.
    cronMonitorIntervalSeconds: options.cronCheckSeconds ?? DEFAULT_CRON_CHECK_SECONDS,
    cronWorkerIntervalSeconds: Math.min(5, options.cronCheckSeconds ?? DEFAULT_CRON_CHECK_SECONDS),
    monitorIntervalSeconds: 5,
  });
  await boss.start();
  await boss.createQueue(SYNC_QUEUE, {
    policy: 'stately',
    notify: true,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: KEEP_SECONDS,
  });
  return boss;
}

/** The options of each run: one per key at a time, retried with exponential backoff. */
export function runOptions(key: string, retry: RetryPolicy): SendOptions {
  return {
    singletonKey: key,
    retryLimit: retry.retries,
    retryDelay: retry.delaySeconds,
    retryBackoff: true,
    retryDelayMax: 3600,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: KEEP_SECONDS,
  };
}

/**
 * The singleton key of a pipeline: its run lock's identity (src/pipeline/run.ts locks
 * `<sync state>.<name>.lock`), so that the queue never starts a run the lock would refuse.
 */
export const runKey = (stateFile: string, name: string) => `${stateFile}.${name}`;
