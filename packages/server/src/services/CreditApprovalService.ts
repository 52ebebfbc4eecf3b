import { newConsoleId } from '../domain/ids.ts';
import { roleAllows, type Actor } from '../domain/Operator.ts';
import type { Database } from '../store/Database.ts';
import {
  CreditRequestRepository,
  type CreditRequest,
  type CreditRequestStatus,
} from '../store/repositories/CreditRequestRepository.ts';
import { BalanceOverflow, DuplicateEntry } from '../store/repositories/LedgerRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { CreditResult, MerchantService } from './MerchantService.ts';

export type { CreditRequest, CreditRequestStatus };

export type CreditOutcome =
  { kind: 'credited'; result: CreditResult } | { kind: 'pending'; request: CreditRequest } | { kind: 'not_found' };

export type DecisionOutcome =
  | { ok: true; request: CreditRequest; credit?: CreditResult }
  | {
      ok: false;
      reason: 'not_found' | 'not_pending' | 'same_operator' | 'forbidden' | 'duplicate_reference' | 'balance_overflow';
    };

/**
 * Maker ≠ checker for wallet credits. A credit made by an operator above the threshold waits as a request until
 * a different finance or admin operator approves it; the admin token (automation) credits directly.
 */
export class CreditApprovalService {
  constructor(
    private readonly db: Database,
    private readonly merchants: MerchantService,
    /** Credits above this many paise wait for approval. */
    private readonly approvalAbove: bigint,
  ) {}

  async credit(actor: Actor, walletId: string, amount: bigint, reference?: string): Promise<CreditOutcome> {
    if (actor.via === 'session' && amount > this.approvalAbove) {
      if (!(await WalletRepository.findById(this.db, walletId))) return { kind: 'not_found' };
      const request = await CreditRequestRepository.insert(this.db, {
        id: newConsoleId('CR'),
        walletId,
        amount,
        reference,
        requestedBy: actor.name,
      });
      return { kind: 'pending', request };
    }
    const result = await this.merchants.credit(walletId, amount, reference);
    return result ? { kind: 'credited', result } : { kind: 'not_found' };
  }

  /**
   * Approves and credits in one transaction, once. The credit carries the request id as its reference when the
   * request had none, so that it is idempotent like any referenced credit.
   */
  async approve(id: string, checker: Actor): Promise<DecisionOutcome> {
    if (!roleAllows(checker.role, 'finance')) return { ok: false, reason: 'forbidden' };
    try {
      return await this.approveOnce(id, checker);
    } catch (err) {
      // The request's reference was credited some other way meanwhile: nothing moved, the request stays pending.
      if (err instanceof DuplicateEntry) return { ok: false, reason: 'duplicate_reference' };
      if (err instanceof BalanceOverflow) return { ok: false, reason: 'balance_overflow' };
      throw err;
    }
  }

  private approveOnce(id: string, checker: Actor): Promise<DecisionOutcome> {
    return this.db.transaction(async (tx): Promise<DecisionOutcome> => {
      const request = await CreditRequestRepository.lockById(tx, id);
      if (!request) return { ok: false, reason: 'not_found' };
      if (request.status !== 'pending') return { ok: false, reason: 'not_pending' };
      if (request.requestedBy.toLowerCase() === checker.name.toLowerCase()) {
        return { ok: false, reason: 'same_operator' };
      }
      const decided = await CreditRequestRepository.decide(tx, id, 'approved', checker.name);
      const credit = await this.merchants.creditWithin(tx, request.walletId, request.amount, request.reference ?? id);
      return { ok: true, request: decided, credit };
    });
  }

  /** Any finance or admin operator may reject, the maker included (withdrawing their own request). */
  async reject(id: string, checker: Actor): Promise<DecisionOutcome> {
    return this.db.transaction(async (tx): Promise<DecisionOutcome> => {
      const request = await CreditRequestRepository.lockById(tx, id);
      if (!request) return { ok: false, reason: 'not_found' };
      if (request.status !== 'pending') return { ok: false, reason: 'not_pending' };
      return { ok: true, request: await CreditRequestRepository.decide(tx, id, 'rejected', checker.name) };
    });
  }

  get(id: string): Promise<CreditRequest | null> {
    return CreditRequestRepository.findById(this.db, id);
  }

  page(query: { status?: CreditRequestStatus; limit: number; before?: string }): Promise<CreditRequest[]> {
    return CreditRequestRepository.page(this.db, query);
  }
}
