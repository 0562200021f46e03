import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/server/store/errors.ts';
import { MIGRATIONS, type Migration, migrate, schemaVersion } from '../../../src/server/store/migrations.ts';
import { openSqliteStore } from '../../../src/server/store/sqlite.ts';
import { eventOn, eventQuery } from './contract/fixtures.ts';
import { describeStoreContract } from './store-contract.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
/** A path in a folder that does not exist yet. */
function newPath(): string {
  files++;
  return join(root, `case-${files}`, 'data', 'calsync.db');
}

describeStoreContract('SQLite file', () => openSqliteStore(newPath()));
describeStoreContract('SQLite in-memory', () => openSqliteStore(':memory:'));

function errorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a StoreError, got none');
}

describe('SQLite store files', () => {
  it('data survives closing and reopening the file', () => {
    const path = newPath();
    const first = openSqliteStore(path);
    const event = first.insertEvent(eventOn(10, 10, { title: 'Kept' }));
    first.close();
    const again = openSqliteStore(path);
    expect(again.getEvent(event.id)).toEqual(event);
    expect(again.listEvents(eventQuery({ searchWords: ['kept'] })).total).toBe(1);
    // The id sequence goes on where it stopped.
    expect(again.insertEvent(eventOn(11)).id).toBe(event.id + 1);
    again.close();
  });

  it('a fresh file is migrated to the latest schema version, in WAL mode', () => {
    const path = newPath();
    openSqliteStore(path).close();
    const db = new DatabaseSync(path);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    db.close();
  });

  it('a file written by a newer calsync is refused with store-schema-too-new', () => {
    const path = newPath();
    openSqliteStore(path).close();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.at(-1)!.version + 1}`);
    db.close();
    const error = errorOf(() => openSqliteStore(path));
    expect(error.code).toBe('store-schema-too-new');
    expect(error.path).toBe(path);
  });

  it('an old file is upgraded step by step; a failing step rolls back and keeps the old version', () => {
    const db = new DatabaseSync(':memory:');
    const steps: Migration[] = [
      { version: 1, description: 'table a', up: (d) => d.exec('CREATE TABLE a (x INTEGER)') },
      { version: 2, description: 'table b', up: (d) => d.exec('CREATE TABLE b (y INTEGER)') },
    ];
    expect(migrate(db, steps.slice(0, 1))).toEqual([1]);
    expect(migrate(db, steps)).toEqual([2]);
    expect(migrate(db, steps)).toEqual([]);
    const broken: Migration = {
      version: 3,
      description: 'broken',
      up: (d) => {
        d.exec('CREATE TABLE c (z INTEGER)');
        throw new Error('disk on fire');
      },
    };
    expect(errorOf(() => migrate(db, [...steps, broken])).code).toBe('store-migration-failed');
    expect(schemaVersion(db)).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'c'").get()).toBeUndefined();
    db.close();
  });

  it('writes by another connection are seen at once, remembered totals included', () => {
    const path = newPath();
    const reader = openSqliteStore(path);
    const writer = openSqliteStore(path);
    writer.insertEvent(eventOn(10));
    writer.insertEvent(eventOn(11));
    const q = eventQuery({ limit: 1 });
    expect(reader.listEvents(q).total).toBe(2);
    writer.insertEvent(eventOn(12, 10, { title: 'Late' }));
    expect(reader.listEvents(q).total).toBe(3);
    expect(reader.listEvents(eventQuery({ searchWords: ['late'] })).total).toBe(1);
    reader.close();
    writer.close();
  });

  it('transaction refuses an async function', async () => {
    const store = openSqliteStore(':memory:');
    const error = errorOf(() => store.transaction(async () => store.insertEvent(eventOn(10))));
    expect(error.code).toBe('store-async-transaction');
    expect(store.listEvents(eventQuery()).total).toBe(0);
    store.close();
  });

  it('close is idempotent', () => {
    const store = openSqliteStore(':memory:');
    store.close();
    expect(() => store.close()).not.toThrow();
  });
});
