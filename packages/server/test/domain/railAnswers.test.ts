import { describe, expect, it } from 'vitest';
import { readOutcome, UNEXPLAINED_RETURN } from '../../src/domain/railAnswers.ts';

describe('readOutcome: returns after success', () => {
  it('takes RETURNED, REFUNDED or FAILED about a SUCCESS payout as a return, with the reason', () => {
    expect(readOutcome('SUCCESS', { status: 'RETURNED', reason: 'Account closed' })).toEqual({
      kind: 'return',
      reason: 'Account closed',
    });
    expect(readOutcome('SUCCESS', { status: 'FAILED', reason: 'Beneficiary refused' })).toEqual({
      kind: 'return',
      reason: 'Beneficiary refused',
    });
    expect(readOutcome('SUCCESS', { status: 'REFUNDED' })).toEqual({ kind: 'return', reason: UNEXPLAINED_RETURN });
    expect(readOutcome('SUCCESS', { status: 'RETURNED', reason: '\u0001\n' })).toEqual({
      kind: 'return',
      reason: UNEXPLAINED_RETURN,
    });
  });

  it('keeps everything else about a SUCCESS payout as before', () => {
    expect(readOutcome('SUCCESS', { status: 'SUCCESS', utr: 'UTR1' })).toEqual({ kind: 'unchanged' });
    expect(readOutcome('SUCCESS', { status: 'PENDING' }).kind).toBe('invalid');
    expect(readOutcome('SUCCESS', { status: 'DONE' }).kind).toBe('invalid');
  });

  it('refuses a return of a payout that is not SUCCESS', () => {
    for (const current of ['INITIATED', 'PROCESSING', 'PENDING', 'FAILED', 'REFUNDED'] as const) {
      for (const status of ['RETURNED', 'REFUNDED']) {
        const decision = readOutcome(current, { status, reason: 'Account closed' });
        expect(decision, `${status} of ${current}`).toMatchObject({
          kind: 'invalid',
          error: expect.stringMatching(/only a SUCCESS payout can be returned/),
        });
      }
    }
  });

  it('about a returned payout: the return again, or its SUCCESS with the same UTR, is no news', () => {
    const returned = { returned: true, utr: 'UTR1' };
    for (const status of ['RETURNED', 'REFUNDED', 'FAILED']) {
      expect(readOutcome('REFUNDED', { status, reason: 'again' }, returned)).toEqual({ kind: 'unchanged' });
    }
    expect(readOutcome('REFUNDED', { status: 'SUCCESS', utr: 'UTR1' }, returned)).toEqual({ kind: 'unchanged' });
    expect(readOutcome('REFUNDED', { status: 'SUCCESS', utr: 'UTR2' }, returned).kind).toBe('invalid');
    // Without the return, a REFUNDED payout had failed: a SUCCESS about it stays invalid.
    expect(readOutcome('REFUNDED', { status: 'SUCCESS', utr: 'UTR1' }, { utr: 'UTR1' }).kind).toBe('invalid');
  });
});
