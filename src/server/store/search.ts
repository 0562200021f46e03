/**
 * Search words (B.5, B.10.3): each word is a case-insensitive substring, as WordPress's
 * `LIKE '%word%'`. Words of ≥ 3 characters go to the trigram FTS index; shorter ones have no
 * trigram and fall back to LIKE, which SQLite folds for ASCII letters only.
 */
import type { Param } from './connection.ts';

/** `%word%` with LIKE's own wildcards escaped, for `LIKE ? ESCAPE '\'`. */
export function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, '\\$&')}%`;
}

/** Splits words into one FTS5 query (all ≥ 3-character words, AND) and the short rest. */
export function splitWords(words: readonly string[]): { match: string | null; short: string[] } {
  const phrases: string[] = [];
  const short: string[] = [];
  for (const word of words) {
    if (word === '') continue;
    // Characters, not UTF-16 units: the trigram tokenizer counts code points.
    if ([...word].length >= 3) phrases.push(`"${word.replaceAll('"', '""')}"`);
    else short.push(word);
  }
  return { match: phrases.length > 0 ? phrases.join(' AND ') : null, short };
}

/**
 * One `(c1 LIKE ? OR c2 LIKE ? …)` per word, all ANDed: every word must occur in some column.
 * Pushes its parameters onto `params`.
 */
export function likeAll(columns: readonly string[], words: readonly string[], params: Param[]): string[] {
  const clauses: string[] = [];
  for (const word of words) {
    if (word === '') continue;
    const pattern = likePattern(word);
    clauses.push(`(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    for (let i = 0; i < columns.length; i++) params.push(pattern);
  }
  return clauses;
}
