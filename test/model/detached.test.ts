/**
 * `detached` (src/model/detached.ts): a key kept across a run does not keep the piece of text it was cut
 * from, and equals the substring it copies.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detached } from '../../src/model/detached.ts';

const MODULE = join(import.meta.dirname, '..', '..', 'src', 'model', 'detached.ts');

/** MB of heap still used after keeping one 40-character substring of each of 20 pieces of 1 MB. */
function heldMb(copy: boolean): number {
  const script = `
    const { detached } = await import(${JSON.stringify(MODULE)});
    const kept = [];
    for (let i = 0; i < 20; i++) {
      const piece = String(i).padEnd(1_000_000, 'abcdefghij');
      const key = piece.slice(500, 540);
      kept.push(${copy} ? detached(key) : key);
    }
    globalThis.gc();
    console.log(process.memoryUsage().heapUsed / 1e6, kept.length);`;
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return Number(run.stdout.split(' ')[0]);
}

describe('detached', () => {
  it('keeps the substring, not the text around it', () => {
    expect(heldMb(false)).toBeGreaterThan(15);
    expect(heldMb(true)).toBeLessThan(10);
  });

  it('equals what it copies, lone surrogates and short strings included', () => {
    for (const s of ['', 'short', 'Konzert im Park: Jazz & Blues', 'x\ud800y'.repeat(10), '😀'.repeat(20)])
      expect(detached(s)).toBe(s);
  });
});
