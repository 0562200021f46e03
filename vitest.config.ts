import { configDefaults, defineConfig } from 'vitest/config';

/** Suites behind `npm run test:slow` (vitest.slow.config.ts): the real TEC site, long crash and fault runs. */
export const SLOW = ['test/real-tec/**/*.test.ts', 'test/**/*.slow.test.ts'];
/**
 * Suites of `npm run test:pg` (vitest.pg.config.ts) alone: the store contract on PostgreSQL (~25 s at
 * load 7: each test empties a database), serve/users and demo mode for real on a database. The route suites run
 * there too, on PostgreSQL.
 */
export const PG = [
  'test/store/postgres.test.ts',
  'test/server/serve-postgres.test.ts',
  'test/server/several-servers.test.ts',
  'test/embedded/demo-postgres.test.ts',
];

export const shared = {
  // Tests must not depend on the host's zone (spec/pipeline.md): run them east of UTC.
  env: { TZ: 'Asia/Kolkata' },
  testTimeout: 20_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SLOW, ...PG],
    // Files share a worker (and its warm module graph and JIT) instead of a new process each: measured
    // 134 → 79 s for the 18 route and format files at load 7. Safe because every file cleans up what it
    // starts (servers, temp folders, process groups) and restores what it changes (env, spies).
    isolate: false,
    // Two workers on this 2-core machine (vitest's default is cores − 1, one): most of a test's time is
    // waiting on a socket, a child process or Chromium, so a second file runs in that time.
    maxWorkers: 2,
  },
});
