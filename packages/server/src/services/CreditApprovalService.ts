import { approvalRefusal, grantWords, type ApprovalRefusal } from '../domain/creditApprovalVerdict.ts';
import { newConsoleId } from '../domain/ids.ts';
import { roleAllows, type Actor } from '../domain/Operator.ts';
import type { Database } from '../store/Database.ts';
import {
  CreditRequestRepository,
  LineageConflict,
  type CreditRequest,
  type CreditRequestStatus,
  type ListedCreditRequest,
} from '../store/repositories/CreditRequestRepository.ts';
import { BalanceOverflow, DuplicateEntry, LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import { CreditRefused, type CreditResult, type MerchantService } from './MerchantService.ts';
import type { Clock } from '../clock.ts';

export type { CreditRequest, CreditRequestStatus };

/**
 * A request as one operator reads it in the approvals list: its merchant, and whether this operator may approve
 * it by the rule approving applies (`refusal` null when they may), with the lineage of both sides in words.
 */
export interface RequestForChecker extends ListedCreditRequest {
  refusal: ApprovalRefusal | null;
  requesterLineage: string[];
  checkerLineage: string[];
}

export type CreditOutcome =
  { kind: 'credited'; result: CreditResult } | { kind: 'pending'; request: CreditRequest } | { kind: 'not_found' };

export type DecisionOutcome =
  | { ok: true; request: CreditRequest; credit?: CreditResult }
  | {
      ok: false;
      reason:
        | 'not_found'
        | 'not_pending'
        | 'same_operator'
        | 'lineage_conflict'
        | 'forbidden'
        | 'duplicate_reference'
        | 'balance_overflow';
    };

/**
 * Maker ≠ checker for wallet credits. An operator's credit waits as a request when it takes that operator's
 * direct credits to the wallet over the last 24 hours above the threshold (so that a large credit cannot pass as
 * several small ones), until a different finance or admin operator who is independent of the maker (approval
 * lineage, enforced by the database) approves it. The admin token (automation) credits directly.
 */
export class CreditApprovalService {
  constructor(
    private readonly db: Database,
    private readonly merchants: MerchantService,
    /** Credits above this many paise wait for approval. */
    private readonly approvalAbove: bigint,
    private readonly clock: Clock,
  ) {}

  /** Throws CreditRefused like MerchantService.credit. */
  async credit(actor: Actor, walletId: string, amount: bigint, reference?: string): Promise<CreditOutcome> {
    if (actor.via !== 'session' || actor.operatorId === null) {
      const result = await this.merchants.credit(walletId, amount, reference);
      return result ? { kind: 'credited', result } : { kind: 'not_found' };
    }
    const operator = { id: actor.operatorId, name: actor.name };
    try {
      return await this.operatorCredit(operator, walletId, amount, reference);
    } catch (err) {
      if (err instanceof BalanceOverflow) throw new CreditRefused('overflow');
      throw err;
    }
  }

  /**
   * An operator's credit, decided and made in one transaction under the wallet's row lock: concurrent credits
   * to the wallet wait, so each one's 24 h sum includes every credit committed before it.
   */
  private operatorCredit(
    operator: { id: string; name: string },
    walletId: string,
    amount: bigint,
    reference: string | undefined,
  ): Promise<CreditOutcome> {
    return this.db.transaction(async (tx): Promise<CreditOutcome> => {
      const wallet = await WalletRepository.lockById(tx, walletId);
      if (!wallet) return { kind: 'not_found' };
      if (reference !== undefined) {
        // A repeat of a credit already made answers it again rather than counting it twice. Under the lock no
        // other credit to this wallet commits between this check and the insert below.
        const earlier = await LedgerRepository.creditAmountByReference(tx, walletId, reference);
        if (earlier !== null) {
          if (earlier !== amount) throw new CreditRefused('reference_conflict');
          return { kind: 'credited', result: { walletId, balance: wallet.balance, duplicate: true } };
        }
      }
      const recent = await LedgerRepository.directCreditsLastDay(tx, walletId, operator.id);
      if (recent + amount > this.approvalAbove) {
        const request = await CreditRequestRepository.insert(tx, {
          id: newConsoleId('CR', this.clock()),
          walletId,
          amount,
          reference,
          requestedBy: operator.name,
        });
        return { kind: 'pending', request };
      }
      const balance = await LedgerRepository.append(tx, {
        walletId,
        kind: 'credit',
        amount,
        reference,
        creditedBy: operator.id,
      });
      return { kind: 'credited', result: { walletId, balance, duplicate: false } };
    });
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
      // The database found the checker not independent of the maker; nothing moved, the request stays pending.
      if (err instanceof LineageConflict) return { ok: false, reason: 'lineage_conflict' };
      if (err instanceof BalanceOverflow) return { ok: false, reason: 'balance_overflow' };
      throw err;
    }
  }

  private approveOnce(id: string, checker: Actor): Promise<DecisionOutcome> {
    return this.db.transaction(async (tx): Promise<DecisionOutcome> => {
      const request = await CreditRequestRepository.lockById(tx, id);
      if (!request) return { ok: false, reason: 'not_found' };
      // The role, pending and maker ≠ checker; independence is the database trigger's, on the update below.
      const refusal = approvalRefusal(request, checker, true);
      if (refusal) return { ok: false, reason: refusal };
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

  page(query: { status?: CreditRequestStatus; limit: number; before?: string }): Promise<ListedCreditRequest[]> {
    return CreditRequestRepository.page(this.db, query);
  }

  /** A page of requests as `checker` reads them: each with whether they may approve it, and why not. */
  async pageFor(
    checker: Actor,
    query: { status?: CreditRequestStatus; limit: number; before?: string },
  ): Promise<RequestForChecker[]> {
    const requests = await CreditRequestRepository.page(this.db, query);
    const requesters = [...new Set(requests.map((r) => r.requestedBy))];
    const independent = await CreditRequestRepository.independentOf(this.db, requesters, checker.name);
    const grants = await CreditRequestRepository.grantsOf(this.db, [...requesters, checker.name]);
    const lineageOf = (name: string) =>
      grants.filter((g) => g.name === name.toLowerCase()).map((g) => grantWords(g.kind, g.grantedBy));
    const checkerLineage = lineageOf(checker.name);
    return requests.map((r) => ({
      ...r,
      refusal: approvalRefusal(r, checker, independent.get(r.requestedBy) ?? true),
      requesterLineage: lineageOf(r.requestedBy),
      checkerLineage,
    }));
  }
}
