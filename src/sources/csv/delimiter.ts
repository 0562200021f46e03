// Delimiter detection from the header line. Public: Delimiter, withDelimiter.
//
// Excel writes the list separator of the user's locale: `,` in English, `;` wherever the decimal separator
// is a comma (German, French, Dutch…); "Unicode Text" exports and many databases use a tab, some a `|`. The header line
// is the most reliable sample: its cells are names, which rarely hold a delimiter, and csv-parse needs the
// delimiter before it reads the first record. So the first line is read (bytes outside quotes, up to the
// first line break), the candidate found most often wins, and `,` wins ties and a one-column header.
// Scanning bytes is safe in UTF-8: no byte of a multi-byte sequence is ASCII.

export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const CANDIDATES: Delimiter[] = [...DELIMITERS];
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The delimiter (`option` unless it is `auto`) and the same chunks, of which the header line was read
 * ahead to find it.
 */
export async function withDelimiter(
  chunks: AsyncIterable<Buffer>,
  option: Delimiter | 'auto',
): Promise<{ delimiter: Delimiter; chunks: AsyncIterable<Buffer> }> {
  if (option !== 'auto') return { delimiter: option, chunks };
  const iterator = chunks[Symbol.asyncIterator]();
  const ahead: Buffer[] = [];
  const counts = new Map<number, number>(CANDIDATES.map((c) => [c.charCodeAt(0), 0]));
  let quoted = false;
  let lineEnded = false;
  while (!lineEnded) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = next.value;
    ahead.push(chunk);
    for (const byte of chunk) {
      if (byte === QUOTE) quoted = !quoted;
      else if (quoted) continue;
      else if (byte === LF || byte === CR) {
        lineEnded = true;
        break;
      } else {
        const count = counts.get(byte);
        if (count !== undefined) counts.set(byte, count + 1);
      }
    }
  }
  let delimiter: Delimiter = ',';
  for (const candidate of CANDIDATES) {
    if (counts.get(candidate.charCodeAt(0))! > counts.get(delimiter.charCodeAt(0))!) delimiter = candidate;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* ahead;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { delimiter, chunks: replay() };
}
