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

function decode(bytes: Uint8Array, encoding: Decoded['encoding']): Decoded {
  // A truncated UTF-16 file may end in half a code unit: drop it instead of producing U+FFFD.
  const usable = encoding !== 'utf-8' && bytes.length % 2 === 1 ? bytes.subarray(0, bytes.length - 1) : bytes;
  return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(usable), encoding };
}
