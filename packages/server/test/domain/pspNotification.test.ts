import { describe, expect, it } from 'vitest';
import { parseCollectionNotification, parsePayoutNotification } from '../../src/domain/pspNotification.ts';

const TXN = 'CT00000000000000000000000000';
const PAYOUT = 'PT00000000000000000000000000';

describe('collection notifications', () => {
  it('reads txnId or reference, status, utr, amount (paise) and reason; ignores other fields', () => {
    expect(
      parseCollectionNotification({
        txnId: TXN,
        reference: 'psp-123',
        status: 'SUCCESS',
        utr: '412345678901',
        amount: '250.50',
        reason: ' paid\n by UPI ',
        pspOwnField: 1,
      }),
    ).toEqual({
      ok: true,
      value: {
        txnId: TXN,
        reference: 'psp-123',
        status: 'SUCCESS',
        utr: '412345678901',
        amountPaid: 25050n,
        reason: 'paid  by UPI',
      },
    });
    expect(parseCollectionNotification({ reference: 'psp-123', status: 'FAILED' })).toEqual({
      ok: true,
      value: { reference: 'psp-123', status: 'FAILED' },
    });
  });

  it('refuses what is not a notification, saying why', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /JSON object/],
      [[], /JSON object/],
      [{ status: 'SUCCESS', utr: 'U1', amount: '1.00' }, /txnId or reference/],
      [{ txnId: 'CT123', status: 'FAILED' }, /txnId/],
      [{ reference: 'has space', status: 'FAILED' }, /reference/],
      [{ reference: 'x'.repeat(101), status: 'FAILED' }, /reference/],
      [{ txnId: TXN, status: 'REFUNDED' }, /status/],
      [{ txnId: TXN, status: 'success' }, /status/],
      [{ txnId: TXN, status: 'SUCCESS', amount: '1.00' }, /utr/],
      [{ txnId: TXN, status: 'SUCCESS', utr: 'U1' }, /amount paid/],
      [{ txnId: TXN, status: 'SUCCESS', utr: 'U 1', amount: '1.00' }, /utr/],
      [{ txnId: TXN, status: 'SUCCESS', utr: 'U1', amount: '-1.00' }, /amount/],
      [{ txnId: TXN, status: 'SUCCESS', utr: 'U1', amount: '1.001' }, /amount/],
      [{ txnId: TXN, status: 'FAILED', reason: 42 }, /reason/],
    ];
    for (const [body, error] of cases) {
      const parsed = parseCollectionNotification(body);
      expect(parsed.ok, JSON.stringify(body)).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
    }
  });
});

describe('payout notifications', () => {
  it('reads transactionId, status, utr, amount and reason', () => {
    expect(parsePayoutNotification({ transactionId: PAYOUT, status: 'SUCCESS', utr: 'UTR1', amount: 100 })).toEqual({
      ok: true,
      value: { transactionId: PAYOUT, status: 'SUCCESS', utr: 'UTR1', amount: 10000n },
    });
    expect(parsePayoutNotification({ transactionId: PAYOUT, status: 'PROCESSING' })).toEqual({
      ok: true,
      value: { transactionId: PAYOUT, status: 'PROCESSING' },
    });
    expect(parsePayoutNotification({ transactionId: PAYOUT, reference: 'BANK-1', status: 'PENDING' })).toEqual({
      ok: true,
      value: { transactionId: PAYOUT, reference: 'BANK-1', status: 'PENDING' },
    });
  });

  it('refuses a missing id, an unknown status, a SUCCESS without utr, a bad amount or reference', () => {
    for (const body of [
      { status: 'SUCCESS', utr: 'U' },
      { transactionId: TXN, status: 'FAILED' },
      { transactionId: PAYOUT, status: 'REFUNDED' },
      { transactionId: PAYOUT, status: 'SUCCESS' },
      { transactionId: PAYOUT, status: 'FAILED', amount: '0.00' },
      { transactionId: PAYOUT, status: 'FAILED', reference: 'has space' },
      { transactionId: PAYOUT, status: 'FAILED', reference: 'x'.repeat(101) },
      { transactionId: PAYOUT, status: 'FAILED', reference: 7 },
    ]) {
      expect(parsePayoutNotification(body).ok, JSON.stringify(body)).toBe(false);
    }
  });
  it('reads RETURNED with its reason, which it requires', () => {
    expect(parsePayoutNotification({ transactionId: PAYOUT, status: 'RETURNED', reason: ' Account closed ' })).toEqual({
      ok: true,
      value: { transactionId: PAYOUT, status: 'RETURNED', reason: 'Account closed' },
    });
    for (const reason of [undefined, '', '   ', 7]) {
      const parsed = parsePayoutNotification({ transactionId: PAYOUT, status: 'RETURNED', reason });
      expect(parsed.ok, String(reason)).toBe(false);
    }
    expect(parsePayoutNotification({ transactionId: PAYOUT, status: 'RETURNED' })).toEqual({
      ok: false,
      error: 'a RETURNED needs the reason',
    });
  });
});
