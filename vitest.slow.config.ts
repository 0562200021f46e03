import { defineConfig } from 'vitest/config';
import { SLOW, shared } from './vitest.config.ts';

/** `npm run test:slow`: the suites `npm test` leaves out, one file at a time (they start real servers). */
export default defineConfig({
  test: { ...shared, include: SLOW, fileParallelism: false },
});
