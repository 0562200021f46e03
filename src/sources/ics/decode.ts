// Bytes → text by byte order mark: UTF-8, UTF-16LE, UTF-16BE, else UTF-8 (RFC 5545 §3.1.4 says UTF-8, but
// Outlook and some Windows exporters write UTF-16 with a BOM). node-ical only takes strings and returns
// 0 events for UTF-16 read as UTF-8, so the adapter decodes first. Malformed sequences become U+FFFD rather
// than failing the file. A UTF-16 file without BOM is recognised by its NUL bytes (ASCII-heavy content).
// Writers that fold at 75 octets without minding characters (RFC 5545 §3.1 says they must not) split a
// multi-byte UTF-8 character across a fold: the rest of such a character is moved in front of the fold
// before decoding, so it unfolds whole and every line keeps its number.

export interface Decoded {
  text: string;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be';
}

export function decodeIcs(bytes: Uint8Array): Decoded {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decodeUtf8(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes.subarray(2), 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes.subarray(2), 'utf-16be');
  // "BEGIN" in UTF-16 without BOM: every other byte is NUL.
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[3] === 0)
    return decode(bytes, 'utf-16le');
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0)
    return decode(bytes, 'utf-16be');
  return decodeUtf8(bytes);
}

function decodeUtf8(bytes: Uint8Array): Decoded {
  const decoded = decode(bytes, 'utf-8');
  // Only a file with a malformed sequence can have a character split by a fold.
  if (!decoded.text.includes('\uFFFD')) return decoded;
  const joined = joinSplitCharacters(bytes);
  return joined === null ? decoded : decode(joined, 'utf-8');
}

const isContinuation = (byte: number | undefined) => byte !== undefined && byte >= 0x80 && byte <= 0xbf;

/**
 * A copy of `bytes` in which each fold (CRLF or LF, then a blank) that sits inside a multi-byte character
 * follows the character instead; null when there is none.
 */
function joinSplitCharacters(bytes: Uint8Array): Uint8Array | null {
  let copy: Uint8Array | null = null;
  for (let lf = bytes.indexOf(0x0a); lf !== -1; lf = bytes.indexOf(0x0a, lf + 1)) {
    const blank = bytes[lf + 1];
    if (blank !== 0x20 && blank !== 0x09) continue;
    const fold = bytes[lf - 1] === 0x0d ? lf - 1 : lf;
    if (fold === 0 || bytes[fold - 1] < 0x80 || !isContinuation(bytes[lf + 2])) continue;
    let rest = lf + 2;
    while (rest < lf + 5 && isContinuation(bytes[rest])) rest++;
    copy ??= Uint8Array.from(bytes);
    const tail = copy.slice(lf + 2, rest);
    const foldBytes = copy.slice(fold, lf + 2);
    copy.set(tail, fold);
    copy.set(foldBytes, fold + tail.length);
    lf = rest - 1;
  }
  return copy;
}

// Without `stream`, a decode keeps no state between calls: one decoder serves every piece.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

function decode(bytes: Uint8Array, encoding: Decoded['encoding']): Decoded {
  if (encoding === 'utf-8') return { text: UTF8.decode(bytes), encoding };
  // A truncated UTF-16 file may end in half a code unit: drop it instead of producing U+FFFD.
  const usable = bytes.length % 2 === 1 ? bytes.subarray(0, bytes.length - 1) : bytes;
  return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(usable), encoding };
}

/**
 * The same decoding for a file read in chunks: `push` returns the text of whole lines decoded so far, `end`
 * the rest, each as a list of pieces that end at line ends. UTF-8 is cut at the start of a line that is no
 * fold (so a character split across a fold is joined as in one text, and a piece never ends inside a
 * character or a folded property), and again around each property that holds a character above U+00FF:
 * V8 keeps a string whose characters all fit a byte in one byte each, and a string cut from another keeps
 * its width, so one curly quote would otherwise make every value cut from its chunk two bytes a
 * character — slower to hash, compare and write as JSON, and twice the memory. UTF-16 goes through a
 * streaming TextDecoder.
 */
export class IcsDecoder {
  #encoding: Decoded['encoding'] | undefined;
  #carry: Uint8Array = new Uint8Array(0);
  #utf16: InstanceType<typeof TextDecoder> | undefined;

  /** Known once the first four bytes were pushed (or at the end). */
  get encoding(): Decoded['encoding'] | undefined {
    return this.#encoding;
  }

  push(chunk: Uint8Array): string[] {
    let bytes = this.#carry.length === 0 ? chunk : concat(this.#carry, chunk);
    if (this.#encoding === undefined) {
      if (bytes.length < 4) {
        this.#carry = bytes;
        return [];
      }
      bytes = this.#start(bytes);
    }
    if (this.#utf16 !== undefined) {
      // Whole code units only: a file cut after half of one drops it at the end, as decode() does.
      const even = bytes.length - (bytes.length % 2);
      this.#carry = bytes.slice(even);
      return [this.#utf16.decode(bytes.subarray(0, even), { stream: true })];
    }
    const cut = lineStartBefore(bytes);
    if (cut <= 0) {
      this.#carry = bytes;
      return [];
    }
    // A copy: the rest must not keep the whole chunk alive.
    this.#carry = bytes.slice(cut);
    return decodePieces(bytes.subarray(0, cut));
  }

  end(): string[] {
    const bytes = this.#carry;
    this.#carry = new Uint8Array(0);
    if (this.#encoding === undefined) return bytes.length === 0 ? [] : [this.#decodeWhole(bytes)];
    if (this.#utf16 !== undefined) return [this.#utf16.decode()];
    return bytes.length === 0 ? [] : decodePieces(bytes);
  }

  #decodeWhole(bytes: Uint8Array): string {
    const decoded = decodeIcs(bytes);
    this.#encoding = decoded.encoding;
    return decoded.text;
  }

  /** The encoding by byte order mark or NUL bytes (as decodeIcs), and the bytes after the mark. */
  #start(bytes: Uint8Array): Uint8Array {
    const utf16 = (encoding: 'utf-16le' | 'utf-16be', skip: number) => {
      this.#encoding = encoding;
      this.#utf16 = new TextDecoder(encoding, { ignoreBOM: true });
      return bytes.subarray(skip);
    };
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      this.#encoding = 'utf-8';
      return bytes.subarray(3);
    }
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16('utf-16le', 2);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16('utf-16be', 2);
    if (bytes[0] !== 0 && bytes[1] === 0 && bytes[3] === 0) return utf16('utf-16le', 0);
    if (bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0) return utf16('utf-16be', 0);
    this.#encoding = 'utf-8';
    return bytes;
  }
}

/** Whole lines of UTF-8, decoded by pieces (IcsDecoder): the lines with a character above U+00FF apart. */
function decodePieces(bytes: Uint8Array): string[] {
  // The bytes one character each (a copy, one byte a character): searched natively for the lead bytes of
  // wide characters, and for line ends, at the bytes' own offsets.
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  WIDE_LEAD.lastIndex = 0;
  if (!WIDE_LEAD.test(raw)) return [decodeUtf8(bytes).text];
  const pieces: string[] = [];
  let from = 0;
  do {
    const at = WIDE_LEAD.lastIndex - 1;
    const start = propertyStart(raw, at, from);
    const end = propertyEnd(raw, at);
    if (start > from) pieces.push(decodeUtf8(bytes.subarray(from, start)).text);
    pieces.push(decodeUtf8(bytes.subarray(start, end)).text);
    from = end;
    WIDE_LEAD.lastIndex = end;
  } while (from < raw.length && WIDE_LEAD.test(raw));
  if (from < raw.length) pieces.push(decodeUtf8(bytes.subarray(from)).text);
  return pieces;
}

// Lead bytes of characters from U+0100 on (and bytes no UTF-8 has, which decode to U+FFFD, as wide).
const WIDE_LEAD = /[\xc4-\xff]/g;

/** The start of the property (a line that is no fold) holding byte `at`, not before `from`. */
function propertyStart(raw: string, at: number, from: number): number {
  for (let lf = raw.lastIndexOf('\n', at); lf >= from; lf = raw.lastIndexOf('\n', lf - 1)) {
    const next = raw.charCodeAt(lf + 1);
    if (next !== 0x20 && next !== 0x09) return lf + 1;
    if (lf === 0) break;
  }
  return from;
}

/** The start of the first line after byte `at` that is no fold, or the end. */
function propertyEnd(raw: string, at: number): number {
  for (let lf = raw.indexOf('\n', at); lf !== -1; lf = raw.indexOf('\n', lf + 1)) {
    const next = raw.charCodeAt(lf + 1);
    if (next !== 0x20 && next !== 0x09) return lf + 1;
  }
  return raw.length;
}

/** Index just after the last LF that is followed by a byte other than a blank (a line that is no fold). */
function lineStartBefore(bytes: Uint8Array): number {
  for (let lf = bytes.lastIndexOf(0x0a, bytes.length - 2); lf !== -1; lf = bytes.lastIndexOf(0x0a, lf - 1)) {
    const next = bytes[lf + 1];
    if (next !== 0x20 && next !== 0x09) return lf + 1;
    if (lf === 0) break;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
