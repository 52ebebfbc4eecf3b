import type { Queryable } from '../Database.ts';

/**
 * What retention removes (jobs/Retention.ts): delivered webhook deliveries and their attempts, nothing else. Payouts,
 * collections, the ledger, history (transaction_events) and the audit log are never removed.
 */
export const RetentionRepository = {
  /**
   * Removes up to `limit` deliveries delivered before `before`, oldest first, with their attempts, in one statement
   * (the foreign key from the attempts is checked at its end, when both are gone). A delivery another transaction
   * holds (a replay queuing it again) is skipped, left for a later batch. Counts what went.
   */
  async removeDeliveredBefore(
    q: Queryable,
    before: Date,
    limit: number,
  ): Promise<{ deliveries: number; attempts: number }> {
    const { rows } = await q.query<{ deliveries: number; attempts: number }>(
      `WITH doomed AS (
         SELECT id FROM webhook_deliveries
          WHERE state = 'delivered' AND delivered_at < $1
          ORDER BY delivered_at LIMIT $2
          FOR UPDATE SKIP LOCKED
       ), attempts AS (
         DELETE FROM webhook_attempts a USING doomed d WHERE a.delivery_id = d.id RETURNING 1
       ), deliveries AS (
         DELETE FROM webhook_deliveries w USING doomed d WHERE w.id = d.id RETURNING 1
       )
       SELECT (SELECT count(*) FROM deliveries)::int4 AS deliveries, (SELECT count(*) FROM attempts)::int4 AS attempts`,
      [before, limit],
    );
    return { deliveries: rows[0]?.deliveries ?? 0, attempts: rows[0]?.attempts ?? 0 };
  },
};
