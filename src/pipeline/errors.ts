/**
 * Errors of the pipeline room. A ConfigError is the user's to fix (a missing file, an unsupported option):
 * the CLI prints its message and exits 2. Item failures are not errors here but results (apply.ts).
 */
import type { Plan } from './plan.ts';
import type { RunReport } from './report.ts';

export class ConfigError extends Error {
  readonly code = 'config_error';
}

/**
 * The run wrote to the target what `report` says, then could not record it in the sync state (its file's
 * disk is full or read-only): the report is still what the user needs to see, with the reason after it.
 */
export class StateWriteError extends Error {
  readonly code = 'state_write';
  readonly report: RunReport;
  readonly plan: Plan;
  constructor(report: RunReport, plan: Plan, cause: unknown) {
    super((cause as Error).message, { cause });
    this.report = report;
    this.plan = plan;
  }
}
