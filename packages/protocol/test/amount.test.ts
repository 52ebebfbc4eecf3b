import { describe, expect, it } from 'vitest';
import { formatPaise, parseRupees, rupees } from '../src/index.ts';

describe('parseRupees', () => {
  it.each<[unknown, bigint]>([
    ['100', 10000n],
    ['100.5', 10050n],
    ['100.50', 10050n],
    [100.5, 10050n],
    [100, 10000n],
    ['0.01', 1n],
    ['0.1', 10n],
    [0.01, 1n],
    ['1', 100n],
    ['999999999999999.99', 99999999999999999n],
    ['1000000', 100000000n],
    [123.45, 12345n],
  ])('accepts %j as %s paise', (input, paise) => {
    expect(parseRupees(input)).toBe(paise);
  });

  it.each<[string, unknown]>([
    ['exponent text', '1e3'],
    ['exponent text, upper case', '1E3'],
    ['negative', '-1'],
    ['negative number', -1],
    ['plus sign', '+1'],
    ['leading space', ' 1'],
    ['trailing space', '1 '],
    ['three fraction digits', '1.234'],
    ['three fraction digits, number', 1.234],
    ['zero', '0'],
    ['zero with fraction', '0.00'],
    ['zero number', 0],
    ['floating point noise', 0.1 + 0.2],
    ['letters', 'abc'],
    ['null', null],
    ['undefined', undefined],
    ['empty', ''],
    ['bare dot', '.'],
    ['no whole part', '.5'],
    ['no fraction digits', '1.'],
    ['comma separator', '1,000'],
    ['comma decimal', '1,50'],
    ['hex', '0x10'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['number too large to be exact', 1e21],
    ['tiny number in exponent form', 1e-7],
    ['more than 15 whole digits', '1234567890123456'],
    ['boolean', true],
    ['object', { amount: '1.00' }],
    ['array', ['1.00']],
    ['bigint', 100n],
    ['currency symbol', '₹100'],
    ['full-width digits', '１００'],
    ['newline', '100\n'],
  ])('rejects %s', (_label, input) => {
    expect(parseRupees(input)).toBeNull();
  });

  it('never goes through floating point: text with two fraction digits is exact', () => {
    // 0.29 * 100 = 28.999999999999996 in floating point
    expect(parseRupees('0.29')).toBe(29n);
    expect(parseRupees(0.29)).toBe(29n);
    expect(parseRupees('1.15')).toBe(115n);
    expect(parseRupees(1.15)).toBe(115n);
  });
});

describe('formatPaise', () => {
  it.each<[bigint, string]>([
    [0n, '0.00'],
    [1n, '0.01'],
    [10n, '0.10'],
    [99n, '0.99'],
    [100n, '1.00'],
    [10050n, '100.50'],
    [100000n, '1000.00'],
    [99999999999999999n, '999999999999999.99'],
    [-150n, '-1.50'],
    [-1n, '-0.01'],
  ])('formats %s paise as %s', (paise, text) => {
    expect(formatPaise(paise)).toBe(text);
  });

  it('round-trips with parseRupees', () => {
    for (const text of ['0.01', '1.00', '100.50', '12345.67', '999999999999999.99']) {
      expect(formatPaise(parseRupees(text) as bigint)).toBe(text);
    }
  });

  it('rupees() converts whole rupees to paise', () => {
    expect(rupees(500000)).toBe(50000000n);
    expect(rupees(1n)).toBe(100n);
  });
});
