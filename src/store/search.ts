/**
 * Search words (B.5, B.10.3): each word is a case-insensitive substring, as WordPress's
 * `LIKE '%word%'`. Words of ≥ 3 characters go to the trigram FTS index; shorter ones have no
 * trigram and fall back to LIKE, which SQLite folds for ASCII letters only, so their other letters
 * are tried in both cases.
 *
 * A search holding a control character other than white space matches nothing: nobody types one,
 * and neither FTS5 nor LIKE can take a NUL (FTS5 answered `abc%00def` with a syntax error, and LIKE
 * reads a pattern only up to its NUL, so `%00` matched every event).
 */
import type { Param } from './connection.ts';

/** A control character (C0, DEL, C1) other than tab, line feed and carriage return. */
const CONTROL = /(?![\t\n\r])\p{Cc}/u;

/** Whether a search text can match anything at all (see above). */
export const searchable = (text: string | readonly string[]): boolean =>
  typeof text === 'string' ? !CONTROL.test(text) : text.every((w) => !CONTROL.test(w));

/** `%word%` with LIKE's own wildcards escaped, for `LIKE ? ESCAPE '\'`. */
export function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * Splits words into one FTS5 query (all ≥ 3-character words, AND; `long` lists them) and the short
 * rest.
 */
export function splitWords(words: readonly string[]): {
  match: string | null;
  long: string[];
  short: string[];
} {
  const long: string[] = [];
  const short: string[] = [];
  for (const word of words) {
    if (word === '') continue;
    // Characters, not UTF-16 units: the trigram tokenizer counts code points.
    if ([...word].length >= 3) long.push(word);
    else short.push(word);
  }
  const match = long.length > 0 ? long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' AND ') : null;
  return { match, long, short };
}

/** Beyond this many spellings a word is matched as given (only absurd words get there). */
const MAX_CASE_VARIANTS = 8;

/**
 * The spellings of `word` that LIKE needs to match it case-insensitively: LIKE folds ASCII only
 * (without ICU), so each non-ASCII letter is tried in both cases (`öl` → `öl`, `Öl`).
 */
function caseVariants(word: string): string[] {
  let variants = [''];
  for (const ch of word) {
    const forms = ch.codePointAt(0)! > 0x7f ? [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])] : [ch];
    if (variants.length * forms.length > MAX_CASE_VARIANTS) return [word];
    variants = variants.flatMap((v) => forms.map((f) => v + f));
  }
  return variants;
}

/**
 * One `(c1 LIKE ? OR c2 LIKE ? …)` per word, all ANDed: every word must occur in some column, in
 * any case. Pushes its parameters onto `params`. `like` is `ILIKE` on PostgreSQL (list-sql.ts Dialect).
 */
export function likeAll(
  columns: readonly string[],
  words: readonly string[],
  params: Param[],
  like: 'LIKE' | 'ILIKE' = 'LIKE',
): string[] {
  const clauses: string[] = [];
  for (const word of words) {
    if (word === '') continue;
    const tests: string[] = [];
    for (const variant of caseVariants(word)) {
      const pattern = likePattern(variant);
      for (const c of columns) {
        tests.push(`${c} ${like} ? ESCAPE '\\'`);
        params.push(pattern);
      }
    }
    clauses.push(`(${tests.join(' OR ')})`);
  }
  return clauses;
}
