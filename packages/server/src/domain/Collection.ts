import {
  formatPaise,
  type CollectionStatus,
  type CollectionTransactionWire,
  type CollectionTxnType,
  type Scheme,
} from '@payrail/protocol';
import { paymentPageUrl } from './paymentPageToken.ts';

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
  txnType: CollectionTxnType;
  payerVpa: string;
  /** Payee address and name, fixed when the collection is created (the intent link never changes). */
  payeeVpa: string;
  payeeName: string;
  channel: string;
  callbackUrl: string | null;
  scheme: Scheme;
  status: CollectionStatus;
  statusMessage: string;
  utr: string;
  /** Key of the hosted payment page (random, see paymentPageToken.ts). */
  pageToken: string;
  /** The PSP's own reference of the payment, once a notification brought it (live mode). */
  pspReference: string | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The collection transaction object of the seed (camelCase, timestamps with milliseconds), with the fields
 * integrations of this interface read: the payee `vpa`, `txnType`, `channel`, and `paymentUrl` built from the
 * external base URL (`PAYRAIL_PUBLIC_URL`).
 */
export function toCollectionWire(c: Collection, publicUrl: string): CollectionTransactionWire {
  return {
    senderId: c.senderId,
    txnId: c.id,
    walletId: c.walletId,
    requestAmount: formatPaise(c.amount),
    paymentMode: c.paymentMode,
    payerVpa: c.payerVpa,
    vpa: c.payeeVpa,
    txnType: c.txnType,
    channel: c.channel,
    utr: c.utr,
    remarks: c.remarks,
    status: c.status,
    statusMessage: c.statusMessage,
    expiresAt: c.expiresAt.toISOString(),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    paymentUrl: paymentPageUrl(publicUrl, c.pageToken),
  };
}
