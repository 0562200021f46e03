/**
 * What the pipeline commands print: logs (pino — readable on a terminal, NDJSON otherwise), a progress
 * bar on a terminal, the plan and the run report. Logs and the progress bar go to stderr, the plan and the
 * summary to stdout, so `npm run sync > summary.txt` keeps the summary clean.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { styleText } from 'node:util';
import type { SingleBar } from 'cli-progress';
import { type Logger, pino } from 'pino';
import type { Plan } from '../pipeline/plan.ts';
import { OPS } from '../pipeline/plan.ts';
import {
  conflictsOf,
  formatConflict,
  formatFailure,
  formatProblem,
  formatTable,
  OUTCOMES,
  type RunReport,
} from '../pipeline/report.ts';
import { type CredentialSource, hintForFailures } from './hints.ts';
import type { CliIO } from './io.ts';

/** At most this many failures and problems are printed; the JSON report (`--report`) has them all. */
const MAX_LISTED = 20;

export interface OutputOptions {
  quiet?: boolean;
  /** No progress bar even on a terminal (several pipelines running at once would draw over each other). */
  noProgress?: boolean;
  logLevel?: string;
  /** `--report <file>`: where the whole list is, for "… and 12 more". */
  reportFile?: string;
  /** What a failure's hint names (src/cli/hints.ts). */
  credentials?: CredentialSource;
}

export const isTerminal = (stream: unknown) => (stream as { isTTY?: boolean }).isTTY === true;
/** Colour on a terminal, unless NO_COLOR is set (https://no-color.org) or in CI logs. */
export const colourOn = (io: CliIO, stream: 'stdout' | 'stderr') =>
  isTerminal(io[stream]) && !io.env.NO_COLOR && !io.env.CI;

/** `styleText` when `on`, else the text as it is (tests and pipes get no escape codes). */
const paint = (on: boolean, format: Parameters<typeof styleText>[0], text: string) =>
  on ? styleText(format, text, { validateStream: false }) : text;

/** Log records the summary prints anyway (source problems, item failures, warnings, conflicts). */
const printedAnyway = (record: Record<string, unknown>) => 'problem' in record || 'key' in record;

/**
 * On a terminal: one line per warning or error, without the fields (`--debug` shows them, and every
 * debug line); the source problems and item failures are not logged there, the summary lists them.
 * Elsewhere (cron, CI, a pipe): every info line as JSON, for log collectors.
 */
/** pino-pretty and cli-progress: loaded only when they draw on a terminal (issue 17: a cron run loads neither). */
function terminalOnly(): {
  prettyFactory: typeof import('pino-pretty').prettyFactory;
  SingleBar: typeof SingleBar;
} {
  const require = createRequire(import.meta.url);
  return {
    get prettyFactory() {
      return (require('pino-pretty') as typeof import('pino-pretty')).prettyFactory;
    },
    get SingleBar() {
      return (require('cli-progress') as typeof import('cli-progress')).SingleBar;
    },
  };
}

export function makeLogger(io: CliIO, options: OutputOptions): Logger {
  const tty = isTerminal(io.stderr);
  const level =
    options.logLevel ??
    io.env.LOG_LEVEL ??
    (io.debug ? 'debug' : options.quiet ? 'error' : tty ? 'warn' : 'info');
  if (!tty)
    return pino({ level, base: { name: 'calsync' } }, { write: (line: string) => io.stderr.write(line) });
  const pretty = terminalOnly().prettyFactory({
    colorize: colourOn(io, 'stderr'),
    ignore: 'pid,hostname,name,pipeline,run',
    hideObject: !io.debug,
    translateTime: 'HH:MM:ss',
  });
  return pino(
    { level },
    {
      write: (line: string) => {
        const record = JSON.parse(line) as Record<string, unknown>;
        if (!io.debug && printedAnyway(record)) return;
        io.stderr.write(pretty(record));
      },
    },
  );
}

/**
 * On a terminal (not with `--quiet`): a bar while an .ics is parsed (VEVENTs read of its total), a status
 * line while the run reads, plans or maps (stages that show no count), then a bar over the writes. The
 * parse is synchronous, so its bar is drawn from `parse` itself (cli-progress's synchronous update, at most
 * every 200 ms), not from a timer. A no-op elsewhere.
 */
export function makeProgress(io: CliIO, options: OutputOptions) {
  if (options.quiet || options.noProgress || !isTerminal(io.stderr) || io.env.CI)
    return {
      stage: (_: string) => {},
      parse: (_done: number, _total: number) => {},
      update: (_done: number, _total: number) => {},
      stop: () => {},
    };
  let parsing: SingleBar | undefined;
  let writing: SingleBar | undefined;
  let status = false;
  const clearStatus = () => {
    if (status) io.stderr.write('\r\u001b[2K');
    status = false;
  };
  const endParsing = () => {
    parsing?.stop();
    parsing = undefined;
  };
  // The ETA over the last 1,000 updates (one per event or item): over cli-progress's default of 10 it
  // swings from 1 s to minutes with every pause of the collector.
  const bar = (format: string, total: number) => {
    clearStatus();
    const made = new (terminalOnly().SingleBar)({
      stream: io.stderr as NodeJS.WritableStream,
      format,
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
      synchronousUpdate: true,
      etaBuffer: 1000,
    });
    made.start(total, 0);
    return made;
  };
  return {
    stage(doing: string) {
      if (writing) return;
      endParsing();
      io.stderr.write(`\r\u001b[2K${doing}…`);
      status = true;
    },
    parse(done: number, total: number) {
      if (writing) return;
      parsing ??= bar(' {bar} {value}/{total} events parsed · {eta_formatted} left', total);
      parsing.update(done);
    },
    update(done: number, total: number) {
      endParsing();
      writing ??= bar(' {bar} {value}/{total} items · {eta_formatted} left', total);
      writing.update(done);
    },
    stop: () => {
      clearStatus();
      endParsing();
      writing?.stop();
    },
  };
}

/** Why `--report <file>` cannot be written, found before the run rather than after it. */
export function checkReportPath(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const folder = dirname(resolve(file));
  return existsSync(folder) ? undefined : `--report: the folder ${folder} does not exist`;
}

/** The plan as counts per kind and op; with `details`, every action and the field changes of updates. */
export function printPlan(plan: Plan, io: CliIO, details: boolean): void {
  io.stdout.write(`${formatTable(plan.counts, OPS)}\n`);
  if (details) {
    for (const a of plan.actions) {
      if (a.op === 'unchanged') continue;
      const where = a.origin ? ` (${a.origin.file}${a.origin.line ? `:${a.origin.line}` : ''})` : '';
      const reason = a.reason ? ` — ${a.reason}` : '';
      io.stdout.write(`${a.op.padEnd(9)} ${a.kind} "${a.label}"${where}${reason}\n`);
      for (const c of a.changes ?? []) {
        io.stdout.write(`            ${c.field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}\n`);
      }
    }
  }
  list(io, 'conflicts: kept as edited on the target', conflictsOf(plan.actions).map(formatConflict));
  if (plan.guard) io.stdout.write(`\ndeletions held back: ${plan.guard}\n`);
}

/**
 * The summary table, then source problems (errors first: the real cause up front), failures with a hint
 * that names what fixes them, conflicts, then one line of totals. Each problem is printed once.
 */
export function printReport(report: RunReport, io: CliIO, options: OutputOptions): void {
  const failed = report.outcome === 'failed';
  const colour = colourOn(io, 'stdout');
  if (!options.quiet || failed) {
    if (!options.quiet) io.stdout.write(`${paintTable(formatTable(report.counts, OUTCOMES), colour)}\n`);
    const shown = report.problems.filter((p) => p.severity === 'error' || !options.quiet);
    const problems = [...shown].sort((a, b) => rank(a.severity) - rank(b.severity));
    list(io, 'problems in the source', unique(problems.map(formatProblem)), options);
    if (!options.quiet) list(io, 'written with warnings', unique(report.warnings), options);
    list(io, 'failed', report.failures.map(formatFailure), options);
    const hint = options.credentials && hintForFailures(report.failures, options.credentials);
    if (hint) io.stdout.write(`${paint(colour, 'yellow', hint)}\n`);
    list(
      io,
      'conflicts: kept as edited on the target',
      (report.conflicts ?? []).map(formatConflict),
      options,
    );
    if (report.guard) io.stdout.write(`\ndeletions held back: ${report.guard}\n`);
  }
  const line = summaryLine(report);
  io.stdout.write(`${paint(colour, failed ? 'red' : 'green', line)}\n`);
}

const rank = (severity: string) => (severity === 'error' ? 0 : 1);
const unique = (lines: string[]) => [...new Set(lines)];

/** The header in bold and non-zero `failed` counts in red; the text itself unchanged. */
function paintTable(table: string, on: boolean): string {
  if (!on) return table;
  const [head, ...rows] = table.split('\n');
  const painted = rows.map((row) =>
    row.replace(/(\s)([1-9]\d*)$/, (_, space, n) => space + paint(on, 'red', n)),
  );
  return [paint(on, 'bold', head), ...painted].join('\n');
}

function list(io: CliIO, title: string, lines: string[], options: OutputOptions = {}): void {
  if (lines.length === 0) return;
  io.stdout.write(`\n${title} (${lines.length}):\n`);
  for (const line of lines.slice(0, MAX_LISTED)) io.stdout.write(`  ${line}\n`);
  if (lines.length > MAX_LISTED) {
    const where = options.reportFile
      ? `all of them in ${options.reportFile === '-' ? 'the JSON report' : options.reportFile}`
      : 'all of them with --report <file.json>';
    io.stdout.write(`  … and ${lines.length - MAX_LISTED} more (${where})\n`);
  }
}

/** `community: 212 events (209 created, 3 unchanged), 0 failed → local data/calendar.db in 1.4 s` */
export function summaryLine(r: RunReport): string {
  if (r.notModified) return `${r.pipeline}: source not modified (HTTP 304), nothing to do → ${r.target}`;
  const e = r.counts.event;
  const total = OUTCOMES.reduce((n, o) => n + e[o], 0);
  const parts = OUTCOMES.filter((o) => o !== 'failed' && e[o] > 0).map((o) => `${e[o]} ${o}`);
  const failed = Object.values(r.counts).reduce((n, c) => n + c.failed, 0);
  const dropped = r.problems.filter((p) => p.severity === 'error').length;
  const conflicts = r.conflicts?.length ?? 0;
  const extra = [
    dropped ? `${dropped} not readable in the source` : '',
    r.guard ? 'deletions held back' : '',
    conflicts ? `${conflicts} ${conflicts === 1 ? 'conflict' : 'conflicts'}` : '',
  ]
    .filter(Boolean)
    .map((s) => `, ${s}`)
    .join('');
  const seconds = (r.durationMs / 1000).toFixed(1);
  return `${r.pipeline}: ${total} events (${parts.join(', ') || 'none'}), ${failed} failed${extra} → ${r.target} in ${seconds} s`;
}
