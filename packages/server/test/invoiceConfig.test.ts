import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const OPERATOR = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Payrail Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: 'Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};

describe('the invoice settings (PAYRAIL_OPERATOR_*, PAYRAIL_INVOICE_PREFIX)', () => {
  it('are optional, and read as the supplier of tax invoices', () => {
    expect(loadConfig({})).toMatchObject({ invoiceSupplier: {}, invoicePrefix: 'INV' });
    expect(
      loadConfig({ ...OPERATOR, PAYRAIL_OPERATOR_GSTIN: ' 27aapfu0939f1zv ', PAYRAIL_INVOICE_PREFIX: 'PR-IN' }),
    ).toMatchObject({
      invoiceSupplier: {
        legalName: OPERATOR.PAYRAIL_OPERATOR_LEGAL_NAME,
        gstin: OPERATOR.PAYRAIL_OPERATOR_GSTIN,
        address: OPERATOR.PAYRAIL_OPERATOR_ADDRESS,
        state: '27',
      },
      invoicePrefix: 'PR-IN',
    });
  });

  it('refuse to start with a GSTIN whose check character is wrong, naming it', () => {
    expect(() => loadConfig({ ...OPERATOR, PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZW' })).toThrow(
      /^PAYRAIL_OPERATOR_GSTIN: not a valid GSTIN: fails its check character/,
    );
    expect(() => loadConfig({ PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939' })).toThrow(
      /^PAYRAIL_OPERATOR_GSTIN: not a valid GSTIN: must be 15 characters/,
    );
  });

  it("refuse a state that is no GST state code or is not the GSTIN's, and a prefix invoice numbers cannot hold", () => {
    expect(() => loadConfig({ PAYRAIL_OPERATOR_STATE: 'MH' })).toThrow(/^PAYRAIL_OPERATOR_STATE: expected a two-digit/);
    expect(() => loadConfig({ ...OPERATOR, PAYRAIL_OPERATOR_STATE: '29' })).toThrow(
      /^PAYRAIL_OPERATOR_STATE: is 29, but PAYRAIL_OPERATOR_GSTIN is registered in 27/,
    );
    for (const prefix of ['INV/2026', 'A B', 'ELEVENCHARS']) {
      expect(() => loadConfig({ PAYRAIL_INVOICE_PREFIX: prefix }), prefix).toThrow(/^PAYRAIL_INVOICE_PREFIX: /);
    }
  });
});
