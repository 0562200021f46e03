/**
 * `npm run state -- show|forget|rebuild <pipeline file or name>`: look at and repair a pipeline's sync
 * state. `show` prints the items per kind, the source's cached validators and the last runs; `forget` drops
 * the pipeline's items (the target is untouched; the next run takes them over again by slug and natural
 * key); `rebuild` reads the source and the target and records what is already there, writing nothing to the
 * target. A pipeline named rather than given by file is looked for in `pipelines/`; `show` and `forget`
 * also work on a name with no file (an `npm run import`, `import-<file>`), in the local target's state.
 * With `--database`, `show` and `forget` work on the state the workers keep in PostgreSQL (pg-state.ts).
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEFAULT_DATA } from '../pipeline/defaults.ts';
import { ConfigError } from '../pipeline/errors.ts';
import { checkPipelineFile, DefinitionError, loadPipeline } from '../pipeline/load.ts';
import type { RunReport } from '../pipeline/report.ts';
import { rebuildPipelineState } from '../pipeline/state-repair.ts';
import { databaseUrl } from '../queue/database.ts';
import type { Awaitable } from '../state/backend.ts';
import { acquireLock, LockedError } from '../state/lock.ts';
import { PgSyncState, pgStateBackend, targetOf } from '../state/pg-state.ts';
import { type RunRow, type SourceCache, SyncState } from '../state/sync-state.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { makeLogger, summaryLine } from './output.ts';
import { specFromPipeline } from './pipeline-spec.ts';
import { chooseTarget, type TargetChoice } from './target.ts';

const HELP = `Usage: npm run state -- <show|forget|rebuild> <pipeline file or name> [options]

Looks at and repairs the sync state of a pipeline: what it wrote to its target, and its last runs.

Commands:
  show      items per kind, the source's cached ETag/Last-Modified, the last runs
  forget    drop the pipeline's items from the state (the target is untouched; the next run takes its
            items over again by slug and name, creating nothing twice)
  rebuild   read the source and the target and record what is already there; writes nothing to the target

Options:
  --data <file>   for a pipeline named without a definition file: the local target's SQLite file
                  (default ${DEFAULT_DATA}; the state is beside it)
  --runs <n>      show: how many runs to list (default 5)
  --database <url>  show, forget: the sync state npm run worker keeps in PostgreSQL (a definition file
                  or a name in pipelines/ says which target)
  -h, --help      show this help

Exit codes: 0 done, 1 the source or target failed, 2 usage or configuration error.

Examples:
  npm run state -- show pipelines/community-ics.yaml
  npm run state -- show import-community-calendar-ics
  npm run state -- forget community-ics
  npm run state -- rebuild pipelines/community-ics.yaml`;

const COMMANDS = ['show', 'forget', 'rebuild'] as const;
type Command = (typeof COMMANDS)[number];

interface Resolved {
  name: string;
  stateFile: string;
  target?: TargetChoice;
  spec?: ReturnType<typeof specFromPipeline>['spec'];
}

async function run(io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(io.argv);
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  const [command, which, ...rest] = positionals;
  if (!COMMANDS.includes(command as Command))
    return usage(io, `expected a command: ${COMMANDS.join(', ')}, got ${command ?? 'none'}`);
  if (!which || rest.length > 0) return usage(io, 'expected one pipeline file or name');
  const runs = Number(values.runs);
  if (!(Number.isInteger(runs) && runs >= 0))
    return usage(io, `--runs: expected a whole number, got "${values.runs}"`);

  let pipeline: Resolved;
  try {
    pipeline = await resolvePipeline(which, io, values.data);
  } catch (err) {
    if (err instanceof DefinitionError || err instanceof ConfigError) {
      io.stderr.write(`state: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (values.database !== undefined) {
    if (command === 'rebuild' || !pipeline.spec)
      return usage(
        io,
        command === 'rebuild'
          ? 'rebuild keeps its state in files; with --database only show and forget'
          : `--database: ${which}: needs the pipeline's definition (a file, or a name in pipelines/) to know its target`,
      );
    try {
      return await inDatabase(
        databaseUrl(values.database, io.env),
        command as 'show' | 'forget',
        pipeline,
        io,
        runs,
      );
    } catch (err) {
      io.stderr.write(`state: ${pipeline.name}: ${(err as Error).message}\n`);
      return err instanceof LockedError ? 2 : 1;
    }
  }
  const unknown = unknownPipeline(pipeline);
  if (unknown) {
    io.stderr.write(`state: ${unknown}\n`);
    return 2;
  }
  try {
    switch (command as Command) {
      case 'show':
        return await show(pipeline, io, runs);
      case 'forget':
        return forget(pipeline, io);
      case 'rebuild':
        return await rebuild(pipeline, io);
    }
  } catch (err) {
    const config = err instanceof ConfigError || err instanceof LockedError;
    io.stderr.write(`state: ${pipeline.name}: ${(err as Error).message}\n`);
    return config ? 2 : 1;
  }
  return 0;
}

/** `show` and `forget` on the workers' state in PostgreSQL. */
async function inDatabase(
  url: string,
  command: 'show' | 'forget',
  p: Resolved,
  io: CliIO,
  runs: number,
): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const backend = pgStateBackend(pool);
  try {
    const where = `PostgreSQL (${new URL(url).host})`;
    // No state tables yet (no worker has run) reads as no state, as a missing file does.
    const exists = await Promise.resolve(backend.exists(p.stateFile)).catch((err: unknown) => {
      if ((err as { code?: string }).code === '42P01') return false;
      throw err;
    });
    if (!exists) {
      io.stdout.write(`${p.name}: no sync state in ${where}\n`);
      return 0;
    }
    if (command === 'show')
      return await show(p, io, runs, { state: await PgSyncState.open(pool, targetOf(p.stateFile)), where });
    const release = await backend.lock(p.stateFile, p.name);
    const state = await PgSyncState.open(pool, targetOf(p.stateFile));
    try {
      const n = await state.forgetPipeline(p.name);
      io.stdout.write(
        `${p.name}: forgot ${n} items in ${where}; the next run takes them over from the target again\n`,
      );
    } finally {
      await state.close();
      await release();
    }
    return 0;
  } finally {
    await pool.end();
  }
}

/** What `show` reads: the SQLite file's state or PostgreSQL's. */
interface Shown {
  counts(pipeline: string): Awaitable<Partial<Record<string, number>>>;
  sourceCache(pipeline: string): Awaitable<SourceCache | undefined>;
  runs(pipeline: string, limit?: number): Awaitable<RunRow[]>;
  pipelines(): Awaitable<string[]>;
  close(): Awaitable<void>;
}

async function show(
  p: Resolved,
  io: CliIO,
  runs: number,
  opened?: { state: Shown; where: string },
): Promise<number> {
  if (!opened && !existsSync(p.stateFile)) {
    io.stdout.write(`${p.name}: no sync state yet (${p.stateFile})\n`);
    return 0;
  }
  const state: Shown = opened?.state ?? new SyncState(p.stateFile);
  try {
    const counts = await state.counts(p.name);
    io.stdout.write(`${p.name} in ${opened?.where ?? p.stateFile}\n`);
    const kinds = ['category', 'tag', 'venue', 'organizer', 'event'] as const;
    const plural = {
      category: 'categories',
      tag: 'tags',
      venue: 'venues',
      organizer: 'organizers',
      event: 'events',
    };
    io.stdout.write(`items: ${kinds.map((k) => `${counts[k] ?? 0} ${plural[k]}`).join(', ')}\n`);
    const cache = await state.sourceCache(p.name);
    if (cache) {
      const validators = [
        cache.etag ? `ETag ${cache.etag}` : '',
        cache.lastModified ? `Last-Modified ${cache.lastModified}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      io.stdout.write(`source: ${cache.url} (${validators})\n`);
    }
    const last = await state.runs(p.name, runs);
    if (last.length > 0) io.stdout.write('last runs:\n');
    for (const run of last) {
      const report = run.report as RunReport | null;
      const what =
        run.finishedUtc === null
          ? 'unfinished (interrupted, or running now)'
          : report
            ? summaryLine(report)
            : '';
      io.stdout.write(`  ${run.startedUtc}  ${(run.outcome ?? 'running').padEnd(11)}  ${what}\n`);
    }
    const known = await state.pipelines();
    if (known.length > 0 && !known.includes(p.name))
      io.stdout.write(`(this state ${opened ? 'of the target' : 'file'} knows: ${known.join(', ')})\n`);
  } finally {
    await state.close();
  }
  return 0;
}

function forget(p: Resolved, io: CliIO): number {
  if (!existsSync(p.stateFile)) {
    io.stdout.write(`${p.name}: no sync state (${p.stateFile}); nothing to forget\n`);
    return 0;
  }
  const release = acquireLock(`${p.stateFile}.${p.name}.lock`);
  const state = new SyncState(p.stateFile);
  try {
    const n = state.forgetPipeline(p.name);
    io.stdout.write(
      `${p.name}: forgot ${n} items in ${p.stateFile}; the next run takes them over from the target again\n`,
    );
  } finally {
    state.close();
    release();
  }
  return 0;
}

async function rebuild(p: Resolved, io: CliIO): Promise<number> {
  if (!p.spec || !p.target)
    throw new ConfigError(
      'rebuild needs the pipeline definition file (its source and mapping); pass its path',
    );
  const now = io.env.CALSYNC_NOW ? new Date(io.env.CALSYNC_NOW) : undefined;
  const { counts } = await rebuildPipelineState(p.spec, {
    openTarget: p.target.open,
    now,
    logger: makeLogger(io, {}),
  });
  io.stdout.write(`${p.name}: sync state rebuilt from ${p.target.label}\n`);
  for (const [kind, c] of Object.entries(counts)) {
    if (c.source === 0) continue;
    const changed = c.changed ? `, ${c.changed} to be updated by the next run` : '';
    io.stdout.write(`  ${kind}: ${c.found} of ${c.source} found on the target${changed}\n`);
  }
  return 0;
}

/**
 * Why a pipeline named without a definition file is no pipeline at all: its name is neither in pipelines/
 * nor in the local state (a typo should not look like an empty pipeline and exit 0).
 */
function unknownPipeline(p: Resolved): string | undefined {
  if (p.spec) return undefined;
  const known = existsSync(p.stateFile) ? knownPipelines(p.stateFile) : [];
  if (known.includes(p.name)) return undefined;
  const knows = known.length > 0 ? `; it knows ${known.join(', ')}` : '';
  return `no pipeline named ${p.name}: no definition in pipelines/ has that name, and the sync state ${p.stateFile} ${existsSync(p.stateFile) ? `has no such pipeline${knows}` : 'does not exist'} (--data names another store)`;
}

function knownPipelines(stateFile: string): string[] {
  const state = new SyncState(stateFile);
  try {
    return state.pipelines();
  } finally {
    state.close();
  }
}

/** A definition file; else a name: the definition in pipelines/ with that name, else the local state. */
async function resolvePipeline(which: string, io: CliIO, data: string): Promise<Resolved> {
  const file = existsSync(which) ? which : await findDefinition(which, io);
  if (file) {
    const { spec, target } = specFromPipeline(await loadPipeline(file, io.env));
    return { name: spec.name, stateFile: spec.stateFile, spec, target };
  }
  if (!/^[a-z0-9][a-z0-9-]*$/.test(which))
    throw new ConfigError(`${which}: no such file, and not a pipeline name`);
  const local = chooseTarget({ url: 'local', data, namespace: '' });
  return { name: which, stateFile: local.stateFile };
}

async function findDefinition(name: string, io: CliIO): Promise<string | undefined> {
  const folder = resolve('pipelines');
  if (!existsSync(folder)) return undefined;
  for (const entry of (await readdir(folder)).sort()) {
    if (!/\.(ya?ml|json)$/.test(entry) || entry.endsWith('.schema.json')) continue;
    const checked = await checkPipelineFile(join(folder, entry), io.env, { allowMissingEnv: true });
    if (checked.name === name) return join(folder, entry);
  }
  return undefined;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string', default: DEFAULT_DATA },
      database: { type: 'string' },
      runs: { type: 'string', default: '5' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

function usage(io: CliIO, message: string): number {
  io.stderr.write(`state: ${message}\n\n${HELP}\n`);
  return 2;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
