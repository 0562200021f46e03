/** What the PostgreSQL store does to SQL text without a database: placeholders and store names. */
import { describe, expect, it } from 'vitest';
import { isDatabaseUrl, storeName } from '../../src/store/open.ts';
import { numbered } from '../../src/store/postgres-connection.ts';

describe('PostgreSQL SQL text', () => {
  it('numbers ? placeholders in order, leaving those in quoted literals and identifiers alone', () => {
    expect(
      numbered(`SELECT 1 FROM t WHERE a = ? AND b LIKE ? ESCAPE '\\' AND c = '?' AND "d?" IN (?, ?)`),
    ).toBe(`SELECT 1 FROM t WHERE a = $1 AND b LIKE $2 ESCAPE '\\' AND c = '?' AND "d?" IN ($3, $4)`);
  });

  it('--data is a PostgreSQL database only as a postgres:// or postgresql:// URL; its password is never shown', () => {
    expect(isDatabaseUrl('postgres://u@h/db')).toBe(true);
    expect(isDatabaseUrl('postgresql://u@h/db')).toBe(true);
    expect(isDatabaseUrl('data/postgres.db')).toBe(false);
    expect(storeName('postgres://u:secret@127.0.0.1:5432/db')).toBe('postgres://u:***@127.0.0.1:5432/db');
  });
});
