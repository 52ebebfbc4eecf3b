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
  /** The merchant's own sender_id of that payout or collection: how the merchant knows it. */
  senderId?: string | null;
  /** The payout is a settlement's (paying the merchant's own account). */
  settlement?: boolean;
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
 * What each kind of entry is, as a statement line says it (docs/operator/console.md, "Statement"); the payout or
 * collection it belongs to is on the line beside it. On the platform's wallets the same words name the other side
 * of the same movement.
 */
const ENTRY_DESCRIPTIONS: Readonly<Record<string, string>> = {
  credit: 'Wallet credit',
  payout_debit: 'Payout',
  payout_refund: 'Payout refunded',
  payout_fee: 'Payout fee',
  payout_fee_gst: 'GST on payout fee',
  payout_fee_refund: 'Payout fee refunded',
  payout_fee_gst_refund: 'GST on payout fee refunded',
  collection_credit: 'Collection received',
  collection_fee: 'Collection fee',
  collection_fee_gst: 'GST on collection fee',
  deposit: 'Deposit received',
  deposit_fee: 'Deposit fee',
  deposit_fee_gst: 'GST on deposit fee',
  lien_enforced: 'Lien enforced',
};

/** The words of a settlement's payout (it pays the merchant's own account, docs/operator/settlements.md). */
const SETTLEMENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  payout_debit: 'Settlement to your bank account',
  payout_refund: 'Settlement refunded',
};

/**
 * A statement line's description: its kind in words (a kind without words of its own: the kind, spaced). A
 * settlement's payout says it is a settlement, not a payout the merchant sent.
 */
export function entryDescription(kind: string, settlement = false): string {
  const words = (settlement && SETTLEMENT_DESCRIPTIONS[kind]) || ENTRY_DESCRIPTIONS[kind];
  if (words) return words;
  const spaced = kind.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** What a statement has added up so far, carried from one page of entries to the next. */
export interface StatementTotals {
  /** The balance after the last entry so far (the opening balance before the first). */
  balance: bigint;
  credits: bigint;
  /** Positive: the sum of the debits' magnitudes. */
  debits: bigint;
  entries: number;
}

/** Totals before any entry: the balance is the opening balance. */
export function openingTotals(opening: bigint): StatementTotals {
  return { balance: opening, credits: 0n, debits: 0n, entries: 0 };
}

/**
 * The next entries in ledger order with their running balances, carrying `totals` on (it is updated in place), so
 * that a statement read a page at a time adds up exactly as one read whole: closing = opening + Σ amounts.
 */
export function carryBalances(totals: StatementTotals, rows: Omit<StatementEntry, 'balance'>[]): StatementEntry[] {
  return rows.map((r) => {
    totals.balance += r.amount;
    if (r.amount > 0n) totals.credits += r.amount;
    else totals.debits -= r.amount;
    totals.entries += 1;
    return { ...r, balance: totals.balance };
  });
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
  const totals = openingTotals(opening);
  const entries = carryBalances(totals, rows);
  return {
    walletId,
    ...range,
    opening,
    entries,
    closing: totals.balance,
    credits: totals.credits,
    debits: totals.debits,
  };
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
