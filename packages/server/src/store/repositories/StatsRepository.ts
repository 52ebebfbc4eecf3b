import type { Queryable } from '../Database.ts';

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
    const { rows } = await q.query<{ bucket: number; status: string; count: bigint; amount: bigint }>(
      `SELECT floor(extract(epoch FROM created_at - $1::timestamptz) / 3600)::int AS bucket, status,
              count(*)::int8 AS count, sum(amount)::int8 AS amount
         FROM payouts WHERE created_at >= $1 AND ($2::text IS NULL OR merchant_id = $2)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [since, merchantId ?? null],
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
    const { rows } = await q.query<{ pending: bigint; failed: bigint }>(
      `SELECT count(*) FILTER (WHERE state = 'pending')::int8 AS pending,
              count(*) FILTER (WHERE state = 'failed')::int8 AS failed
         FROM webhook_deliveries WHERE state IN ('pending', 'failed') AND ($1::text IS NULL OR merchant_id = $1)`,
      [merchantId ?? null],
    );
    return { pending: Number(rows[0]?.pending ?? 0), failed: Number(rows[0]?.failed ?? 0) };
  },

  /** Money debited for payouts that are not final yet (INITIATED, PROCESSING, PENDING). */
  async moneyOnHold(q: Queryable, merchantId?: string): Promise<{ amount: bigint; count: number }> {
    const { rows } = await q.query<{ amount: bigint | null; count: bigint }>(
      `SELECT sum(amount)::int8 AS amount, count(*)::int8 AS count FROM payouts
        WHERE status IN ('INITIATED', 'PROCESSING', 'PENDING') AND ($1::text IS NULL OR merchant_id = $1)`,
      [merchantId ?? null],
    );
    return { amount: BigInt(rows[0]?.amount ?? 0n), count: Number(rows[0]?.count ?? 0) };
  },
};
