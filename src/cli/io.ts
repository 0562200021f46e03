/** The process globals a command uses, passed in so that tests run commands without spies. */
export interface CliIO {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

const processIO = (): CliIO => ({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});

/** Runs a command's `main` as the program: its exit code is the process's. */
export async function runMain(main: (io: CliIO) => Promise<number>): Promise<void> {
  process.exitCode = await main(processIO());
}
