import type { PayoutStatus, Scheme } from '@payrail/protocol';

/** A recorded bulk payout request (docs/merchant/bulk-and-verification.md); identified by the merchant and its batch_id. */
export interface PayoutBatch {
  merchantId: string;
  batchId: string;
  atomic: boolean;
  callbackUrl: string | null;
  scheme: Scheme;
  itemCount: number;
  accepted: number;
  /** Paise. */
  amountAccepted: bigint;
  /** Accepted items not yet final (SUCCESS or REFUNDED). */
  openItems: number;
  createdAt: Date;
  completedAt: Date | null;
}

/** One item's verdict as recorded, with the current state of its payout when it was accepted. */
export interface BatchItem {
  index: number;
  senderId: string;
  code: number;
  message: string;
  payoutId: string | null;
  status: PayoutStatus | null;
  utr: string | null;
  statusMessage: string | null;
  /** The fee and GST charged on the item's payout; null when it was refused. */
  fee: bigint | null;
  tax: bigint | null;
}
