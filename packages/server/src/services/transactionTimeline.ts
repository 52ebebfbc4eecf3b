import type { Queryable } from '../store/Database.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';

/** One entry of a transaction's history, as the admin timeline routes answer it (docs/operator/operations.md). */
export interface TimelineEvent {
  at: string;
  type: 'request' | 'status' | 'error' | 'webhook_attempt';
  from: string | null;
  to: string | null;
  reason: string | null;
  actor: string;
  /** A payout's change to SUCCESS: the transfer's UTR. */
  utr?: string;
  /** webhook_attempt only */
  event_type?: string;
  delivery_id?: string;
  http_status?: number | null;
  duration_ms?: number;
  error?: string | null;
}

export type Timeline = TimelineEvent[];

/**
 * The history of one payout or collection: its creation (from its own created_at: nothing extra is written at
 * initiation), every status change and connector error (transaction_events), every webhook attempt. Oldest
 * first; events at the same instant keep that order (request, then changes, then attempts).
 */
export async function buildTimeline(
  q: Queryable,
  subjectId: string,
  createdAt: Date,
  requestedBy: string,
): Promise<Timeline> {
  const [changes, attempts] = await Promise.all([
    TransactionEventRepository.list(q, subjectId),
    TransactionEventRepository.webhookAttempts(q, subjectId),
  ]);
  const events: Array<TimelineEvent & { ms: number; rank: number }> = [
    {
      at: createdAt.toISOString(),
      type: 'request',
      from: null,
      to: 'INITIATED',
      reason: 'Created',
      actor: requestedBy,
      ms: createdAt.getTime(),
      rank: 0,
    },
    ...changes.map((e, i) => ({
      at: e.at.toISOString(),
      type: e.type,
      from: e.from,
      to: e.to,
      reason: e.reason,
      actor: e.actor,
      ms: e.at.getTime(),
      rank: 1 + i,
    })),
    ...attempts.map((a, i) => ({
      at: a.at.toISOString(),
      type: 'webhook_attempt' as const,
      from: null,
      to: null,
      reason: a.error,
      actor: 'worker',
      event_type: a.eventType,
      delivery_id: a.deliveryId,
      http_status: a.httpStatus,
      duration_ms: a.durationMs,
      error: a.error,
      ms: a.at.getTime(),
      rank: 1_000_000 + i,
    })),
  ];
  events.sort((a, b) => a.ms - b.ms || a.rank - b.rank);
  return events.map(({ ms: _ms, rank: _rank, ...e }) => e);
}
