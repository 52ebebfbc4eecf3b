import { randomUUID } from 'node:crypto';
import type { Scheme, WebhookEventType } from '@payrail/protocol';
import type { Queryable } from '../Database.ts';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  seq: bigint;
  merchantId: string;
  subjectId: string;
  type: WebhookEventType;
  url: string;
  scheme: Scheme;
  /** JSON text of the transaction object when the event happened. */
  snapshot: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** The token of the claim that returned this row (null outside a claim); `recordAttempt` must name it. */
  leaseOwner: string | null;
}

export interface WebhookAttempt {
  attemptedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

interface DeliveryRow {
  id: string;
  seq: bigint;
  merchant_id: string;
  subject_id: string;
  type: WebhookEventType;
  url: string;
  scheme: Scheme;
  snapshot: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  lease_owner: string | null;
}

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  seq: r.seq,
  merchantId: r.merchant_id,
  subjectId: r.subject_id,
  type: r.type,
  url: r.url,
  scheme: r.scheme,
  snapshot: r.snapshot,
  state: r.state,
  attempts: Number(r.attempts),
  nextAttemptAt: r.next_attempt_at,
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
  leaseOwner: r.lease_owner,
});

export interface NewDelivery {
  id: string;
  merchantId: string;
  subjectId: string;
  type: WebhookEventType;
  url: string;
  scheme: Scheme;
  snapshot: string;
  createdAt: Date;
}

export interface DeliveryPageQuery {
  merchantId?: string;
  state?: DeliveryState;
  subjectId?: string;
  limit: number;
  /** seq of the last delivery of the previous page (newest first). */
  before?: bigint;
}

/** Each state as an SQL literal, from this closed list alone (WebhookRepository.page). */
const STATE_LITERAL: Record<DeliveryState, string> = {
  pending: "'pending'",
  delivered: "'delivered'",
  failed: "'failed'",
};

export const WebhookRepository = {
  async insert(q: Queryable, d: NewDelivery): Promise<void> {
    await q.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, next_attempt_at,
         created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [d.id, d.merchantId, d.subjectId, d.type, d.url, d.scheme, d.snapshot, d.createdAt],
    );
  },

  /** `insert` for several deliveries created at the same instant, in one statement, in the order given (their seq). */
  async insertMany(
    q: Queryable,
    deliveries: readonly Omit<NewDelivery, 'createdAt'>[],
    createdAt: Date,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    await q.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, next_attempt_at,
         created_at)
       SELECT u.id, u.merchant_id, u.subject_id, u.type, u.url, u.scheme, u.snapshot, $8, $8
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                WITH ORDINALITY AS u (id, merchant_id, subject_id, type, url, scheme, snapshot, ord)
        ORDER BY u.ord`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.merchantId),
        deliveries.map((d) => d.subjectId),
        deliveries.map((d) => d.type),
        deliveries.map((d) => d.url),
        deliveries.map((d) => d.scheme),
        deliveries.map((d) => d.snapshot),
        createdAt,
      ],
    );
  },

  /**
   * Claims due deliveries under a lease with a fresh owner token, earliest due first. A delivery waits while an
   * earlier event of the same transaction is still pending, so each transaction's events are attempted in the order
   * they happened.
   */
  async claim(q: Queryable, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    // The statement is migration 024's function: it carries the planner settings that keep a claim's cost to its
    // limit rather than to the backlog.
    const { rows } = await q.query<DeliveryRow>('SELECT * FROM webhook_deliveries_claim($1, $2, $3)', [
      limit,
      leaseMs,
      randomUUID(),
    ]);
    return rows.map(toDelivery);
  },

  /**
   * Records one attempt and the delivery's next state, in one statement, only while the caller still holds the
   * lease it claimed: false (nothing written) when the lease was taken over, or revoked by a replay, meanwhile.
   */
  async recordAttempt(
    q: Queryable,
    claimed: Pick<WebhookDelivery, 'id' | 'leaseOwner'>,
    attempt: WebhookAttempt,
    next: { state: DeliveryState; retryInMs: number | null },
  ): Promise<boolean> {
    const { rows } = await q.query<{ id: string }>(
      `WITH moved AS (
         UPDATE webhook_deliveries
            SET attempts = attempts + 1, state = $3, last_status = $4, last_error = $5, locked_until = NULL,
                lease_owner = NULL,
                next_attempt_at = CASE WHEN $6::float8 IS NULL THEN next_attempt_at
                                       ELSE now() + make_interval(secs => $6::float8 / 1000) END,
                delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
          WHERE id = $1 AND lease_owner = $2
          RETURNING id)
       INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms, http_status, error)
       SELECT id, $7::timestamptz, $8::integer, $4::integer, $5::text FROM moved
       RETURNING delivery_id AS id`,
      [
        claimed.id,
        claimed.leaseOwner,
        next.state,
        attempt.httpStatus,
        attempt.error,
        next.retryInMs,
        attempt.attemptedAt,
        attempt.durationMs,
      ],
    );
    return rows.length === 1;
  },

  /**
   * `recordAttempt` for several attempts in one statement: each is recorded only while its caller still holds the
   * lease it claimed. Answers, per attempt in order, whether it was recorded.
   */
  async recordAttempts(
    q: Queryable,
    attempts: readonly {
      claimed: Pick<WebhookDelivery, 'id' | 'leaseOwner'>;
      attempt: WebhookAttempt;
      next: { state: DeliveryState; retryInMs: number | null };
    }[],
  ): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const { rows } = await q.query<{ ord: bigint }>(
      `WITH a AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::text[], $6::float8[],
                              $7::timestamptz[], $8::int4[])
                  WITH ORDINALITY AS a (id, lease_owner, state, http_status, error, retry_ms, attempted_at, duration_ms,
                                        ord)),
       moved AS (
         UPDATE webhook_deliveries AS d
            SET attempts = d.attempts + 1, state = a.state, last_status = a.http_status, last_error = a.error,
                locked_until = NULL, lease_owner = NULL,
                next_attempt_at = CASE WHEN a.retry_ms IS NULL THEN d.next_attempt_at
                                       ELSE now() + make_interval(secs => a.retry_ms / 1000) END,
                delivered_at = CASE WHEN a.state = 'delivered' THEN now() ELSE d.delivered_at END
           FROM a
          WHERE d.id = a.id AND d.lease_owner = a.lease_owner
          RETURNING a.ord),
       recorded AS (
         INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms, http_status, error)
         SELECT a.id, a.attempted_at, a.duration_ms, a.http_status, a.error FROM a JOIN moved USING (ord)
          ORDER BY a.ord)
       SELECT ord FROM moved`,
      [
        attempts.map((x) => x.claimed.id),
        attempts.map((x) => x.claimed.leaseOwner),
        attempts.map((x) => x.next.state),
        attempts.map((x) => x.attempt.httpStatus),
        attempts.map((x) => x.attempt.error),
        attempts.map((x) => x.next.retryInMs),
        attempts.map((x) => x.attempt.attemptedAt.toISOString()),
        attempts.map((x) => Math.round(x.attempt.durationMs)),
      ],
    );
    const recorded = new Set(rows.map((r) => Number(r.ord)));
    return attempts.map((_, i) => recorded.has(i + 1));
  },

  /** Voids every delivery's lease (JobRepository.voidLeases: only for the one process on its database). */
  async voidLeases(q: Queryable): Promise<void> {
    await q.query('UPDATE webhook_deliveries SET locked_until = NULL WHERE locked_until IS NOT NULL');
  },

  async findById(q: Queryable, id: string): Promise<WebhookDelivery | null> {
    const { rows } = await q.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
    return rows[0] ? toDelivery(rows[0]) : null;
  },

  /**
   * Puts a delivery back in the queue for an immediate attempt (operator replay). The replay revokes any lease:
   * an attempt in flight at that moment is not recorded (its `recordAttempt` finds another owner), so it can
   * neither undo the replay nor be counted twice.
   */
  async requeue(q: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await q.query(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), locked_until = NULL,
              lease_owner = NULL
        WHERE id = $1`,
      [id],
    );
    return rowCount === 1;
  },

  async page(q: Queryable, query: DeliveryPageQuery): Promise<WebhookDelivery[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of [
      ['merchant_id', query.merchantId],
      ['subject_id', query.subjectId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    // The state is written into the query's text, not passed: a prepared statement's generic plan cannot tell that
    // `state = $1` lies inside the partial index of undelivered deliveries (migration 041), and walked every delivery
    // newest first to find 50 failed ones (43 ms at 2,000,000 deliveries, more when the failures are old).
    if (query.state !== undefined) where.push(`state = ${STATE_LITERAL[query.state]}`);
    if (query.before !== undefined) {
      params.push(query.before);
      where.push(`seq < $${params.length}`);
    }
    params.push(query.limit);
    const { rows } = await q.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toDelivery);
  },

  /** Puts every failed delivery of a merchant created at or after `since` back in the queue; returns their ids. */
  async requeueFailed(q: Queryable, merchantId: string, since: Date): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), locked_until = NULL
        WHERE merchant_id = $1 AND state = 'failed' AND created_at >= $2 RETURNING id`,
      [merchantId, since],
    );
    return rows.map((r) => r.id);
  },

  async attempts(q: Queryable, deliveryIds: string[]): Promise<Map<string, WebhookAttempt[]>> {
    const out = new Map<string, WebhookAttempt[]>();
    if (deliveryIds.length === 0) return out;
    const { rows } = await q.query<{
      delivery_id: string;
      attempted_at: Date;
      duration_ms: number;
      http_status: number | null;
      error: string | null;
    }>(
      `SELECT delivery_id, attempted_at, duration_ms, http_status, error FROM webhook_attempts
        WHERE delivery_id = ANY($1::text[]) ORDER BY id`,
      [deliveryIds],
    );
    for (const r of rows) {
      const list = out.get(r.delivery_id) ?? [];
      list.push({
        attemptedAt: r.attempted_at,
        durationMs: Number(r.duration_ms),
        httpStatus: r.http_status === null ? null : Number(r.http_status),
        error: r.error,
      });
      out.set(r.delivery_id, list);
    }
    return out;
  },
};
