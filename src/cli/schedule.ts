/**
 * `npm run schedule -- pipelines/*.yaml`: puts each pipeline's `schedule:` (a cron expression and its
 * zone) into the queue's database, where the workers fire it (`npm run worker`; pg-boss sends each due
 * run once, whichever worker's clock sees it first). Scheduling a file again replaces its schedule.
 * `--now` queues one run of each file at once instead (a file needs no `schedule:` for that); `--remove`
 * takes the files' schedules out; `--runs` lists the last runs with their outcome.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { PgBoss } from 'pg-boss';
import { ConfigError } from '../pipeline/errors.ts';
import { DefinitionError, loadPipeline } from '../pipeline/load.ts';
import { databaseUrl } from '../queue/database.ts';
import { DEFAULT_JOB_RETRY, openBoss, runKey, runOptions, SYNC_QUEUE, type SyncJob } from '../queue/jobs.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { specFromPipeline } from './pipeline-spec.ts';

const HELP = `Usage: npm run schedule -- <pipeline.yaml> [more…] [options]

Schedules each pipeline by its schedule: (cron and timezone) in the queue's database; running workers
(npm run worker) start each run when it is due. One run per pipeline at a time across all workers; a
failed run is retried with exponential backoff and kept with its report.

Options:
  --database <url>       the PostgreSQL database of the queue (default CALSYNC_DATABASE_URL)
  --now                  queue one run of each pipeline now (no schedule: needed)
  --remove               remove the pipelines' schedules
  --runs                 list the last runs (state, pipeline, outcome), newest first; no files needed
  --retries <n>          retries of a failed run (default ${DEFAULT_JOB_RETRY.retries})
  --retry-delay <s>      seconds before the first retry, doubling each time (default ${DEFAULT_JOB_RETRY.delaySeconds})
  -h, --help             show this help

Exit codes: 0 done, 1 the database could not be reached, 2 a definition is invalid or has no schedule:.

Examples:
  npm run schedule -- pipelines/*.yaml
  npm run schedule -- pipelines/community-ics.yaml --now`;

export const main = withCommonFlags(async (io: CliIO): Promise<number> => {
  let parsed: ReturnType<typeof parse>;
  let url: string;
  let retry = DEFAULT_JOB_RETRY;
  try {
    parsed = parse(io.argv);
    if (parsed.values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    url = databaseUrl(parsed.values.database, io.env);
    retry = {
      retries: whole('--retries', parsed.values.retries, DEFAULT_JOB_RETRY.retries, 0),
      delaySeconds: whole('--retry-delay', parsed.values['retry-delay'], DEFAULT_JOB_RETRY.delaySeconds, 1),
    };
    if (parsed.positionals.length === 0 && !parsed.values.runs)
      throw new Error('expected at least one pipeline file');
  } catch (err) {
    io.stderr.write(`schedule: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  let boss: PgBoss;
  try {
    boss = await openBoss(url, { role: 'sender' });
  } catch (err) {
    io.stderr.write(`schedule: the queue's database: ${(err as Error).message}\n`);
    return 1;
  }
  boss.on('error', () => {});
  let code = 0;
  try {
    for (const given of positionals) {
      const file = resolve(given);
      let pipeline: Awaited<ReturnType<typeof loadPipeline>>;
      try {
        pipeline = await loadPipeline(file, io.env);
      } catch (err) {
        const config = err instanceof DefinitionError || err instanceof ConfigError;
        io.stderr.write(`${config ? '' : `${given}: `}${(err as Error).message}\n`);
        code = 2;
        continue;
      }
      const { spec } = specFromPipeline(pipeline);
      const options = runOptions(runKey(spec.stateFile ?? file, pipeline.name), retry);
      const data: SyncJob = { file };
      if (values.remove) {
        await boss.unschedule(SYNC_QUEUE, file);
        io.stdout.write(`${given}: schedule removed\n`);
      } else if (values.now) {
        const id = await boss.send(SYNC_QUEUE, data, options);
        io.stdout.write(
          `${given}: ${id ? `run queued (job ${id})` : 'a run is already waiting; not queued again'}\n`,
        );
      } else if (!pipeline.schedule) {
        io.stderr.write(
          `${given}: no schedule: in the definition (add schedule: { cron: "0 3 * * *" }, or use --now)\n`,
        );
        code = 2;
      } else {
        const { cron, timezone } = pipeline.schedule;
        await boss.schedule(SYNC_QUEUE, cron, data, { ...options, key: file, tz: timezone });
        io.stdout.write(`${given}: scheduled "${cron}" (${timezone})\n`);
      }
    }
    if (values.runs) await printRuns(boss, io);
  } finally {
    await boss.stop({ graceful: false });
  }
  return code;
});

/** The last 50 runs: when, state, pipeline file, and the report's outcome or the error. */
async function printRuns(boss: PgBoss, io: CliIO): Promise<void> {
  const jobs = await boss.findJobs<SyncJob>(SYNC_QUEUE, { limit: 100_000 });
  const last = jobs.sort((a, b) => +new Date(b.createdOn) - +new Date(a.createdOn)).slice(0, 50);
  for (const j of last) {
    const out = (j.output ?? {}) as { outcome?: string; error?: string };
    const what = out.error ?? out.outcome ?? '';
    io.stdout.write(
      `${new Date(j.createdOn).toISOString()}  ${j.state.padEnd(10)} ${j.data.file}  try ${j.retryCount + 1}  ${what}\n`,
    );
  }
}

function whole(flag: string, value: string | undefined, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < least)
    throw new Error(`${flag}: expected a whole number ≥ ${least}, got "${value}"`);
  return n;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      database: { type: 'string' },
      now: { type: 'boolean', default: false },
      remove: { type: 'boolean', default: false },
      runs: { type: 'boolean', default: false },
      retries: { type: 'string' },
      'retry-delay': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

if (import.meta.main) await runMain(main);
