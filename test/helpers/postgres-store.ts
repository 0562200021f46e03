/**
 * Fresh PostgreSQL stores for tests, on a private cluster (postgres.ts): a database migrated once as a
 * template, and for each store a database of this process emptied for it. Creating a database (`CREATE
 * DATABASE … TEMPLATE`) took 0.5–1.2 s at load 6 on this machine, so a database whose store was closed
 * is emptied (`TRUNCATE … RESTART IDENTITY`: no rows, ids from 1, ~20 ms) and given to the next store;
 * a new one is created only while every one is in use.
 *
 * `startPostgresStores()` starts its own cluster (a test file); `postgresStoresAt(url)` uses a cluster
 * started by the run (pg-global-setup.ts, `npm run test:pg`).
 */
import pg from 'pg';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres.ts';
import { startPostgres } from './postgres.ts';

export interface PostgresStores {
  /** The cluster's `postgres` database. */
  url: string;
  /** The URL of a new database, a copy of the migrated template. */
  newDatabase(): Promise<string>;
  /** A store on an empty database; the database is reused once the store is closed. */
  open(): Promise<PostgresStore>;
  stop(): Promise<void>;
}

export const TEMPLATE = 'calsync_template';
/** Databases made by this process, over all its `PostgresStores` (their names must differ). */
let made = 0;

/** Creates the migrated template database in the cluster at `url` (its `postgres` database). */
export async function createTemplate(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  await (await openPostgresStore(databaseUrl(url, TEMPLATE))).close();
}

function databaseUrl(url: string, name: string): string {
  return url.replace(/\/[^/]*$/, `/${name}`);
}

/** Stores on the cluster at `url`, which has the template (`createTemplate`). */
export async function postgresStoresAt(
  url: string,
  stopCluster?: () => Promise<void>,
): Promise<PostgresStores> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const free: string[] = [];
  const newDatabase = async () => {
    const name = `store_${process.pid}_${++made}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
    return databaseUrl(url, name);
  };
  const emptied = async (database: string) => {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query<{ t: string }>(
        "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'calsync_schema'",
      );
      await client.query(`TRUNCATE ${rows.map((r) => r.t).join(', ')} RESTART IDENTITY CASCADE`);
    } finally {
      await client.end();
    }
    return database;
  };
  return {
    url,
    newDatabase,
    async open() {
      const database = free.length > 0 ? await emptied(free.pop()!) : await newDatabase();
      const store = await openPostgresStore(database);
      // The database goes back to the free list when the store is closed (by the test or its app).
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        if (!free.includes(database)) free.push(database);
      };
      return store;
    },
    async stop() {
      await admin.end();
      await stopCluster?.();
    },
  };
}

/** A private cluster with the template, for one test file. */
export async function startPostgresStores(): Promise<PostgresStores> {
  const cluster = await startPostgres();
  try {
    await createTemplate(cluster.url);
    return await postgresStoresAt(cluster.url, () => cluster.stop());
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
