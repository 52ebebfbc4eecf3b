import type { CollectionStatus, WebhookEventType } from '@payrail/protocol';

/** INITIATED → SUCCESS / FAILED / PENDING, and PENDING → SUCCESS / FAILED (the database enforces the same). */
export const COLLECTION_TRANSITIONS: Readonly<Record<CollectionStatus, readonly CollectionStatus[]>> = {
  INITIATED: ['PENDING', 'SUCCESS', 'FAILED'],
  PENDING: ['SUCCESS', 'FAILED'],
  SUCCESS: [],
  FAILED: [],
};

export function canCollectionTransition(from: CollectionStatus, to: CollectionStatus): boolean {
  return COLLECTION_TRANSITIONS[from].includes(to);
}

export function collectionEventType(status: CollectionStatus): WebhookEventType | null {
  switch (status) {
    case 'PENDING':
      return 'collection.pending';
    case 'SUCCESS':
      return 'collection.success';
    case 'FAILED':
      return 'collection.failed';
    default:
      return null;
  }
}

export const COLLECTION_STATUS_MESSAGE: Readonly<Record<CollectionStatus, string>> = {
  INITIATED: 'Awaiting payment by the customer',
  PENDING: 'Payment under review',
  SUCCESS: 'Payment received',
  FAILED: 'Payment failed',
};
