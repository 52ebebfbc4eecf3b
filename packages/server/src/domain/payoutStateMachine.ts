import type { PayoutStatus, WebhookEventType } from '@payrail/protocol';

/**
 * The provider interface's payout transition table plus the return (SUCCESS → REFUNDED); the database enforces the
 * same table with a trigger (migration 017).
 */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  INITIATED: ['PROCESSING'],
  PROCESSING: ['SUCCESS', 'FAILED', 'PENDING'],
  PENDING: ['SUCCESS', 'FAILED'],
  FAILED: ['REFUNDED'],
  SUCCESS: ['REFUNDED'],
  REFUNDED: [],
};

/**
 * A return: the bank sends back the money of a transfer that succeeded. Only a report of the return (from the
 * bank, a PSP or an operator) takes this arrow, never a step of Payrail's own.
 */
export const RETURN_TRANSITION = { from: 'SUCCESS', to: 'REFUNDED' } as const;

export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS[from].includes(to);
}

/**
 * SUCCESS and REFUNDED end a payout: nothing moves it by itself any more (no polling, no step), its outcome is
 * known, a batch counts it as done. A SUCCESS may still be returned later, which is news from outside, not a step.
 * FAILED always goes on to REFUNDED.
 */
export function isFinal(status: PayoutStatus): boolean {
  return status === 'SUCCESS' || status === 'REFUNDED';
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

/** The status message of a returned payout: what the merchant sees says why the money came back. */
export const returnStatusMessage = (reason: string) => `Returned by the beneficiary bank: ${reason}`;

export const DEFAULT_STATUS_MESSAGE: Readonly<Record<PayoutStatus, string>> = {
  INITIATED: 'Payout accepted and queued for the bank',
  PROCESSING: 'Transfer is being processed with the bank',
  PENDING: 'Outcome awaited from the beneficiary bank',
  SUCCESS: 'Transfer completed',
  FAILED: 'Transfer failed',
  REFUNDED: 'Amount returned to the wallet',
};
