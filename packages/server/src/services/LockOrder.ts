import type { PayoutStatus } from '@payrail/protocol';
import { allowanceHolder, type Payout } from '../domain/Payout.ts';
import { RETURN_TRANSITION } from '../domain/payoutStateMachine.ts';
import type { Queryable } from '../store/Database.ts';
import { BatchRepository } from '../store/repositories/BatchRepository.ts';
import { UsageRepository } from '../store/repositories/UsageRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';

/** What a payout's move writes besides the payout itself (PayoutLifecycle.move, refund, returnPayout). */
export type MovingPayout = Pick<
  Payout,
  'status' | 'walletId' | 'merchantId' | 'settlementId' | 'istDay' | 'istMonth' | 'batchId'
>;

/**
 * The rows a transaction will write besides the payouts it has locked, taken up front in the one order of
 * ARCHITECTURE.md ("Row locks, in one order"): wallets by id, then allowance rows by (merchant, period), then batch
 * rows by (merchant, batch). A transaction that moves several payouts would otherwise take them in the order of its
 * payouts (a failure's allowances, then the next payout's refund and its wallet), and against an initiation, which
 * holds the wallet while it waits for the allowances (payout_open, migration 004), that is a deadlock (issue 28).
 * A row taken again later by the transaction's own writes is already its own: those writes wait for nothing.
 */
export class LockPlan {
  private readonly wallets = new Set<string>();
  private readonly allowances = new Map<string, { merchantId: string; period: string }>();
  private readonly batches = new Map<string, { merchantId: string; batchId: string }>();

  /**
   * The rows `payout`, in its status now, writes on its way to `to`: REFUNDED appends its refund entry (the wallet),
   * FAILED and a return free its allowances (both periods), and a final SUCCESS or REFUNDED counts in its batch.
   */
  move(payout: MovingPayout, to: PayoutStatus): this {
    const returned = payout.status === RETURN_TRANSITION.from && to === RETURN_TRANSITION.to;
    if (to === 'REFUNDED') this.wallets.add(payout.walletId);
    const merchantId = payout.merchantId;
    // Only the allowances the move will free (a settlement's or the platform's payout has none to free).
    const holder = allowanceHolder(payout);
    if ((to === 'FAILED' || returned) && holder !== null) {
      for (const period of [`D${payout.istDay}`, `M${payout.istMonth}`]) {
        this.allowances.set(`${holder}\n${period}`, { merchantId: holder, period });
      }
    }
    if (payout.batchId && merchantId !== null && (to === 'SUCCESS' || (to === 'REFUNDED' && !returned))) {
      const batchId = payout.batchId;
      this.batches.set(`${merchantId}\n${batchId}`, { merchantId, batchId });
    }
    return this;
  }

  /** A wallet the transaction credits besides its payouts' (a bank file's deposits). */
  wallet(walletId: string): this {
    this.wallets.add(walletId);
    return this;
  }

  /**
   * Locks the planned rows, one statement per table (none for a table with nothing planned), each in the sort order
   * of the statements that lock the same rows elsewhere: `ORDER BY id` as payout_open_batch (migration 008) sorts
   * its wallets, in the database's collation. FOR NO KEY UPDATE is the strength of the writes that follow (the
   * ledger trigger's UPDATE of the wallet, the allowances' and the batch's UPDATE), so it never needs an upgrade.
   */
  async take(tx: Queryable): Promise<void> {
    await WalletRepository.lockMany(tx, [...this.wallets]);
    await UsageRepository.lockMany(tx, [...this.allowances.values()]);
    await BatchRepository.lockMany(tx, [...this.batches.values()]);
  }
}
