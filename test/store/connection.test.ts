/**
 * The SQLite connection's transactions when SQLite rolls a transaction back on its own: on SQLITE_FULL
 * (here `max_page_count`, as a full disk does) the whole transaction is gone, savepoints and all. A group
 * commit (the local import target) must then fail every request of the group with the disk's error, not
 * commit half of it outside the group or die on "cannot commit - no transaction is active".
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/store/connection.ts';
import { storageFault } from '../../src/store/errors.ts';

function fullAfterAFewPages(): Connection {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (x TEXT)');
  db.exec('PRAGMA max_page_count = 20');
  return new Connection(db);
}

const fill = (c: Connection) => {
  for (let i = 0; i < 1_000; i++) c.run('INSERT INTO t VALUES (?)', ['x'.repeat(1_000)]);
};
const rows = (c: Connection) => (c.db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;

describe('a transaction SQLite rolled back on a full disk', () => {
  it('fails the rest of its group with the disk error, and the group commit with it', () => {
    const c = fullAfterAFewPages();
    c.beginGroup();
    c.transaction(() => c.run('INSERT INTO t VALUES (?)', ['kept until the disk filled']));
    const full = (() => {
      try {
        c.transaction(() => fill(c));
      } catch (error) {
        return error;
      }
    })();
    expect(storageFault(full)).toBe('full');
    // A later request of the same group does not write outside it: it fails with the same cause.
    expect(() => c.transaction(() => c.run('INSERT INTO t VALUES (?)', ['after']))).toThrow(full as Error);
    expect(() => c.commitGroup()).toThrow(full as Error);
    expect(rows(c)).toBe(0);
    // The next group starts clean once there is room again.
    c.db.exec('PRAGMA max_page_count = 100000');
    c.beginGroup();
    c.transaction(() => c.run('INSERT INTO t VALUES (?)', ['next']));
    c.commitGroup();
    expect(rows(c)).toBe(1);
  });

  it('outside a group, fails the outer transaction with the disk error', () => {
    const c = fullAfterAFewPages();
    expect(() =>
      c.transaction(() => {
        c.run('INSERT INTO t VALUES (?)', ['outer']);
        c.transaction(() => fill(c));
      }),
    ).toThrow(/database or disk is full/);
    expect(c.inTransaction).toBe(false);
    expect(rows(c)).toBe(0);
  });
});

describe('rows kept across transactions (getInTransaction)', () => {
  const SQL = 'SELECT id, name FROM v WHERE id = ?';
  const read = (c: Connection, id: number) =>
    c.getInTransaction<{ id: number; name: string }>(`v ${id}`, 'v', SQL, [id])?.name;
  const setUp = () => {
    const file = join(mkdtempSync(join(tmpdir(), 'calsync-kept-')), 'kept.db');
    const db = new DatabaseSync(file);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('CREATE TABLE v (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE o (id INTEGER PRIMARY KEY)');
    const c = new Connection(db);
    c.run('INSERT INTO v VALUES (1, ?)', ['first']);
    return { c, other: new DatabaseSync(file) };
  };

  it('reads again after a write of the table, a rolled-back savepoint, and another connection’s commit', () => {
    const { c, other } = setUp();
    c.beginGroup();
    expect(read(c, 1)).toBe('first');
    expect(read(c, 2)).toBeUndefined();
    c.run('INSERT INTO o VALUES (1)'); // another table: what was kept stays good
    expect(read(c, 1)).toBe('first');
    c.transaction(() => c.run('UPDATE v SET name = ? WHERE id = 1', ['renamed']));
    expect(read(c, 1)).toBe('renamed');
    expect(() =>
      c.transaction(() => {
        c.run('INSERT INTO v VALUES (2, ?)', ['rolled back']);
        expect(read(c, 2)).toBe('rolled back');
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(read(c, 2)).toBeUndefined();
    c.commitGroup();

    // Outside a transaction another connection may write at any time: nothing kept is used.
    other.prepare("UPDATE v SET name = 'by another connection' WHERE id = 1").run();
    expect(read(c, 1)).toBe('by another connection');
    // A commit of another connection between two transactions: the next one reads again.
    c.transaction(() => expect(read(c, 1)).toBe('by another connection'));
    other.prepare("UPDATE v SET name = 'again' WHERE id = 1").run();
    c.transaction(() => expect(read(c, 1)).toBe('again'));
    other.close();
    c.close();
  });
});

describe("one look per turn for a server's socket requests (lookThisTurn)", () => {
  const setUp = () => {
    const file = join(mkdtempSync(join(tmpdir(), 'calsync-turn-')), 'turn.db');
    const db = new DatabaseSync(file);
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE v (id INTEGER PRIMARY KEY, name TEXT)');
    return { c: new Connection(db), other: new DatabaseSync(file) };
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("serves the turn's reads outside a transaction; the next turn, a transaction and its own writes look again", async () => {
    const { c, other } = setUp();
    const first = c.lookThisTurn();
    other.prepare("INSERT INTO v VALUES (1, 'by another connection')").run();
    // Later in the same turn: as of the turn's look.
    expect(c.dataVersion()).toBe(first);
    expect(c.lookThisTurn()).toBe(first);
    // A caller that must not share the turn's look (an injected request) looks now.
    const now = c.dataVersion(0, false);
    expect(now).toBeGreaterThan(first);
    other.prepare("INSERT INTO v VALUES (2, 'later still')").run();
    expect(c.dataVersion()).toBe(now);
    // A transaction's kept rows must be as of its snapshot: it looks.
    const inside = c.transaction(() => c.dataVersion());
    expect(inside).toBeGreaterThan(now);
    await nextTurn();
    const second = c.lookThisTurn();
    other.prepare("UPDATE v SET name = 'again' WHERE id = 1").run();
    expect(c.dataVersion()).toBe(second);
    await nextTurn();
    // Without a look this turn every read looks.
    expect(c.dataVersion()).toBeGreaterThan(second);
    const third = c.dataVersion();
    other.prepare("UPDATE v SET name = 'once more' WHERE id = 1").run();
    expect(c.dataVersion()).toBeGreaterThan(third);
    // This connection's own writes count at once, looked this turn or not.
    const fourth = c.lookThisTurn();
    c.run("UPDATE v SET name = 'own' WHERE id = 1");
    expect(c.dataVersion()).toBeGreaterThan(fourth);
    other.close();
    c.close();
  });
});
