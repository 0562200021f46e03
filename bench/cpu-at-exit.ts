/**
 * Loaded into a benchmark's child process (`node --import ./bench/cpu-at-exit.ts`, bench/import.ts): writes
 * the process's CPU time (user and system, all threads, seconds) as JSON to `$CALSYNC_BENCH_CPU_FILE` when
 * it exits, so that a figure measured on a busy machine can be compared by CPU instead of wall time.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.CALSYNC_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ user_s: user / 1e6, system_s: system / 1e6 }));
  });
}
