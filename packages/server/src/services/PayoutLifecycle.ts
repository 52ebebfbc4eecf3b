import type { PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { allowanceHolder, toPayoutWire } from '../domain/Payout.ts';
import {
  DEFAULT_STATUS_MESSAGE,
  payoutEventType,
  RETURN_TRANSITION,
  returnStatusMessage,
} from '../domain/payoutStateMachine.ts';
import { readOutcome, readSubmitAnswer } from '../domain/railAnswers.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { Queryable } from '../store/Database.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { UsageRepository } from '../store/repositories/UsageRepository.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';
import { batchItemFinal } from './BatchCompletion.ts';
import { moveMany, type BulkMove } from './PayoutBulkMoves.ts';
import { settlementPayoutsMoved } from './settlementEvents.ts';
import type { Clock } from '../clock.ts';

export interface MoveOptions {
  message?: string;
  utr?: string;
  railReference?: string;
  /** Who makes the change (history): `rail:<name>`, `worker`, `operator:<name>`; default `system`. */
  actor?: string;
  /** SUCCESS → REFUNDED only (returnPayout): why the bank sent the money back. */
  returnReason?: string;
  /** `utr` is Payrail's own (an operator's resolve without one), so that every reader can say so. */
  utrInvented?: boolean;
}

export interface LifecycleOptions {
  /**
   * How long a FAILED payout waits before its refund: decided here for every rail. The sandbox keeps one step
   * (docs/merchant/api-reference.md, "The sandbox": each arrow is one step); live mode refunds at once.
   */
  refundDelayMs: number;
  /** The composition root's clock. */
  clock: Clock;
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
    private readonly connectors: ConnectorRegistry,
    private readonly metrics: Metrics,
    private readonly options: LifecycleOptions,
  ) {
    this.clock = options.clock;
  }

  private readonly clock: Clock;

  /** Who a connector's answer is from, in the history: the payout's own connector. */
  railActor(payout: Payout): string {
    return `rail:${payout.rail}`;
  }

  /** Moves `payout` to `to`; null when it had already left its state (the caller lost a race and rolls back). */
  async move(tx: Queryable, payout: Payout, to: PayoutStatus, options: MoveOptions = {}): Promise<Payout | null> {
    const moved = await PayoutRepository.transition(tx, payout.id, payout.status, to, {
      statusMessage: options.message ?? DEFAULT_STATUS_MESSAGE[to],
      utr: options.utr,
      railReference: options.railReference,
      actor: options.actor ?? 'system',
      returnReason: options.returnReason,
      utrInvented: options.utrInvented,
    });
    if (!moved) return null;
    const returned = payout.status === RETURN_TRANSITION.from && to === RETURN_TRANSITION.to;
    const merchantId = moved.merchantId;
    const holder = allowanceHolder(moved);
    if ((to === 'FAILED' || returned) && holder !== null) {
      // The allowances count the payouts that are not FAILED or REFUNDED: a failure or a return frees its amount
      // at once (in the day and month the payout was made, whenever the return comes).
      await UsageRepository.release(tx, holder, `D${moved.istDay}`, moved.amount);
      await UsageRepository.release(tx, holder, `M${moved.istMonth}`, moved.amount);
    }
    const type = payoutEventType(to);
    const now = new Date(this.clock());
    // The platform's own payout has no merchant to tell (its exception reopens by itself when it fails: 037).
    if (type && merchantId !== null) {
      await enqueueWebhook(
        tx,
        {
          merchantId,
          subjectId: moved.id,
          type,
          url: moved.callbackUrl,
          scheme: moved.scheme,
          object: toPayoutWire(moved),
        },
        now,
      );
    }
    await this.scheduleNext(tx, moved);
    await settlementPayoutsMoved(tx, [moved], now);
    // A returned payout was counted final at its SUCCESS: its batch completed then and is not counted again.
    if (moved.batchId && merchantId !== null && (to === 'SUCCESS' || (to === 'REFUNDED' && !returned))) {
      // After the payout's own event, so that a receiver sees the last payout.* event before the batch's.
      await batchItemFinal(tx, merchantId, moved.batchId, now);
    }
    this.metrics.payoutTransitions.inc({ status: to });
    return moved;
  }

  /**
   * `move` for many payouts at once, set-based (services/PayoutBulkMoves.ts: bank files): a few statements whatever
   * their number, the same effects per payout. Throws (the caller rolls back) when any had left its status.
   */
  moveMany(tx: Queryable, moves: readonly BulkMove[], actor: string): Promise<Payout[]> {
    return moveMany(tx, moves, actor, {
      scheduleNextMany: (q, payouts) => this.scheduleNextMany(q, payouts),
      counted: (to, n) => this.metrics.payoutTransitions.inc({ status: to }, n),
      clock: this.clock,
    });
  }

  /** `scheduleNext` for many payouts, one statement per delay. */
  async scheduleNextMany(tx: Queryable, payouts: readonly Payout[]): Promise<void> {
    const byDelay = new Map<number, string[]>();
    for (const p of payouts) {
      const delay = this.nextStepDelayMs(p);
      if (delay === null) continue;
      const group = byDelay.get(delay);
      if (group) group.push(p.id);
      else byDelay.set(delay, [p.id]);
    }
    for (const [delay, ids] of byDelay) await JobRepository.scheduleMany(tx, 'payout.advance', ids, delay);
  }

  /** Schedules the payout's next background step, if anything moves it by itself from here. */
  async scheduleNext(tx: Queryable, payout: Payout): Promise<void> {
    const delay = this.nextStepDelayMs(payout);
    if (delay !== null) await JobRepository.schedule(tx, 'payout.advance', payout.id, delay);
  }

  private nextStepDelayMs(payout: Payout): number | null {
    const { status } = payout;
    // A connector no longer configured here moves nothing by itself; the stepper records why on the payout.
    const rail = this.connectors.get(payout.rail);
    switch (status) {
      case 'INITIATED':
        return rail ? rail.submitDelayMs : 0;
      case 'PROCESSING':
      case 'PENDING':
        return rail ? rail.pollDelayMs(status) : null;
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
  async applySubmitAnswer(
    tx: Queryable,
    payout: Payout,
    answer: unknown,
    /** When the answer is a temporary refusal: how long until the next submission. */
    retryDelayMs = 1000,
  ): Promise<RailAnswerResult> {
    const decision = readSubmitAnswer(answer);
    const actor = this.railActor(payout);
    if (decision.kind === 'invalid') {
      await this.recordRailError(tx, payout, decision.error);
      return 'error';
    }
    if (decision.kind === 'temporary') {
      await this.recordTemporaryRefusal(tx, payout, decision.reason, retryDelayMs);
      return 'unchanged';
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

  /**
   * Applies an outcome the rail reported (poll or notification), if the transition table allows it. `actor`: who
   * reported it (default the rail; `psp` for the notification routes).
   */
  async applyOutcome(
    tx: Queryable,
    payout: Payout,
    answer: unknown,
    actor: string = this.railActor(payout),
  ): Promise<RailAnswerResult> {
    const decision = readOutcome(payout.status, answer, { returned: Boolean(payout.returnedAt), utr: payout.utr });
    if (decision.kind === 'invalid') {
      await this.recordRailError(tx, payout, decision.error, actor);
      return 'error';
    }
    if (decision.kind === 'unchanged') {
      await this.scheduleNext(tx, payout);
      return 'unchanged';
    }
    if (decision.kind === 'return') {
      if (!(await this.returnPayout(tx, payout, decision.reason, actor))) {
        throw new Error(`payout ${payout.id} moved during its step`);
      }
      return 'moved';
    }
    const moved = await this.move(tx, payout, decision.to, {
      actor,
      message: decision.reason,
      utr: decision.utr,
    });
    if (!moved) throw new Error(`payout ${payout.id} moved during its step`);
    return 'moved';
  }

  /**
   * A submission refused for now: the payout stays INITIATED with the reason as its rail_error and in its history,
   * and is submitted again after `retryDelayMs` (the stepper fails it once the connector's retry period is over).
   */
  async recordTemporaryRefusal(tx: Queryable, payout: Payout, reason: string, retryDelayMs: number): Promise<void> {
    await PayoutRepository.recordTemporaryRefusal(tx, payout.id, reason);
    await TransactionEventRepository.recordError(
      tx,
      payout.id,
      `temporarily refused: ${reason}`,
      this.railActor(payout),
    );
    await JobRepository.schedule(tx, 'payout.advance', payout.id, retryDelayMs);
  }

  /** Keeps an answer that could not be applied on the payout and in its history; nothing is scheduled. */
  async recordRailError(
    tx: Queryable,
    payout: Payout,
    error: string,
    actor: string = this.railActor(payout),
  ): Promise<void> {
    await PayoutRepository.recordRailError(tx, payout.id, error);
    await TransactionEventRepository.recordError(tx, payout.id, error, actor);
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

  /**
   * SUCCESS → REFUNDED, a return: the bank sent back the money of a transfer that succeeded. The amount goes back
   * to the wallet as the payout's `payout_refund` entry, which the ledger's unique index allows once per payout;
   * the database refuses the move without it (migration 017). The payout keeps its UTR, its status message says
   * why, move() frees the allowances and sends payout.refunded. `payout` is locked by the caller; null (nothing
   * written) when it is not SUCCESS.
   */
  async returnPayout(tx: Queryable, payout: Payout, reason: string, actor: string): Promise<Payout | null> {
    if (payout.status !== RETURN_TRANSITION.from) return null;
    await LedgerRepository.append(tx, {
      walletId: payout.walletId,
      kind: 'payout_refund',
      amount: payout.amount,
      payoutId: payout.id,
    });
    return this.move(tx, payout, RETURN_TRANSITION.to, {
      actor,
      message: returnStatusMessage(reason),
      returnReason: reason,
    });
  }
}
