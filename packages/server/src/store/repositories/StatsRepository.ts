import { ID_PREFIX } from '@payrail/protocol';
import type { Queryable } from '../Database.ts';
import { createdIdBoundsWhere } from '../createdRangeWhere.ts';

export interface HourlyCount {
  hour: Date;
  status: string;
  count: number;
  amount: bigint;
}

/** Aggregates for the console overview. */
export const StatsRepository = {
  /**
   * Payouts created since `since`, counted per hour of creation and current status. The hours are counted from
   * `since` itself (its minutes included), not from the database's clock hours: the caller chooses where hours
   * begin (IST hours begin at :30 UTC), and no time zone of the session can move them.
   */
  async payoutsPerHour(q: Queryable, since: Date, merchantId?: string): Promise<HourlyCount[]> {
    // A bounded window over an index (issue 35): the day's payouts, found by id bounds (ids are time-ordered) on the
    // primary key or on payouts_by_merchant, never the table. One query text per scope: `($2 IS NULL OR merchant_id
    // = $2)` is one plan for both, and that plan cannot use the merchant's index.
    const where = ['created_at >= $1'];
    const params: unknown[] = [since];
    if (merchantId !== undefined) {
      params.push(merchantId);
      where.push(`merchant_id = $${params.length}`);
    }
    createdIdBoundsWhere(ID_PREFIX.payout, { createdFrom: since }, where, params);
    const { rows } = await q.query<{ bucket: number; status: string; count: bigint; amount: bigint }>(
      `SELECT floor(extract(epoch FROM created_at - $1::timestamptz) / 3600)::int AS bucket, status,
              count(*)::int8 AS count, sum(amount)::int8 AS amount
         FROM payouts WHERE ${where.join(' AND ')}
        GROUP BY 1, 2 ORDER BY 1, 2`,
      params,
    );
    return rows.map((r) => ({
      hour: new Date(since.getTime() + Number(r.bucket) * 3_600_000),
      status: r.status,
      count: Number(r.count),
      amount: BigInt(r.amount),
    }));
  },

  /** Webhook deliveries waiting for an attempt, and those that gave up. */
  async webhookBacklog(q: Queryable, merchantId?: string): Promise<{ pending: number; failed: number }> {
    // Read from the partial indexes of undelivered deliveries (migration 041), one query text per scope.
    const { rows } = await q.query<{ pending: bigint; failed: bigint }>(
      `SELECT count(*) FILTER (WHERE state = 'pending')::int8 AS pending,
              count(*) FILTER (WHERE state = 'failed')::int8 AS failed
         FROM webhook_deliveries WHERE state IN ('pending', 'failed')${merchantId === undefined ? '' : ' AND merchant_id = $1'}`,
      merchantId === undefined ? [] : [merchantId],
    );
    return { pending: Number(rows[0]?.pending ?? 0), failed: Number(rows[0]?.failed ?? 0) };
  },

  /** Money debited for payouts that are not final yet (INITIATED, PROCESSING, PENDING). */
  async moneyOnHold(q: Queryable, merchantId?: string): Promise<{ amount: bigint; count: number }> {
    // The open payouts' partial index (payouts_open_by_wallet) holds only these: as many as are in flight.
    const { rows } = await q.query<{ amount: bigint | null; count: bigint }>(
      `SELECT sum(amount)::int8 AS amount, count(*)::int8 AS count FROM payouts
        WHERE status IN ('INITIATED', 'PROCESSING', 'PENDING')${merchantId === undefined ? '' : ' AND merchant_id = $1'}`,
      merchantId === undefined ? [] : [merchantId],
    );
    return { amount: BigInt(rows[0]?.amount ?? 0n), count: Number(rows[0]?.count ?? 0) };
  },
};
