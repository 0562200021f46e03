import { configDefaults, defineConfig } from 'vitest/config';

/** Suites behind `npm run test:slow` (vitest.slow.config.ts): the real TEC site, long crash and fault runs. */
export const SLOW = ['test/real-tec/**/*.test.ts', 'test/**/*.slow.test.ts'];

export const shared = {
  // Tests must not depend on the host's zone (spec/pipeline.md): run them east of UTC.
  env: { TZ: 'Asia/Kolkata' },
  testTimeout: 20_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: { ...shared, include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW] },
});
