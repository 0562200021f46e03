import { describe, expect, it } from 'vitest';
import { isValidCostInput, parseCost } from '../../src/model/cost.ts';

const site = { symbol: '$', position: 'prefix' } as const;

function details(values: string[], symbol = '', position: '' | 'prefix' | 'postfix' = '') {
  return { currency_symbol: symbol, currency_code: '', currency_position: position, values };
}

describe('parseCost follows every row of the A.6 table', () => {
  const rows: [unknown, string, ReturnType<typeof details>][] = [
    ['25', '$25', details(['25'])],
    [25, '$25', details(['25'])],
    ['$25', '$25', details(['25'], '$', 'prefix')],
    ['20$', '20$', details(['20'], '$', 'postfix')],
    ['€6.50', '€6.50', details(['6.50'], '€', 'prefix')],
    [['0', '20', '30'], 'Free – $30', details(['0', '20', '30'])],
    [['0$', '20$', '30$'], 'Free – 30$', details(['0', '20', '30'], '$', 'postfix')],
    ['Free', 'Free', details(['free'])],
    ['$10 - $25', '$10 – $25', details(['10', '25'], '$', 'prefix')],
    ['€10 - €20', '€10 – €20', details(['10', '20'], '€', 'prefix')],
    ['0', 'Free', details(['0'])],
    ['$1,234.56', '$1234.56', details(['1234.56'], '$', 'prefix')],
  ];
  for (const [input, cost, costDetails] of rows) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(cost)}`, () => {
      expect(parseCost(input, site)).toEqual({ cost, cost_details: costDetails });
    });
  }
});

describe('parseCost', () => {
  it('treats null, undefined, empty string, blank string and [] as no cost', () => {
    for (const input of [null, undefined, '', '   ', []]) {
      expect(parseCost(input, site)).toEqual({ cost: '', cost_details: details([]) });
    }
  });

  it('emits cost_details keys in contract order', () => {
    expect(Object.keys(parseCost('$5', site).cost_details)).toEqual([
      'currency_symbol',
      'currency_code',
      'currency_position',
      'values',
    ]);
  });

  it('splits at en dash, " to " and ", " as well as "-"', () => {
    expect(parseCost('10–20', site).cost_details.values).toEqual(['10', '20']);
    expect(parseCost('10 to 20', site).cost).toBe('$10 – $20');
    expect(parseCost('10 TO 20', site).cost).toBe('$10 – $20');
    expect(parseCost('30, 10, 20', site).cost_details.values).toEqual(['10', '20', '30']);
  });

  it('reads a comma before exactly three digits as thousands, any other comma as a decimal point', () => {
    expect(parseCost('1,234', site).cost_details.values).toEqual(['1234']);
    expect(parseCost('1,234,567', site).cost_details.values).toEqual(['1234567']);
    expect(parseCost('10,5', site).cost_details.values).toEqual(['10.5']);
    expect(parseCost('1,2345', site).cost_details.values).toEqual(['1.2345']);
    expect(parseCost('1.234,56 €', site).cost_details.values).toEqual(['1234.56']);
  });

  it('keeps numbers as typed and sorts them numerically, text after them lower-cased', () => {
    const parsed = parseCost(['100', '9.50', 'Donation', '20'], site);
    expect(parsed.cost_details.values).toEqual(['9.50', '20', '100', 'donation']);
    expect(parsed.cost).toBe('$9.50 – $100');
  });

  it('drops repeated amounts and repeated text', () => {
    expect(parseCost('$10 - $10', site)).toEqual({
      cost: '$10',
      cost_details: details(['10'], '$', 'prefix'),
    });
    expect(parseCost(['Free', 'free'], site).cost_details.values).toEqual(['free']);
  });

  it('leaves the symbol empty when typed symbols disagree, and then uses the site default', () => {
    expect(parseCost('$10 - €20', site)).toEqual({ cost: '$10 – $20', cost_details: details(['10', '20']) });
    expect(parseCost('$10 - 20$', site).cost_details.currency_position).toBe('');
  });

  it('takes the symbol from the items that have one', () => {
    expect(parseCost('10 - €20', site)).toEqual({
      cost: '€10 – €20',
      cost_details: details(['10', '20'], '€', 'prefix'),
    });
  });

  it('uses a postfix site default', () => {
    expect(parseCost('25', { symbol: ' kr', position: 'postfix' }).cost).toBe('25 kr');
    expect(parseCost('25', { symbol: '€', position: 'postfix' }).cost).toBe('25€');
  });

  it('does not take words next to a number for a currency symbol', () => {
    expect(parseCost('25 per person', site)).toEqual({ cost: '$25', cost_details: details(['25']) });
    expect(parseCost('CHF 40', site)).toEqual({
      cost: 'CHF40',
      cost_details: details(['40'], 'CHF', 'prefix'),
    });
  });

  it('echoes text-only input as typed', () => {
    expect(parseCost(' Pay what you can ', site)).toEqual({
      cost: 'Pay what you can',
      cost_details: details(['pay what you can']),
    });
    expect(parseCost(['Free', 'Donation'], site).cost).toBe('Free, Donation');
  });

  it('writes a zero-only range as Free', () => {
    expect(parseCost(['0', '0.00'], site).cost).toBe('Free');
    expect(parseCost(0, site).cost).toBe('Free');
  });

  it('renders numeric input as a plain number', () => {
    expect(parseCost([6.5, 12], site)).toEqual({ cost: '$6.5 – $12', cost_details: details(['6.5', '12']) });
  });

  it('throws on input that validation rejects', () => {
    expect(() => parseCost({ amount: 5 }, site)).toThrow(TypeError);
    expect(() => parseCost(Number.NaN, site)).toThrow(TypeError);
  });
});

describe('isValidCostInput', () => {
  it('accepts strings, finite numbers, arrays of them and null', () => {
    for (const input of ['', '$5', 0, 12.5, [], ['1', 2], null]) expect(isValidCostInput(input)).toBe(true);
  });

  it('rejects everything else', () => {
    for (const input of [undefined, true, {}, Number.NaN, Number.POSITIVE_INFINITY, [null], [['1']], [{}]]) {
      expect(isValidCostInput(input)).toBe(false);
    }
  });
});
