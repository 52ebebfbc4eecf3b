import type { PayoutStatus } from '@payrail/protocol';
import type { Mode } from '../config.ts';
import type { Payout } from '../domain/Payout.ts';
import { newUtr } from '../domain/utr.ts';
import type { Database } from '../store/Database.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutRepository, type PayoutPageQuery } from '../store/repositories/PayoutRepository.ts';
import type { PayoutLifecycle } from './PayoutLifecycle.ts';

export type ResolveOutcome =
  | { ok: true; payout: Payout }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_state'; status: PayoutStatus };

/** Operator actions on payouts: listing, resolving a payout the bank left open, and ledger verification. */
export class PayoutAdminService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
    private readonly mode: Mode,
  ) {}

  page(query: PayoutPageQuery): Promise<Payout[]> {
    return PayoutRepository.page(this.db, query);
  }

  get(id: string): Promise<Payout | null> {
    return PayoutRepository.findById(this.db, id);
  }

  /**
   * Settles a PENDING payout (and a PROCESSING one in live mode) as SUCCESS or FAILED; FAILED goes on to
   * REFUNDED through the worker like any failure.
   */
  async resolve(id: string, to: 'SUCCESS' | 'FAILED', utr?: string): Promise<ResolveOutcome> {
    const resolvable: PayoutStatus[] = this.mode === 'live' ? ['PENDING', 'PROCESSING'] : ['PENDING'];
    return this.db.transaction(async (tx): Promise<ResolveOutcome> => {
      const payout = await PayoutRepository.lockById(tx, id);
      if (!payout) return { ok: false, reason: 'not_found' };
      if (!resolvable.includes(payout.status)) return { ok: false, reason: 'invalid_state', status: payout.status };
      const moved = await this.lifecycle.move(tx, payout, to, {
        message:
          to === 'SUCCESS' ? 'Transfer completed (resolved by operator)' : 'Transfer failed (resolved by operator)',
        utr: to === 'SUCCESS' ? (utr ?? newUtr()) : undefined,
      });
      return { ok: true, payout: moved as Payout };
    });
  }

  verifyLedger() {
    return LedgerRepository.verify(this.db);
  }
}
