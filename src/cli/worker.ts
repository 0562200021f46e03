/**
 * `npm run worker`: takes pipeline runs off the queue in PostgreSQL (pg-boss, src/queue/jobs.ts) and runs
 * each as `npm run sync -- <file>` would, until SIGTERM or SIGINT (then it finishes the runs it holds).
 * Run as many as you like, on as many hosts as share the database and the pipeline files (same paths).
 *
 * Shared by all workers through the database: one run per pipeline at a time (the job's singleton key),
 * each remote host's requests per second and a `Retry-After` pause (src/queue/host-limits.ts), the due
 * schedules (any worker fires them, once), and the sync state with each run's lock (src/state/pg-state.ts:
 * no volume shared between hosts; `--state files` keeps it in CALSYNC_STATE_DIR as `npm run sync` does).
 * A run's report is kept on its job, a failed run's too (with
 * its error); a failed run is retried with backoff, one whose definition is invalid is not.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { JobResult, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { publishFeeds } from '../export/publish.ts';
import { ConfigError } from '../pipeline/errors.ts';
import { DefinitionError, loadPipeline } from '../pipeline/load.ts';
import { databaseUrl } from '../queue/database.ts';
import { createLimitsTable, DEFAULT_MARGIN_MS, SharedHostLimits } from '../queue/host-limits.ts';
import { DEFAULT_CRON_CHECK_SECONDS, openBoss, SYNC_QUEUE, type SyncJob } from '../queue/jobs.ts';
import type { StateBackend } from '../state/backend.ts';
import { migratePg, pgStateBackend } from '../state/pg-state.ts';
import { execute } from './execute.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { makeLogger } from './output.ts';
import { specFromPipeline } from './pipeline-spec.ts';

const HELP = `Usage: npm run worker -- [options]

Runs the pipelines queued by npm run schedule, as npm run sync would, until stopped (SIGTERM or
SIGINT: it finishes the runs it holds first). Start as many as you need, on any host that sees the
database and the pipeline files at the same paths.

Options:
  --database <url>     the PostgreSQL database of the queue (default CALSYNC_DATABASE_URL)
  --concurrency <n>    pipelines this worker runs at once (default 1)
  --cron-check <s>     how often to look for due schedules, seconds, 1–45 (default ${DEFAULT_CRON_CHECK_SECONDS}):
                       a scheduled run starts up to this late
  --rate-margin <ms>   how much a request's way from this worker to a host may vary (default ${DEFAULT_MARGIN_MS}):
                       requests_per_second r is kept as one request per (1000 + ms)/r ms; raise it where
                       processes wait long for a CPU, so that a host still never sees more than r a second
  --state <where>      postgres: the sync state and run locks in the queue's database (default);
                       files: one SQLite file per target in CALSYNC_STATE_DIR, as npm run sync keeps it
  --quiet              print only failures and one summary line per run
  --debug              every log line with its fields, and stacks of errors
  -h, --help           show this help

Environment: CALSYNC_DATABASE_URL (postgres://user@host:port/db); CALSYNC_STATE_DIR, with --state files,
where remote targets' sync state lives (shared by every worker; it must persist between runs).

Examples:
  CALSYNC_DATABASE_URL=postgres://calsync@127.0.0.1:5432/calsync npm run worker -- --concurrency 4`;

export const main = withCommonFlags(async (io: CliIO): Promise<number> => {
  let values: ReturnType<typeof parse>['values'];
  let url: string;
  let concurrency: number;
  let cronCheck: number;
  let margin: number;
  try {
    values = parse(io.argv).values;
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    url = databaseUrl(values.database, io.env);
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`--concurrency: expected a whole number ≥ 1, got "${values.concurrency}"`);
    cronCheck = Number(values['cron-check']);
    if (!Number.isInteger(cronCheck) || cronCheck < 1 || cronCheck > 45)
      throw new Error(`--cron-check: expected whole seconds from 1 to 45, got "${values['cron-check']}"`);
    margin = Number(values['rate-margin']);
    if (!Number.isInteger(margin) || margin < 0 || margin > 5000)
      throw new Error(`--rate-margin: expected whole ms from 0 to 5000, got "${values['rate-margin']}"`);
    if (values.state !== 'postgres' && values.state !== 'files')
      throw new Error(`--state: expected postgres or files, got "${values.state}"`);
  } catch (err) {
    io.stderr.write(`worker: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const logger = makeLogger(io, { quiet: values.quiet });
  // Per run in hand: its lock's connection and its state's (--state postgres); and the host limits'.
  // Named in pg_stat_activity, so that an operator (or the cluster test) sees which worker holds which lock.
  const pool = new pg.Pool({
    connectionString: url,
    max: 2 + 3 * concurrency,
    application_name: `calsync-worker-${process.pid}`,
  });
  let boss: PgBoss;
  let stateBackend: StateBackend | undefined;
  try {
    await createLimitsTable(pool);
    if (values.state === 'postgres') {
      await migratePg(pool);
      stateBackend = pgStateBackend(pool);
    }
    boss = await openBoss(url, { role: 'worker', connections: 4 + concurrency, cronCheckSeconds: cronCheck });
  } catch (err) {
    await pool.end();
    io.stderr.write(`worker: ${redact(url)}: ${(err as Error).message}\n`);
    return 1;
  }
  boss.on('error', (err) => logger.error({ err }, `queue: ${err.message}`));
  const limits = new SharedHostLimits(pool, margin);
  await boss.work<SyncJob>(
    SYNC_QUEUE,
    // A slot fetches again at once after a run longer than the interval, else when the interval is up
    // (or on NOTIFY of a new job): 2 s bounds the wait after a short run (a source not modified) or for
    // the next run of a pipeline whose earlier one held it back — pg-boss's 30 s default with NOTIFY would not.
    {
      batchSize: 1,
      localConcurrency: concurrency,
      perJobResults: true,
      pollingIntervalSeconds: 2,
      notifyPollingIntervalSeconds: 2,
    },
    async ([job]) => [await runJob(job.id, job.data, io, logger, { limits, stateBackend }, values.quiet)],
  );
  logger.info({ concurrency }, `worker ready: ${concurrency} at a time from ${redact(url)}`);
  if (!values.quiet) io.stdout.write(`worker ready (concurrency ${concurrency})\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  // The runs in hand finish (their jobs complete); nothing new is taken.
  await boss.stop({ graceful: true, timeout: 10 * 60_000 });
  await pool.end();
  return 0;
});

/** One run of a job's pipeline, as `npm run sync -- <file>`; its outcome as pg-boss records it. */
async function runJob(
  id: string,
  job: SyncJob,
  io: CliIO,
  logger: Logger,
  shared: { limits: SharedHostLimits; stateBackend?: StateBackend },
  quiet: boolean,
): Promise<JobResult> {
  const { file } = job;
  let pipeline: Awaited<ReturnType<typeof loadPipeline>>;
  try {
    pipeline = await loadPipeline(file, io.env);
  } catch (err) {
    const message =
      err instanceof DefinitionError || err instanceof ConfigError
        ? (err as Error).message
        : `${file}: ${(err as Error).message}`;
    io.stderr.write(`${message}\n`);
    // Read the same way on the next attempt: not retried until the file is fixed and scheduled again.
    const retry = !(err instanceof DefinitionError || err instanceof ConfigError);
    return { id, status: retry ? 'failed' : 'deadletter', output: { file, error: message } };
  }
  const { spec, target, publish } = specFromPipeline(pipeline);
  const queue = target.remote ? shared.limits.queueFor(target.remote) : undefined;
  // Each attempt is a run of its own in the sync state (a retry after a SIGKILL finds the last one
  // unfinished, and looks its creates up by slug); the job's id is in the output.
  const runId = randomUUID();
  const result = await execute(spec, { ...target, open: (o) => target.open({ ...o, queue }) }, io, logger, {
    runId,
    quiet,
    noProgress: true,
    details: false,
    stateBackend: shared.stateBackend,
    credentials: { from: 'pipeline', file, auth: pipeline.target.auth?.type ?? 'none' },
  });
  if (result.code !== 2 && result.report) {
    try {
      await publishFeeds(publish, new Date(io.env.CALSYNC_NOW ?? Date.now()));
    } catch (err) {
      io.stderr.write(`${file}: feeds: ${(err as Error).message}\n`);
      if (result.code === 0) result.code = 1;
    }
  }
  const output = {
    file,
    ...(result.report ?? { pipeline: spec.name }),
    ...(result.error ? { error: result.error } : {}),
  };
  if (result.code === 0) return { id, status: 'completed', output };
  // Another run holds the pipeline's lock (an `npm run sync` by hand): worth another try later.
  const locked = result.error?.includes('holds the lock') ?? false;
  return { id, status: result.code === 2 && !locked ? 'deadletter' : 'failed', output };
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      database: { type: 'string' },
      concurrency: { type: 'string', default: '1' },
      state: { type: 'string', default: 'postgres' },
      'rate-margin': { type: 'string', default: String(DEFAULT_MARGIN_MS) },
      'cron-check': { type: 'string', default: String(DEFAULT_CRON_CHECK_SECONDS) },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

if (import.meta.main) await runMain(main);
