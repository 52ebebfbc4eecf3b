import type {
  KnownCollection,
  KnownCredit,
  KnownDeposit,
  KnownPayout,
  MatchedKind,
  ReconResult,
} from '../../domain/reconciliation.ts';
import type { Queryable } from '../Database.ts';

export interface NewBankStatement {
  id: string;
  format: 'camt.053' | 'mt940';
  version: string;
  account: string;
  statementRef: string;
  sha256: string;
  currency: string | null;
  periodFrom: string | null;
  periodTo: string | null;
  openingType: string;
  openingBalance: bigint;
  openingDate: string | null;
  closingType: string;
  closingBalance: bigint;
  closingDate: string | null;
  credits: bigint;
  debits: bigint;
  forwardValue: bigint;
  entryCount: number;
  ignoredEntries: number;
  importedBy: string;
}

export interface ResultTotal {
  count: number;
  amount: bigint;
}

export interface RunSummary {
  id: string;
  statement: NewBankStatement & { importedAt: Date };
  transactions: number;
  totals: Record<ReconResult, ResultTotal>;
  forwardValueItems: number;
  openExceptions: number;
  /** The open exceptions by result (results with none are absent), so that a list can say which are open. */
  openByResult: Partial<Record<ReconResult, number>>;
  createdBy: string;
  createdAt: Date;
}

export interface NewReconItem {
  result: ReconResult;
  entryIndex: number | null;
  txIndex: number | null;
  direction: 'credit' | 'debit' | null;
  amount: bigint | null;
  currency: string | null;
  bookingDate: string | null;
  valueDate: string | null;
  forwardValue: boolean;
  endToEndId: string | null;
  utr: string | null;
  bankReference: string | null;
  returnReason: string | null;
  remittance: string | null;
  matchedKind: MatchedKind | null;
  payoutId: string | null;
  collectionId: string | null;
  /** The deposit a credit matched (migration 035). */
  depositId?: string | null;
  ledgerEntryId: bigint | null;
  walletId: string | null;
  payrailAmount: bigint | null;
  note: string | null;
}

export interface ReconItem extends NewReconItem {
  id: bigint;
  runId: string;
  closedBy: string | null;
  closedReason: string | null;
  closedAt: Date | null;
}

interface StatementRunRow {
  run_id: string;
  transactions: number;
  matched: number;
  matched_amount: bigint;
  amount_mismatch: number;
  amount_mismatch_amount: bigint;
  unmatched: number;
  unmatched_amount: bigint;
  missing: number;
  missing_amount: bigint;
  paid_but_refunded: number;
  paid_but_refunded_amount: bigint;
  return_not_applied: number;
  return_not_applied_amount: bigint;
  forward_value_items: number;
  created_by: string;
  created_at: Date;
  open_exceptions: bigint | number;
  open_by_result: Record<string, number | string> | string | null;
  id: string;
  format: 'camt.053' | 'mt940';
  version: string;
  account: string;
  statement_ref: string;
  sha256: string;
  currency: string | null;
  period_from: string | null;
  period_to: string | null;
  opening_type: string;
  opening_balance: bigint;
  opening_date: string | null;
  closing_type: string;
  closing_balance: bigint;
  closing_date: string | null;
  credits: bigint;
  debits: bigint;
  forward_value: bigint;
  entry_count: number;
  ignored_entries: number;
  imported_by: string;
  imported_at: Date;
}

const RUN_COLUMNS = `r.id AS run_id, r.transactions, r.matched, r.matched_amount, r.amount_mismatch,
  r.amount_mismatch_amount, r.unmatched, r.unmatched_amount, r.missing, r.missing_amount, r.paid_but_refunded,
  r.paid_but_refunded_amount, r.return_not_applied, r.return_not_applied_amount, r.forward_value_items,
  r.created_by, r.created_at,
  (SELECT count(*) FROM reconciliation_items i
    WHERE i.run_id = r.id AND i.result <> 'matched' AND i.closed_at IS NULL) AS open_exceptions,
  (SELECT json_object_agg(o.result, o.n) FROM (SELECT i.result, count(*) AS n FROM reconciliation_items i
    WHERE i.run_id = r.id AND i.result <> 'matched' AND i.closed_at IS NULL GROUP BY i.result) o) AS open_by_result,
  s.id, s.format, s.version, s.account, s.statement_ref, s.sha256, s.currency, s.period_from::text AS period_from,
  s.period_to::text AS period_to, s.opening_type, s.opening_balance, s.opening_date::text AS opening_date,
  s.closing_type, s.closing_balance, s.closing_date::text AS closing_date, s.credits, s.debits, s.forward_value,
  s.entry_count, s.ignored_entries, s.imported_by, s.imported_at`;

/** The driver answers json as an object (pg) or as its text (some PGlite paths); counts as numbers either way. */
function openByResultOf(value: StatementRunRow['open_by_result']): Partial<Record<ReconResult, number>> {
  const parsed = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, number | string> | null;
  return Object.fromEntries(Object.entries(parsed ?? {}).map(([k, n]) => [k, Number(n)]));
}

const toSummary = (r: StatementRunRow): RunSummary => ({
  id: r.run_id,
  statement: {
    id: r.id,
    format: r.format,
    version: r.version,
    account: r.account,
    statementRef: r.statement_ref,
    sha256: r.sha256,
    currency: r.currency,
    periodFrom: r.period_from,
    periodTo: r.period_to,
    openingType: r.opening_type,
    openingBalance: r.opening_balance,
    openingDate: r.opening_date,
    closingType: r.closing_type,
    closingBalance: r.closing_balance,
    closingDate: r.closing_date,
    credits: r.credits,
    debits: r.debits,
    forwardValue: r.forward_value,
    entryCount: r.entry_count,
    ignoredEntries: r.ignored_entries,
    importedBy: r.imported_by,
    importedAt: r.imported_at,
  },
  transactions: r.transactions,
  totals: {
    matched: { count: r.matched, amount: r.matched_amount },
    amount_mismatch: { count: r.amount_mismatch, amount: r.amount_mismatch_amount },
    unmatched: { count: r.unmatched, amount: r.unmatched_amount },
    missing: { count: r.missing, amount: r.missing_amount },
    paid_but_refunded: { count: r.paid_but_refunded, amount: r.paid_but_refunded_amount },
    return_not_applied: { count: r.return_not_applied, amount: r.return_not_applied_amount },
  },
  forwardValueItems: r.forward_value_items,
  openExceptions: Number(r.open_exceptions),
  openByResult: openByResultOf(r.open_by_result),
  createdBy: r.created_by,
  createdAt: r.created_at,
});

interface ItemRow {
  id: bigint;
  run_id: string;
  result: ReconResult;
  entry_index: number | null;
  tx_index: number | null;
  direction: 'credit' | 'debit' | null;
  amount: bigint | null;
  currency: string | null;
  booking_date: string | null;
  value_date: string | null;
  forward_value: boolean;
  end_to_end_id: string | null;
  utr: string | null;
  bank_reference: string | null;
  return_reason: string | null;
  remittance: string | null;
  matched_kind: MatchedKind | null;
  payout_id: string | null;
  collection_id: string | null;
  deposit_id: string | null;
  ledger_entry_id: bigint | null;
  wallet_id: string | null;
  payrail_amount: bigint | null;
  note: string | null;
  closed_by: string | null;
  closed_reason: string | null;
  closed_at: Date | null;
}

const ITEM_COLUMNS = `id, run_id, result, entry_index, tx_index, direction, amount, currency,
  booking_date::text AS booking_date, value_date::text AS value_date, forward_value, end_to_end_id, utr,
  bank_reference, return_reason, remittance, matched_kind, payout_id, collection_id, ledger_entry_id, wallet_id,
  payrail_amount, note, closed_by, closed_reason, closed_at, deposit_id`;

const toItem = (r: ItemRow): ReconItem => ({
  id: r.id,
  runId: r.run_id,
  result: r.result,
  entryIndex: r.entry_index,
  txIndex: r.tx_index,
  direction: r.direction,
  amount: r.amount,
  currency: r.currency,
  bookingDate: r.booking_date,
  valueDate: r.value_date,
  forwardValue: r.forward_value,
  endToEndId: r.end_to_end_id,
  utr: r.utr,
  bankReference: r.bank_reference,
  returnReason: r.return_reason,
  remittance: r.remittance,
  matchedKind: r.matched_kind,
  payoutId: r.payout_id,
  collectionId: r.collection_id,
  depositId: r.deposit_id,
  ledgerEntryId: r.ledger_entry_id,
  walletId: r.wallet_id,
  payrailAmount: r.payrail_amount,
  note: r.note,
  closedBy: r.closed_by,
  closedReason: r.closed_reason,
  closedAt: r.closed_at,
});

/** Rows per INSERT of items: one statement of arrays each (a 10,000-entry statement is a handful of them). */
const ITEM_CHUNK = 5000;

const text = (v: bigint | null) => (v === null ? null : v.toString());

/** Statements, reconciliation runs and their items; and the lookups matching needs, each in one query. */
export const ReconciliationRepository = {
  /** Records a statement; null when the same one (account, statement id, SHA-256) is already recorded. */
  async insertStatement(q: Queryable, s: NewBankStatement): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(
      `INSERT INTO bank_statements (id, format, version, account, statement_ref, sha256, currency, period_from,
         period_to, opening_type, opening_balance, opening_date, closing_type, closing_balance, closing_date, credits,
         debits, forward_value, entry_count, ignored_entries, imported_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, $9::date, $10, $11, $12::date, $13, $14, $15::date, $16, $17,
         $18, $19, $20, $21)
       ON CONFLICT (account, statement_ref, sha256) DO NOTHING RETURNING id`,
      [
        s.id,
        s.format,
        s.version,
        s.account,
        s.statementRef,
        s.sha256,
        s.currency,
        s.periodFrom,
        s.periodTo,
        s.openingType,
        s.openingBalance,
        s.openingDate,
        s.closingType,
        s.closingBalance,
        s.closingDate,
        s.credits,
        s.debits,
        s.forwardValue,
        s.entryCount,
        s.ignoredEntries,
        s.importedBy,
      ],
    );
    return rows[0]?.id ?? null;
  },

  /** The run of a statement recorded earlier (the same account, statement id and SHA-256). */
  async runIdOf(q: Queryable, account: string, statementRef: string, sha256: string): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT r.id FROM reconciliation_runs r JOIN bank_statements s ON s.id = r.statement_id
        WHERE s.account = $1 AND s.statement_ref = $2 AND s.sha256 = $3`,
      [account, statementRef, sha256],
    );
    return rows[0]?.id ?? null;
  },

  async insertRun(
    q: Queryable,
    run: {
      id: string;
      statementId: string;
      transactions: number;
      totals: Record<ReconResult, ResultTotal>;
      forwardValueItems: number;
      createdBy: string;
    },
  ): Promise<void> {
    const t = run.totals;
    await q.query(
      `INSERT INTO reconciliation_runs (id, statement_id, transactions, matched, matched_amount, amount_mismatch,
         amount_mismatch_amount, unmatched, unmatched_amount, missing, missing_amount, forward_value_items, created_by,
         paid_but_refunded, paid_but_refunded_amount, return_not_applied, return_not_applied_amount)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        run.id,
        run.statementId,
        run.transactions,
        t.matched.count,
        t.matched.amount,
        t.amount_mismatch.count,
        t.amount_mismatch.amount,
        t.unmatched.count,
        t.unmatched.amount,
        t.missing.count,
        t.missing.amount,
        run.forwardValueItems,
        run.createdBy,
        t.paid_but_refunded.count,
        t.paid_but_refunded.amount,
        t.return_not_applied.count,
        t.return_not_applied.amount,
      ],
    );
  },

  /** Every item of a run, a few statements of arrays in all. */
  async insertItems(q: Queryable, runId: string, items: NewReconItem[]): Promise<void> {
    for (let start = 0; start < items.length; start += ITEM_CHUNK) {
      const chunk = items.slice(start, start + ITEM_CHUNK);
      const col = <T>(f: (i: NewReconItem) => T) => chunk.map(f);
      await q.query(
        `INSERT INTO reconciliation_items (run_id, result, entry_index, tx_index, direction, amount, currency,
           booking_date, value_date, forward_value, end_to_end_id, utr, bank_reference, return_reason, remittance,
           matched_kind, payout_id, collection_id, ledger_entry_id, wallet_id, payrail_amount, note, deposit_id)
         SELECT $1, * FROM unnest($2::text[], $3::int4[], $4::int4[], $5::text[], $6::int8[], $7::text[], $8::date[],
           $9::date[], $10::bool[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
           $17::text[], $18::text[], $19::int8[], $20::text[], $21::int8[], $22::text[], $23::text[])`,
        [
          runId,
          col((i) => i.result),
          col((i) => i.entryIndex),
          col((i) => i.txIndex),
          col((i) => i.direction),
          col((i) => text(i.amount)),
          col((i) => i.currency),
          col((i) => i.bookingDate),
          col((i) => i.valueDate),
          col((i) => (i.forwardValue ? 't' : 'f')),
          col((i) => i.endToEndId),
          col((i) => i.utr),
          col((i) => i.bankReference),
          col((i) => i.returnReason),
          col((i) => i.remittance),
          col((i) => i.matchedKind),
          col((i) => i.payoutId),
          col((i) => i.collectionId),
          col((i) => text(i.ledgerEntryId)),
          col((i) => i.walletId),
          col((i) => text(i.payrailAmount)),
          col((i) => i.note),
          col((i) => i.depositId ?? null),
        ],
      );
    }
  },

  async summary(q: Queryable, runId: string): Promise<RunSummary | null> {
    const { rows } = await q.query<StatementRunRow>(
      `SELECT ${RUN_COLUMNS} FROM reconciliation_runs r JOIN bank_statements s ON s.id = r.statement_id
        WHERE r.id = $1`,
      [runId],
    );
    return rows[0] ? toSummary(rows[0]) : null;
  },

  /** Runs, newest first, before the run `before` (a cursor). */
  async page(q: Queryable, query: { limit: number; before?: string }): Promise<RunSummary[]> {
    const { rows } = await q.query<StatementRunRow>(
      `SELECT ${RUN_COLUMNS} FROM reconciliation_runs r JOIN bank_statements s ON s.id = r.statement_id
        WHERE ($1::text IS NULL OR r.id < $1) ORDER BY r.id DESC LIMIT $2`,
      [query.before ?? null, query.limit],
    );
    return rows.map(toSummary);
  },

  /** Every item of a run: open exceptions first, then closed ones, then the matched, each in statement order. */
  async items(q: Queryable, runId: string): Promise<ReconItem[]> {
    const { rows } = await q.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM reconciliation_items WHERE run_id = $1
        ORDER BY CASE WHEN result = 'matched' THEN 2 WHEN closed_at IS NULL THEN 0 ELSE 1 END, id`,
      [runId],
    );
    return rows.map(toItem);
  },

  async lockItem(q: Queryable, runId: string, itemId: bigint): Promise<ReconItem | null> {
    const { rows } = await q.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM reconciliation_items WHERE run_id = $1 AND id = $2 FOR UPDATE`,
      [runId, itemId],
    );
    return rows[0] ? toItem(rows[0]) : null;
  },

  async close(q: Queryable, itemId: bigint, by: string, reason: string): Promise<ReconItem> {
    const { rows } = await q.query<ItemRow>(
      `UPDATE reconciliation_items SET closed_by = $2, closed_reason = $3, closed_at = now()
        WHERE id = $1 RETURNING ${ITEM_COLUMNS}`,
      [itemId, by, reason],
    );
    return toItem(rows[0] as ItemRow);
  },

  // Lookups of what a statement names

  async payoutsById(q: Queryable, ids: string[]): Promise<KnownPayout[]> {
    if (ids.length === 0) return [];
    const { rows } = await q.query<KnownPayout>(
      `SELECT id, amount, status, utr, (returned_at IS NOT NULL) AS returned FROM payouts WHERE id = ANY($1::text[])`,
      [ids],
    );
    return rows;
  },

  async payoutsByUtr(q: Queryable, utrs: string[]): Promise<KnownPayout[]> {
    if (utrs.length === 0) return [];
    const { rows } = await q.query<KnownPayout>(
      `SELECT id, amount, status, utr, (returned_at IS NOT NULL) AS returned FROM payouts
        WHERE utr <> '' AND utr = ANY($1::text[]) ORDER BY id`,
      [utrs],
    );
    return rows;
  },

  async collectionsByUtr(q: Queryable, utrs: string[]): Promise<KnownCollection[]> {
    if (utrs.length === 0) return [];
    const { rows } = await q.query<KnownCollection>(
      `SELECT id, amount, status, utr FROM collections WHERE utr <> '' AND utr = ANY($1::text[]) ORDER BY id`,
      [utrs],
    );
    return rows;
  },

  /** Deposits credited with any of `utrs` (a statement's credits). */
  async depositsByUtr(q: Queryable, utrs: string[]): Promise<KnownDeposit[]> {
    if (utrs.length === 0) return [];
    const { rows } = await q.query<{ id: string; wallet_id: string; amount: bigint; utr: string }>(
      'SELECT id, wallet_id, amount, utr FROM deposits WHERE utr = ANY($1::text[]) ORDER BY id',
      [utrs],
    );
    return rows.map((r) => ({ id: r.id, walletId: r.wallet_id, amount: BigInt(r.amount), utr: r.utr }));
  },

  async creditsByReference(q: Queryable, references: string[]): Promise<KnownCredit[]> {
    if (references.length === 0) return [];
    const { rows } = await q.query<{ id: bigint; wallet_id: string; amount: bigint; reference: string }>(
      `SELECT id, wallet_id, amount, reference FROM ledger_entries
        WHERE kind = 'credit' AND reference IS NOT NULL AND reference = ANY($1::text[]) ORDER BY id`,
      [references],
    );
    return rows.map((r) => ({ id: r.id, walletId: r.wallet_id, amount: r.amount, reference: r.reference }));
  },

  /** The run's items other than matched, with their ids (each becomes an exception). */
  async exceptionsOf(q: Queryable, runId: string): Promise<ReconItem[]> {
    const { rows } = await q.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM reconciliation_items WHERE run_id = $1 AND result <> 'matched' ORDER BY id`,
      [runId],
    );
    return rows.map(toItem);
  },

  /**
   * SUCCESS payouts paid through `connector` (payouts.rail) that became SUCCESS within [from, to), but for those an
   * earlier statement's debit already matched (a payout is paid once: a later statement of the same day need not
   * show it).
   */
  async successfulPayouts(
    q: Queryable,
    connector: string,
    from: Date,
    to: Date,
  ): Promise<(KnownPayout & { succeededAt: Date })[]> {
    const { rows } = await q.query<KnownPayout & { updated_at: Date }>(
      `SELECT id, amount, status, utr, updated_at FROM payouts
        WHERE status = 'SUCCESS' AND updated_at >= $1 AND updated_at < $2 AND rail = $3
          AND NOT EXISTS (SELECT 1 FROM reconciliation_items i WHERE i.payout_id = payouts.id
            AND i.matched_kind = 'payout' AND i.direction = 'debit' AND i.result IN ('matched', 'amount_mismatch'))
        ORDER BY id`,
      [from, to, connector],
    );
    return rows.map((r) => ({
      id: r.id,
      amount: r.amount,
      status: r.status,
      utr: r.utr,
      returned: false,
      succeededAt: r.updated_at,
    }));
  },
};
