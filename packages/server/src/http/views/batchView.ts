import { formatPaise } from '@payrail/protocol';
import type { PayoutBatch } from '../../domain/PayoutBatch.ts';

/** A bulk payout batch as a list row (the operator and the merchant console). */
export const batchView = (b: PayoutBatch) => ({
  merchant_id: b.merchantId,
  batch_id: b.batchId,
  atomic: b.atomic,
  callback_url: b.callbackUrl,
  scheme: b.scheme,
  item_count: b.itemCount,
  accepted: b.accepted,
  refused: b.itemCount - b.accepted,
  amount_accepted: formatPaise(b.amountAccepted),
  open_items: b.openItems,
  created_at: b.createdAt.toISOString(),
  completed_at: b.completedAt?.toISOString() ?? null,
});
