import { formatPaise, isId } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { parsePayoutNotification } from '../domain/pspNotification.ts';
import { readOutcome } from '../domain/railAnswers.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { PSP_ACTOR, type NotificationResult } from './NotificationResult.ts';
import type { PayoutLifecycle, RailAnswerResult } from './PayoutLifecycle.ts';
import { referenceConflictMessage, referenceOwnedElsewhere } from './pspReferences.ts';

const isFinal = (p: Payout) => p.status === 'SUCCESS' || p.status === 'FAILED' || p.status === 'REFUNDED';

/**
 * The entry point for outcomes a bank pushes (a connector's notification handler calls `report` with the payout
 * id it submitted as idempotency key; the signed route `POST /psp/v1/payouts/notify` calls `notify`). Applied
 * exactly like a polled outcome: only what the transition table allows; anything else is kept on the payout as
 * rail_error. A notification repeated, or older than what is recorded, changes nothing.
 */
export class BankNotifications {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
  ) {}

  async report(payoutId: string, outcome: unknown, actor?: string): Promise<RailAnswerResult | 'not_found'> {
    if (!isId('payout', payoutId)) return 'not_found';
    return this.db.transaction(async (tx) => {
      const current = await PayoutRepository.lockById(tx, payoutId);
      if (!current) return 'not_found';
      return this.apply(tx, current, outcome, actor);
    });
  }

  /**
   * `report` inside the caller's transaction, on a payout the caller has locked: a bank file applies all its
   * entries in one transaction, or none.
   */
  reportWithin(tx: Queryable, locked: Payout, outcome: unknown, actor?: string): Promise<RailAnswerResult> {
    return this.apply(tx, locked, outcome, actor);
  }

  /**
   * A notification as the PSP route receives it (`{transactionId, reference?, status, utr?, amount?, reason?}`, see
   * docs/operator/live-mode.md). An amount that differs from the payout's is refused and kept as rail_error; a reference
   * that belongs to another collection or payout is refused and recorded once in the history.
   */
  async notify(input: unknown, actor: string = PSP_ACTOR): Promise<NotificationResult> {
    const parsed = parsePayoutNotification(input);
    if (!parsed.ok) return { kind: 'invalid', message: parsed.error };
    const n = parsed.value;
    return this.db.transaction(async (tx): Promise<NotificationResult> => {
      const current = await PayoutRepository.lockById(tx, n.transactionId);
      if (!current) return { kind: 'not_found' };
      const owner = n.reference === undefined ? null : await referenceOwnedElsewhere(tx, n.reference, current.id);
      if (owner) {
        // Only in the history: the payout is not at fault, so its rail_error (what the rail said of it) stays.
        const message = referenceConflictMessage(n.reference as string, owner);
        await TransactionEventRepository.recordErrorOnce(tx, current.id, message, actor);
        return { kind: 'refused', code: 'reference_conflict', subjectId: current.id, status: current.status, message };
      }
      if (n.amount !== undefined && n.amount !== current.amount) {
        const message = `notified ${n.status} with amount ${formatPaise(n.amount)}, but the payout is for ${formatPaise(current.amount)}; not applied`;
        if (current.railError !== message) await this.lifecycle.recordRailError(tx, current, message, actor);
        return { kind: 'refused', code: 'amount_mismatch', subjectId: current.id, status: current.status, message };
      }
      const outcome = { status: n.status, utr: n.utr, reason: n.reason };
      const result = await this.apply(tx, current, outcome, actor);
      const after = (await PayoutRepository.findById(tx, current.id)) as Payout;
      if (result === 'error') {
        const message = after.railError ?? 'not applied';
        // A return of a payout that is neither SUCCESS nor returned: the same answer as the operator's return.
        const code = n.status === 'RETURNED' ? 'invalid_state' : 'refused';
        return { kind: 'refused', code, subjectId: after.id, status: after.status, message };
      }
      return { kind: result === 'moved' ? 'applied' : 'unchanged', subjectId: after.id, status: after.status };
    });
  }

  private async apply(
    tx: Queryable,
    locked: Payout,
    outcome: unknown,
    actor: string | undefined,
  ): Promise<RailAnswerResult> {
    let current = locked;
    const status = (outcome as { status?: unknown } | null)?.status;
    // REFUNDED is Payrail's own step after FAILED: FAILED again is a repeat. PROCESSING or PENDING after a final
    // status is older news (notifications may arrive out of order): neither is an error.
    if (current.status === 'REFUNDED' && status === 'FAILED') return 'unchanged';
    if (isFinal(current) && (status === 'PROCESSING' || status === 'PENDING')) return 'unchanged';
    // A return is news of a transfer that succeeded: it never stands for the acceptance of one (refused below).
    const isReturn = status === 'RETURNED' || status === 'REFUNDED';
    if (current.status === 'INITIATED' && current.submittedAt && current.railError === null && !isReturn) {
      // The bank reports on a transfer whose acceptance is not recorded yet: the report is the acceptance.
      const accepted = await this.lifecycle.applySubmitAnswer(tx, current, { accepted: true });
      if (accepted !== 'moved') return accepted;
      const relocked = await PayoutRepository.lockById(tx, current.id);
      if (!relocked) throw new Error(`payout ${current.id} vanished under its lock`);
      current = relocked;
    }
    const decision = readOutcome(current.status, outcome, {
      returned: Boolean(current.returnedAt),
      utr: current.utr,
    });
    // The same refused report again (a sender retrying) is already on the payout: recorded once.
    if (decision.kind === 'invalid' && current.railError === decision.error) return 'error';
    return this.lifecycle.applyOutcome(tx, current, outcome, actor);
  }
}
