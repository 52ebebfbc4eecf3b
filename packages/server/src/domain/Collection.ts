import { formatPaise, type CollectionStatus, type CollectionTransactionWire, type Scheme } from '@payrail/protocol';

export type CollectionMode = 'Intent' | 'Collect';

export interface Collection {
  id: string;
  merchantId: string;
  walletId: string;
  senderId: string;
  /** Paise. */
  amount: bigint;
  remarks: string;
  paymentMode: CollectionMode;
  payerVpa: string;
  callbackUrl: string | null;
  scheme: Scheme;
  status: CollectionStatus;
  statusMessage: string;
  utr: string;
  /** The PSP's own reference of the payment, once a notification brought it (live mode). */
  pspReference: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The collection transaction object of the seed (camelCase, timestamps with milliseconds). */
export function toCollectionWire(c: Collection): CollectionTransactionWire {
  return {
    senderId: c.senderId,
    txnId: c.id,
    walletId: c.walletId,
    requestAmount: formatPaise(c.amount),
    paymentMode: c.paymentMode,
    payerVpa: c.payerVpa,
    utr: c.utr,
    remarks: c.remarks,
    status: c.status,
    statusMessage: c.statusMessage,
    expiresAt: c.expiresAt.toISOString(),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
