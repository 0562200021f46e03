/**
 * `npm run sync -- pipelines/a.yaml [more…]`: runs pipelines one after the other; one failing does not
 * stop the others. Quiet-friendly for cron: `--quiet` prints only failures and one summary line per
 * pipeline; logs are JSON when stderr is not a terminal. `npm run plan` is this command with `--dry-run`.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError } from '../pipeline/errors.ts';
import { DefinitionError, loadPipeline } from '../pipeline/load.ts';
import type { RunReport } from '../pipeline/report.ts';
import { execute } from './execute.ts';
import { type CliIO, runMain } from './io.ts';
import { checkReportPath, makeLogger } from './output.ts';
import { specFromPipeline } from './pipeline-spec.ts';

const help = (command: string) => `Usage: npm run ${command} -- <pipeline.yaml> [more…] [options]

${command === 'plan' ? 'Prints what a sync would do — counts per kind, every action, the field changes of updates — and writes nothing.' : 'Runs each pipeline: reads its source, plans against its sync state, writes the changes to its target.'}

Options:
${command === 'plan' ? '' : "  --dry-run        print the plan instead of writing (same as npm run plan)\n  --force-delete   lift the mass-delete guard (deleting more than max_delete_ratio of a pipeline's events)\n"}  --report <file>  write the run reports as JSON (an array, one per pipeline)
  --quiet          print only failures and one summary line per pipeline
  -h, --help       show this help

Exit codes: 0 every pipeline ok, 1 some items or pipelines failed, 2 a definition is invalid.

Examples:
  npm run ${command} -- pipelines/community-ics.yaml
  npm run ${command} -- pipelines/*.yaml${command === 'plan' ? '' : ' --quiet --report /var/log/calsync/last.json'}`;

export function command(name: 'sync' | 'plan') {
  return async function main(io: CliIO): Promise<number> {
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
    const reportProblem = checkReportPath(values.report);
    if (reportProblem) {
      io.stderr.write(`${name}: ${reportProblem}\n`);
      return 2;
    }
    const dryRun = name === 'plan' || values['dry-run'];
    const logger = makeLogger(io, { quiet: values.quiet });
    const reports: RunReport[] = [];
    let code = 0;
    for (const file of positionals) {
      let result: Awaited<ReturnType<typeof execute>>;
      try {
        const { spec, target } = specFromPipeline(await loadPipeline(file, io.env));
        result = await execute(spec, target, io, logger, {
          dryRun,
          forceDelete: values['force-delete'],
          quiet: values.quiet,
          details: true,
        });
      } catch (err) {
        // One pipeline's failure never stops the others; the exit code says the worst.
        const config = err instanceof DefinitionError || err instanceof ConfigError;
        const message = config ? (err as Error).message : `${file}: ${(err as Error).message}`;
        if (!config) logger.error({ err }, message);
        io.stderr.write(`${message}\n`);
        result = { code: config ? 2 : 1, error: message };
      }
      if (result.report) reports.push(result.report);
      code = Math.max(code, result.code);
    }
    if (values.report) await writeFile(values.report, `${JSON.stringify(reports, null, 2)}\n`);
    return code;
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'force-delete': { type: 'boolean', default: false },
      report: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

export const main = command('sync');

if (import.meta.main) await runMain(main);
