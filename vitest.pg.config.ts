import { defineConfig } from 'vitest/config';
import { PG, shared } from './vitest.config.ts';

/**
 * `npm run test:pg`: the store contract and the API's route, response cache and feed suites on PostgreSQL. One cluster for the
 * run (test/helpers/pg-global-setup.ts); the harness builds each app on an emptied database of it.
 */
export default defineConfig({
  test: {
    ...shared,
    // The routes, the response cache by table, and the feeds (SEQUENCE and tombstones come from triggers).
    include: [
      ...PG,
      'test/server/routes/**/*.test.ts',
      'test/server/response-cache.test.ts',
      'test/server/feed*.test.ts',
    ],
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    isolate: false,
    maxWorkers: 2,
  },
});
