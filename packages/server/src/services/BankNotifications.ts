import { isId } from '@payrail/protocol';
import type { Database } from '../store/Database.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import type { PayoutLifecycle, RailAnswerResult } from './PayoutLifecycle.ts';

/**
 * The entry point for outcomes a bank pushes (a connector's notification handler calls `report` with the payout
 * id it submitted as idempotency key). Applied exactly like a polled outcome: only what the transition table
 * allows; anything else is kept on the payout as rail_error.
 */
export class BankNotifications {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
  ) {}

  async report(payoutId: string, outcome: unknown): Promise<RailAnswerResult | 'not_found'> {
    if (!isId('payout', payoutId)) return 'not_found';
    return this.db.transaction(async (tx) => {
      let current = await PayoutRepository.lockById(tx, payoutId);
      if (!current) return 'not_found';
      if (current.status === 'INITIATED' && current.submittedAt && current.railError === null) {
        // The bank reports on a transfer whose acceptance is not recorded yet: the report is the acceptance.
        const accepted = await this.lifecycle.applySubmitAnswer(tx, current, { accepted: true });
        if (accepted !== 'moved') return accepted;
        current = await PayoutRepository.lockById(tx, payoutId);
        if (!current) return 'not_found';
      }
      return this.lifecycle.applyOutcome(tx, current, outcome);
    });
  }
}
