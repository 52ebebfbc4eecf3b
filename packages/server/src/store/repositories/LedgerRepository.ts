import type { Queryable } from '../Database.ts';
import { isCheckViolation, isOutOfRange, isUniqueViolation } from '../dbErrors.ts';

/** Every kind of entry (migration 029): see docs/merchant/statements.md for what each means on a statement. */
export type EntryKind =
  | 'credit'
  | 'payout_debit'
  | 'payout_refund'
  | 'collection_credit'
  | 'payout_fee'
  | 'payout_fee_gst'
  | 'payout_fee_refund'
  | 'payout_fee_gst_refund'
  | 'collection_fee'
  | 'collection_fee_gst'
  | 'deposit'
  | 'deposit_fee'
  | 'deposit_fee_gst'
  | 'lien_enforced';

/**
 * The kinds whose every movement is two entries, a merchant's wallet's and a platform wallet's, with opposite signs:
 * over all wallets each sums to zero (GET /admin/v1/ledger/verify checks it).
 */
export const DOUBLE_ENTRY_KINDS: readonly EntryKind[] = [
  'payout_fee',
  'payout_fee_gst',
  'payout_fee_refund',
  'payout_fee_gst_refund',
  'collection_fee',
  'collection_fee_gst',
  'deposit_fee',
  'deposit_fee_gst',
  'lien_enforced',
];

export interface NewEntry {
  walletId: string;
  kind: EntryKind;
  /** Signed paise: negative for a debit. */
  amount: bigint;
  payoutId?: string;
  collectionId?: string;
  reference?: string;
  /** The operator whose console session credited directly (summed over 24 h per wallet); credits only. */
  creditedBy?: string;
}

export interface LedgerMismatch {
  wallet_id: string;
  balance: string;
  ledger_sum: string;
}

export class InsufficientFunds extends Error {
  constructor() {
    super('insufficient funds');
    this.name = 'InsufficientFunds';
  }
}

/** The movement would take the balance beyond what its bigint column holds. */
export class BalanceOverflow extends Error {
  constructor() {
    super('balance would overflow');
    this.name = 'BalanceOverflow';
  }
}

export class DuplicateEntry extends Error {
  constructor() {
    super('ledger entry already recorded');
    this.name = 'DuplicateEntry';
  }
}

/** What an entry's insert refused, as the errors callers handle: the database's error itself when it is none of them. */
function ledgerRefusal(err: unknown): unknown {
  if (isCheckViolation(err, 'wallets_balance_check')) return new InsufficientFunds();
  if (isUniqueViolation(err)) return new DuplicateEntry();
  if (isOutOfRange(err)) return new BalanceOverflow();
  return err;
}

/** Each wallet's balance beside the sum of all its entries (LedgerRepository.verify, full). */
const VERIFY_WALLETS_FULL = `SELECT w.id AS wallet_id, w.platform_kind IS NOT NULL AS platform,
        coalesce(p.balance, w.balance) AS balance, coalesce(s.total, 0)::int8 AS ledger_sum
   FROM wallets w
   LEFT JOIN platform_wallet_balances p ON p.id = w.id
   LEFT JOIN (SELECT wallet_id, sum(amount) AS total FROM ledger_entries GROUP BY wallet_id) s ON s.wallet_id = w.id`;

/**
 * Each wallet's balance beside its last day closing plus its entries after that day (a range of
 * ledger_by_wallet_time): the same sum, reading only the entries of days not yet closed.
 */
const VERIFY_WALLETS_FROM_CLOSINGS = `SELECT w.id AS wallet_id, w.platform_kind IS NOT NULL AS platform,
        coalesce(p.balance, w.balance) AS balance, (coalesce(c.closing, 0) + coalesce(t.total, 0))::int8 AS ledger_sum
   FROM wallets w
   LEFT JOIN platform_wallet_balances p ON p.id = w.id
   LEFT JOIN LATERAL (SELECT day, closing FROM ledger_day_closings
                       WHERE wallet_id = w.id ORDER BY day DESC LIMIT 1) c ON true
   LEFT JOIN LATERAL (SELECT sum(e.amount) AS total FROM ledger_entries e
                       WHERE e.wallet_id = w.id
                         AND e.created_at >= coalesce(((c.day + 1)::timestamp AT TIME ZONE 'UTC'), '-infinity')) t
     ON true`;

/** Every entry's kind, amount and whether it is on a platform wallet (fees, GST, recovery). */
const KIND_SUMS_FULL = `SELECT e.kind, e.amount AS total, p.id IS NOT NULL AS on_platform
   FROM ledger_entries e
   LEFT JOIN wallets p ON p.id = e.wallet_id AND p.platform_kind IN ('fees', 'gst', 'recovery')`;

/**
 * The closed days' kind totals, and the entries after them as KIND_SUMS_FULL reads them: per wallet, a range of
 * ledger_by_wallet_time summed by kind. The GROUP BY keeps each wallet's range a lookup: as a plain join, the planner
 * could not see the closed days' bound (a subquery's value) and read the whole ledger (261 ms at a million payouts).
 */
const KIND_SUMS_FROM_CLOSINGS = `SELECT kind, total, on_platform FROM ledger_day_kind_totals
  UNION ALL
  SELECT t.kind, t.total, w.platform_kind IN ('fees', 'gst', 'recovery')
    FROM wallets w
   CROSS JOIN LATERAL (
     SELECT e.kind, sum(e.amount) AS total FROM ledger_entries e
      WHERE e.wallet_id = w.id
        AND e.created_at >= coalesce(((SELECT closed_until FROM ledger_closings)::timestamp AT TIME ZONE 'UTC'),
                                     '-infinity')
      GROUP BY e.kind) t`;

/**
 * The ledger is the only way a balance moves: inserting an entry updates its wallet in the same statement
 * (trigger `ledger_apply`), and the wallet's CHECK (balance >= 0) refuses an overdraft atomically.
 */
export const LedgerRepository = {
  /**
   * Appends an entry and returns the wallet balance after it. Throws InsufficientFunds when it would take the
   * balance below zero and DuplicateEntry when this movement was already recorded; both leave the surrounding
   * transaction unusable, so callers roll back.
   */
  async append(q: Queryable, e: NewEntry): Promise<bigint> {
    try {
      const { rows } = await q.query<{ balance_after: bigint }>(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, collection_id, reference,
           credited_by)
         VALUES ($1, $2, $3, 0, $4, $5, $6, $7) RETURNING balance_after`,
        [
          e.walletId,
          e.kind,
          e.amount,
          e.payoutId ?? null,
          e.collectionId ?? null,
          e.reference ?? null,
          e.creditedBy ?? null,
        ],
      );
      return (rows[0] as { balance_after: bigint }).balance_after;
    } catch (err) {
      throw ledgerRefusal(err);
    }
  },

  /**
   * The `payout_refund` entries of several payouts in one statement, in the order given: the ledger's trigger
   * still moves each wallet per row, and its unique index still allows one refund per payout. Throws as `append`.
   */
  async appendRefunds(
    q: Queryable,
    refunds: readonly { walletId: string; amount: bigint; payoutId: string }[],
  ): Promise<void> {
    if (refunds.length === 0) return;
    try {
      await q.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
         SELECT u.wallet_id, 'payout_refund', u.amount, 0, u.payout_id
           FROM unnest($1::text[], $2::int8[], $3::text[]) WITH ORDINALITY AS u (wallet_id, amount, payout_id, ord)
          ORDER BY u.ord`,
        [refunds.map((r) => r.walletId), refunds.map((r) => String(r.amount)), refunds.map((r) => r.payoutId)],
      );
    } catch (err) {
      throw ledgerRefusal(err);
    }
  },

  /**
   * A collection's SUCCESS in the ledger: its credit, then its plan's fee and GST (function `collection_credit`,
   * migration 029, which also keeps them on the collection). Throws DuplicateEntry when it was credited already.
   */
  async creditCollection(q: Queryable, collectionId: string, gstRateBp: number): Promise<{ fee: bigint; tax: bigint }> {
    try {
      const { rows } = await q.query<{ charged_fee: bigint; charged_tax: bigint }>(
        'SELECT charged_fee, charged_tax FROM collection_credit($1, $2)',
        [collectionId, gstRateBp],
      );
      const row = rows[0] as { charged_fee: bigint; charged_tax: bigint };
      return { fee: BigInt(row.charged_fee), tax: BigInt(row.charged_tax) };
    } catch (err) {
      throw ledgerRefusal(err);
    }
  },

  /** The amount of the wallet's credit made with `reference`, if there is one. */
  async creditAmountByReference(q: Queryable, walletId: string, reference: string): Promise<bigint | null> {
    const { rows } = await q.query<{ amount: bigint }>(
      `SELECT amount FROM ledger_entries WHERE wallet_id = $1 AND kind = 'credit' AND reference = $2`,
      [walletId, reference],
    );
    return rows[0]?.amount ?? null;
  },

  /**
   * What one operator credited directly to one wallet in the last 24 hours, by the database's clock (the one
   * that stamps the entries). Read under the wallet's lock, so that of two simultaneous credits the later one's
   * sum includes the earlier.
   */
  async directCreditsLastDay(q: Queryable, walletId: string, operatorId: string): Promise<bigint> {
    const { rows } = await q.query<{ total: bigint }>(
      `SELECT coalesce(sum(amount), 0)::int8 AS total FROM ledger_entries
        WHERE wallet_id = $1 AND credited_by = $2 AND created_at > now() - interval '24 hours'`,
      [walletId, operatorId],
    );
    return BigInt((rows[0] as { total: bigint }).total);
  },

  /**
   * Makes the rest of the transaction one read-only snapshot for `verify` (its two checks then see the same ledger and
   * the same closed days), without JIT: PostgreSQL prices a range whose bound is a subquery's value at a third of the
   * ledger, which at a million payouts put the statement past jit_above_cost, and compiling it took 230-330 ms of a
   * check whose reads take 5. The transaction's first statements.
   */
  async verifySnapshot(q: Queryable): Promise<void> {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await q.query('SET LOCAL jit = off');
  },

  /**
   * Every wallet whose balance differs from the sum of its entries, the platform's wallets included (should always be
   * empty); and every double-entry kind whose entries do not sum to zero over all wallets (should never be one). A
   * kind is double-entry when it is one of DOUBLE_ENTRY_KINDS or any entry of it is on a platform wallet: each of its
   * movements is two entries, the merchant's side and the platform's, with opposite signs (migration 029). The suspense
   * wallet is not such a side: it holds money from outside as a merchant wallet does (a deposit returned to its
   * sender, migration 037), so its deposits and payouts are single entries as a merchant's are. Each check
   * is one statement, so it sees one committed state (a platform wallet's balance moves at commit, into one of its
   * stripes, migration 040: its balance is read from platform_wallet_balances).
   *
   * With `full` false, the days the worker has closed (migration 044) are read from their closings and kind totals,
   * which the closing pass summed from the entries themselves, and only the entries after them are added: a day's
   * entries, not the ledger's. The ledger is append-only, so a closed day's sums stay the sums of its entries; `full`
   * re-adds every entry, for an audit that trusts nothing but the entries.
   */
  async verify(
    q: Queryable,
    full = false,
  ): Promise<{
    walletsChecked: number;
    platformWalletsChecked: number;
    mismatches: LedgerMismatch[];
    unbalancedKinds: { kind: string; sum: bigint }[];
  }> {
    const { rows } = await q.query<{ wallet_id: string; platform: boolean; balance: bigint; ledger_sum: bigint }>(
      full ? VERIFY_WALLETS_FULL : VERIFY_WALLETS_FROM_CLOSINGS,
    );
    const mismatches = rows
      .filter((r) => r.balance !== r.ledger_sum)
      .map((r) => ({ wallet_id: r.wallet_id, balance: String(r.balance), ledger_sum: String(r.ledger_sum) }));
    const kinds = await q.query<{ kind: string; total: bigint }>(
      `SELECT kind, sum(total)::int8 AS total
         FROM (${full ? KIND_SUMS_FULL : KIND_SUMS_FROM_CLOSINGS}) k
        GROUP BY kind
       HAVING sum(total) <> 0 AND (kind = ANY ($1::text[]) OR bool_or(on_platform))
        ORDER BY kind`,
      [DOUBLE_ENTRY_KINDS],
    );
    return {
      walletsChecked: rows.length,
      platformWalletsChecked: rows.filter((r) => r.platform).length,
      mismatches,
      unbalancedKinds: kinds.rows.map((r) => ({ kind: r.kind, sum: BigInt(r.total) })),
    };
  },
};
