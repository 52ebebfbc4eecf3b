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

  /**
   * `add` for the day and the month in one statement (one round trip less while the wallet's row lock is held):
   * the day's row is taken first, then the month's, always in that order. Answers which limit refused, if any;
   * a refusal leaves the other period's total changed, so the caller rolls the transaction back.
   */
  async addDayAndMonth(
    q: Queryable,
    merchantId: string,
    amount: bigint,
    day: { period: string; limit: bigint | null },
    month: { period: string; limit: bigint | null },
  ): Promise<'ok' | 'day' | 'month'> {
    const { rows } = await q.query<{ period: string }>(
      `INSERT INTO merchant_usage (merchant_id, period, amount)
       SELECT $1, v.period, $2::int8
         FROM (VALUES (1, $3::text, $4::int8), (2, $5::text, $6::int8)) AS v (ord, period, lim)
        WHERE v.lim IS NULL OR $2::int8 <= v.lim
        ORDER BY v.ord
       ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
        WHERE (CASE WHEN merchant_usage.period = $3 THEN $4::int8 ELSE $6::int8 END) IS NULL
           OR merchant_usage.amount + EXCLUDED.amount
              <= (CASE WHEN merchant_usage.period = $3 THEN $4::int8 ELSE $6::int8 END)
       RETURNING period`,
      [merchantId, amount, day.period, day.limit, month.period, month.limit],
    );
    const added = new Set(rows.map((r) => r.period));
    if (!added.has(day.period)) return 'day';
    return added.has(month.period) ? 'ok' : 'month';
  },

  /** Takes a failed payout's amount back out of the period's total. */
  async release(q: Queryable, merchantId: string, period: string, amount: bigint): Promise<void> {
    await q.query(
      `UPDATE merchant_usage SET amount = greatest(amount - $3::int8, 0) WHERE merchant_id = $1 AND period = $2`,
      [merchantId, period, amount],
    );
  },
};
