import { describe, expect, it } from 'vitest';
import { buildStatement, parseStatementBound } from '../../src/domain/statement.ts';

const row = (id: number, amount: bigint) => ({
  id: BigInt(id),
  at: new Date(1_700_000_000_000 + id * 1000),
  kind: amount > 0n ? 'credit' : 'payout_debit',
  amount,
  reference: null,
  payoutId: amount > 0n ? null : `PT${id}`,
  collectionId: null,
});

describe('wallet statement maths', () => {
  it('runs the balance from the opening balance through every entry to the closing balance', () => {
    const s = buildStatement('WL1', { from: null, to: null }, 1000n, [row(1, 500n), row(2, -300n), row(3, 300n)]);
    expect(s.entries.map((e) => e.balance)).toEqual([1500n, 1200n, 1500n]);
    expect(s.closing).toBe(1500n);
    expect(s.credits).toBe(800n);
    expect(s.debits).toBe(300n);
    expect(s.opening + s.credits - s.debits).toBe(s.closing);
  });

  it('closes at the opening balance when the range is empty', () => {
    const s = buildStatement('WL1', { from: new Date(0), to: new Date(1) }, 4200n, []);
    expect(s.closing).toBe(4200n);
    expect(s.entries).toEqual([]);
  });

  it('chains: the closing balance of one range is the opening balance of the next', () => {
    const all = [row(1, 100n), row(2, 250n), row(3, -50n), row(4, 75n)];
    const first = buildStatement('WL1', { from: null, to: null }, 0n, all.slice(0, 2));
    const second = buildStatement('WL1', { from: null, to: null }, first.closing, all.slice(2));
    expect(second.closing).toBe(buildStatement('WL1', { from: null, to: null }, 0n, all).closing);
  });
});

describe('statement bounds', () => {
  it('reads a date as that day in India Standard Time', () => {
    expect(parseStatementBound('2026-03-01', 'from')?.toISOString()).toBe('2026-02-28T18:30:00.000Z');
    expect(parseStatementBound('2026-03-01', 'to')?.toISOString()).toBe('2026-03-01T18:30:00.000Z');
  });

  it('reads ISO date-times with an offset', () => {
    expect(parseStatementBound('2026-03-01T10:00:00Z', 'from')?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(parseStatementBound('2026-03-01T10:00:00.5+05:30', 'to')?.toISOString()).toBe('2026-03-01T04:30:00.500Z');
  });

  it('treats absent as unbounded and refuses anything else', () => {
    expect(parseStatementBound(undefined, 'from')).toBeNull();
    expect(parseStatementBound('', 'to')).toBeNull();
    for (const bad of ['2026-02-30', 'yesterday', '2026-03-01T10:00', '1700000000', '2026-13-01']) {
      expect(parseStatementBound(bad, 'from'), bad).toBeUndefined();
    }
  });
});
