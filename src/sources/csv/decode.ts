// Bytes of a CSV file in UTF-8, Windows-1252 or UTF-16 → UTF-8 chunks for csv-parse, streamed. Public:
// Encoding, ENCODINGS, toUtf8.
//
// Excel's "Unicode Text" (and Outlook's export on some versions) is UTF-16LE with a BOM: a UTF-16 BOM is
// always read as UTF-16, whatever the option says, since no text file in another encoding starts so.
// Excel on Windows saves "CSV (Comma delimited)" in the ANSI code page (Windows-1252 in the West) and
// "CSV UTF-8" with a BOM; Google Sheets and LibreOffice write UTF-8 without one. So for `auto`:
// - a UTF-8 BOM means UTF-8 (it is dropped);
// - otherwise the decision is taken at the first chunk holding a non-ASCII byte: its complete part is
//   valid UTF-8 → UTF-8, else Windows-1252. All bytes before are ASCII, which both encodings read alike,
//   so this decides as well as reading the whole file would for a file in one encoding, without holding
//   a 100 MB file in memory. A file that mixes both (rows pasted from elsewhere) is read in the encoding of
//   its first non-ASCII text: after UTF-8, later invalid bytes become U+FFFD with one warning; after
//   Windows-1252 every byte decodes, so UTF-8 text further on would read as mojibake (Ã©) — unreported.
// UTF-8 input is validated and passed on as is (no decode/encode round trip); a multi-byte sequence split
// across chunks is held back until its end arrives.

import { isAscii, isUtf8 } from 'node:buffer';

export const ENCODINGS = ['auto', 'utf-8', 'windows-1252', 'utf-16le', 'utf-16be'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const EMPTY = Buffer.alloc(0);

/**
 * `input` re-encoded as UTF-8 without BOM. `onInvalidUtf8` is called once if bytes of a file read as
 * UTF-8 were not UTF-8 (they come out as U+FFFD).
 */
export async function* toUtf8(
  input: AsyncIterable<Uint8Array>,
  encoding: Encoding,
  onInvalidUtf8: () => void,
): AsyncGenerator<Buffer> {
  let mode = encoding;
  let pending = EMPTY; // a possible BOM not yet complete, or the start of a split UTF-8 sequence
  let started = false;
  let warned = false;
  const cp1252 = new TextDecoder('windows-1252');
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  let utf16: InstanceType<typeof TextDecoder> | undefined;
  const replaced = (bytes: Buffer): Buffer => {
    if (!warned) onInvalidUtf8();
    warned = true;
    return Buffer.from(lenient.decode(bytes));
  };

  for await (const chunk of input) {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (pending.length > 0) bytes = Buffer.concat([pending, bytes]);
    pending = EMPTY;
    if (!started) {
      const maybeBom =
        bytes.length < 2 || (bytes.length < BOM.length && BOM.subarray(0, bytes.length).equals(bytes));
      if (maybeBom) {
        pending = Buffer.from(bytes);
        continue;
      }
      started = true;
      if (bytes[0] === 0xff && bytes[1] === 0xfe) mode = 'utf-16le';
      else if (bytes[0] === 0xfe && bytes[1] === 0xff) mode = 'utf-16be';
      if (mode === 'utf-16le' || mode === 'utf-16be') {
        utf16 = new TextDecoder(mode); // drops the BOM
      } else if (bytes.subarray(0, BOM.length).equals(BOM)) {
        bytes = bytes.subarray(BOM.length);
        if (mode === 'auto') mode = 'utf-8';
      }
    }
    if (utf16 !== undefined) {
      const text = utf16.decode(bytes, { stream: true });
      if (text !== '') yield Buffer.from(text);
      continue;
    }
    if (mode === 'windows-1252') {
      yield Buffer.from(cp1252.decode(bytes));
      continue;
    }
    const cut = completeUtf8End(bytes);
    const body = bytes.subarray(0, cut);
    pending = Buffer.from(bytes.subarray(cut)); // a copy: the caller may reuse the chunk's memory
    if (mode === 'auto') {
      if (isAscii(body)) {
        if (body.length > 0) yield body;
        continue;
      }
      mode = isUtf8(body) ? 'utf-8' : 'windows-1252';
      if (mode === 'windows-1252') {
        yield Buffer.from(cp1252.decode(Buffer.concat([body, pending])));
        pending = EMPTY;
        continue;
      }
    }
    if (body.length > 0) yield isUtf8(body) ? body : replaced(body);
  }
  if (utf16 !== undefined) {
    const rest = utf16.decode(); // half a code unit at the end of a cut file is dropped (U+FFFD)
    if (rest !== '') yield Buffer.from(rest);
    return;
  }
  if (pending.length === 0) return;
  // What is left is an incomplete BOM or UTF-8 sequence at the end of the file: not UTF-8.
  if (mode === 'auto' || mode === 'windows-1252') yield Buffer.from(cp1252.decode(pending));
  else yield replaced(pending);
}

// The length of `bytes` without a UTF-8 sequence cut off at its end (at most 3 bytes are held back).
function completeUtf8End(bytes: Buffer): number {
  const end = bytes.length;
  for (let at = end - 1; at >= 0 && at >= end - 4; at--) {
    const byte = bytes[at];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return at + length > end && byte <= 0xf4 ? at : end;
  }
  return end;
}
