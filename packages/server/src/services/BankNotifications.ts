import { isId } from '@payrail/protocol';
import type { Clock } from '../clock.ts';
import { checkPayoutReport, heldPayout, type PayoutReport, type ReportCheck } from '../domain/outsideReport.ts';
import type { Payout } from '../domain/Payout.ts';
import { parsePayoutNotification } from '../domain/pspNotification.ts';
import { readOutcome } from '../domain/railAnswers.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { recordExceptions, refusedReport } from './exceptionRecords.ts';
import { PSP_ACTOR, type NotificationResult } from './NotificationResult.ts';
import type { PayoutLifecycle, RailAnswerResult } from './PayoutLifecycle.ts';
import { referenceConflictMessage, referenceOwnedElsewhere } from './pspReferences.ts';

/** Where an outside report about a payout comes from (docs/operator/exceptions.md). */
export interface ReportSource {
  /** The connector whose payouts it may move. */
  connector: string;
  /** The exceptions queue's `source`: upstream_webhook, upstream_poll, psp_notify. */
  channel: string;
  /** A failure reported about a SUCCESS payout is a return (the upstream's REFUNDED or FAILED), else a contradiction. */
  failureIsReturn: boolean;
}

/** The upstream's webhooks (§14.1): only `upstream` payouts; its FAILED or REFUNDED after SUCCESS is a return. */
export const UPSTREAM_EVENTS: ReportSource = {
  connector: 'upstream',
  channel: 'upstream_webhook',
  failureIsReturn: true,
};
/** `POST /psp/v1/payouts/notify`: only `manual` payouts; only RETURNED is a return. */
export const PSP_NOTIFICATIONS: ReportSource = { connector: 'manual', channel: 'psp_notify', failureIsReturn: false };

/**
 * An outcome as reported, with the facts the checks compare: amount and currency, the connector's reference, and
 * for a status report the file (and block) it speaks of.
 */
export interface ReportedOutcome {
  status?: unknown;
  utr?: unknown;
  reason?: unknown;
  amount?: bigint;
  currency?: string;
  reference?: string;
  file?: { msgId: string; pmtInfId?: string };
}

/** What became of a report: applied or not through the lifecycle, refused into the exceptions queue, or no payout. */
export type ReportResult =
  { kind: RailAnswerResult } | { kind: 'refused'; exceptionId: string; reason: string } | { kind: 'not_found' };

/** The check's view of an outcome from `source`. */
function reportOf(outcome: ReportedOutcome, source: ReportSource): PayoutReport {
  return {
    connector: source.connector,
    status: typeof outcome.status === 'string' ? outcome.status : '',
    failureIsReturn: source.failureIsReturn,
    ...(outcome.amount === undefined ? {} : { amount: outcome.amount, currency: outcome.currency ?? 'INR' }),
    ...(outcome.reference === undefined ? {} : { railReference: outcome.reference }),
    ...(outcome.file ? { file: outcome.file } : {}),
  };
}

/**
 * The checks of outside reports (domain/outsideReport.ts) for an outcome from `source` about `payout`; pure.
 * `fileMsgId`: the bank file the payout went into, when the report names a file.
 */
export function checkReport(
  payout: Payout,
  outcome: ReportedOutcome,
  source: ReportSource,
  fileMsgId?: string | null,
): ReportCheck {
  return checkPayoutReport(heldPayout(payout, fileMsgId), reportOf(outcome, source));
}

/**
 * Checks an outside report about the locked `payout` (domain/outsideReport.ts) and, when it fails, records the
 * exception: the payout and its wallet are not touched, but for a report of the payout's own connector, which is
 * kept as its rail_error (the operator's payout view shows it, and it stops the polling) once. Null when it passes.
 */
export async function refuseUnmatched(
  tx: Queryable,
  lifecycle: PayoutLifecycle,
  payout: Payout,
  outcome: ReportedOutcome,
  source: ReportSource,
  actor: string,
  now: number,
): Promise<{ exceptionId: string; reason: string } | null> {
  const check = checkReport(payout, outcome, source);
  if (check.ok) return null;
  if (source.connector === payout.rail && payout.railError !== check.reason) {
    await lifecycle.recordRailError(tx, payout, check.reason, actor);
  }
  const exception = refusedReport(payout, check, source.channel, outcome, {
    reported: { reference: outcome.reference },
  });
  const [exceptionId] = await recordExceptions(tx, [exception], now);
  return { exceptionId: exceptionId as string, reason: check.reason };
}

const isFinal = (p: Payout) => p.status === 'SUCCESS' || p.status === 'FAILED' || p.status === 'REFUNDED';

/**
 * The entry point for outcomes pushed from outside (the upstream's webhooks call `report`; the signed route
 * `POST /psp/v1/payouts/notify` calls `notify`). Each report is checked first (domain/outsideReport.ts): one that
 * belongs to another connector, names another transfer or another amount, or would move money back that it may not,
 * changes nothing and becomes an exception. The rest is applied exactly like a polled outcome: only what the
 * transition table allows; anything else is kept on the payout as rail_error. A notification repeated, or older than
 * what is recorded, changes nothing.
 */
export class BankNotifications {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
    private readonly clock: Clock,
  ) {}

  async report(
    payoutId: string,
    outcome: ReportedOutcome,
    source: ReportSource,
    actor?: string,
  ): Promise<ReportResult> {
    if (!isId('payout', payoutId)) return { kind: 'not_found' };
    return this.db.transaction(async (tx): Promise<ReportResult> => {
      const current = await PayoutRepository.lockById(tx, payoutId);
      if (!current) return { kind: 'not_found' };
      const refused = await refuseUnmatched(
        tx,
        this.lifecycle,
        current,
        outcome,
        source,
        actor ?? this.lifecycle.railActor(current),
        this.clock(),
      );
      if (refused) return { kind: 'refused', ...refused };
      return { kind: await this.apply(tx, current, outcome, actor) };
    });
  }

  /**
   * An outcome an operator applies as it was reported (an exception's `apply_as_reported`), on a payout the caller
   * has locked: the checks of outside reports are the operator's to waive, the transition table is not.
   */
  applyAsReported(tx: Queryable, locked: Payout, outcome: unknown, actor: string): Promise<RailAnswerResult> {
    return this.apply(tx, locked, outcome, actor);
  }

  /**
   * A notification as the PSP route receives it (`{transactionId, reference?, status, utr?, amount?, reason?}`, see
   * docs/operator/live-mode.md). It may move `manual` payouts only; an amount that differs from the payout's is
   * refused into the exceptions queue (the answer names the exception); a reference that belongs to another
   * collection or payout is refused and recorded once in the history.
   */
  async notify(input: unknown, actor: string = PSP_ACTOR): Promise<NotificationResult> {
    const parsed = parsePayoutNotification(input);
    if (!parsed.ok) return { kind: 'invalid', message: parsed.error };
    const n = parsed.value;
    return this.db.transaction(async (tx): Promise<NotificationResult> => {
      const current = await PayoutRepository.lockById(tx, n.transactionId);
      if (!current) return { kind: 'not_found' };
      const outcome = { status: n.status, utr: n.utr, reason: n.reason, amount: n.amount };
      const refused = await refuseUnmatched(
        tx,
        this.lifecycle,
        current,
        outcome,
        PSP_NOTIFICATIONS,
        actor,
        this.clock(),
      );
      if (refused) {
        return {
          kind: 'excepted',
          subjectId: current.id,
          status: current.status,
          exceptionId: refused.exceptionId,
          message: refused.reason,
        };
      }
      const owner = n.reference === undefined ? null : await referenceOwnedElsewhere(tx, n.reference, current.id);
      if (owner) {
        // Only in the history: the payout is not at fault, so its rail_error (what the rail said of it) stays.
        const message = referenceConflictMessage(n.reference as string, owner);
        await TransactionEventRepository.recordErrorOnce(tx, current.id, message, actor);
        return { kind: 'refused', code: 'reference_conflict', subjectId: current.id, status: current.status, message };
      }
      const result = await this.apply(tx, current, { status: n.status, utr: n.utr, reason: n.reason }, actor);
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
