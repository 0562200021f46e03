/**
 * Query strings and form bodies (src/server/body.ts): flat ones are split without qs, to exactly the
 * object qs makes; anything else is qs's.
 */
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { parseNested } from '../../src/server/body.ts';

const viaQs = (s: string) => qs.parse(s, { arrayLimit: 1000, depth: 5, parameterLimit: 5000 });

describe('parseNested', () => {
  it('reads flat and nested query strings as qs does', () => {
    const cases = [
      '',
      'page=2&per_page=50',
      'search=pier&page=1',
      'a',
      'a=',
      'a=b=c',
      '&&a=1&',
      '=x&b=2',
      'toString=1&__proto__=2&hasOwnProperty=3&ok=4',
      'a=1&a=2',
      'a=1&a=2&a=3',
      'categories=1,2,3',
      'start_date=2026-12-01&end_date=2027.01.01~x',
      'status[]=draft&status[]=publish',
      'venue[venue]=Pier+7',
      'search=caf%C3%A9',
      'status=publish%2Cfuture%2Cdraft&start_date=1900-01-01&per_page=50',
      'a=%E9&b=%&c=%2&d=1+2%2B3',
      'a%20b=1',
      'x=1&a%5B%5D=2',
      'q=%5Bb%5D',
      'toString=%41',
      `${Array.from({ length: 5001 }, (_, i) => `k${i}=${i}`).join('&')}`,
    ];
    for (const s of cases) expect(parseNested(s), s).toStrictEqual(viaQs(s));
  });

  it('agrees with qs on random flat strings', () => {
    const alphabet = 'ab0_-.,~=&%+2CE9F';
    let seed = 17;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      const s = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      expect(parseNested(s), s).toStrictEqual(viaQs(s));
    }
  });
});
