import type { StatementEntry } from '../../domain/statement.ts';
import type { Queryable } from '../Database.ts';

interface EntryRow {
  id: bigint;
  created_at: Date;
  kind: string;
  amount: bigint;
  reference: string | null;
  payout_id: string | null;
  collection_id: string | null;
  sender_id: string | null;
  settlement: boolean | null;
}

/** The ledger read as a statement: the sum before a range, and the entries inside it in ledger order. */
export const StatementRepository = {
  /**
   * Makes the rest of the transaction read one snapshot (REPEATABLE READ), so that its reads see the same committed
   * ledger (PostgreSQL; PGlite has one connection anyway). The transaction's first statement.
   */
  async readOneSnapshot(q: Queryable): Promise<void> {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  },

  /** Sum of the wallet's entries before `from` (0 when `from` is null: the statement starts at the beginning). */
  async openingBalance(q: Queryable, walletId: string, from: Date | null): Promise<bigint> {
    if (from === null) return 0n;
    const { rows } = await q.query<{ total: bigint | null }>(
      'SELECT sum(amount)::int8 AS total FROM ledger_entries WHERE wallet_id = $1 AND created_at < $2',
      [walletId, from],
    );
    return BigInt(rows[0]?.total ?? 0n);
  },

  /** Entries with from ≤ created_at < to, in ledger order; at most `limit`. */
  async entries(
    q: Queryable,
    walletId: string,
    range: { from: Date | null; to: Date | null },
    limit: number,
  ): Promise<Omit<StatementEntry, 'balance'>[]> {
    const { rows } = await q.query<EntryRow>(
      `SELECT e.id, e.created_at, e.kind, e.amount, e.reference, e.payout_id, e.collection_id,
              coalesce(p.sender_id, c.sender_id) AS sender_id, p.settlement_id IS NOT NULL AS settlement
         FROM ledger_entries e
         LEFT JOIN payouts p ON p.id = e.payout_id
         LEFT JOIN collections c ON c.id = e.collection_id
        WHERE e.wallet_id = $1 AND ($2::timestamptz IS NULL OR e.created_at >= $2)
          AND ($3::timestamptz IS NULL OR e.created_at < $3)
        ORDER BY e.id LIMIT $4`,
      [walletId, range.from, range.to, limit],
    );
    return rows.map((r) => ({
      id: BigInt(r.id),
      at: r.created_at,
      kind: r.kind,
      amount: BigInt(r.amount),
      reference: r.reference,
      payoutId: r.payout_id,
      collectionId: r.collection_id,
      senderId: r.sender_id,
      settlement: r.settlement === true,
    }));
  },
};
