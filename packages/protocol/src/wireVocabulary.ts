/**
 * The enumerations of the merchant API's wire: statuses, payment modes, collection kinds, webhook event types and
 * name-match bands. The wire shapes (wire.ts) and their JSON Schemas (wireSchemas.ts) both read them.
 */

export const PAYOUT_STATUSES = ['INITIATED', 'PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'REFUNDED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYMENT_MODES = ['IMPS', 'NEFT', 'RTGS'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

export const COLLECTION_STATUSES = ['INITIATED', 'PENDING', 'SUCCESS', 'FAILED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/** INTENT: the payer opens a upi:// link (or scans its QR); COLLECT: a request is sent to the payer's app. */
export const COLLECTION_TXN_TYPES = ['INTENT', 'COLLECT'] as const;
export type CollectionTxnType = (typeof COLLECTION_TXN_TYPES)[number];

export const WEBHOOK_EVENT_TYPES = [
  'payout.processing',
  'payout.pending',
  'payout.success',
  'payout.failed',
  'payout.refunded',
  'collection.pending',
  'collection.success',
  'collection.failed',
  'payout.batch.completed',
  'deposit.credited',
  'settlement.initiated',
  'settlement.processing',
  'settlement.pending',
  'settlement.success',
  'settlement.failed',
  'settlement.refunded',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const NAME_MATCH_RESULTS = [
  'EXACT_MATCH',
  'GOOD_PARTIAL_MATCH',
  'MODERATE_PARTIAL_MATCH',
  'POOR_PARTIAL_MATCH',
  'NO_MATCH',
] as const;
export type NameMatchResult = (typeof NAME_MATCH_RESULTS)[number];
