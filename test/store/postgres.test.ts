/**
 * The store contract on PostgreSQL (a private cluster, test/helpers/postgres.ts), and what is the
 * PostgreSQL store's own: its migrations. Skipped, saying why, where PostgreSQL is not installed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.ts';
import { openPostgresStore } from '../../src/store/postgres.ts';
import { PG_MIGRATIONS } from '../../src/store/postgres-schema.ts';
import { postgresMissing } from '../helpers/postgres.ts';
import { type PostgresStores, startPostgresStores } from '../helpers/postgres-store.ts';
import { eventOn, eventQuery } from './contract/fixtures.ts';
import { describeStoreContract } from './store-contract.ts';

const missing = postgresMissing();
if (missing) console.warn(`test/store/postgres.test.ts skipped: ${missing}`);

describe.skipIf(missing)('PostgreSQL store', () => {
  let stores: PostgresStores;
  beforeAll(async () => {
    stores = await startPostgresStores();
  }, 60_000);
  afterAll(async () => stores?.stop());

  describeStoreContract('PostgreSQL', () => stores.open());

  it('data survives closing and reopening, and the id sequence goes on', async () => {
    const url = await stores.newDatabase();
    const first = await openPostgresStore(url);
    const event = await first.insertEvent(eventOn(10, 10, { title: 'Kept' }));
    await first.close();
    const again = await openPostgresStore(url);
    expect(await again.getEvent(event.id)).toEqual(event);
    expect((await again.listEvents(eventQuery({ searchWords: ['kept'] }))).total).toBe(1);
    expect((await again.insertEvent(eventOn(11))).id).toBe(event.id + 1);
    await again.close();
  });

  it('a fresh database is migrated to the latest version; one written by a newer calsync is refused', async () => {
    const url = await stores.newDatabase();
    await (await openPostgresStore(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT max(version) AS v FROM calsync_schema');
      expect(rows[0].v).toBe(PG_MIGRATIONS.at(-1)!.version);
      await client.query("INSERT INTO calsync_schema VALUES (999, 'from the future', '2030-01-01 00:00:00')");
    } finally {
      await client.end();
    }
    const error = await openPostgresStore(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('store-schema-too-new');
  });

  it('a database that cannot be reached is store-unusable, its password not shown', async () => {
    const url = stores.url.replace('calsync@', 'calsync:secret@').replace(/\/postgres$/, '/no_such_db');
    const error = await openPostgresStore(url).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('store-unusable');
    expect((error as StoreError).message).not.toContain('secret');
  });
});
