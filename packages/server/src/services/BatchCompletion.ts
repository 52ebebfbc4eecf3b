import { formatPaise, PAYOUT_STATUSES, type PayoutStatus } from '@payrail/protocol';
import type { PayoutBatch } from '../domain/PayoutBatch.ts';
import type { Queryable } from '../store/Database.ts';
import { BatchRepository } from '../store/repositories/BatchRepository.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';

/** The subject of a batch's webhook events (deliveries are ordered per subject). */
export const batchSubject = (batchId: string) => `batch:${batchId}`;

/** How many of a batch's payouts are in each status, every status listed. */
export async function batchStatusCounts(q: Queryable, merchantId: string, batchId: string) {
  const counts = await BatchRepository.statusCounts(q, merchantId, batchId);
  return Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, counts.get(s) ?? 0])) as Record<PayoutStatus, number>;
}

/** The `data` of a `payout.batch.completed` event (before encryption with the batch's scheme). */
export async function batchCompletedEvent(q: Queryable, batch: PayoutBatch, now: Date) {
  return {
    batch_id: batch.batchId,
    atomic: batch.atomic,
    created_at: batch.createdAt.toISOString(),
    completed_at: (batch.completedAt ?? now).toISOString(),
    summary: {
      items: batch.itemCount,
      accepted: batch.accepted,
      refused: batch.itemCount - batch.accepted,
      amount_accepted: formatPaise(batch.amountAccepted),
      by_status: await batchStatusCounts(q, batch.merchantId, batch.batchId),
    },
  };
}

/** Sends `payout.batch.completed` to the batch's callback_url (inside the caller's transaction). */
export async function enqueueBatchCompleted(q: Queryable, batch: PayoutBatch, now: Date): Promise<void> {
  await enqueueWebhook(
    q,
    {
      merchantId: batch.merchantId,
      subjectId: batchSubject(batch.batchId),
      type: 'payout.batch.completed',
      url: batch.callbackUrl,
      scheme: batch.scheme,
      object: await batchCompletedEvent(q, batch, now),
    },
    now,
  );
}

/**
 * Called in the transaction that makes a batch's payout final (SUCCESS or REFUNDED): counts it, and when it was
 * the batch's last open item, sends the completion event. The batch row's lock lets exactly one transition win.
 */
export async function batchItemFinal(q: Queryable, merchantId: string, batchId: string, now: Date): Promise<void> {
  const completed = await BatchRepository.itemFinal(q, merchantId, batchId);
  if (completed) await enqueueBatchCompleted(q, completed, now);
}
