import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import { batchView } from './batchView.ts';

type BatchFound = NonNullable<Awaited<ReturnType<BulkPayoutService['get']>>>;

/** One batch with its summary by status and every item's verdict (the operator and the merchant console). */
export const batchDetailView = (found: BatchFound) => ({
  ...batchView(found.batch),
  by_status: found.byStatus,
  items: found.items.map((i) => ({
    index: i.index,
    sender_id: i.senderId,
    resp_code: i.code,
    resp_message: i.message,
    transaction_id: i.payoutId,
    status: i.status,
    status_message: i.statusMessage,
    utr_number: i.utr,
  })),
});
