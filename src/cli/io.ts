/**
 * The process globals a command uses, passed in so that tests run commands without spies, and the flags
 * every command takes: `--version` and `--debug`.
 */
import { readFileSync } from 'node:fs';

export interface CliIO {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /** `--debug`: every log line with its fields, and the stack of any error. */
  debug?: boolean;
}

/** calsync's version, from its package.json (the one `npm pack` ships). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const processIO = (): CliIO => ({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});

/**
 * A command's `main` with the flags every command shares, taken off its arguments before its own parser
 * sees them: `--version` prints `calsync 0.1.0 (Node v24.…)` and exits 0, `--debug` sets `io.debug`.
 * Arguments after `--` are left alone.
 */
export function withCommonFlags(run: (io: CliIO) => Promise<number>): (io: CliIO) => Promise<number> {
  return async (io) => {
    const end = io.argv.indexOf('--');
    const own = end === -1 ? io.argv : io.argv.slice(0, end);
    const rest = end === -1 ? [] : io.argv.slice(end);
    if (own.includes('--version')) {
      io.stdout.write(`calsync ${VERSION} (Node ${process.version})\n`);
      return 0;
    }
    const debug = io.debug === true || own.includes('--debug');
    return run({ ...io, argv: [...own.filter((a) => a !== '--debug'), ...rest], debug });
  };
}

/** Runs a command's `main` as the program: its exit code is the process's. */
export async function runMain(main: (io: CliIO) => Promise<number>): Promise<void> {
  process.exitCode = await main(processIO());
}
