#!/usr/bin/env node
/**
 * `calsync <command> [options]` (`npx calsync import club.ics`): runs src/cli/<command>.ts under the Node
 * 24 that calsync pins (the `node` package among its dependencies), whatever Node started this file —
 * an older system Node cannot run TypeScript. Plain JavaScript that any Node since 18 can read; it only
 * starts the real command and passes its exit code (or signal) on.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version, scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

const COMMANDS = ['import', 'sync', 'plan', 'validate', 'state', 'export', 'serve', 'users', 'schema'];

const USAGE = `Usage: calsync <command> [options]   (calsync <command> --help for its options)

Commands:
  import <file|URL>      import an .ics or CSV file or feed into the local store or a calendar API
  sync <pipeline.yaml…>  run pipelines; plan <pipeline.yaml…> shows what they would do
  validate, state        check pipeline files; look at and repair their sync state
  export                 events out as an .ics feed or CSV
  serve                  the calendar API, its pages and feeds on http://127.0.0.1:8080
  users, schema          users and application passwords; the pipeline JSON Schema

calsync ${version}`;

const [command, ...args] = process.argv.slice(2);
if (command === '--version') {
  process.stdout.write(`calsync ${version}\n`);
  process.exit(0);
}
if (command === undefined || command === '--help' || command === '-h') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(command === undefined ? 2 : 0);
}
if (!COMMANDS.includes(command)) {
  process.stderr.write(`calsync: no command "${command}"\n\n${USAGE}\n`);
  process.exit(2);
}

const node = pinnedNode();
const child = spawn(
  node,
  [
    // Installed in a node_modules folder, where Node strips no types: strip-types.js does it for calsync's
    // own files (with Node's stripper, which warns that it is experimental; the warning is for us, not users).
    ...(ROOT.split(sep).includes('node_modules')
      ? [
          '--disable-warning=ExperimentalWarning',
          '--import',
          new URL('./strip-types.js', import.meta.url).href,
        ]
      : []),
    // Node's compile cache, turned on before the command's first .ts file loads (compile-cache.js).
    '--import',
    new URL('./compile-cache.js', import.meta.url).href,
    ...scriptFlags(command),
    join(ROOT, 'src', 'cli', `${command}.ts`),
    ...args,
  ],
  { stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});

/**
 * The Node flags `npm run <command>` gives the command: the words of its package.json script between
 * `node` and the file, but for the compile cache's `--import`, added above with this folder's path.
 */
function scriptFlags(command) {
  const words = (scripts[command] ?? '').trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== `src/cli/${command}.ts`) return [];
  const flags = words.slice(1, -1);
  return flags.filter((word, i) => word !== '--import' && flags[i - 1] !== '--import');
}

/** The pinned Node's binary; else this Node if it strips types itself (22.18 and later). */
function pinnedNode() {
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
    if (existsSync(bin)) return bin;
  } catch {
    // not installed (e.g. --omit=optional or a copied folder): try the Node running this file
  }
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return process.execPath;
  process.stderr.write(
    `calsync: needs Node.js 22.18 or newer (it pins Node 24 through its "node" dependency, which is not installed); this is Node ${process.version}\n`,
  );
  process.exit(2);
}
