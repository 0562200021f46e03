// Cell values: yes/no, lists and formula-escaped text as spreadsheets write them. Public: readBoolean,
// readList, unescapeFormula. Pure. Dates are in dates.ts, times of day in clock.ts.

import type { Read } from './dates.ts';

// Excel writes TRUE/FALSE in the user's language (WAHR, VRAI, VERO, VERDADERO); people write ja/oui/sì.
const YES = new Set([
  'yes',
  'y',
  'true',
  '1',
  'x',
  'ja',
  'wahr',
  'ein', // German Outlook's Ein/Aus
  'oui',
  'vrai',
  'si',
  'sì',
  'sí',
  'vero',
  'verdadero',
]);
const NO = new Set(['no', 'n', 'false', '0', 'nein', 'falsch', 'aus', 'non', 'faux', 'falso']);

/** yes/no/true/false/1/0/y/n in any case, and their German, French, Italian and Spanish words. */
export function readBoolean(cell: string): Read<boolean> {
  const word = cell.toLowerCase();
  if (YES.has(word)) return { ok: true, value: true };
  if (NO.has(word)) return { ok: true, value: false };
  return { ok: false, reason: `expected yes or no, got ${JSON.stringify(cell)}` };
}

/**
 * A comma-separated list: items trimmed, empty ones and repeats dropped. An item in double quotes may hold
 * commas (`"Okafor, Grace", Jo`: what our export writes for such a name); a quote elsewhere is text.
 */
export function readList(cell: string): string[] {
  const items = cell.includes('"') ? quotedItems(cell) : cell.split(',');
  return [...new Set(items.map((item) => item.trim()).filter((item) => item !== ''))];
}

function quotedItems(cell: string): string[] {
  const items: string[] = [];
  const item = /\s*(?:"((?:[^"]|"")*)"\s*(?=,|$)|([^,]*))(?:,|$)/y;
  while (item.lastIndex < cell.length) {
    const at = item.lastIndex;
    const m = item.exec(cell);
    if (!m || item.lastIndex === at) break;
    items.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]);
  }
  return items;
}

/**
 * A cell without the `'` a CSV writer put before a formula-like value (`'=SUM(A1)` → `=SUM(A1)`; OWASP's
 * rule, which our export follows): a spreadsheet shows that `'` nowhere, so it is not part of the text.
 */
export function unescapeFormula(cell: string): string {
  return /^'+[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}
