import type { PayoutStatus, WebhookEventType } from '@payrail/protocol';

/** The seed's payout transition table (the database enforces the same table with a trigger). */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  INITIATED: ['PROCESSING'],
  PROCESSING: ['SUCCESS', 'FAILED', 'PENDING'],
  PENDING: ['SUCCESS', 'FAILED'],
  FAILED: ['REFUNDED'],
  SUCCESS: [],
  REFUNDED: [],
};

export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS[from].includes(to);
}

/** SUCCESS and REFUNDED end a payout; FAILED always goes on to REFUNDED. */
export function isFinal(status: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS[status].length === 0;
}

/** States whose amount is still on hold (debited from the balance, not yet settled or returned). */
export const ON_HOLD_STATUSES: readonly PayoutStatus[] = ['INITIATED', 'PROCESSING', 'PENDING'];

export function payoutEventType(status: PayoutStatus): WebhookEventType | null {
  switch (status) {
    case 'PROCESSING':
      return 'payout.processing';
    case 'PENDING':
      return 'payout.pending';
    case 'SUCCESS':
      return 'payout.success';
    case 'FAILED':
      return 'payout.failed';
    case 'REFUNDED':
      return 'payout.refunded';
    default:
      return null;
  }
}

export const DEFAULT_STATUS_MESSAGE: Readonly<Record<PayoutStatus, string>> = {
  INITIATED: 'Payout accepted and queued for the bank',
  PROCESSING: 'Transfer is being processed with the bank',
  PENDING: 'Outcome awaited from the beneficiary bank',
  SUCCESS: 'Transfer completed',
  FAILED: 'Transfer failed',
  REFUNDED: 'Amount returned to the wallet',
};
