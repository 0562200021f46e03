import { describe, expect, it } from 'vitest';
import { type Encoding, toUtf8 } from '../../../src/sources/csv/decode.ts';
import { inChunks } from './helpers.ts';

async function decode(bytes: Uint8Array, size: number, encoding: Encoding = 'auto') {
  let warnings = 0;
  const parts: Buffer[] = [];
  for await (const part of toUtf8(inChunks(bytes, size), encoding, () => warnings++)) parts.push(part);
  return { text: Buffer.concat(parts).toString('utf8'), warnings };
}

const cp1252 = (text: string) => Uint8Array.from(text, (c) => (c === '€' ? 0x80 : c.charCodeAt(0)));

describe('toUtf8', () => {
  it('passes UTF-8 through unchanged, also when a character is split across chunks', async () => {
    const bytes = Buffer.from('Title\nCafé Zürich 🎷 €\n');
    for (const size of [1, 2, 3, 5, 1000])
      expect(await decode(bytes, size)).toEqual({ text: bytes.toString(), warnings: 0 });
  });

  it('drops a UTF-8 BOM, also when it arrives one byte at a time', async () => {
    const bytes = Buffer.from('\uFEFFTitle\n');
    expect((await decode(bytes, 1)).text).toBe('Title\n');
    expect((await decode(bytes, 64)).text).toBe('Title\n');
  });

  it('reads a file that is not valid UTF-8 as Windows-1252, € (0x80) included', async () => {
    const bytes = cp1252('Title\nCafé,€5\n');
    for (const size of [1, 4, 1000])
      expect(await decode(bytes, size)).toEqual({ text: 'Title\nCafé,€5\n', warnings: 0 });
  });

  it('reads a lone lead byte at the end of the file as Windows-1252', async () => {
    expect((await decode(cp1252('Title\nPâté à'), 1000)).text).toBe('Title\nPâté à');
    expect((await decode(Uint8Array.of(0x41, 0xc3), 1)).text).toBe('AÃ');
  });

  it('keeps UTF-8 chosen at the first chunk with non-ASCII text and warns once about invalid bytes later', async () => {
    const bytes = Buffer.concat([Buffer.from('Café\n'), Uint8Array.of(0x41, 0xe9, 0x42, 0x0a, 0xff)]);
    expect(await decode(bytes, 6)).toEqual({ text: 'Café\nA\uFFFDB\n\uFFFD', warnings: 1 });
  });

  it('obeys an explicit encoding', async () => {
    const bytes = Buffer.from('Café');
    expect((await decode(bytes, 1000, 'windows-1252')).text).toBe('CafÃ©');
    expect(await decode(cp1252('Café'), 1000, 'utf-8')).toEqual({ text: 'Caf\uFFFD', warnings: 1 });
  });
});
