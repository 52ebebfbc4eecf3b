import { describe, expect, it } from 'vitest';
import {
  checkArithmetic,
  Matcher,
  StatementUnbalanced,
  type Known,
  type KnownPayout,
  type ReconTransaction,
} from '../../src/domain/reconciliation.ts';

const bal = (type: string, amount: bigint, date = '2026-03-02') => ({ type, amount, date });
let n = 0;
const entry = (direction: 'credit' | 'debit', amount: bigint, valueDate = '2026-03-02', status = 'BOOK') => ({
  index: ++n,
  direction,
  amount,
  status,
  valueDate,
});

const unbalanced = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatementUnbalanced);
    return (err as Error).message;
  }
  throw new Error('expected StatementUnbalanced');
};

describe('statement arithmetic', () => {
  it('opening + booked credits − booked debits = closing; pending entries do not count', () => {
    const a = checkArithmetic({
      balances: [bal('OPBD', 100_000n), bal('CLBD', 103_000n)],
      entries: [entry('credit', 5_000n), entry('debit', 2_000n), entry('debit', 99_999n, '2026-03-02', 'PDNG')],
      periodTo: '2026-03-02',
    });
    expect(a).toMatchObject({ credits: 5_000n, debits: 2_000n, forwardEntries: [], forwardAmount: 0n });
    expect(a.opening.type).toBe('OPBD');
  });

  it('names the difference of a statement that does not add up', () => {
    const message = unbalanced(() =>
      checkArithmetic({
        balances: [bal('OPBD', 100_000n), bal('CLBD', 104_000n)],
        entries: [entry('credit', 5_000n), entry('debit', 2_000n)],
        periodTo: null,
      }),
    );
    expect(message).toBe(
      'opening 1000.00 + credits 50.00 − debits 20.00 = 1030.00, closing says 1040.00 (difference 10.00)',
    );
  });

  it('accepts a difference that exactly equals the entries value-dated after the closing date, naming them', () => {
    const later = entry('credit', 700n, '2026-03-04');
    const a = checkArithmetic({
      balances: [bal('OPBD', 10_000n), bal('CLBD', 10_500n)],
      entries: [entry('credit', 500n), later],
      periodTo: '2026-03-02',
    });
    expect(a).toMatchObject({ forwardEntries: [later.index], forwardAmount: 700n, credits: 1_200n });
    // Without a closing date, the period's end is the cut-off.
    const byPeriod = checkArithmetic({
      balances: [bal('OPBD', 10_000n), { type: 'CLBD', amount: 9_000n, date: null }],
      entries: [entry('debit', 1_000n), entry('debit', 300n, '2026-03-03')],
      periodTo: '2026-03-02',
    });
    expect(byPeriod.forwardAmount).toBe(-300n);
    // Forward entries that do not explain the difference are named in the refusal.
    expect(
      unbalanced(() =>
        checkArithmetic({
          balances: [bal('OPBD', 10_000n), bal('CLBD', 10_100n)],
          entries: [entry('credit', 700n, '2026-03-04')],
          periodTo: null,
        }),
      ),
    ).toMatch(
      /difference -6\.00\); the entries value-dated after 2026-03-02 come to 7\.00, which does not explain it$/,
    );
  });

  it('takes OPBD, else PRCD, and OPAV only without a booked opening; CLBD, else CLAV; debit balances are negative', () => {
    const pick = (balances: ReturnType<typeof bal>[]) =>
      checkArithmetic({ balances, entries: [], periodTo: null }).opening.type;
    expect(pick([bal('OPAV', 1n), bal('PRCD', 5n), bal('CLBD', 5n)])).toBe('PRCD');
    expect(pick([bal('PRCD', 9n), bal('OPBD', 5n), bal('CLBD', 5n)])).toBe('OPBD');
    expect(pick([bal('OPAV', 5n), bal('CLAV', 5n)])).toBe('OPAV');
    expect(
      checkArithmetic({
        balances: [bal('OPBD', -500n), bal('CLAV', 0n)],
        entries: [entry('credit', 500n)],
        periodTo: null,
      }).closing.type,
    ).toBe('CLAV');
    expect(unbalanced(() => checkArithmetic({ balances: [bal('CLBD', 1n)], entries: [], periodTo: null }))).toMatch(
      /no opening balance/,
    );
    expect(unbalanced(() => checkArithmetic({ balances: [bal('OPBD', 1n)], entries: [], periodTo: null }))).toMatch(
      /no closing balance/,
    );
  });
});

const P = (suffix: string) => `PT01JD3K8Q5W2V7X9Y0Z1A2B${suffix}`;
const payout = (id: string, amount: bigint, status = 'SUCCESS', utr = '', returned = false): KnownPayout => ({
  id,
  amount,
  status,
  utr,
  returned,
});

function known(payouts: KnownPayout[], extra: Partial<Known> = {}): Known {
  const byUtr = new Map<string, KnownPayout[]>();
  for (const p of payouts) if (p.utr) byUtr.set(p.utr, [...(byUtr.get(p.utr) ?? []), p]);
  return {
    payoutsById: new Map(payouts.map((p) => [p.id, p])),
    payoutsByUtr: byUtr,
    collectionsByUtr: new Map(),
    creditsByReference: new Map(),
    ...extra,
  };
}

const tx = (over: Partial<ReconTransaction>): ReconTransaction => ({
  direction: 'debit',
  amount: 10_000n,
  currency: 'INR',
  endToEndId: null,
  utrs: [],
  references: [],
  isReturn: false,
  ...over,
});

describe('matching', () => {
  const paid = payout(P('C3C1'), 10_000n, 'SUCCESS', 'UTR1');
  const other = payout(P('C3C2'), 5_000n, 'SUCCESS', 'UTR2');
  const failed = payout(P('C3C3'), 7_000n, 'REFUNDED', 'UTR3');
  const returned = payout(P('C3C4'), 8_000n, 'REFUNDED', 'UTR4', true);
  const pending = payout(P('C3C5'), 1_000n, 'PENDING');

  it('a debit by EndToEndId, else by UTR; another amount is amount_mismatch; each payout once', () => {
    const m = new Matcher(known([paid, other, failed, returned, pending]));
    expect(m.match(tx({ endToEndId: paid.id, utrs: ['UTR2'] }))).toMatchObject({
      result: 'matched',
      kind: 'payout',
      payoutId: paid.id,
      note: null,
    });
    expect(m.match(tx({ endToEndId: 'NOT-A-PAYOUT', utrs: ['UTR2'], amount: 4_000n }))).toMatchObject({
      result: 'amount_mismatch',
      payoutId: other.id,
      payrailAmount: 5_000n,
      note: "Payrail's amount is 50.00, the bank's 40.00",
    });
    expect(m.match(tx({ endToEndId: paid.id }))).toMatchObject({
      result: 'unmatched',
      payoutId: paid.id,
      note: `payout ${paid.id} is already matched by another entry`,
    });
    // The bank paid a payout Payrail failed and refunded: a contradiction, never matched.
    expect(m.match(tx({ utrs: ['UTR3'], amount: 7_000n }))).toMatchObject({
      result: 'paid_but_refunded',
      payoutId: failed.id,
      note: `payout ${failed.id} is REFUNDED in Payrail (failed, never SUCCESS), yet the bank paid it`,
    });
    // A payout returned after it succeeded was paid: its debit matches.
    expect(m.match(tx({ utrs: ['UTR4'], amount: 8_000n }))).toMatchObject({ result: 'matched', payoutId: returned.id });
    expect(m.match(tx({ endToEndId: pending.id, amount: 1_000n }))).toMatchObject({
      result: 'matched',
      note: 'payout is PENDING in Payrail',
    });
    expect(m.match(tx({ utrs: ['NOBODY'] }))).toEqual(expect.objectContaining({ result: 'unmatched', kind: null }));
    expect(m.missing([paid, other, failed, payout(P('C3C9'), 1n)]).map((p) => p.id)).toEqual([P('C3C9')]);
  });

  it('a credit: a return by EndToEndId with return information, a SUCCESS collection by UTR, a wallet credit by reference', () => {
    const m = new Matcher(
      known([paid, failed, returned], {
        collectionsByUtr: new Map([
          ['CUTR', [{ id: 'CT1', amount: 25_050n, status: 'SUCCESS', utr: 'CUTR' }]],
          ['CFAIL', [{ id: 'CT2', amount: 100n, status: 'FAILED', utr: 'CFAIL' }]],
        ]),
        creditsByReference: new Map([
          ['TOPUP-7', [{ id: 42n, walletId: 'WL1', amount: 500_000n, reference: 'TOPUP-7' }]],
        ]),
      }),
    );
    const credit = (over: Partial<ReconTransaction>) => m.match(tx({ direction: 'credit', ...over }));
    expect(credit({ endToEndId: returned.id, isReturn: true, amount: 8_000n })).toMatchObject({
      result: 'matched',
      kind: 'return',
      payoutId: returned.id,
    });
    expect(credit({ endToEndId: failed.id, isReturn: true, amount: 6_000n })).toMatchObject({
      result: 'amount_mismatch',
      kind: 'return',
    });
    // Money the bank sent back for a payout Payrail still has as SUCCESS: the return is not booked.
    expect(credit({ endToEndId: paid.id, isReturn: true })).toMatchObject({
      result: 'return_not_applied',
      kind: 'return',
      note: `a return of payout ${paid.id}, which is still SUCCESS in Payrail`,
    });
    // Without return information an EndToEndId naming a payout is no return.
    expect(credit({ endToEndId: failed.id, amount: 7_000n })).toMatchObject({ result: 'unmatched', kind: null });
    expect(credit({ utrs: ['CUTR'], amount: 25_050n })).toMatchObject({ result: 'matched', collectionId: 'CT1' });
    expect(credit({ utrs: ['CFAIL'], amount: 100n })).toMatchObject({
      result: 'unmatched',
      note: 'collection CT2 is FAILED in Payrail, yet the bank credited it',
    });
    expect(credit({ references: ['x', 'TOPUP-7'], amount: 500_000n })).toMatchObject({
      result: 'matched',
      kind: 'wallet_credit',
      creditId: 42n,
      walletId: 'WL1',
    });
    expect(credit({ utrs: ['UTR1'] })).toMatchObject({ result: 'unmatched', kind: null });
  });

  it('a transaction whose amount the bank does not give, or in another currency', () => {
    const m = new Matcher(known([paid, other]));
    expect(m.match(tx({ endToEndId: paid.id, amount: null }))).toMatchObject({
      result: 'amount_mismatch',
      note: 'the bank gives no amount for this transaction',
    });
    expect(m.match(tx({ endToEndId: other.id, currency: 'EUR' }))).toMatchObject({
      result: 'unmatched',
      note: 'in EUR, not INR',
    });
  });
});
