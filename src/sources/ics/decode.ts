// Bytes → text by byte order mark: UTF-8, UTF-16LE, UTF-16BE, else UTF-8 (RFC 5545 §3.1.4 says UTF-8, but
// Outlook and some Windows exporters write UTF-16 with a BOM). node-ical only takes strings and returns
// 0 events for UTF-16 read as UTF-8, so the adapter decodes first. Malformed sequences become U+FFFD rather
// than failing the file. A UTF-16 file without BOM is recognised by its NUL bytes (ASCII-heavy content).

export interface Decoded {
  text: string;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be';
}

export function decodeIcs(bytes: Uint8Array): Decoded {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode(bytes.subarray(3), 'utf-8');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes.subarray(2), 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes.subarray(2), 'utf-16be');
  // "BEGIN" in UTF-16 without BOM: every other byte is NUL.
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[3] === 0)
    return decode(bytes, 'utf-16le');
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0)
    return decode(bytes, 'utf-16be');
  return decode(bytes, 'utf-8');
}

function decode(bytes: Uint8Array, encoding: Decoded['encoding']): Decoded {
  // A truncated UTF-16 file may end in half a code unit: drop it instead of producing U+FFFD.
  const usable = encoding !== 'utf-8' && bytes.length % 2 === 1 ? bytes.subarray(0, bytes.length - 1) : bytes;
  return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(usable), encoding };
}
