/**
 * The part of `import`, `sync` and `plan` that runs one pipeline and prints it: plan or report, progress
 * bar, logs, and the exit code (0 all written, 1 some items failed, 2 the user must fix the configuration).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ConfigError, StateWriteError } from '../pipeline/errors.ts';
import type { Plan } from '../pipeline/plan.ts';
import type { RunReport } from '../pipeline/report.ts';
import { type RunSpec, runPipeline } from '../pipeline/run.ts';
import { CsvOptionsError } from '../sources/csv/errors.ts';
import type { StateBackend } from '../state/backend.ts';
import { LockedError } from '../state/lock.ts';
import { describeFault, StoreError, storageFault } from '../store/errors.ts';
import { hintFor } from './hints.ts';
import type { CliIO } from './io.ts';
import {
  isTerminal,
  makeProgress,
  type OutputOptions,
  printPlan,
  printReport,
  summaryLine,
} from './output.ts';
import type { TargetChoice } from './target.ts';

export interface ExecuteOptions extends OutputOptions {
  /** Binds every log line of this run (pino child `run`); default a new UUID. */
  runId?: string;
  dryRun?: boolean;
  forceDelete?: boolean;
  /** Print every planned action with its field changes (dry runs, `npm run plan`). */
  details?: boolean;
  /** `--json` (or `--report -`): print nothing; the command writes the report as JSON to stdout. */
  json?: boolean;
  /** Where the sync state lives (the worker's PostgreSQL); default one SQLite file per target. */
  stateBackend?: StateBackend;
}

export interface Executed {
  code: 0 | 1 | 2;
  report?: RunReport;
  plan?: Plan;
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
      stateBackend: options.stateBackend,
      openTarget: () => target.open({ logger: log }),
      targetIsNew: target.isNew?.(),
      // The local target's store has an id of its own; a remote site has none.
      targetHasInstance: !target.remote,
      dryRun: options.dryRun,
      forceDelete: options.forceDelete,
      // Reproducible runs (tests, re-running last night's job): the recurrence window is around this instant.
      now,
      logger,
      onProgress: (done, total) => progress.update(done, total),
      onStage: (doing) => progress.stage(doing),
      onParse: (done, total) => progress.parse(done, total),
    });
    progress.stop();
    printRun(report, plan, spec, target, io, options);
    // The target's disk refused writes (full, read-only): one line that says so and names it, and 2, since
    // the user has to act before a run can succeed. What was written is in the state; nothing is repeated.
    const storage = report.failures.find((f) => f.code.startsWith('rest_storage_'));
    if (storage) {
      const failed = report.failures.length;
      io.stderr.write(
        `${spec.name}: ${target.label}: the target could not store the writes (${storage.code}: ${storage.message}); ` +
          `${failed} item${failed === 1 ? '' : 's'} not written: free the disk or make it writable, then run again\n`,
      );
      return { code: 2, report, plan, error: storage.message };
    }
    return { code: report.outcome === 'ok' ? 0 : 1, report, plan };
  } catch (err) {
    progress.stop();
    if (err instanceof StateWriteError && spec.stateFile) {
      // Written, but not recorded: the run's summary first (what the target has now), then why it stopped.
      printRun(err.report, err.plan, spec, target, io, options);
      const fault = storageFault(err.cause) ?? 'full';
      const line = `${spec.name}: sync state: ${describeFault(fault, spec.stateFile, err.cause)}`;
      io.stderr.write(`${line}\n`);
      return { code: 2, report: err.report, plan: err.plan, error: line };
    }
    const message = `${spec.name}: ${(err as Error).message}`;
    const hint = options.credentials && hintFor(err as Error, options.credentials);
    // A CSV option the reader refuses (`--date-format XX`, `columns: { venu: … }`) is configuration too.
    // So is a data file that cannot be used (full disk, read-only, not a database): the message names it.
    const config =
      err instanceof ConfigError ||
      err instanceof LockedError ||
      err instanceof CsvOptionsError ||
      (err instanceof StoreError && err.code === 'store-unusable');
    // The sync state's own file on a full or read-only disk (the data file's faults are answers, above).
    const fault = !config && storageFault(err);
    if (fault && spec.stateFile) {
      const line = `${spec.name}: sync state: ${describeFault(fault, spec.stateFile, err)}`;
      io.stderr.write(`${line}\n`);
      return { code: 2, error: line };
    }
    if (!config) {
      // Failures with a code (HTTP, network, a feed that is no calendar) are expected: their message says
      // it all, and a stack only with --debug. On a terminal the line below is the log line.
      const expected = typeof (err as { code?: unknown }).code === 'string';
      const fields = io.debug || !expected ? { err } : { code: (err as { code: string }).code };
      if (!isTerminal(io.stderr) || io.debug || !expected) log.error(fields, message);
    }
    io.stderr.write(`${message}\n${hint ? `${hint}\n` : ''}`);
    return { code: config ? 2 : 1, error: message };
  }
}

/** The run as the options ask: its report, or its plan for a dry run; nothing with `json`. */
function printRun(
  report: RunReport,
  plan: Plan,
  spec: RunSpec,
  target: TargetChoice,
  io: CliIO,
  options: ExecuteOptions,
): void {
  // A source that lost records is the first thing to know about the run: it explains the exit code 1.
  if (report.incomplete && !options.json) io.stdout.write(`${spec.name}: ${report.incomplete}\n\n`);
  if (options.json) {
    // The command prints the report (or the plan) as JSON, and nothing else goes to stdout.
  } else if (options.dryRun) {
    io.stdout.write(`${spec.name}: plan against ${target.label} (dry run, nothing written)\n`);
    if (report.notModified) io.stdout.write(`${summaryLine(report)}\n`);
    else printPlan(plan, io, options.details ?? true);
  } else {
    printReport(report, io, options);
  }
}
