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
};
