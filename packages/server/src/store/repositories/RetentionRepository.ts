import type { Queryable } from '../Database.ts';

/**
 * What retention removes (jobs/Retention.ts): delivered webhook deliveries and their attempts, nothing else. Payouts,
 * collections, the ledger, history (transaction_events) and the audit log are never removed.
 */
export const RetentionRepository = {
  /**
   * Removes up to `limit` deliveries delivered before `before`, oldest first, with their attempts; run it in a
   * transaction (the rows are locked by the first statement until the last). A delivery another transaction holds (a
   * replay queuing it again) is skipped, left for a later batch. Three statements, not one with data-modifying CTEs:
   * joined to a CTE, the deletes were planned as hash joins over a sequential scan of both whole tables (the planner
   * cannot see the CTE's size, nor a prepared statement's LIMIT), which for a table of millions is a scan per batch;
   * `= ANY` of the ids is an index probe per row on any plan. Counts what went.
   */
  async removeDeliveredBefore(
    q: Queryable,
    before: Date,
    limit: number,
  ): Promise<{ deliveries: number; attempts: number }> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id FROM webhook_deliveries
        WHERE state = 'delivered' AND delivered_at < $1
        ORDER BY delivered_at LIMIT $2
        FOR UPDATE SKIP LOCKED`,
      [before, limit],
    );
    if (rows.length === 0) return { deliveries: 0, attempts: 0 };
    const ids = rows.map((r) => r.id);
    const attempts = await q.query('DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::text[])', [ids]);
    const deliveries = await q.query('DELETE FROM webhook_deliveries WHERE id = ANY($1::text[])', [ids]);
    return { deliveries: deliveries.rowCount, attempts: attempts.rowCount };
  },
};
