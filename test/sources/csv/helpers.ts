// Shared by the CSV source tests: fixture paths, reading a fixture whole or in small chunks.

import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CsvOptions, readCsv } from '../../../src/sources/csv/index.ts';
import type { SourceResult } from '../../../src/sources/record.ts';

export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/csv/${name}`, import.meta.url));
}

/** `bytes` as an async stream of `size`-byte chunks,. */
export async function* inChunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

/** The fixture streamed from disk, as the CLI reads it. */
export function readFixture(name: string, options: Partial<CsvOptions> = {}): Promise<SourceResult> {
  return readCsv(createReadStream(fixture(name)), { file: name, ...options });
}

export function fixtureBytes(name: string): Uint8Array {
  return readFileSync(fixture(name));
}

/** A CSV text read from one buffer. */
export function readText(text: string, options: Partial<CsvOptions> = {}): Promise<SourceResult> {
  return readCsv(Buffer.from(text), { file: 'test.csv', ...options });
}

/** `code@line` of each problem, in order: what a user scanning the report sees. */
export function codes(result: SourceResult): string[] {
  return result.problems.map((p) => `${p.code}@${p.origin.line}`);
}
