/**
 * The part of `import`, `sync` and `plan` that runs one pipeline and prints it: plan or report, progress
 * bar, logs, and the exit code (0 all written, 1 some items failed, 2 the user must fix the configuration).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ConfigError } from '../pipeline/errors.ts';
import type { RunReport } from '../pipeline/report.ts';
import { type RunSpec, runPipeline } from '../pipeline/run.ts';
import { CsvOptionsError } from '../sources/csv/index.ts';
import { LockedError } from '../state/lock.ts';
import type { CliIO } from './io.ts';
import { makeProgress, type OutputOptions, printPlan, printReport, summaryLine } from './output.ts';
import type { TargetChoice } from './target.ts';

export interface ExecuteOptions extends OutputOptions {
  /** Binds every log line of this run (pino child `run`); default a new UUID. */
  runId?: string;
  dryRun?: boolean;
  forceDelete?: boolean;
  /** Print every planned action with its field changes (dry runs, `npm run plan`). */
  details?: boolean;
}

export interface Executed {
  code: 0 | 1 | 2;
  report?: RunReport;
  error?: string;
}

export async function execute(
  spec: RunSpec,
  target: TargetChoice,
  io: CliIO,
  logger: Logger,
  options: ExecuteOptions,
): Promise<Executed> {
  const progress = makeProgress(io, options);
  const now = io.env.CALSYNC_NOW ? new Date(io.env.CALSYNC_NOW) : undefined;
  if (now && Number.isNaN(now.getTime())) {
    io.stderr.write(
      `CALSYNC_NOW: expected an ISO date-time such as 2027-01-01T00:00:00Z, got "${io.env.CALSYNC_NOW}"\n`,
    );
    return { code: 2, error: 'CALSYNC_NOW' };
  }
  const runId = options.runId ?? randomUUID();
  // The run's own lines get the same bindings as runPipeline's (which makes its child from `logger`).
  const log = logger.child({ pipeline: spec.name, run: runId });
  try {
    const { plan, report } = await runPipeline(spec, {
      runId,
      openTarget: () => target.open({ logger: log }),
      targetIsNew: target.isNew?.(),
      dryRun: options.dryRun,
      forceDelete: options.forceDelete,
      // Reproducible runs (tests, re-running last night's job): the recurrence window is around this instant.
      now,
      logger,
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.stop();
    // A source that lost records is the first thing to know about the run: it explains the exit code 1.
    if (report.incomplete) io.stdout.write(`${spec.name}: ${report.incomplete}\n\n`);
    if (options.dryRun) {
      io.stdout.write(`${spec.name}: plan against ${target.label} (dry run, nothing written)\n`);
      if (report.notModified) io.stdout.write(`${summaryLine(report)}\n`);
      else printPlan(plan, io, options.details ?? true);
    } else {
      printReport(report, io, options);
    }
    return { code: report.outcome === 'ok' ? 0 : 1, report };
  } catch (err) {
    progress.stop();
    const message = `${spec.name}: ${(err as Error).message}`;
    // A CSV option the reader refuses (`--date-format XX`, `columns: { venu: … }`) is configuration too.
    if (err instanceof ConfigError || err instanceof LockedError || err instanceof CsvOptionsError) {
      io.stderr.write(`${message}\n`);
      return { code: 2, error: message };
    }
    log.error({ err }, message);
    io.stderr.write(`${message}\n`);
    return { code: 1, error: message };
  }
}
