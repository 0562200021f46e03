/**
 * `npm run validate -- <pipeline file>...`: checks pipeline definitions without running them, so that a
 * nightly job's file (and its environment) fails in CI or by hand rather than at 3 a.m. Prints
 * `ok <file> (<name>)` per valid file on stdout and every problem on stderr; exit 0 when all are valid,
 * 2 when any is not or the command line is wrong.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../pipeline/errors.ts';
import { checkPipelineFile, formatProblem } from '../pipeline/load.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { specFromPipeline } from './pipeline-spec.ts';

const HELP = `Usage: npm run validate -- <pipeline file>... [options]

Checks pipeline definition files (YAML or JSON): keys, values, \${VAR} references and secrets.
Every problem is listed with file:line:column and its path in the file.

Options:
  --allow-missing-env   do not require the \${VAR} variables to be set (check the file only)
  -h, --help            show this help

Exit status: 0 all files valid, 2 a file is invalid or the command line is wrong.

Examples:
  npm run validate -- pipelines/city-arts.yaml
  npm run validate -- pipelines/*.yaml pipelines/*.json
  npm run validate -- --allow-missing-env pipelines/*.yaml    # in CI, where the secrets are not set`;

async function run(io: CliIO): Promise<number> {
  let parsed: { values: { 'allow-missing-env'?: boolean; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: io.argv,
      allowPositionals: true,
      options: { 'allow-missing-env': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    io.stderr.write(`validate: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals: files } = parsed;
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (files.length === 0) {
    io.stderr.write(`validate: expected at least one pipeline file\n\n${HELP}\n`);
    return 2;
  }

  let invalid = 0;
  const owners = new Map<string, string>(); // pipeline name → first file with it
  for (const file of files) {
    const checked = await checkPipelineFile(file, io.env, { allowMissingEnv: values['allow-missing-env'] });
    const { problems, name } = checked;
    // The name keys the sync state and the lock: two definitions with one name would share them.
    const owner = name === undefined ? undefined : owners.get(name);
    if (name !== undefined && owner !== undefined && resolve(owner) !== resolve(file)) {
      const message = `expected a name no other pipeline uses, got "${name}" (also the name in ${owner})`;
      problems.push({ code: 'duplicate_name', file, path: 'name', message });
    } else if (name !== undefined) owners.set(name, file);

    if (problems.length === 0 && checked.pipeline) {
      // Valid, but asking for something this version cannot do yet: say so now, not at 3 a.m.
      try {
        specFromPipeline(checked.pipeline);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push({ code: 'not_available', file, path: '', message: err.message });
      }
    }
    if (problems.length === 0) {
      io.stdout.write(`ok ${file} (${name})\n`);
      continue;
    }
    invalid++;
    for (const problem of problems) io.stderr.write(`${formatProblem(problem)}\n`);
  }
  if (invalid > 0 && files.length > 1)
    io.stderr.write(`${invalid} of ${files.length} pipeline files are invalid\n`);
  return invalid > 0 ? 2 : 0;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
