import { istDayEnd, istDayStart } from './istPeriod.ts';

/** One line of a wallet statement: a ledger entry and the balance after it. */
export interface StatementEntry {
  id: bigint;
  at: Date;
  kind: string;
  /** Signed paise. */
  amount: bigint;
  balance: bigint;
  reference: string | null;
  payoutId: string | null;
  collectionId: string | null;
}

export interface Statement {
  walletId: string;
  from: Date | null;
  to: Date | null;
  opening: bigint;
  entries: StatementEntry[];
  closing: bigint;
  credits: bigint;
  debits: bigint;
}

/**
 * Running balances computed from the opening balance and the amounts, in ledger order, so that the statement
 * adds up by construction: closing = opening + Σ amounts, whatever order concurrent writers committed in.
 */
export function buildStatement(
  walletId: string,
  range: { from: Date | null; to: Date | null },
  opening: bigint,
  rows: Omit<StatementEntry, 'balance'>[],
): Statement {
  let balance = opening;
  let credits = 0n;
  let debits = 0n;
  const entries = rows.map((r) => {
    balance += r.amount;
    if (r.amount > 0n) credits += r.amount;
    else debits -= r.amount;
    return { ...r, balance };
  });
  return { walletId, ...range, opening, entries, closing: balance, credits, debits };
}

/**
 * A statement bound: an ISO date-time (with an offset or Z), or a date `YYYY-MM-DD`, which means the start of that
 * day in India Standard Time (for `to`: the end of it). Null when absent; undefined when not a valid bound.
 */
export function parseStatementBound(value: string | undefined, edge: 'from' | 'to'): Date | null | undefined {
  if (value === undefined || value === '') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    // Null for no such day (e.g. 2026-02-30).
    return (edge === 'from' ? istDayStart(value) : istDayEnd(value)) ?? undefined;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
