import { defineConfig } from 'vitest/config';
import { shared } from '../vitest.config.ts';
export default defineConfig({
  root: '/work/wt-a',
  test: { ...shared, include: ['test/server/*.test.ts', 'test/server/formats/**/*.test.ts', 'test/export/**/*.test.ts'], globalSetup: ['test/helpers/pg-global-setup.ts'], isolate: false, maxWorkers: 2 },
});
