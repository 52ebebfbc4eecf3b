import { PayoutCodes } from '@payrail/protocol';
import { describe, expect, it } from 'vitest';
import { bankRuleRejection, SANDBOX_BANK_RULES, type BankRules } from '../../src/domain/bankRules.ts';

describe('bankRules', () => {
  it('ships DOWN as down for maintenance (4014, HTTP 503) in the sandbox', () => {
    expect(bankRuleRejection(SANDBOX_BANK_RULES, 'DOWN0000001')).toEqual(PayoutCodes.bankDown);
    expect(bankRuleRejection(SANDBOX_BANK_RULES, 'DOWN0ABC123')).toMatchObject({ code: 4014, http: 503 });
  });

  it('ships BLOK as not allowed (4015, HTTP 422) in the sandbox', () => {
    expect(bankRuleRejection(SANDBOX_BANK_RULES, 'BLOK0000001')).toEqual(PayoutCodes.bankNotAllowed);
    expect(bankRuleRejection(SANDBOX_BANK_RULES, 'BLOK0000001')).toMatchObject({ code: 4015, http: 422 });
  });

  it('lets every other bank through', () => {
    for (const ifsc of ['SBOX0000001', 'HDFC0001234', 'SBIN0000001', 'DOWX0000001', 'BLOC0000001']) {
      expect(bankRuleRejection(SANDBOX_BANK_RULES, ifsc)).toBeNull();
    }
  });

  it('judges by the bank code only (the first four letters)', () => {
    const rules: BankRules = { down: new Set(['ICIC']), blocked: new Set(['YESB']) };
    expect(bankRuleRejection(rules, 'ICIC0000001')?.code).toBe(4014);
    expect(bankRuleRejection(rules, 'YESB0000123')?.code).toBe(4015);
    expect(bankRuleRejection(rules, 'DOWN0000001')).toBeNull();
    expect(bankRuleRejection(rules, 'XICIC000001')).toBeNull();
  });

  it('reports a bank that is both down and blocked as down (4014 comes before 4015)', () => {
    const rules: BankRules = { down: new Set(['ABCD']), blocked: new Set(['ABCD']) };
    expect(bankRuleRejection(rules, 'ABCD0000001')?.code).toBe(4014);
  });

  it('refuses nothing without rules', () => {
    expect(bankRuleRejection({ down: new Set(), blocked: new Set() }, 'DOWN0000001')).toBeNull();
  });
});
