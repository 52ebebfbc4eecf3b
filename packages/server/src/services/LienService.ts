import { dateOf, type Clock } from '../clock.ts';
import { newConsoleId } from '../domain/ids.ts';
import { roleAllows, type Actor } from '../domain/Operator.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { LienOverdraw, LienRepository, type Lien, type LienState } from '../store/repositories/LienRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';

export type { Lien, LienState };

export type LienRefusal =
  | 'not_found'
  | 'insufficient_balance'
  | 'invalid_state'
  | 'exceeds_lien'
  | 'expired_already'
  | 'same_operator'
  | 'lineage_conflict'
  | 'forbidden';

export type LienOutcome = { ok: true; lien: Lien; pending: boolean } | { ok: false; reason: LienRefusal };

/**
 * Liens (docs/operator/liens.md). A lien holds part of a wallet's balance: payouts fit in balance minus active liens
 * (payout_open, migration 033). Every decision that compares a lien with the balance is made under the wallet's row
 * lock (FOR NO KEY UPDATE, as payout_open takes it), so a lien and a payout racing each other never both pass
 * beyond the balance. Row order (ARCHITECTURE.md): the lien, then its wallet.
 *
 * Placing and enforcing take a second operator when a console operator asks above the credit approval threshold
 * (the lien waits `pending`, or its enforcement waits on it); the admin token acts at once, as for credits. Expiry
 * needs no job: a lien whose `expires_at` has passed holds nothing from that instant (compared with the clock).
 */
export class LienService {
  constructor(
    private readonly db: Database,
    /** Liens and enforcements above this many paise wait for a second operator. */
    private readonly approvalAbove: bigint,
    private readonly clock: Clock,
  ) {}

  private needsChecker(actor: Actor, amount: bigint): boolean {
    return actor.via === 'session' && actor.operatorId !== null && amount > this.approvalAbove;
  }

  /** What the wallet can spend after its balance: balance − active liens, under the caller's wallet lock. */
  private async fits(tx: Queryable, walletId: string, amount: bigint, at: Date): Promise<boolean | null> {
    const wallet = await WalletRepository.lockById(tx, walletId);
    if (!wallet || !wallet.merchantId) return null;
    const onLien = await LienRepository.onLien(tx, walletId, at);
    return wallet.balance - onLien >= amount;
  }

  place(actor: Actor, walletId: string, amount: bigint, reason: string, expiresAt: Date | null): Promise<LienOutcome> {
    const at = dateOf(this.clock);
    if (expiresAt !== null && expiresAt.getTime() <= at.getTime()) {
      return Promise.resolve({ ok: false, reason: 'expired_already' });
    }
    const pending = this.needsChecker(actor, amount);
    return this.db.transaction(async (tx): Promise<LienOutcome> => {
      const fits = await this.fits(tx, walletId, amount, at);
      if (fits === null) return { ok: false, reason: 'not_found' };
      if (!fits) return { ok: false, reason: 'insufficient_balance' };
      const lien = await LienRepository.insert(tx, {
        id: newConsoleId('LN', this.clock()),
        walletId,
        amount,
        reason,
        state: pending ? 'pending' : 'active',
        expiresAt,
        placedBy: actor.name,
        at,
      });
      return { ok: true, lien, pending };
    });
  }

  /**
   * Releases `amount` (all that remains when absent), the reason and the operator kept on the lien. Needs no second
   * operator: it only gives back.
   */
  release(actor: Actor, id: string, amount: bigint | undefined, reason: string): Promise<LienOutcome> {
    const at = dateOf(this.clock);
    return this.db.transaction(async (tx): Promise<LienOutcome> => {
      const lien = await this.lockActive(tx, id, at);
      if (!('id' in lien)) return lien;
      const take = amount ?? lien.remaining;
      if (take > lien.remaining) return { ok: false, reason: 'exceeds_lien' };
      return {
        ok: true,
        lien: await LienRepository.release(tx, id, take, { reason, by: actor.name }, at),
        pending: false,
      };
    });
  }

  /**
   * Enforces `amount` (all that remains when absent): moved to PW_RECOVERY at once, or waiting for a second
   * operator when a console operator asks above the threshold.
   */
  enforce(actor: Actor, id: string, amount: bigint | undefined, reason: string): Promise<LienOutcome> {
    const at = dateOf(this.clock);
    return this.db.transaction(async (tx): Promise<LienOutcome> => {
      const lien = await this.lockActive(tx, id, at);
      if (!('id' in lien)) return lien;
      const take = amount ?? lien.remaining;
      if (take > lien.remaining) return { ok: false, reason: 'exceeds_lien' };
      if (this.needsChecker(actor, take)) {
        const pending = { amount: take, requestedBy: actor.name, reason };
        return { ok: true, lien: await LienRepository.setPendingEnforcement(tx, id, pending, at), pending: true };
      }
      return this.move(tx, lien, take, reason, at);
    });
  }

  /** A second operator approves what waits on the lien: its placement, or its enforcement. */
  approve(id: string, checker: Actor): Promise<LienOutcome> {
    if (!roleAllows(checker.role, 'finance')) return Promise.resolve({ ok: false, reason: 'forbidden' });
    const at = dateOf(this.clock);
    return this.db.transaction(async (tx): Promise<LienOutcome> => {
      const lien = await LienRepository.lockById(tx, id, at);
      if (!lien) return { ok: false, reason: 'not_found' };
      const maker = lien.state === 'pending' ? lien.placedBy : lien.enforceRequestedBy;
      if (maker === null || (lien.state !== 'pending' && lien.state !== 'active')) {
        return { ok: false, reason: 'invalid_state' };
      }
      if (maker.toLowerCase() === checker.name.toLowerCase()) return { ok: false, reason: 'same_operator' };
      if (!(await LienRepository.independent(tx, maker, checker.name)))
        return { ok: false, reason: 'lineage_conflict' };
      if (lien.state === 'pending') {
        const fits = await this.fits(tx, lien.walletId, lien.amount, at);
        if (!fits) return { ok: false, reason: 'insufficient_balance' };
        return {
          ok: true,
          lien: await LienRepository.decidePlacement(tx, id, 'active', checker.name, at),
          pending: false,
        };
      }
      await WalletRepository.lockById(tx, lien.walletId);
      return this.move(tx, lien, lien.enforcePending ?? 0n, lien.enforceReason ?? lien.reason, at);
    });
  }

  /** Any finance operator (the maker too) turns down what waits on the lien: a pending lien is rejected. */
  reject(id: string, checker: Actor): Promise<LienOutcome> {
    if (!roleAllows(checker.role, 'finance')) return Promise.resolve({ ok: false, reason: 'forbidden' });
    const at = dateOf(this.clock);
    return this.db.transaction(async (tx): Promise<LienOutcome> => {
      const lien = await LienRepository.lockById(tx, id, at);
      if (!lien) return { ok: false, reason: 'not_found' };
      if (lien.state === 'pending') {
        return {
          ok: true,
          lien: await LienRepository.decidePlacement(tx, id, 'rejected', checker.name, at),
          pending: false,
        };
      }
      if (lien.enforcePending === null) return { ok: false, reason: 'invalid_state' };
      return { ok: true, lien: await LienRepository.setPendingEnforcement(tx, id, null, at), pending: false };
    });
  }

  private async move(tx: Queryable, lien: Lien, amount: bigint, reason: string, at: Date): Promise<LienOutcome> {
    try {
      return {
        ok: true,
        lien: await LienRepository.enforce(tx, lien.id, lien.walletId, amount, reason, at),
        pending: false,
      };
    } catch (err) {
      if (err instanceof LienOverdraw) return { ok: false, reason: 'insufficient_balance' };
      throw err;
    }
  }

  /** The lien, locked, then its wallet (the one row order), when it is active. */
  private async lockActive(tx: Queryable, id: string, at: Date): Promise<Lien | { ok: false; reason: LienRefusal }> {
    const lien = await LienRepository.lockById(tx, id, at);
    if (!lien) return { ok: false, reason: 'not_found' };
    if (lien.state !== 'active') return { ok: false, reason: 'invalid_state' };
    await WalletRepository.lockById(tx, lien.walletId);
    return lien;
  }

  get(id: string): Promise<Lien | null> {
    return LienRepository.findById(this.db, id, dateOf(this.clock));
  }

  /** The wallet's liens, newest first; null when there is no such merchant wallet. */
  async list(walletId: string): Promise<Lien[] | null> {
    const wallet = await WalletRepository.findById(this.db, walletId);
    if (!wallet || !wallet.merchantId) return null;
    return LienRepository.listByWallet(this.db, walletId, dateOf(this.clock));
  }

  /** What the wallet's liens hold now. */
  onLien(walletId: string): Promise<bigint> {
    return LienRepository.onLien(this.db, walletId, dateOf(this.clock));
  }
}
