// Cost parsing: the free-form `cost` input of an event → the `cost` string and `cost_details` object.
// Rules: api-contract.md A.6 (with E7, our fixes to TEC 6.2.6's parser for ranges, symbols, `"0"` and
// thousands separators). Pure; the site's default currency comes in as an argument.

/** An ISO 4217 currency code (`EUR`, `usd`): what `currency_code` takes, stored upper-cased. */
export const CURRENCY_CODE = /^[A-Za-z]{3}$/;

interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: '' | 'prefix' | 'postfix';
  values: string[];
}

export interface ParsedCost {
  cost: string;
  cost_details: CostDetails;
}

export interface SiteCurrency {
  symbol: string;
  position: 'prefix' | 'postfix';
}

type Position = 'prefix' | 'postfix';

interface NumericItem {
  value: string;
  amount: number;
  symbol: string;
  position: Position | '';
}

// A.6 step 2. ` to ` is matched case-insensitively: "10 To 20" is the same range.
const SEPARATORS = /\s+to\s+|, |[-–]/i;
// The number inside an item: digits with `.`/`,` between them, or a leading decimal point (".5").
const NUMBER = /(?:\d[\d.,]*\d|\d|[.,]\d+)/;
// `,` followed by exactly three digits (and no fourth) groups thousands; any other `,` is a decimal point.
const THOUSANDS_COMMA = /,(?=\d{3}(?!\d))/g;

/** `true` for what `cost` accepts on a write: string, finite number, array of those, or `null`. */
export function isValidCostInput(input: unknown): boolean {
  if (input === null || isScalar(input)) return true;
  return Array.isArray(input) && input.every(isScalar);
}

/**
 * A.6: splits `input` into numeric and text items and renders `cost` with the event's own currency
 * symbol when every symbol typed agrees, else with the site default. `null`/`undefined`, `""`, `[]`
 * and input without any item mean no cost. Throws `TypeError` on input `isValidCostInput` rejects.
 */
export function parseCost(input: unknown, site: SiteCurrency): ParsedCost {
  if (input === undefined) return noCost();
  if (!isValidCostInput(input)) {
    throw new TypeError(`cost: expected a string, a number or an array of them, got ${typeof input}`);
  }
  const raw = input === null ? [] : Array.isArray(input) ? input : [input];
  const numbers: NumericItem[] = [];
  const texts: string[] = [];
  const typedTexts: string[] = [];
  for (const scalar of raw as (string | number)[]) {
    for (const piece of String(scalar).split(SEPARATORS)) {
      const item = piece.trim();
      if (item === '') continue;
      const numeric = parseNumericItem(item);
      if (numeric) {
        if (!numbers.some((n) => n.amount === numeric.amount)) numbers.push(numeric);
      } else {
        typedTexts.push(item);
        const lower = item.toLowerCase();
        if (!texts.includes(lower)) texts.push(lower);
      }
    }
  }
  if (numbers.length === 0 && texts.length === 0) return noCost();

  numbers.sort((a, b) => a.amount - b.amount);
  const values = [...numbers.map((n) => n.value), ...texts];
  const { symbol, position } = sharedSymbol(numbers);
  const details: CostDetails = {
    currency_symbol: symbol,
    currency_code: '',
    currency_position: position,
    values,
  };
  if (numbers.length === 0) {
    // Only text: echo what was typed ("Free", "Donation, pay what you can").
    const cost = typeof input === 'string' ? input.trim() : typedTexts.join(', ');
    return { cost, cost_details: details };
  }
  const currency: SiteCurrency = symbol !== '' && position !== '' ? { symbol, position } : site;
  const min = numbers[0];
  const max = numbers[numbers.length - 1];
  const cost =
    min === max
      ? formatAmount(min, currency)
      : `${formatAmount(min, currency)} – ${formatAmount(max, currency)}`;
  return { cost, cost_details: details };
}

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function noCost(): ParsedCost {
  return {
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] },
  };
}

function parseNumericItem(item: string): NumericItem | null {
  const match = NUMBER.exec(item);
  if (!match) return null;
  const value = normaliseNumber(match[0]);
  const amount = Number(value);
  if (!Number.isFinite(amount)) return null;
  const before = item.slice(0, match.index).trim();
  const after = item.slice(match.index + match[0].length).trim();
  // Only a word-like token touching the number is a currency ("$", "€", "CHF", "USD"); words such as
  // "per person" or stray punctuation are ignored rather than taken for a symbol.
  if (isSymbol(before)) return { value, amount, symbol: before, position: 'prefix' };
  if (before === '' && isSymbol(after)) return { value, amount, symbol: after, position: 'postfix' };
  return { value, amount, symbol: '', position: '' };
}

function normaliseNumber(text: string): string {
  let value = text.replace(THOUSANDS_COMMA, '').replace(/,/g, '.');
  // "1.234.56" can only come from a European "1.234,56": every point but the last groups thousands.
  const last = value.lastIndexOf('.');
  if (value.indexOf('.') !== last) value = value.slice(0, last).replace(/\./g, '') + value.slice(last);
  return value.startsWith('.') ? `0${value}` : value;
}

function isSymbol(text: string): boolean {
  return text !== '' && text.length <= 4 && !/[\s\d]/.test(text) && !/^[.,;:!?()'"]+$/.test(text);
}

// A.6 step 4: one symbol on one side for every numeric item that has one, else none.
function sharedSymbol(numbers: NumericItem[]): { symbol: string; position: Position | '' } {
  const withSymbol = numbers.filter((n) => n.symbol !== '');
  if (withSymbol.length === 0) return { symbol: '', position: '' };
  const { symbol, position } = withSymbol[0];
  const agree = withSymbol.every((n) => n.symbol === symbol && n.position === position);
  return agree ? { symbol, position } : { symbol: '', position: '' };
}

function formatAmount(item: NumericItem, currency: SiteCurrency): string {
  if (item.amount === 0) return 'Free';
  return currency.position === 'prefix'
    ? `${currency.symbol}${item.value}`
    : `${item.value}${currency.symbol}`;
}
