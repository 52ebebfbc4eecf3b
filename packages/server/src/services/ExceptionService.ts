import type { Clock } from '../clock.ts';
import { EXCEPTION_ID_PATTERN } from '../domain/ids.ts';
import { checkPayoutReport, heldPayout, type ExceptionKind } from '../domain/outsideReport.ts';
import type { Database, Queryable } from '../store/Database.ts';
import {
  ExceptionRepository as Repo,
  type ExceptionAction,
  type ExceptionQuery,
  type ExceptionRecord,
} from '../store/repositories/ExceptionRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { ReconciliationRepository } from '../store/repositories/ReconciliationRepository.ts';
import type { BankNotifications } from './BankNotifications.ts';
import { DepositAssignRefused, type DepositService } from './DepositService.ts';
import type { PayoutAdminService } from './PayoutAdminService.ts';
import { ReturnToSenderRefused, type ReturnToSender } from './ReturnToSender.ts';

export type { ExceptionAction, ExceptionRecord };

/** What an operator may do with an exception of each kind (docs/operator/exceptions.md). */
const ACTIONS: Readonly<Record<ExceptionKind, readonly ExceptionAction[]>> = {
  // The report as it came, through the transition table (another connector's, another amount: the operator's call).
  report_refused: ['apply_as_reported', 'dismiss'],
  // A status report about a paid payout, a return of another amount, a return the books lack: the operator's return.
  status_contradiction: ['refund_in_full', 'dismiss'],
  return_mismatch: ['refund_in_full', 'dismiss'],
  return_not_applied: ['refund_in_full', 'dismiss'],
  // Money the bank paid that the merchant got back: recovering it is outside Payrail today (noted, then dismissed).
  paid_but_refunded: ['dismiss'],
  amount_mismatch: ['dismiss'],
  unmatched: ['dismiss'],
  missing: ['dismiss'],
  // A deposit credited nowhere: finance credits it to the wallet it was meant for (once per UTR), pays it back to the
  // account it came from (a platform payout from the suspense wallet), or dismisses it.
  unknown_virtual_account: ['assign_to_wallet', 'return_to_sender', 'dismiss'],
  remitter_not_allowed: ['assign_to_wallet', 'return_to_sender', 'dismiss'],
};

/**
 * The actions an exception allows: those of its kind, less the ones that need a payout when it names none. An
 * exception opened again by a failed return holds its money in the suspense wallet: it can be returned again or
 * dismissed, no longer assigned (its UTR is credited, to the suspense wallet).
 */
export function allowedActions(e: ExceptionRecord): ExceptionAction[] {
  if (e.state !== 'open') return [];
  const needsPayout = new Set<ExceptionAction>(['apply_as_reported', 'refund_in_full']);
  return ACTIONS[e.kind].filter(
    (a) => (e.payoutId !== null || !needsPayout.has(a)) && !(a === 'assign_to_wallet' && e.returnPayoutId !== null),
  );
}

export type ResolveExceptionOutcome =
  | { ok: true; exception: ExceptionRecord }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'already_resolved'; exception: ExceptionRecord }
  | { ok: false; reason: 'action_not_allowed'; allowed: ExceptionAction[] }
  /** The operation the action stands for refused (the payout is not in a state it applies to): nothing changed. */
  | { ok: false; reason: 'invalid_state'; message: string }
  /** The report lacks what the action needs (return_to_sender: the remitter's account, IFSC or name). */
  | { ok: false; reason: 'invalid_request'; message: string };

/** The operation refused inside the transaction: everything it wrote is rolled back. */
class ActionRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid_state' | 'invalid_request' = 'invalid_state',
  ) {
    super(message);
  }
}

/**
 * The exceptions queue for operators (docs/operator/exceptions.md): list, read and resolve. Resolving runs the action
 * through the same operation and guards as doing it by hand (an operator's return, an operator's resolution, the
 * lifecycle's transition table), in one transaction with the resolution, so an exception is resolved once and its
 * money moves once. Lock order: the reconciliation item (when the exception is one), the exception, then the payout
 * (and, through the lifecycle, its wallet and allowances).
 */
export class ExceptionService {
  constructor(
    private readonly db: Database,
    private readonly payoutAdmin: PayoutAdminService,
    private readonly notifications: BankNotifications,
    private readonly clock: Clock,
    private readonly deposits: DepositService | null = null,
    private readonly returns: ReturnToSender | null = null,
  ) {}

  page(query: ExceptionQuery): Promise<ExceptionRecord[]> {
    return Repo.page(this.db, query);
  }

  async get(id: string): Promise<ExceptionRecord | null> {
    return EXCEPTION_ID_PATTERN.test(id) ? Repo.findById(this.db, id) : null;
  }

  openByKind(): Promise<{ kind: string; count: number }[]> {
    return Repo.openByKind(this.db);
  }

  /**
   * `who.by` is how the operator is named on the resolution and on a reconciliation item it closes (as closing the
   * item from its run names them); `who.actor` how payout histories name them (`operator:<name>`).
   */
  async resolve(
    id: string,
    action: ExceptionAction,
    reason: string,
    who: { by: string; actor: string },
    /** assign_to_wallet: the wallet the deposit is credited to. */
    walletId?: string,
  ): Promise<ResolveExceptionOutcome> {
    const seen = await this.get(id);
    if (!seen) return { ok: false, reason: 'not_found' };
    try {
      return await this.db.transaction(async (tx): Promise<ResolveExceptionOutcome> => {
        // The reconciliation item first: closing an item from its run locks the item, then its exception.
        const item =
          seen.reconItemId === null
            ? null
            : await ReconciliationRepository.lockItem(tx, seen.sourceRef ?? '', seen.reconItemId);
        const exception = await Repo.lockById(tx, id);
        if (!exception) return { ok: false, reason: 'not_found' };
        if (exception.state !== 'open') return { ok: false, reason: 'already_resolved', exception };
        const allowed = allowedActions(exception);
        if (!allowed.includes(action)) return { ok: false, reason: 'action_not_allowed', allowed };
        await this.act(tx, exception, action, reason, who.actor, walletId);
        if (item && !item.closedAt) await ReconciliationRepository.close(tx, item.id, who.by, reason);
        const resolved = await Repo.resolve(tx, id, who.by, action, reason, new Date(this.clock()));
        return { ok: true, exception: resolved };
      });
    } catch (err) {
      if (err instanceof ActionRefused) return { ok: false, reason: err.reason, message: err.message };
      throw err;
    }
  }

  /** The money side of an action, inside the resolution's transaction; ActionRefused rolls everything back. */
  private async act(
    tx: Queryable,
    e: ExceptionRecord,
    action: ExceptionAction,
    reason: string,
    actor: string,
    walletId?: string,
  ): Promise<void> {
    if (action === 'dismiss') return;
    if (action === 'assign_to_wallet') {
      if (!walletId) throw new ActionRefused('assign_to_wallet needs wallet_id: the wallet to credit');
      if (!this.deposits) throw new ActionRefused('deposits are not available');
      try {
        await this.deposits.assignWithin(tx, e, walletId);
      } catch (err) {
        if (err instanceof DepositAssignRefused) throw new ActionRefused(err.message);
        throw err;
      }
      return;
    }
    if (action === 'return_to_sender') {
      if (!this.returns) throw new ActionRefused('returns to sender are not available');
      try {
        await this.returns.openWithin(tx, e);
      } catch (err) {
        if (err instanceof ReturnToSenderRefused) {
          throw new ActionRefused(err.message, err.kind === 'invalid' ? 'invalid_request' : 'invalid_state');
        }
        throw err;
      }
      return;
    }
    const payout = e.payoutId ? await PayoutRepository.lockById(tx, e.payoutId) : null;
    if (!payout) throw new ActionRefused('the exception names no payout of Payrail');
    if (action === 'refund_in_full') {
      // As the operator would by hand: a SUCCESS payout is returned (§14.2); one still open is resolved FAILED,
      // then refunded by the worker like any failure.
      if (payout.status === 'SUCCESS') {
        const returned = await this.payoutAdmin.returnWithin(tx, payout, reason, actor);
        if (!returned) throw new ActionRefused(`payout ${payout.id} is ${payout.status}: it cannot be returned`);
        return;
      }
      const resolved = await this.payoutAdmin.resolveWithin(tx, payout, 'FAILED', undefined, actor);
      if (!resolved.ok) {
        throw new ActionRefused(
          `payout ${payout.id} is ${payout.status}${payout.returnedAt ? ' (returned already)' : ''}: nothing to refund`,
        );
      }
      return;
    }
    if (action === 'apply_as_reported') {
      const reported = e.reported;
      const outcome = { status: reported.status, utr: reported.utr, reason: reported.reason };
      // The operator waives the checks of source, file, transfer and amount, never that a status is not money: a
      // failure reported about a payout that has succeeded since returns nothing (only the upstream's is a return).
      const check = checkPayoutReport(heldPayout(payout), {
        connector: payout.rail,
        status: String(reported.status),
        failureIsReturn: e.source.startsWith('upstream'),
      });
      if (!check.ok) throw new ActionRefused(check.reason);
      const result = await this.notifications.applyAsReported(tx, payout, outcome, actor);
      if (result === 'error') {
        const after = await PayoutRepository.findById(tx, payout.id);
        throw new ActionRefused(after?.railError ?? `the report cannot be applied to a ${payout.status} payout`);
      }
      return;
    }
    throw new ActionRefused(`${action} is not available yet`);
  }
}
