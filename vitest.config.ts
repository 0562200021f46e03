import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests must not depend on the host's zone (spec/pipeline.md): run them east of UTC.
    env: { TZ: 'Asia/Kolkata' },
    testTimeout: 20_000,
    pool: 'forks',
  },
});
