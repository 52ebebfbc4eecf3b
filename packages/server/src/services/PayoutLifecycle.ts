import type { PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { toPayoutWire } from '../domain/Payout.ts';
import { DEFAULT_STATUS_MESSAGE, payoutEventType } from '../domain/payoutStateMachine.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { BankConnector } from '../rails/BankConnector.ts';
import type { Queryable } from '../store/Database.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { UsageRepository } from '../store/repositories/UsageRepository.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';
import { batchItemFinal } from './BatchCompletion.ts';

export interface MoveOptions {
  message?: string;
  utr?: string;
  railReference?: string;
}

/**
 * Every payout status change goes through here, inside the caller's transaction: the guarded update, the
 * webhook event, the next background step; FAILED frees the allowances and is always followed by the refund.
 */
export class PayoutLifecycle {
  constructor(
    private readonly rail: BankConnector,
    private readonly metrics: Metrics,
  ) {}

  /** Moves `payout` to `to`; null when it had already left its state (the caller lost a race and rolls back). */
  async move(tx: Queryable, payout: Payout, to: PayoutStatus, options: MoveOptions = {}): Promise<Payout | null> {
    const moved = await PayoutRepository.transition(tx, payout.id, payout.status, to, {
      statusMessage: options.message ?? DEFAULT_STATUS_MESSAGE[to],
      utr: options.utr,
      railReference: options.railReference,
    });
    if (!moved) return null;
    if (to === 'FAILED') {
      // The allowances count the payouts that are not FAILED or REFUNDED: a failure frees its amount at once.
      await UsageRepository.release(tx, moved.merchantId, `D${moved.istDay}`, moved.amount);
      await UsageRepository.release(tx, moved.merchantId, `M${moved.istMonth}`, moved.amount);
    }
    const type = payoutEventType(to);
    if (type) {
      await enqueueWebhook(tx, {
        merchantId: moved.merchantId,
        subjectId: moved.id,
        type,
        url: moved.callbackUrl,
        scheme: moved.scheme,
        object: toPayoutWire(moved),
      });
    }
    await this.scheduleNext(tx, moved);
    if (moved.batchId && (to === 'SUCCESS' || to === 'REFUNDED')) {
      // After the payout's own event, so that a receiver sees the last payout.* event before the batch's.
      await batchItemFinal(tx, moved.merchantId, moved.batchId);
    }
    this.metrics.payoutTransitions.inc({ status: to });
    return moved;
  }

  /** Schedules the payout's next background step, if the rail moves it by itself from here. */
  async scheduleNext(tx: Queryable, payout: Payout): Promise<void> {
    const status = payout.status;
    if (status === 'SUCCESS' || status === 'REFUNDED') return;
    const delay = this.rail.nextStepDelayMs(status);
    if (delay !== null) await JobRepository.schedule(tx, 'payout.advance', payout.id, delay);
  }

  /**
   * FAILED → REFUNDED: the amount goes back to the wallet (once: the ledger's unique index). It already left
   * the allowances when the payout failed.
   */
  async refund(tx: Queryable, payout: Payout): Promise<Payout | null> {
    await LedgerRepository.append(tx, {
      walletId: payout.walletId,
      kind: 'payout_refund',
      amount: payout.amount,
      payoutId: payout.id,
    });
    return this.move(tx, payout, 'REFUNDED');
  }
}
