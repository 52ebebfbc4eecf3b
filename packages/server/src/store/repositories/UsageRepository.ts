import type { Queryable } from '../Database.ts';

/**
 * Per-merchant running totals behind the daily and monthly allowances. The conditional upsert takes the
 * row lock, so concurrent payouts of one merchant on any number of instances cannot both slip under a limit.
 */
export const UsageRepository = {
  /** Adds `amount` to the period unless that would pass `limit` (null: no limit); false when refused. */
  async add(q: Queryable, merchantId: string, period: string, amount: bigint, limit: bigint | null): Promise<boolean> {
    const { rows } = await q.query(
      `INSERT INTO merchant_usage (merchant_id, period, amount)
       SELECT $1, $2, $3::int8 WHERE $4::int8 IS NULL OR $3::int8 <= $4::int8
       ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
        WHERE $4::int8 IS NULL OR merchant_usage.amount + EXCLUDED.amount <= $4::int8
       RETURNING amount`,
      [merchantId, period, amount, limit],
    );
    return rows.length === 1;
  },

  /** Takes a failed payout's amount back out of the period's total. */
  async release(q: Queryable, merchantId: string, period: string, amount: bigint): Promise<void> {
    await q.query(
      `UPDATE merchant_usage SET amount = greatest(amount - $3::int8, 0) WHERE merchant_id = $1 AND period = $2`,
      [merchantId, period, amount],
    );
  },
};
