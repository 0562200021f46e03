/**
 * The hashes kept in every sync state: an entity whose canonical form has not changed must hash as it did
 * when it was written, or the next run updates every item of every target. Pinned values, taken before
 * `stableJson` was rewritten as loops (it must keep making the same bytes).
 */
import { hash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, canonicalHash, hashOf, stableJson } from '../../src/pipeline/desired.ts';

/** The hash as stableJson's bytes make it: what hashOf gives, whichever way it writes the JSON. */
const reference = (value: unknown) => hash('sha256', stableJson(value) as string, 'base64url').slice(0, 22);

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

  it('hashes as stableJson writes, for any JSON-like value (numeric keys, undefined members, lone surrogates, nesting)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('10', '9', 'refs', 'a', 'B', 'é', '\ud800', 'toJSON'));
    const leaf = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.double(),
      fc.integer(),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 8 }),
    }));
    fc.assert(
      fc.property(value, (v) => {
        if (v === undefined) return;
        expect(hashOf(v)).toBe(reference(v));
      }),
      { numRuns: 3000 },
    );
    const fields = fc.dictionary(key, value, { maxKeys: 8 });
    const refs = fc.record(
      { venue: fc.string(), categories: fc.array(fc.string()), tags: fc.array(fc.string()) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fields, refs, (f, r) => {
        expect(canonicalHash({ fields: f, refs: r })).toBe(reference(canonical({ fields: f, refs: r })));
      }),
      { numRuns: 2000 },
    );
  });
});
