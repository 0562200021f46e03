/**
 * `npm run sync -- pipelines/a.yaml [more…]`: runs pipelines together; one failing does not stop the
 * others. Pipelines that write to one target (one sync state) run one after the other; the others run at
 * the same time, and those that write to one remote host share one request queue, so that together they
 * keep to that host's rate (src/writer/host-queues.ts). Quiet-friendly for cron: `--quiet` prints only
 * failures and one summary line per pipeline; logs are JSON lines, each with its pipeline and run id, when
 * stderr is not a terminal. `npm run plan` is this command with `--dry-run`.
 *
 * `--report file.json` writes an array, one entry per pipeline file in the order given: its run report,
 * or `{file, pipeline, outcome: "failed", error}` when it could not run (an invalid definition, a locked or
 * unreachable target). Exit code: the worst of the pipelines'.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { type FeedPublication, publishFeeds } from '../export/publish.ts';
import { ConfigError } from '../pipeline/errors.ts';
import { DefinitionError, loadPipeline } from '../pipeline/load.ts';
import type { RunReport } from '../pipeline/report.ts';
import type { RunSpec } from '../pipeline/run.ts';
import { hostQueues } from '../writer/host-queues.ts';
import { type Executed, execute } from './execute.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { checkReportPath, makeLogger } from './output.ts';
import { specFromPipeline } from './pipeline-spec.ts';
import type { TargetChoice } from './target.ts';

const help = (command: string) => `Usage: npm run ${command} -- <pipeline.yaml> [more…] [options]

${command === 'plan' ? 'Prints what a sync would do — counts per kind, every action, the field changes of updates — and writes nothing.' : 'Runs each pipeline: reads its source, plans against its sync state, writes the changes to its target.\nPipelines run together (those of one target one after the other); pipelines writing to one host share\nits rate limit (the strictest rate any of them sets); one failing does not stop the others.'}

Options:
${command === 'plan' ? '' : "  --dry-run        print the plan instead of writing (same as npm run plan)\n  --force-delete   lift the mass-delete guard (deleting more than max_delete_ratio of a pipeline's events)\n"}  --report <file>  write the run reports as JSON (an array, one per pipeline file; one that
                   could not run has its error); - for standard output, as --json
  --json           print that array on standard output instead of the tables
  --quiet          print only failures and one summary line per pipeline
  --debug          every log line with its fields, and stacks of errors
  --version        print calsync's version
  -h, --help       show this help

Environment: CALSYNC_STATE_DIR, where the sync state of remote targets lives (default data/sync under
the working directory; a local target's sits beside its data file). It must persist between runs.

Exit codes: 0 every pipeline ok, 1 some items or pipelines failed, 2 a definition is invalid.

Examples:
  npm run ${command} -- pipelines/community-ics.yaml
  npm run ${command} -- pipelines/*.yaml${command === 'plan' ? '' : ' --quiet --report /var/log/calsync/last.json'}`;

export function command(name: 'sync' | 'plan') {
  return withCommonFlags(async (io: CliIO): Promise<number> => {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(io.argv);
    } catch (err) {
      io.stderr.write(`${name}: ${(err as Error).message}\n\n${help(name)}\n`);
      return 2;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(`${help(name)}\n`);
      return 0;
    }
    if (positionals.length === 0) {
      io.stderr.write(`${name}: expected at least one pipeline file\n\n${help(name)}\n`);
      return 2;
    }
    const json = values.json || values.report === '-';
    const reportProblem = values.report === '-' ? undefined : checkReportPath(values.report);
    if (reportProblem) {
      io.stderr.write(`${name}: ${reportProblem}\n`);
      return 2;
    }
    const options = {
      dryRun: name === 'plan' || values['dry-run'],
      forceDelete: values['force-delete'],
      quiet: values.quiet,
      json,
      reportFile: values.report,
    };
    const logger = makeLogger(io, { quiet: values.quiet });
    const jobs = await Promise.all(positionals.map((file) => load(file, io, logger)));
    const entries = await runAll(jobs, io, logger, options);
    const failed = entries.filter((e) => e.outcome !== 'ok');
    if (failed.length > 0 && entries.length > 1) {
      const names = failed.map((e) => (e.pipeline ? `${e.pipeline} (${e.file})` : e.file)).join(', ');
      io.stderr.write(`${failed.length} of ${entries.length} pipelines failed: ${names}\n`);
    }
    if (json) io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    if (values.report && values.report !== '-')
      await writeFile(values.report, `${JSON.stringify(entries, null, 2)}\n`);
    return Math.max(0, ...jobs.map((j) => j.result?.code ?? 0));
  });
}

interface Job {
  file: string;
  runId: string;
  spec?: RunSpec;
  target?: TargetChoice;
  /** `target.auth.type` of the definition (`none` without one), for the hint of a 401. */
  auth?: string;
  publish?: FeedPublication;
  result?: Executed;
}

type Entry = (RunReport | { pipeline?: string; outcome: 'failed'; error: string }) & { file: string };

/** Reads one definition; an invalid one is printed and settled as a failed job (exit code 2). */
async function load(file: string, io: CliIO, logger: Logger): Promise<Job> {
  const runId = randomUUID();
  try {
    const pipeline = await loadPipeline(file, io.env);
    const auth = pipeline.target.auth?.type ?? 'none';
    return { file, runId, auth, ...specFromPipeline(pipeline) };
  } catch (err) {
    const config = err instanceof DefinitionError || err instanceof ConfigError;
    const message = config ? (err as Error).message : `${file}: ${(err as Error).message}`;
    if (!config) logger.error({ err, file, run: runId }, message);
    io.stderr.write(`${message}\n`);
    return { file, runId, result: { code: config ? 2 : 1, error: message } };
  }
}

/**
 * Runs the loaded jobs: one chain per sync state (its pipelines in the order given), the chains at once,
 * remote ones through their host's shared queue. Returns the report entries in the order of `jobs`.
 */
async function runAll(
  jobs: Job[],
  io: CliIO,
  logger: Logger,
  options: { dryRun: boolean; forceDelete: boolean; quiet: boolean; json: boolean; reportFile?: string },
): Promise<Entry[]> {
  const runnable = jobs.filter((j) => j.spec && j.target);
  const queues = hostQueues(runnable.flatMap((j) => (j.target?.remote ? [j.target.remote] : [])));
  const chains = new Map<string, Job[]>();
  for (const j of runnable) {
    const key = (j.target as TargetChoice).stateFile;
    chains.set(key, [...(chains.get(key) ?? []), j]);
  }
  await Promise.all(
    [...chains.values()].map(async (chain) => {
      for (const job of chain) {
        const target = job.target as TargetChoice;
        const queue = target.remote ? queues.get(target.remote.host) : undefined;
        try {
          job.result = await execute(
            job.spec as RunSpec,
            { ...target, open: (o) => target.open({ ...o, queue }) },
            io,
            logger,
            {
              ...options,
              runId: job.runId,
              details: true,
              noProgress: chains.size > 1,
              credentials: { from: 'pipeline', file: job.file, auth: job.auth ?? 'none' },
            },
          );
          // The pipeline's `feeds:` with a `path` (src/export/publish.ts), after a run that wrote.
          if (!options.dryRun && job.publish && job.result.code !== 2) {
            const files = await publishFeeds(job.publish, new Date(io.env.CALSYNC_NOW ?? Date.now())).catch(
              (err: Error) => {
                io.stderr.write(`${job.file}: feeds: ${err.message}\n`);
                if ((job.result as Executed).code === 0) (job.result as Executed).code = 1;
                return [];
              },
            );
            if (!options.quiet && !options.json)
              for (const f of files) io.stdout.write(`feed written: ${f}\n`);
          }
        } catch (err) {
          // One pipeline's unexpected failure never stops the others; the exit code says the worst.
          const message = `${job.file}: ${(err as Error).message}`;
          logger.error({ err, pipeline: job.spec?.name, run: job.runId }, message);
          io.stderr.write(`${message}\n`);
          job.result = { code: 1, error: message };
        }
      }
    }),
  );
  return jobs.map((j): Entry => {
    const report = j.result?.report;
    // A plan's entry carries it (counts and actions) too: `npm run plan -- … --json`.
    const plan = options.dryRun && options.json ? { plan: j.result?.plan } : {};
    if (report) return { file: j.file, ...report, ...plan };
    return { file: j.file, pipeline: j.spec?.name, outcome: 'failed', error: j.result?.error ?? 'not run' };
  });
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'force-delete': { type: 'boolean', default: false },
      report: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

export const main = command('sync');

if (import.meta.main) await runMain(main);
