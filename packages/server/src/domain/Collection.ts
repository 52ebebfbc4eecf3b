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
  /** The fee and its GST charged when it succeeded, in paise (0 until then, and without a pricing plan). */
  fee: bigint;
  tax: bigint;
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
  /** The connector that holds it: null for Payrail's own (payment page, PSP notifications), `upstream` (§14.1). */
  connector?: string | null;
  /** Routed upstream: the upstream's copy once created (its txnId and the links the payer is sent to). */
  upstream?: UpstreamCollectionLink | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The upstream's copy of a collection routed to the upstream connector. */
export interface UpstreamCollectionLink {
  txnId: string;
  intentUrl: string;
  paymentUrl: string;
}

/**
 * The collection transaction object of the provider interface (camelCase, timestamps with milliseconds), with the
 * fields integrations of this interface read: the payee `vpa`, `txnType`, `channel`, and `paymentUrl` built from the
 * external base URL (`PAYRAIL_PUBLIC_URL`).
 */
export function toCollectionWire(c: Collection, publicUrl: string): CollectionTransactionWire {
  return {
    senderId: c.senderId,
    txnId: c.id,
    walletId: c.walletId,
    requestAmount: formatPaise(c.amount),
    fees: formatPaise(c.fee),
    tax: formatPaise(c.tax),
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
    // Routed upstream, the payer pays at the upstream: its page, not ours.
    paymentUrl: c.upstream?.paymentUrl ?? paymentPageUrl(publicUrl, c.pageToken),
  };
}
