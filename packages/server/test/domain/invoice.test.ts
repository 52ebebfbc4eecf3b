import { describe, expect, it } from 'vitest';
import {
  GST_STATES,
  gstinCheckCharacter,
  gstinProblem,
  gstinState,
  isStateCode,
  normalizeGstin,
} from '../../src/domain/gstin.ts';
import {
  composeInvoice,
  FEE_ENTRY_KINDS,
  financialYear,
  invoiceNumber,
  parseMonth,
  percentText,
  refundKindOf,
  splitTax,
} from '../../src/domain/invoice.ts';

describe('GSTIN', () => {
  it('computes the GST Network check character (Luhn mod 36) of known GSTINs', () => {
    // Published GSTINs of real registrations (Maharashtra, Karnataka).
    for (const gstin of ['27AAPFU0939F1ZV', '29AAGCR4375J1ZU']) {
      expect(gstinCheckCharacter(gstin.slice(0, 14))).toBe(gstin.charAt(14));
      expect(gstinProblem(gstin)).toBeNull();
    }
  });

  it('refuses every single mistyped character and a swap of two neighbours', () => {
    const good = '27AAPFU0939F1ZV';
    for (let i = 2; i < 15; i++) {
      const typo = good.slice(0, i) + (good[i] === 'A' ? 'B' : 'A') + good.slice(i + 1);
      expect(gstinProblem(typo), typo).not.toBeNull();
    }
    expect(gstinProblem('27AAPFU0939F1VZ')).toMatch(/check character/);
    expect(gstinProblem('27APAFU0939F1ZV')).toMatch(/check character/);
  });

  it('says what is wrong with the shape or the state', () => {
    expect(gstinProblem('27AAPFU0939')).toBe('must be 15 characters, not 11');
    expect(gstinProblem('2XAAPFU0939F1ZV')).toMatch(/two digits/);
    expect(gstinProblem('27aapfu0939f1zv')).toMatch(/two digits .* 13 letters or digits/);
    expect(gstinProblem('42AAPFU0939F1ZV')).toBe('starts with 42, which is no GST state code');
    expect(normalizeGstin(' 27aapfu0939f1zv ')).toBe('27AAPFU0939F1ZV');
    expect(gstinState('29AAGCR4375J1ZU')).toBe('29');
  });

  it('knows the state codes 01 to 38, 97 and 99', () => {
    expect(Object.keys(GST_STATES)).toHaveLength(40);
    expect(GST_STATES['27']).toBe('Maharashtra');
    expect(GST_STATES['37']).toBe('Andhra Pradesh');
    expect(GST_STATES['38']).toBe('Ladakh');
    expect(isStateCode('99')).toBe(true);
    expect(isStateCode('00')).toBe(false);
    expect(isStateCode('39')).toBe(false);
    expect(isStateCode('toString')).toBe(false);
  });
});

describe('invoice periods and numbers', () => {
  it('takes a month as its IST bounds', () => {
    expect(parseMonth('2026-11')).toEqual({
      month: '2026-11',
      start: new Date('2026-10-31T18:30:00.000Z'),
      end: new Date('2026-11-30T18:30:00.000Z'),
    });
    expect(parseMonth('2026-12')?.end).toEqual(new Date('2026-12-31T18:30:00.000Z'));
    for (const bad of ['2026-13', '2026-00', '2026-1', '26-11', '2026-11-01', '']) expect(parseMonth(bad)).toBeNull();
  });

  it("puts a month in its financial year, April to March, and numbers invoices in that year's series", () => {
    expect(financialYear('2026-04')).toBe('2026-27');
    expect(financialYear('2026-11')).toBe('2026-27');
    expect(financialYear('2027-03')).toBe('2026-27');
    expect(financialYear('2027-04')).toBe('2027-28');
    expect(financialYear('2099-12')).toBe('2099-00');
    expect(invoiceNumber('INV', '2026-27', 1)).toBe('INV/2026-27/000001');
    expect(invoiceNumber('I', '2027-28', 1234567)).toBe('I/2027-28/1234567');
  });
});

describe('invoice tax', () => {
  it('splits GST within a state as CGST = half rounded down and SGST = the rest; across states all IGST', () => {
    expect(splitTax(273n, true)).toEqual({ cgst: 136n, sgst: 137n, igst: 0n });
    expect(splitTax(272n, true)).toEqual({ cgst: 136n, sgst: 136n, igst: 0n });
    expect(splitTax(1n, true)).toEqual({ cgst: 0n, sgst: 1n, igst: 0n });
    expect(splitTax(273n, false)).toEqual({ cgst: 0n, sgst: 0n, igst: 273n });
    // A credit mirrors its charge.
    expect(splitTax(-273n, true)).toEqual({ cgst: -136n, sgst: -137n, igst: 0n });
  });

  it('orders lines charges first by product, then credits, and totals what was charged', () => {
    const { lines, totals } = composeInvoice(
      [
        { kind: 'credit', product: 'IMPS', count: 1, fees: -505n, tax: -91n },
        { kind: 'charge', product: 'UPI_COLLECTION', count: 1, fees: 100n, tax: 18n },
        { kind: 'charge', product: 'IMPS', count: 3, fees: 1515n, tax: 273n },
      ],
      true,
    );
    expect(lines.map((l) => `${l.kind} ${l.product}`)).toEqual(['charge IMPS', 'charge UPI_COLLECTION', 'credit IMPS']);
    expect(totals).toEqual({ taxable: 1110n, cgst: 100n, sgst: 100n, igst: 0n, total: 1310n });
  });

  it('writes rates as percent', () => {
    expect([1800, 900, 1250, 625, 5].map(percentText)).toEqual(['18', '9', '12.5', '6.25', '0.05']);
  });

  it('reads every fee entry kind with its refund, in one table', () => {
    expect(refundKindOf('payout_fee')).toBe('payout_fee_refund');
    expect(refundKindOf('payout_fee_gst')).toBe('payout_fee_gst_refund');
    expect(refundKindOf('collection_fee')).toBeNull();
    for (const [kind, k] of Object.entries(FEE_ENTRY_KINDS)) {
      if (k.refundOf) expect(FEE_ENTRY_KINDS[k.refundOf]?.part, kind).toBe(k.part);
    }
  });
});
