import type { Queryable } from '../Database.ts';

export interface TransactionEvent {
  at: Date;
  type: 'status' | 'error';
  from: string | null;
  to: string | null;
  reason: string;
  actor: string;
}

export interface WebhookAttemptEvent {
  at: Date;
  deliveryId: string;
  eventType: string;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * The history of payouts and collections (migration 007). Status changes are written by a trigger in the same
 * transaction as the change; errors of a bank connector are written here.
 */
export const TransactionEventRepository = {
  async recordError(q: Queryable, subjectId: string, reason: string, actor: string): Promise<void> {
    await q.query(`INSERT INTO transaction_events (subject_id, type, reason, actor) VALUES ($1, 'error', $2, $3)`, [
      subjectId,
      reason,
      actor,
    ]);
  },

  /** `recordError` for many subjects in one statement, in the order given. */
  async recordErrors(
    q: Queryable,
    errors: readonly { subjectId: string; reason: string }[],
    actor: string,
  ): Promise<void> {
    if (errors.length === 0) return;
    await q.query(
      `INSERT INTO transaction_events (subject_id, type, reason, actor)
       SELECT u.id, 'error', u.error, $3 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u (id, error, ord)
        ORDER BY u.ord`,
      [errors.map((e) => e.subjectId), errors.map((e) => e.reason), actor],
    );
  },

  /**
   * Records an error unless the subject's history already holds the same one (a notification repeated by its
   * sender is one problem, not many). The caller holds the subject's row lock.
   */
  async recordErrorOnce(q: Queryable, subjectId: string, reason: string, actor: string): Promise<void> {
    await q.query(
      `INSERT INTO transaction_events (subject_id, type, reason, actor)
       SELECT $1, 'error', $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM transaction_events WHERE subject_id = $1 AND type = 'error' AND reason = $2)`,
      [subjectId, reason, actor],
    );
  },

  async list(q: Queryable, subjectId: string): Promise<TransactionEvent[]> {
    const { rows } = await q.query<{
      at: Date;
      type: 'status' | 'error';
      from_status: string | null;
      to_status: string | null;
      reason: string;
      actor: string;
    }>(
      `SELECT at, type, from_status, to_status, reason, actor FROM transaction_events
        WHERE subject_id = $1 ORDER BY id`,
      [subjectId],
    );
    return rows.map((r) => ({
      at: r.at,
      type: r.type,
      from: r.from_status,
      to: r.to_status,
      reason: r.reason,
      actor: r.actor,
    }));
  },

  /** Every delivery attempt of the transaction's webhook events, oldest first. */
  async webhookAttempts(q: Queryable, subjectId: string): Promise<WebhookAttemptEvent[]> {
    const { rows } = await q.query<{
      attempted_at: Date;
      delivery_id: string;
      type: string;
      http_status: number | null;
      duration_ms: number;
      error: string | null;
    }>(
      `SELECT a.attempted_at, a.delivery_id, d.type, a.http_status, a.duration_ms, a.error
         FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.subject_id = $1 ORDER BY a.attempted_at, a.id`,
      [subjectId],
    );
    return rows.map((r) => ({
      at: r.attempted_at,
      deliveryId: r.delivery_id,
      eventType: r.type,
      httpStatus: r.http_status === null ? null : Number(r.http_status),
      durationMs: Number(r.duration_ms),
      error: r.error,
    }));
  },
};
