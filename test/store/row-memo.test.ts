/**
 * RowMemo's bound (src/store/row-memo.ts): records read by id are kept up to `max`, and a read of more
 * than `max` at once (a feed of every event of a large calendar) keeps none of them, instead of keeping
 * them all past the bound for as long as their tables do not change; nor do the pages of such a read.
 */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/store/connection.ts';
import { RowMemo } from '../../src/store/row-memo.ts';

function memoOf(max: number) {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
  const loads: number[][] = [];
  const memo = new RowMemo<{ id: number }>(new Connection(db), ['t'], 'unchanged', max);
  const read = (ids: number[], partOf?: number) =>
    [
      ...memo
        .read(
          ids,
          (missing) => {
            loads.push(missing);
            return missing.map((id) => ({ id }));
          },
          false,
          partOf,
        )
        .keys(),
    ].sort((a, b) => a - b);
  return { read, loads };
}

describe('records kept by id', () => {
  it('reads a record once while it is kept', () => {
    const { read, loads } = memoOf(3);
    expect(read([1, 2])).toEqual([1, 2]);
    expect(read([2, 1])).toEqual([1, 2]);
    expect(loads).toEqual([[1, 2]]);
  });

  it('keeps none of a read larger than its bound, and keeps the next small one', () => {
    const { read, loads } = memoOf(3);
    expect(read([1, 2, 3, 4, 5])).toEqual([1, 2, 3, 4, 5]);
    expect(read([1, 2])).toEqual([1, 2]);
    expect(read([1, 2])).toEqual([1, 2]);
    expect(loads).toEqual([
      [1, 2, 3, 4, 5],
      [1, 2],
    ]);
  });

  it('keeps none of the pages of a read larger than its bound, and pushes nothing out for them', () => {
    const { read, loads } = memoOf(3);
    expect(read([1])).toEqual([1]);
    // Pages of a read of 6 (a feed of more events than the memo holds).
    expect(read([2, 3], 6)).toEqual([2, 3]);
    expect(read([4, 5], 6)).toEqual([4, 5]);
    expect(read([2, 3], 6)).toEqual([2, 3]);
    expect(read([1])).toEqual([1]);
    expect(loads).toEqual([[1], [2, 3], [4, 5], [2, 3]]);
  });
});
