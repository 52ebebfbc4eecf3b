import type { StatementEntry } from '../../domain/statement.ts';
import type { Queryable } from '../Database.ts';

/** No entry id is above it: the upper bound of a page without one. */
const INT8_MAX = 9_223_372_036_854_775_807n;

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

/**
 * The sum of wallet $1's entries created before $2 (timestamptz): its last closing on a day before $2's UTC day, and
 * the entries from the start of the next day (or from the first entry, with no closing) up to $2.
 */
export const openingBalanceSql = `(SELECT (coalesce(c.closing, 0) + coalesce((
            SELECT sum(e.amount) FROM ledger_entries e
             WHERE e.wallet_id = $1 AND e.created_at < $2::timestamptz
               AND e.created_at >= coalesce(((c.day + 1)::timestamp AT TIME ZONE 'UTC'), '-infinity')), 0))::int8
     FROM (SELECT 1) one
     LEFT JOIN LATERAL (SELECT day, closing FROM ledger_day_closings
                         WHERE wallet_id = $1 AND day < ($2::timestamptz AT TIME ZONE 'UTC')::date
                         ORDER BY day DESC LIMIT 1) c ON true)`;

/** The ledger read as a statement: the sum before a range, and the entries inside it in ledger order. */
export const StatementRepository = {
  /**
   * Makes the rest of the transaction read one snapshot (REPEATABLE READ), so that its reads see the same committed
   * ledger (PostgreSQL; PGlite has one connection anyway). The transaction's first statement.
   */
  async readOneSnapshot(q: Queryable): Promise<void> {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  },

  /** readOneSnapshot, read-only: a streamed statement's transaction, which only reads. */
  async readOnlySnapshot(q: Queryable): Promise<void> {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  },

  /**
   * Sum of the wallet's entries before `from` (0 when `from` is null: the statement starts at the beginning): the
   * wallet's last day closing before `from`'s UTC day (migration 044), plus its entries from the day after that
   * closing up to `from`. Once the worker has closed yesterday, that is at most two days of the wallet's entries
   * (ledger_by_wallet_time, index-only), whatever its history; a wallet never closed sums from its first entry.
   */
  async openingBalance(q: Queryable, walletId: string, from: Date | null): Promise<bigint> {
    if (from === null) return 0n;
    const { rows } = await q.query<{ total: bigint | null }>(`SELECT ${openingBalanceSql} AS total`, [walletId, from]);
    return BigInt(rows[0]?.total ?? 0n);
  },

  /**
   * The opening balance as `openingBalance` reads it, and the ledger's last entry id, in one statement: on PGlite,
   * which runs one statement or transaction at a time, every entry up to that id is committed and no later one gets
   * an id below it, so pages read later up to it are the ledger as it was here (WalletStatementService.stream).
   */
  async openingBalanceAndLastId(
    q: Queryable,
    walletId: string,
    from: Date | null,
  ): Promise<{ opening: bigint; lastId: bigint }> {
    const { rows } = await q.query<{ total: bigint | null; last_id: bigint | null }>(
      `SELECT CASE WHEN $2::timestamptz IS NULL THEN 0 ELSE ${openingBalanceSql} END AS total,
              (SELECT max(id) FROM ledger_entries) AS last_id`,
      [walletId, from],
    );
    return { opening: BigInt(rows[0]?.total ?? 0n), lastId: BigInt(rows[0]?.last_id ?? 0n) };
  },

  /**
   * The id span of the wallet's entries with from ≤ created_at < to, as entryPage's bounds: `after` just below the
   * first, `upTo` the last (both 0 when there is none, so that no page finds one). With neither bound, none is
   * read: the pages start at the wallet's first entry or run to its last anyway. The pages walk the wallet's entries
   * in id order (ledger_by_wallet); without the span, a day ten days back of a wallet with years of history walked
   * every earlier entry to reach the day and every later one to leave it (180-280 ms for 4,981 entries of a wallet of
   * 448,231, at a million payouts). The span is read from the range's own entries (ledger_by_wallet_time): what it
   * costs follows the statement's size, not the wallet's history.
   */
  async idSpan(
    q: Queryable,
    walletId: string,
    range: { from: Date | null; to: Date | null },
  ): Promise<{ after: bigint; upTo: bigint | null }> {
    if (range.from === null && range.to === null) return { after: 0n, upTo: null };
    const { rows } = await q.query<{ lo: bigint | null; hi: bigint | null }>(
      // OFFSET 0 keeps the range a subquery: written straight, min(id) and max(id) become PostgreSQL's first and
      // last row of the primary key that match, a walk of the whole ledger from either end.
      `SELECT min(r.id) AS lo, max(r.id) AS hi
         FROM (SELECT id FROM ledger_entries
                WHERE wallet_id = $1 AND created_at >= $2 AND created_at < $3 OFFSET 0) r`,
      [walletId, range.from ?? '-infinity', range.to ?? 'infinity'],
    );
    const lo = rows[0]?.lo ?? null;
    const hi = rows[0]?.hi ?? null;
    if (lo === null || hi === null) return { after: 0n, upTo: 0n };
    return { after: BigInt(lo) - 1n, upTo: BigInt(hi) };
  },

  /** Entries with from ≤ created_at < to, in ledger order; at most `limit`. */
  async entries(
    q: Queryable,
    walletId: string,
    range: { from: Date | null; to: Date | null },
    limit: number,
  ): Promise<Omit<StatementEntry, 'balance'>[]> {
    return StatementRepository.entryPage(
      q,
      walletId,
      range,
      await StatementRepository.idSpan(q, walletId, range),
      limit,
    );
  },

  /**
   * One page of a statement read a page at a time: the entries with from ≤ created_at < to and after < id ≤ upTo
   * (upTo null: no upper bound), in ledger order, at most `limit`. Keyset by (wallet_id, id), the index
   * ledger_by_wallet: each page starts where the last ended, so reading a statement of any length costs one pass
   * over the wallet's entries however many pages it takes. Absent bounds are sent as infinities, never as
   * `$n IS NULL OR …`: PostgreSQL's generic plan of such a statement (a prepared statement's, after five runs) cannot
   * see which bounds apply and walked the primary key instead, every wallet's entries, with parallel workers per page.
   * The order is the index's own, (wallet_id, id), so that no plan sorts a range's entries for each page. The
   * payout and collection of each entry are looked up by their keys (LATERAL, with a LIMIT so that the planner keeps
   * each a lookup and does not fold it into a join): as plain joins, a plan that did not know the page's size hashed
   * the whole collections table for every page (78 of 218 ms at a million payouts).
   */
  async entryPage(
    q: Queryable,
    walletId: string,
    range: { from: Date | null; to: Date | null },
    ids: { after: bigint; upTo: bigint | null },
    limit: number,
  ): Promise<Omit<StatementEntry, 'balance'>[]> {
    const { rows } = await q.query<EntryRow>(
      `SELECT e.id, e.created_at, e.kind, e.amount, e.reference, e.payout_id, e.collection_id,
              coalesce(p.sender_id, c.sender_id) AS sender_id, p.settlement_id IS NOT NULL AS settlement
         FROM ledger_entries e
         LEFT JOIN LATERAL (SELECT sender_id, settlement_id FROM payouts WHERE id = e.payout_id LIMIT 1) p ON true
         LEFT JOIN LATERAL (SELECT sender_id FROM collections WHERE id = e.collection_id LIMIT 1) c ON true
        WHERE e.wallet_id = $1 AND e.id > $5 AND e.id <= $6 AND e.created_at >= $2 AND e.created_at < $3
        ORDER BY e.wallet_id, e.id LIMIT $4`,
      [
        walletId,
        range.from ?? '-infinity',
        range.to ?? 'infinity',
        limit,
        String(ids.after),
        String(ids.upTo ?? INT8_MAX),
      ],
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
