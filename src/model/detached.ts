/**
 * `detached(s)`: a copy of `s` that does not keep alive the text it was cut from. V8 makes a substring of
 * 13 or more characters a view into its parent string, so a key kept in a long-lived cache (a title, a
 * zone name) would hold the whole piece of the source file it was read from: an import of 50,000 VEVENTs
 * held most of its 31 MB file that way (+30 MB peak RSS). For what is kept across a run, not for each read.
 */
export function detached(s: string): string {
  // Through bytes and back: UTF-16 keeps every string as it was, lone surrogates included.
  return s.length < 13 ? s : Buffer.from(s, 'utf16le').toString('utf16le');
}
