import type { Queryable } from '../Database.ts';

/**
 * Per-merchant running totals behind the daily and monthly allowances. They grow in `payout_open` (migration
 * 004), by a conditional upsert that takes the row lock, so that concurrent payouts of one merchant on any
 * number of instances cannot both slip under a limit; a failed payout gives its amount back here.
 */
export const UsageRepository = {
  /** Takes a failed payout's amount back out of the period's total. */
  async release(q: Queryable, merchantId: string, period: string, amount: bigint): Promise<void> {
    await q.query(
      `UPDATE merchant_usage SET amount = greatest(amount - $3::int8, 0) WHERE merchant_id = $1 AND period = $2`,
      [merchantId, period, amount],
    );
  },

  /**
   * `release` for several (merchant, period) rows in one statement; each row at most once in `released` (a caller
   * sums a period's amounts first: greatest(…, 0) of the sum equals releasing them one by one).
   */
  async releaseMany(
    q: Queryable,
    released: readonly { merchantId: string; period: string; amount: bigint }[],
  ): Promise<void> {
    if (released.length === 0) return;
    await q.query(
      `UPDATE merchant_usage AS m SET amount = greatest(m.amount - u.amount, 0)
         FROM unnest($1::text[], $2::text[], $3::int8[]) AS u (merchant_id, period, amount)
        WHERE m.merchant_id = u.merchant_id AND m.period = u.period`,
      [released.map((x) => x.merchantId), released.map((x) => x.period), released.map((x) => String(x.amount))],
    );
  },

  /**
   * Locks these allowance rows (those that exist) in (merchant, period) order, FOR NO KEY UPDATE: the strength of
   * the updates that follow (services/LockOrder.ts).
   */
  async lockMany(q: Queryable, rows: readonly { merchantId: string; period: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await q.query(
      `SELECT 1 FROM merchant_usage m
         JOIN unnest($1::text[], $2::text[]) AS u (merchant_id, period)
           ON m.merchant_id = u.merchant_id AND m.period = u.period
        ORDER BY m.merchant_id, m.period FOR NO KEY UPDATE OF m`,
      [rows.map((r) => r.merchantId), rows.map((r) => r.period)],
    );
  },
};
