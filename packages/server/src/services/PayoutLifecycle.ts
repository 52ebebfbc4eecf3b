import type { PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { toPayoutWire } from '../domain/Payout.ts';
import { DEFAULT_STATUS_MESSAGE, payoutEventType } from '../domain/payoutStateMachine.ts';
import { readOutcome, readSubmitAnswer } from '../domain/railAnswers.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { BankConnector } from '../rails/BankConnector.ts';
import type { Queryable } from '../store/Database.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { UsageRepository } from '../store/repositories/UsageRepository.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';
import { batchItemFinal } from './BatchCompletion.ts';

export interface MoveOptions {
  message?: string;
  utr?: string;
  railReference?: string;
  /** Who makes the change (history): `rail:<name>`, `worker`, `operator:<name>`; default `system`. */
  actor?: string;
}

export interface LifecycleOptions {
  /**
   * How long a FAILED payout waits before its refund: decided here for every rail. The sandbox keeps one step
   * (CONTRACT.md §6: each arrow is one step); live mode refunds at once.
   */
  refundDelayMs: number;
}

/** What became of a connector's answer. */
export type RailAnswerResult = 'moved' | 'unchanged' | 'error';

/**
 * Every payout status change goes through here, inside the caller's transaction: the guarded update (whose
 * trigger writes the history), the webhook event, the next background step; FAILED frees the allowances and
 * is always followed by the refund. Connector answers are read here too: an answer the transition table
 * refuses is kept on the payout as rail_error, never applied and never retried.
 */
export class PayoutLifecycle {
  constructor(
    private readonly rail: BankConnector,
    private readonly metrics: Metrics,
    private readonly options: LifecycleOptions,
  ) {}

  get railActor(): string {
    return `rail:${this.rail.name}`;
  }

  /** Moves `payout` to `to`; null when it had already left its state (the caller lost a race and rolls back). */
  async move(tx: Queryable, payout: Payout, to: PayoutStatus, options: MoveOptions = {}): Promise<Payout | null> {
    const moved = await PayoutRepository.transition(tx, payout.id, payout.status, to, {
      statusMessage: options.message ?? DEFAULT_STATUS_MESSAGE[to],
      utr: options.utr,
      railReference: options.railReference,
      actor: options.actor ?? 'system',
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

  /** Schedules the payout's next background step, if anything moves it by itself from here. */
  async scheduleNext(tx: Queryable, payout: Payout): Promise<void> {
    const delay = this.nextStepDelayMs(payout.status);
    if (delay !== null) await JobRepository.schedule(tx, 'payout.advance', payout.id, delay);
  }

  private nextStepDelayMs(status: PayoutStatus): number | null {
    switch (status) {
      case 'INITIATED':
        return this.rail.submitDelayMs;
      case 'PROCESSING':
      case 'PENDING':
        return this.rail.pollDelayMs(status);
      case 'FAILED':
        return this.options.refundDelayMs;
      default:
        return null;
    }
  }

  /**
   * Applies the rail's answer to the submission of an INITIATED payout: accepted → PROCESSING; refused →
   * PROCESSING → FAILED in this transaction (the table has no INITIATED → FAILED), then REFUNDED like any
   * failure; anything else → rail_error, and the payout waits for the operator.
   */
  async applySubmitAnswer(tx: Queryable, payout: Payout, answer: unknown): Promise<RailAnswerResult> {
    const decision = readSubmitAnswer(answer);
    const actor = this.railActor;
    if (decision.kind === 'invalid') {
      await this.recordRailError(tx, payout, decision.error);
      return 'error';
    }
    const processing = await this.move(tx, payout, 'PROCESSING', {
      actor,
      railReference: decision.kind === 'accepted' ? (decision.reference ?? undefined) : undefined,
      message: decision.kind === 'refused' ? 'Transfer submitted to the bank' : undefined,
    });
    if (!processing) throw new Error(`payout ${payout.id} moved during its submission`);
    if (decision.kind === 'refused') {
      const failed = await this.move(tx, processing, 'FAILED', { actor, message: decision.reason });
      if (!failed) throw new Error(`payout ${payout.id} moved during its submission`);
    }
    return 'moved';
  }

  /** Applies an outcome the rail reported (poll or notification), if the transition table allows it. */
  async applyOutcome(tx: Queryable, payout: Payout, answer: unknown): Promise<RailAnswerResult> {
    const decision = readOutcome(payout.status, answer);
    if (decision.kind === 'invalid') {
      await this.recordRailError(tx, payout, decision.error);
      return 'error';
    }
    if (decision.kind === 'unchanged') {
      await this.scheduleNext(tx, payout);
      return 'unchanged';
    }
    const moved = await this.move(tx, payout, decision.to, {
      actor: this.railActor,
      message: decision.reason,
      utr: decision.utr,
    });
    if (!moved) throw new Error(`payout ${payout.id} moved during its step`);
    return 'moved';
  }

  /** Keeps an answer that could not be applied on the payout and in its history; nothing is scheduled. */
  async recordRailError(tx: Queryable, payout: Payout, error: string): Promise<void> {
    await PayoutRepository.recordRailError(tx, payout.id, error);
    await TransactionEventRepository.recordError(tx, payout.id, error, this.railActor);
  }

  /**
   * FAILED → REFUNDED: the amount goes back to the wallet (once: the ledger's unique index). It already left
   * the allowances when the payout failed. The message keeps the failure's reason.
   */
  async refund(tx: Queryable, payout: Payout): Promise<Payout | null> {
    await LedgerRepository.append(tx, {
      walletId: payout.walletId,
      kind: 'payout_refund',
      amount: payout.amount,
      payoutId: payout.id,
    });
    const why = payout.failureReason ?? payout.statusMessage;
    return this.move(tx, payout, 'REFUNDED', {
      actor: 'worker',
      message: why ? `${DEFAULT_STATUS_MESSAGE.REFUNDED} (failed: ${why})`.slice(0, 500) : undefined,
    });
  }
}
