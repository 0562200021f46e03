import { defineConfig } from 'vitest/config';
import { SLOW, shared } from './vitest.config.ts';

/** `npm run test:slow`: the suites `npm test` leaves out, one file at a time (they start real servers). */
export default defineConfig({
  test: {
    ...shared,
    include: SLOW,
    fileParallelism: false,
    globalSetup: ['test/real-tec/global-setup.ts'],
    // A WordPress write takes 130–600 ms; the longest tests import the whole sample (~500 writes).
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
