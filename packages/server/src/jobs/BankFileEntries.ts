import { formatPaise, type PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { DEFAULT_STATUS_MESSAGE, isFinal, returnStatusMessage } from '../domain/payoutStateMachine.ts';
import { readOutcome } from '../domain/railAnswers.ts';
import type { Notification } from '../rails/bankfile/camt054.ts';
import type { StatusReport } from '../rails/bankfile/pain002.ts';
import { describeReason } from '../rails/bankfile/reasonCodes.ts';
import { appendRefunds, recordRailErrors, type BulkMove } from '../services/PayoutBulkMoves.ts';
import { LockPlan } from '../services/LockOrder.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import { checkReport, type ReportSource } from '../services/BankNotifications.ts';
import { refusedReport, reportedOf } from '../services/exceptionRecords.ts';
import type { Queryable } from '../store/Database.ts';
import { BankFileRepository as Repo } from '../store/repositories/BankFileRepository.ts';
import type { NewException } from '../store/repositories/ExceptionRepository.ts';
import { PayoutStepRepository } from '../store/repositories/PayoutStepRepository.ts';

/** The exceptions queue's source for what the bank's files report. */
export const BANKFILE_SOURCE = 'bankfile';
/** Bank files move only bank-file payouts; a rejection (pain.002) never returns a paid one. */
const BANKFILE_REPORTS: ReportSource = { connector: 'bankfile', channel: BANKFILE_SOURCE, failureIsReturn: false };
/** How many of the entries that name no payout an exception lists (it counts them all). */
const LISTED_UNKNOWN = 20;

/** What an entry reports besides its status, checked against what Payrail sent (domain/outsideReport.ts). */
interface EntryFacts {
  amount?: bigint;
  currency?: string;
  /** A pain.002's file (OrgnlMsgId) and block (OrgnlPmtInfId). */
  file?: { msgId: string; pmtInfId?: string };
  /** The bank's references, shown in the exception. */
  references?: Record<string, string | null>;
}

/** The first refusals of a file are named in its reason; the rest are counted. */
const NAMED_REFUSALS = 5;
const PAYOUT_ID = /^PT[0-9A-HJKMNP-TV-Z]{26}$/;

/** Entries applied, and the ones refused with why. */
export class Tally {
  entries = 0;
  refused: string[] = [];
  refuse(why: string): void {
    this.refused.push(why);
  }
  reason(): string | null {
    if (this.refused.length === 0) return null;
    const named = this.refused.slice(0, NAMED_REFUSALS).join('; ');
    const more = this.refused.length - NAMED_REFUSALS;
    return `${this.refused.length} entr${this.refused.length === 1 ? 'y' : 'ies'} refused: ${named}${more > 0 ? `; and ${more} more` : ''}`.slice(
      0,
      2000,
    );
  }
}

/** One write a file makes on one payout, in the order its entries make them. */
type Step =
  | { kind: 'move'; from: PayoutStatus; to: PayoutStatus; message?: string; utr?: string; railReference?: string }
  | { kind: 'return'; reason: string }
  | { kind: 'error'; error: string }
  /** An outcome that changed nothing: the next step is scheduled again (PayoutLifecycle.applyOutcome). */
  | { kind: 'schedule'; status: PayoutStatus };

interface Planned {
  /** As locked, before the file. */
  locked: Payout;
  /** As the file's entries so far leave it. */
  current: Payout;
  steps: Step[];
}

/**
 * A bank file's entries applied set-based (docs/operator/bank-files.md, "Performance"). Every payout the file names is
 * locked in one statement; the entries are then read in order against the payouts as the earlier entries leave
 * them, with exactly the decisions of BankNotifications.report and PayoutLifecycle (the transition table, a UTR for
 * SUCCESS, a return only after SUCCESS, a refused report kept once as rail_error), which yields each payout's writes
 * in order. `execute` makes them in rounds: the first write of every payout, then the second, … each round a few
 * multi-row statements (PayoutLifecycle.moveMany), so a payout's history and webhook events keep their order and
 * the database's triggers still check every row.
 */
export class FilePlan {
  readonly tally = new Tally();
  /** What the file reported that Payrail refused (docs/operator/exceptions.md), recorded with the file. */
  readonly exceptions: NewException[] = [];
  private readonly planned = new Map<string, Planned>();
  /** Entries naming no payout of Payrail: one exception for the whole file, not one per entry. */
  private readonly unknown = { count: 0, amount: 0n, ids: [] as string[] };

  private constructor(
    private readonly locked: Map<string, Payout>,
    private readonly fileOf: Map<string, string>,
    private readonly filePayouts: Map<string, string[]>,
    private readonly actor: string,
    private readonly fileName: string,
    private readonly messageId: string,
  ) {}

  /** Locks every payout `report` or `notification` names and reads what the plan needs, in a few queries. */
  static async prepare(
    tx: Queryable,
    parsed: { pain002: StatusReport } | { camt054: Notification },
    actor: string,
    fileName: string,
  ): Promise<FilePlan> {
    const named = new Set<string>();
    const files = new Map<string, string[]>();
    if ('pain002' in parsed) {
      const r = parsed.pain002;
      if (r.groupStatus === 'RJCT' || r.paymentInfos.some((i) => i.status === 'RJCT')) {
        const ids = await Repo.payoutIdsOf(tx, r.originalMsgId);
        files.set(r.originalMsgId, ids);
        for (const id of ids) named.add(id);
      }
      for (const t of r.transactions) {
        if ((t.status === 'RJCT' || t.status === 'PDNG') && PAYOUT_ID.test(t.endToEndId)) named.add(t.endToEndId);
      }
    } else {
      for (const t of parsed.camt054.transactions) {
        if (t.entryStatus !== 'BOOK' || t.endToEndId === null || (t.direction === 'CRDT' && !t.isReturn)) continue;
        if (PAYOUT_ID.test(t.endToEndId)) named.add(t.endToEndId);
      }
    }
    const ids = [...named].sort();
    const locked = await PayoutStepRepository.lockMany(tx, ids);
    const fileOf = await Repo.msgIdsOf(tx, ids);
    const messageId = 'pain002' in parsed ? parsed.pain002.msgId : parsed.camt054.msgId;
    const plan = new FilePlan(locked, fileOf, files, actor, fileName, messageId);
    if ('pain002' in parsed) plan.statusReport(parsed.pain002);
    else plan.notification(parsed.camt054);
    plan.unknownEntries();
    return plan;
  }

  /** The entries that named no payout of Payrail, as one exception of the file. */
  private unknownEntries(): void {
    const u = this.unknown;
    if (u.count === 0) return;
    this.exceptions.push({
      kind: 'report_refused',
      source: BANKFILE_SOURCE,
      sourceRef: this.fileName,
      amount: u.amount,
      reported: reportedOf({
        file: this.fileName,
        message_id: this.messageId,
        entries: u.count,
        amount: u.amount,
        end_to_end_ids: u.ids,
      }),
      held: {},
      reason: `${u.count} entr${u.count === 1 ? 'y names' : 'ies name'} no bank-file payout of Payrail (${formatPaise(u.amount)} in all); nothing applied for ${u.count === 1 ? 'it' : 'them'}`,
    });
  }

  /**
   * Checks an entry against what Payrail sent before it is planned: a refusal is kept as the payout's rail_error
   * (once), counted in the tally, and becomes an exception; the payout and its wallet do not move.
   */
  private passes(p: Planned, outcome: { status: string; reason?: string; utr?: string }, facts: EntryFacts): boolean {
    const current = p.current;
    const inFile = this.fileOf.get(current.id) ?? null;
    const reported = { ...outcome, amount: facts.amount, currency: facts.currency, file: facts.file };
    const check = checkReport(current, reported, BANKFILE_REPORTS, inFile);
    if (check.ok) return true;
    if (current.railError !== check.reason) this.railError(p, check.reason);
    this.tally.refuse(`${current.id}: ${check.reason}`);
    this.exceptions.push(
      refusedReport(current, check, BANKFILE_SOURCE, reported, {
        sourceRef: this.fileName,
        reported: {
          file: this.fileName,
          message_id: this.messageId,
          ...(facts.file ? { original_message_id: facts.file.msgId, original_block: facts.file.pmtInfId } : {}),
          ...facts.references,
        },
        held: { file: inFile },
      }),
    );
    return false;
  }

  /**
   * The payout an entry names; null (and the entry refused) when it names none of Payrail's payouts, or one of
   * another connector (an exception: a bank file moves bank-file payouts only).
   */
  private payoutFor(id: string, amount?: bigint): Planned | null {
    const locked = PAYOUT_ID.test(id) ? this.locked.get(id) : undefined;
    if (!locked) {
      this.tally.refuse(`${id.slice(0, 40)}: no such bank-file payout`);
      this.unknown.count++;
      this.unknown.amount += amount ?? 0n;
      if (this.unknown.ids.length < LISTED_UNKNOWN) this.unknown.ids.push(id.slice(0, 40));
      return null;
    }
    let p = this.planned.get(id);
    if (!p) {
      p = { locked, current: locked, steps: [] };
      this.planned.set(id, p);
    }
    this.tally.entries++;
    return p;
  }

  /**
   * A report on a payout whose file's delivery is not recorded yet (a crash after the write): the report is the
   * evidence of delivery, its acceptance (PayoutLifecycle.applySubmitAnswer) with the MsgId. False (refused) when the
   * payout is in no file Payrail cut.
   */
  private delivered(p: Planned): boolean {
    if (p.current.status !== 'INITIATED') return true;
    const msgId = this.fileOf.get(p.current.id);
    if (!msgId) {
      this.tally.refuse(`${p.current.id}: not in any file Payrail cut`);
      return false;
    }
    this.move(p, { kind: 'move', from: 'INITIATED', to: 'PROCESSING', railReference: msgId });
    return true;
  }

  private move(p: Planned, step: Extract<Step, { kind: 'move' }>): void {
    p.steps.push(step);
    const message = step.message ?? DEFAULT_STATUS_MESSAGE[step.to];
    p.current = {
      ...p.current,
      status: step.to,
      statusMessage: message,
      utr: step.utr ?? p.current.utr,
      railReference: step.railReference ?? p.current.railReference,
      railError: null,
      railRetrySince: null,
      failureReason: step.to === 'FAILED' ? message : p.current.failureReason,
    };
  }

  private railError(p: Planned, error: string): void {
    p.steps.push({ kind: 'error', error });
    p.current = { ...p.current, railError: error, railRetrySince: null };
  }

  /**
   * BankNotifications.report, planned: the entry is checked against what Payrail sent (its connector, its file, its
   * amount; a status report never returns money), then read through the transition table; a refusal is counted in
   * the tally with the payout's rail_error.
   */
  private report(p: Planned, outcome: { status: string; reason?: string; utr?: string }, facts: EntryFacts = {}): void {
    if (!this.passes(p, outcome, facts) || !this.delivered(p)) return;
    const current = p.current;
    const status = outcome.status;
    if (current.status === 'REFUNDED' && status === 'FAILED') return;
    if (isFinal(current.status) && (status === 'PROCESSING' || status === 'PENDING')) return;
    const decision = readOutcome(current.status, outcome, { returned: Boolean(current.returnedAt), utr: current.utr });
    switch (decision.kind) {
      case 'invalid':
        // The same refused report again is already on the payout: recorded once.
        if (current.railError !== decision.error) this.railError(p, decision.error);
        this.tally.refuse(`${current.id}: ${decision.error}`);
        return;
      case 'unchanged':
        p.steps.push({ kind: 'schedule', status: current.status });
        return;
      case 'return':
        p.steps.push({ kind: 'return', reason: decision.reason });
        p.current = {
          ...current,
          status: 'REFUNDED',
          statusMessage: returnStatusMessage(decision.reason),
          railError: null,
          railRetrySince: null,
          returnedAt: new Date(0),
          returnReason: decision.reason,
        };
        return;
      case 'move':
        this.move(p, {
          kind: 'move',
          from: current.status,
          to: decision.to,
          message: decision.reason,
          utr: decision.utr,
        });
    }
  }

  private statusReport(report: StatusReport): void {
    const fileIds = this.filePayouts.get(report.originalMsgId) ?? [];
    if (report.groupStatus === 'RJCT') {
      if (fileIds.length === 0) this.tally.refuse(`OrgnlMsgId ${report.originalMsgId.slice(0, 40)}: no such file`);
      const reason = describeReason(report.groupReasonCode, report.groupAdditionalInfo);
      for (const id of fileIds) {
        const p = this.payoutFor(id);
        if (p) this.report(p, { status: 'FAILED', reason }, { references: { reason_code: report.groupReasonCode } });
      }
    }
    for (const info of report.paymentInfos) {
      if (info.status !== 'RJCT') continue;
      // Payrail's PmtInfId is `<MsgId>-<mode>`: the block's payments are the file's payouts of that mode.
      const mode = info.originalPmtInfId.startsWith(`${report.originalMsgId}-`)
        ? info.originalPmtInfId.slice(report.originalMsgId.length + 1)
        : null;
      const reason = describeReason(info.reasonCode, info.additionalInfo);
      let found = 0;
      for (const id of mode === null ? [] : fileIds) {
        if (this.locked.get(id)?.paymentMode !== mode) continue;
        found++;
        const p = this.payoutFor(id);
        if (p) this.report(p, { status: 'FAILED', reason }, { references: { reason_code: info.reasonCode } });
      }
      if (found === 0) this.tally.refuse(`OrgnlPmtInfId ${info.originalPmtInfId.slice(0, 40)}: no such payment block`);
    }
    for (const t of report.transactions) {
      if (t.status !== 'RJCT' && t.status !== 'PDNG') {
        // ACCP, ACTC, ACSP (and the other acceptances): the bank has it, nothing to change.
        this.tally.entries++;
        continue;
      }
      const p = this.payoutFor(t.endToEndId);
      if (!p) continue;
      const reason = describeReason(t.reasonCode, t.additionalInfo);
      // A status report speaks of its own file (and block): never of another file's payouts.
      const file = {
        msgId: report.originalMsgId,
        ...(t.originalPmtInfId ? { pmtInfId: t.originalPmtInfId } : {}),
      };
      this.report(
        p,
        t.status === 'RJCT'
          ? { status: 'FAILED', reason }
          : t.reasonCode
            ? { status: 'PENDING', reason }
            : { status: 'PENDING' },
        { file, references: { reason_code: t.reasonCode } },
      );
    }
  }

  private notification(notification: Notification): void {
    for (const t of notification.transactions) {
      // Entries not booked are news to come; entries without a payout's EndToEndId are the account's others.
      if (t.entryStatus !== 'BOOK' || t.endToEndId === null) continue;
      if (t.direction === 'CRDT' && !t.isReturn) continue;
      const p = this.payoutFor(t.endToEndId, t.amount);
      if (!p) continue;
      const facts: EntryFacts = {
        amount: t.amount,
        currency: t.currency,
        references: { clearing_reference: t.clearingReference, account_servicer_reference: t.accountServicerReference },
      };
      if (t.direction === 'DBIT') {
        const utr = t.clearingReference ?? t.accountServicerReference;
        if (!utr) {
          const message = 'bank file booked the debit without a reference (ClrSysRef or AcctSvcrRef); not applied';
          if (p.current.railError !== message) this.railError(p, message);
          this.tally.refuse(`${p.current.id}: no reference`);
          continue;
        }
        this.report(p, { status: 'SUCCESS', utr }, facts);
        continue;
      }
      const reason = describeReason(t.returnReasonCode, t.returnAdditionalInfo);
      // Money sent back after SUCCESS is a return; before SUCCESS the transfer simply failed. Either way only a
      // credit of exactly the payout's amount in INR (checked in report) refunds anything.
      const status = p.current.status === 'SUCCESS' ? 'RETURNED' : 'FAILED';
      this.report(
        p,
        { status, reason },
        { ...facts, references: { ...facts.references, return_reason: t.returnReasonCode } },
      );
    }
  }

  /** Makes the planned writes: round n is every payout's n-th write, each kind in one statement or a few. */
  async execute(tx: Queryable, lifecycle: PayoutLifecycle, alsoWallets: readonly string[] = []): Promise<void> {
    // The rounds write wallets, allowances and batch rows payout by payout, round by round: all of them are
    // locked first, in the one order (services/LockOrder.ts), or a later round's refund would take its wallet
    // after an earlier round's failure took its allowances, the order in which an initiation deadlocks with it.
    const locks = new LockPlan();
    let rounds = 0;
    for (const p of this.planned.values()) {
      rounds = Math.max(rounds, p.steps.length);
      for (const step of p.steps) {
        if (step.kind === 'move') locks.move({ ...p.locked, status: step.from }, step.to);
        else if (step.kind === 'return') locks.move({ ...p.locked, status: 'SUCCESS' }, 'REFUNDED');
      }
    }
    // The file's deposits credit wallets too (BankFileDeposits): locked in the same statement, in the one order.
    for (const walletId of alsoWallets) locks.wallet(walletId);
    await locks.take(tx);
    for (let round = 0; round < rounds; round++) {
      const errors: { payoutId: string; error: string }[] = [];
      const refunds: Payout[] = [];
      const moves: BulkMove[] = [];
      const unchanged: Payout[] = [];
      for (const p of this.planned.values()) {
        const step = p.steps[round];
        if (!step) continue;
        const payout = p.locked;
        switch (step.kind) {
          case 'error':
            errors.push({ payoutId: payout.id, error: step.error });
            break;
          case 'schedule':
            unchanged.push({ ...payout, status: step.status });
            break;
          case 'return':
            // PayoutLifecycle.returnPayout: the refund entry, then SUCCESS → REFUNDED with the reason.
            refunds.push(payout);
            moves.push({
              payout: { ...payout, status: 'SUCCESS' },
              to: 'REFUNDED',
              message: returnStatusMessage(step.reason),
              returnReason: step.reason,
            });
            break;
          case 'move':
            moves.push({
              payout: { ...payout, status: step.from },
              to: step.to,
              message: step.message,
              utr: step.utr,
              railReference: step.railReference,
            });
        }
      }
      await recordRailErrors(tx, errors, this.actor);
      await appendRefunds(tx, refunds);
      await lifecycle.moveMany(tx, moves, this.actor);
      await lifecycle.scheduleNextMany(tx, unchanged);
    }
  }
}
