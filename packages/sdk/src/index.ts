export { Payrail } from './Payrail.ts';
export * from './errors.ts';
export type * from './types.ts';
export { FINAL_PAYOUT_STATUSES, OUTCOME_PAYOUT_STATUSES, isFinalPayoutStatus } from './payouts.ts';
export { FINAL_COLLECTION_STATUSES } from './collections.ts';
export { verifySignature } from './webhooks.ts';
export { SDK_VERSION } from './core.ts';
export { PAYOUT_STATUSES, COLLECTION_STATUSES, PAYMENT_MODES, WEBHOOK_EVENT_TYPES } from '@payrail/protocol';
