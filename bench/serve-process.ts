/**
 * What the server benchmarks (bench/server.ts, bench/export.ts) share: an editor with an application
 * password written into the store before the server opens it, and `src/cli/serve.ts` in a child process
 * (so that the load generator's CPU and heap do not count against it), started on a free loopback port
 * and stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createAppPassword } from '../src/server/auth/app-passwords.ts';
import type { Store } from '../src/store/store.ts';
import { eventBodies } from './event-bodies.ts';
import { load } from './load.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** An editor `bench` in `store`: its application password and `Authorization` header (HTTP Basic). */
export async function benchEditor(
  store: Store,
): Promise<{ login: string; password: string; authorization: string }> {
  const user = await store.insertUser({
    login: 'bench',
    email: 'bench@example.org',
    role: 'editor',
    display_name: 'Bench',
  });
  const { password } = await createAppPassword(store, user, 'bench', '2026-01-01 00:00:00');
  return {
    login: 'bench',
    password,
    authorization: `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`,
  };
}

export interface ServeProcessOptions {
  dataFile: string;
  /** serve's options besides --port and --data. */
  args?: string[];
  /** serve's LOG_LEVEL: `info`, its default, logs two lines per request, which is not what is measured. */
  logLevel?: string;
  /** Write CPU profiles of the server into this folder (`--cpu-prof`). */
  cpuProfDir?: string;
  /** Copy the server's other stdout lines (its logs) to stderr, prefixed `server: `. */
  echo?: boolean;
  /** More Node flags for the server process (`--import` of a probe, say). */
  nodeFlags?: string[];
  /**
   * Every other stdout line of the server (its NDJSON log, what it prints on start), as it comes: a
   * request log to count.
   */
  onLine?: (line: string) => void;
}

export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`, as serve printed it. */
  origin: string;
}

/** Starts `serve.ts --port 0` and waits (up to 20 s) for the address it prints. */
export async function startServe(options: ServeProcessOptions): Promise<ServeProcess> {
  const flags = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(options.cpuProfDir)] : [];
  flags.push(...(options.nodeFlags ?? []));
  const serve = ['--port', '0', '--data', options.dataFile, ...(options.args ?? [])];
  const child = spawn(process.execPath, [...flags, join(ROOT, 'src/cli/serve.ts'), ...serve], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: options.logLevel ?? 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const origin = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error('the server printed no address within 20 s'));
    }, 20_000);
    child.once('exit', (code) => fail(new Error(`the server exited with code ${code} before listening`)));
    let found = false;
    lines.on('line', (line) => {
      const m = found ? null : /at (http:\/\/\S+?)\/calendar\/events\/v1/.exec(line);
      if (m) {
        found = true;
        clearTimeout(timer);
        done(m[1]);
        return;
      }
      options.onLine?.(line);
      if (options.echo) process.stderr.write(`server: ${line}\n`);
    });
  });
  return { child, origin };
}

/** SIGTERM, and SIGKILL if it has not exited within 15 s. */
export async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** `amount` varied events (bench/event-bodies.ts, next year) created through the API, 16 at a time. */
export async function seedEvents(origin: string, authorization: string, amount: number): Promise<void> {
  const next = eventBodies(new Date().getUTCFullYear() + 1);
  const seeded = await load({
    origin,
    connections: 16,
    amount,
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    next: () => ({ path: '/calendar/events/v1/events', body: next() }),
  });
  if (seeded.non2xx + seeded.errors > 0)
    throw new Error(`seeding failed: ${JSON.stringify(seeded.status_codes)}`);
}
