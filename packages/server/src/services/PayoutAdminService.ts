import { isId, type PayoutStatus } from '@payrail/protocol';
import type { Mode } from '../config.ts';
import type { Payout } from '../domain/Payout.ts';
import { newUtr } from '../domain/utr.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutRepository, type PayoutPageQuery } from '../store/repositories/PayoutRepository.ts';
import { inScope, scopedQuery, type MerchantScope } from './MerchantScope.ts';
import type { PayoutLifecycle } from './PayoutLifecycle.ts';
import { buildTimeline, type Timeline } from './transactionTimeline.ts';

export type ResolveOutcome =
  | { ok: true; payout: Payout }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_state'; status: PayoutStatus };

/** `changed` false: the payout had been returned already, and nothing was written. */
export type ReturnOutcome =
  | { ok: true; payout: Payout; changed: boolean }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_state'; status: PayoutStatus };

/**
 * Operator actions on payouts: listing, resolving a payout the bank left open, and ledger verification. The reads
 * take a MerchantScope for the merchant console: another merchant's payout is not there.
 */
export class PayoutAdminService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
    private readonly mode: Mode,
  ) {}

  page(query: PayoutPageQuery, scope?: MerchantScope): Promise<Payout[]> {
    return PayoutRepository.page(this.db, scopedQuery(query, scope));
  }

  async get(id: string, scope?: MerchantScope): Promise<Payout | null> {
    const payout = await PayoutRepository.findById(this.db, id);
    return payout && inScope(scope, payout.merchantId) ? payout : null;
  }

  /**
   * Settles a PENDING payout (and a PROCESSING one in live mode) as SUCCESS or FAILED; FAILED goes on to
   * REFUNDED through the worker like any failure.
   */
  async resolve(id: string, to: 'SUCCESS' | 'FAILED', utr?: string, actor = 'system'): Promise<ResolveOutcome> {
    return this.db.transaction(async (tx): Promise<ResolveOutcome> => {
      const payout = await PayoutRepository.lockById(tx, id);
      if (!payout) return { ok: false, reason: 'not_found' };
      return this.resolveWithin(tx, payout, to, utr, actor);
    });
  }

  /** `resolve` in the caller's transaction, on a payout it has locked (an exception resolved, ExceptionService). */
  async resolveWithin(
    tx: Queryable,
    locked: Payout,
    to: 'SUCCESS' | 'FAILED',
    utr: string | undefined,
    actor: string,
  ): Promise<ResolveOutcome> {
    const resolvable: PayoutStatus[] = this.mode === 'live' ? ['PENDING', 'PROCESSING'] : ['PENDING'];
    let payout = locked;
    // A payout whose connector gave an answer Payrail could not apply waits for the operator in any open state.
    const open = payout.railError !== null && ['INITIATED', 'PROCESSING', 'PENDING'].includes(payout.status);
    if (!open && !resolvable.includes(payout.status)) {
      return { ok: false, reason: 'invalid_state', status: payout.status };
    }
    if (payout.status === 'INITIATED') {
      // The table has no INITIATED → SUCCESS/FAILED: the transfer the bank took goes through PROCESSING.
      payout = (await this.lifecycle.move(tx, payout, 'PROCESSING', {
        actor,
        message: 'Transfer recorded as submitted (resolved by operator)',
      })) as Payout;
    }
    // A SUCCESS without the bank's UTR gets one made up (the interface promises a UTR with every SUCCESS); it is
    // marked as Payrail's own, so that nobody takes it for the bank's (utr_invented).
    const invented = to === 'SUCCESS' && utr === undefined;
    const moved = await this.lifecycle.move(tx, payout, to, {
      actor,
      message:
        to === 'SUCCESS' ? 'Transfer completed (resolved by operator)' : 'Transfer failed (resolved by operator)',
      utr: to === 'SUCCESS' ? (utr ?? newUtr()) : undefined,
      utrInvented: invented,
    });
    return { ok: true, payout: moved as Payout };
  }

  /**
   * Records that the bank sent back the money of a SUCCESS payout (PayoutLifecycle.returnPayout): 200 with the
   * payout. A payout returned already is answered as it is (the same return reported twice, by the operator and
   * the bank, credits once); any other payout, REFUNDED after a failure included, is `invalid_state`.
   */
  async returnPayout(id: string, reason: string, actor: string): Promise<ReturnOutcome> {
    if (!isId('payout', id)) return { ok: false, reason: 'not_found' };
    return this.db.transaction(async (tx): Promise<ReturnOutcome> => {
      const payout = await PayoutRepository.lockById(tx, id);
      if (!payout) return { ok: false, reason: 'not_found' };
      if (payout.returnedAt) return { ok: true, payout, changed: false };
      const returned = await this.returnWithin(tx, payout, reason, actor);
      if (!returned) return { ok: false, reason: 'invalid_state', status: payout.status };
      return { ok: true, payout: returned, changed: true };
    });
  }

  /** The return of a SUCCESS payout the caller has locked, in its transaction; null when it is not SUCCESS. */
  returnWithin(tx: Queryable, locked: Payout, reason: string, actor: string): Promise<Payout | null> {
    return this.lifecycle.returnPayout(tx, locked, reason, actor);
  }

  /**
   * The payout's history (docs/operator/operations.md), or null when there is no such payout. The change to SUCCESS shows
   * the UTR, which the payout keeps even when it is returned later (the database refuses to change it then).
   */
  async timeline(id: string, scope?: MerchantScope): Promise<Timeline | null> {
    const payout = isId('payout', id) ? await PayoutRepository.findById(this.db, id) : null;
    if (!payout || !inScope(scope, payout.merchantId)) return null;
    const events = await buildTimeline(this.db, payout.id, payout.createdAt, 'merchant');
    return events.map((e) => (e.type === 'status' && e.to === 'SUCCESS' && payout.utr ? { ...e, utr: payout.utr } : e));
  }

  /** The ledger check; `full` re-adds every entry instead of starting from the closed days (LedgerRepository.verify). */
  verifyLedger(full = false) {
    return this.db.transaction(async (tx) => {
      await LedgerRepository.verifySnapshot(tx);
      return LedgerRepository.verify(tx, full);
    });
  }
}
