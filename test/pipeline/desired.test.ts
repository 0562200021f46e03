/**
 * The hashes kept in every sync state: an entity whose canonical form has not changed must hash as it did
 * when it was written, or the next run updates every item of every target. Pinned values, taken before
 * `stableJson` was rewritten as loops (it must keep making the same bytes).
 */
import { describe, expect, it } from 'vitest';
import { canonical, hashOf } from '../../src/pipeline/desired.ts';

describe('hashOf', () => {
  it('gives the hashes sync states hold: sorted keys (UTF-16 order, numeric-looking ones too), undefined left out', () => {
    const values: unknown[] = [
      {
        title: 'Jazz Night',
        start_date: '2027-03-01 19:00:00',
        all_day: false,
        cost: '',
        z: null,
        a: undefined,
        n: 3.5,
        '10': 'x',
        '9': 'y',
        é: 1,
        B: 2,
        b: [1, 'two', { y: 1, x: [true] }],
      },
      canonical({
        fields: { title: 'T', description: '<p>A &amp; B</p>' },
        refs: { venue: 'v', categories: ['music', 'jazz'], tags: [] },
      }),
      [1, undefined, null, 'a'],
      'plain',
      0,
    ];
    expect(values.map(hashOf)).toEqual([
      'P-IWkExgdTkOsrwhgQASvB',
      '8cg10OS8QB7BTXKm3vL3Ab',
      'Kji3qAT92bNRofnSQhcmVb',
      'lFYDqPWHeGtGPD-U_OEVwP',
      'X-zrZv_IbzjZUnhsbWlsec',
    ]);
  });

  it('does not depend on the order keys were set in', () => {
    expect(hashOf({ b: 1, a: { d: [2], c: 3 } })).toBe(hashOf({ a: { c: 3, d: [2] }, b: 1 }));
  });
});
