/**
 * `npm run test:pg` (vitest.pg.config.ts): one private PostgreSQL cluster for the run, with the migrated
 * template (postgres-store.ts), told to the test files as `inject('postgresUrl')`; the harness then
 * builds every app on a PostgreSQL store (test/server/harness.ts). Without PostgreSQL the run fails,
 * saying what to install: this command exists to test on it.
 */
import type { TestProject } from 'vitest/node';
import { postgresMissing, startPostgres } from './postgres.ts';
import { createTemplate } from './postgres-store.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | undefined;
  }
}

export default async function setup(project: TestProject) {
  const missing = postgresMissing();
  if (missing) throw new Error(`npm run test:pg: ${missing}`);
  const cluster = await startPostgres();
  try {
    await createTemplate(cluster.url);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
