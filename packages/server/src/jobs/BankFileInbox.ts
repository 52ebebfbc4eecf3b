import { createHash } from 'node:crypto';
import { formatPaise } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';
import { readCamt054, CAMT054_NAME, type Notification } from '../rails/bankfile/camt054.ts';
import { readPain002, PAIN002_NAME, type StatusReport } from '../rails/bankfile/pain002.ts';
import { describeReason } from '../rails/bankfile/reasonCodes.ts';
import type { BankFileTransport } from '../rails/bankfile/transport.ts';
import { BankFileUnreadable, MAX_BANK_FILE_BYTES, readIsoMessage } from '../rails/bankfile/xmlRead.ts';
import type { BankNotifications } from '../services/BankNotifications.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import { StatementUnbalanced, StatementUnreadable } from '../services/ReconciliationService.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { BankFileRepository as Repo } from '../store/repositories/BankFileRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import type { CutoffLog } from './BankFileCutoff.ts';

/** Who applies a bank file's entries, in the payouts' history. */
export const BANKFILE_ACTOR = 'rail:bankfile';
/** Two instances never apply the same inbox at once. */
const INBOX_LOCK = 0x696e6278; // "inbx"
/** The first refusals of a file are named in its reason; the rest are counted. */
const NAMED_REFUSALS = 5;

/** What became of one inbox file. */
export type InboxResult =
  | { kind: 'applied'; messageType: string; entries: number; refused: number; reason: string | null }
  | { kind: 'failed'; messageType: string | null; reason: string }
  | { kind: 'known' }
  | { kind: 'busy' };

/** camt.053 statements go to reconciliation (services/ReconciliationService.ts). */
export interface StatementImporter {
  importStatement(bytes: Buffer, format: 'camt.053', actor: string): Promise<unknown>;
}

const CAMT053 = /^camt\.053\.001\.\d\d$/;
const NAMESPACE = /urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})/;

/** Entries applied, and the ones refused with why. */
class Tally {
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

/**
 * Reads the bank's files from inbox/ (docs/bank-files.md). Each file is applied whole, in one transaction, or not
 * at all: known by its SHA-256 (applied before: moved to processed/, nothing changes); unreadable (not XML, an
 * unknown message, a schema violation): recorded failed with its reason and moved to failed/; else every entry is
 * reported like a bank notification (BankNotifications), the file recorded applied, and moved to processed/. An
 * entry refused (an amount that differs, a move the transition table refuses) is kept on its payout as rail_error
 * and counted in the file's record; it does not stop the others. A database error leaves the file in the inbox,
 * for the next scan.
 */
export class BankFileInbox {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
    private readonly notifications: BankNotifications,
    private readonly statements: StatementImporter | null,
    private readonly transport: BankFileTransport,
    private readonly scanMs: number,
    private readonly log: CutoffLog,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.scan(), this.scanMs);
    this.timer.unref?.();
  }

  /** One scan now (what the timer runs); never overlaps itself. */
  scan(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.pass()
      .catch((err: unknown) => this.log.warn({ err }, 'bank-file inbox scan failed; retried at the next one'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    await this.transport.prepare();
    for (const name of await this.transport.list('inbox')) {
      if (this.stopping) return;
      try {
        await this.handle(name);
      } catch (err) {
        this.log.warn({ err, file: name }, 'bank file not applied; retried at the next scan');
      }
    }
  }

  /** Reads, applies and moves one inbox file. */
  async handle(name: string): Promise<InboxResult> {
    const size = await this.transport.size('inbox', name);
    if (size > MAX_BANK_FILE_BYTES) {
      // Refused unread: its record is keyed by name and size, as its bytes are never hashed.
      const reason = `the file is larger than ${MAX_BANK_FILE_BYTES} bytes`;
      const sha256 = createHash('sha256').update(`oversize\n${name}\n${size}`).digest('hex');
      await Repo.recordInbound(this.db, {
        sha256,
        name,
        messageType: null,
        state: 'failed',
        reason,
        entries: 0,
        refused: 0,
      });
      await this.transport.move('inbox', name, 'failed');
      return { kind: 'failed', messageType: null, reason };
    }
    const bytes = await this.transport.read('inbox', name);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (await Repo.inboundKnown(this.db, sha256)) {
      await this.transport.move('inbox', name, 'processed');
      return { kind: 'known' };
    }
    const result = await this.apply(name, bytes, sha256);
    if (result.kind === 'busy') return result;
    if (result.kind === 'failed') {
      await Repo.recordInbound(this.db, {
        sha256,
        name,
        messageType: result.messageType,
        state: 'failed',
        reason: result.reason,
        entries: 0,
        refused: 0,
      });
      this.log.warn({ file: name, reason: result.reason }, 'bank file refused: moved to failed/');
    }
    await this.transport.move('inbox', name, result.kind === 'failed' ? 'failed' : 'processed');
    return result;
  }

  private async apply(name: string, bytes: Buffer, sha256: string): Promise<InboxResult> {
    const messageType = NAMESPACE.exec(bytes.subarray(0, 4096).toString('utf8'))?.[1] ?? null;
    if (messageType && CAMT053.test(messageType)) return this.importStatement(name, bytes, sha256, messageType);
    let parsed: { pain002: StatusReport } | { camt054: Notification };
    try {
      if (messageType === PAIN002_NAME) parsed = { pain002: readPain002(bytes) };
      else if (messageType === CAMT054_NAME) parsed = { camt054: readCamt054(bytes) };
      else {
        // Not one of ours: the reader says why (not XML, no namespace, another message).
        readIsoMessage(bytes, [PAIN002_NAME, CAMT054_NAME, 'camt.053.001.08']);
        throw new BankFileUnreadable(`${messageType} is not a message Payrail reads`);
      }
    } catch (err) {
      if (err instanceof BankFileUnreadable) return { kind: 'failed', messageType, reason: err.message };
      throw err;
    }
    return this.db.transaction(async (tx): Promise<InboxResult> => {
      const { rows } = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [INBOX_LOCK]);
      if (!rows[0]?.ok) return { kind: 'busy' };
      // Another instance applied the same bytes between our check and this lock.
      if (await Repo.inboundKnown(tx, sha256)) return { kind: 'known' };
      const tally = new Tally();
      if ('pain002' in parsed) await this.applyStatusReport(tx, parsed.pain002, tally);
      else await this.applyNotification(tx, parsed.camt054, tally);
      const reason = tally.reason();
      await Repo.recordInbound(tx, {
        sha256,
        name,
        messageType,
        state: 'applied',
        reason,
        entries: tally.entries,
        refused: tally.refused.length,
      });
      this.log.info({ file: name, entries: tally.entries, refused: tally.refused.length }, 'bank file applied');
      return {
        kind: 'applied',
        messageType: messageType as string,
        entries: tally.entries,
        refused: tally.refused.length,
        reason,
      };
    });
  }

  private async importStatement(
    name: string,
    bytes: Buffer,
    sha256: string,
    messageType: string,
  ): Promise<InboxResult> {
    if (!this.statements) return { kind: 'failed', messageType, reason: 'statements are not imported here' };
    try {
      // Its own transaction; the same statement again changes nothing there either.
      await this.statements.importStatement(bytes, 'camt.053', `bankfile:${name}`.slice(0, 200));
    } catch (err) {
      if (err instanceof StatementUnreadable || err instanceof StatementUnbalanced) {
        return { kind: 'failed', messageType, reason: err.message };
      }
      throw err;
    }
    await Repo.recordInbound(this.db, {
      sha256,
      name,
      messageType,
      state: 'applied',
      reason: 'imported for reconciliation',
      entries: 0,
      refused: 0,
    });
    return { kind: 'applied', messageType, entries: 0, refused: 0, reason: null };
  }

  /** The payout an entry names, locked; null (and the entry refused) when it names none of Payrail's bank-file payouts. */
  private async payoutFor(tx: Queryable, id: string, tally: Tally): Promise<Payout | null> {
    const payout = /^PT[0-9A-HJKMNP-TV-Z]{26}$/.test(id) ? await PayoutRepository.lockById(tx, id) : null;
    if (!payout || payout.rail !== 'bankfile') {
      tally.refuse(`${id.slice(0, 40)}: no such bank-file payout`);
      return null;
    }
    tally.entries++;
    // A report on a payout whose file's delivery is not recorded yet (a crash after the write): the report is the
    // evidence of delivery.
    if (payout.status === 'INITIATED') {
      const msgId = await Repo.msgIdOf(tx, payout.id);
      if (!msgId) {
        tally.refuse(`${payout.id}: not in any file Payrail cut`);
        return null;
      }
      await this.lifecycle.applySubmitAnswer(tx, payout, { accepted: true, reference: msgId });
      return PayoutRepository.lockById(tx, payout.id);
    }
    return payout;
  }

  private async report(tx: Queryable, payout: Payout, outcome: object, tally: Tally): Promise<void> {
    const result = await this.notifications.reportWithin(tx, payout, outcome, BANKFILE_ACTOR);
    if (result === 'error') {
      const after = await PayoutRepository.findById(tx, payout.id);
      tally.refuse(`${payout.id}: ${after?.railError ?? 'not applied'}`);
    }
  }

  private async applyStatusReport(tx: Queryable, report: StatusReport, tally: Tally): Promise<void> {
    if (report.groupStatus === 'RJCT') {
      const ids = await Repo.payoutIdsOf(tx, report.originalMsgId);
      if (ids.length === 0) tally.refuse(`OrgnlMsgId ${report.originalMsgId.slice(0, 40)}: no such file`);
      const reason = describeReason(report.groupReasonCode, report.groupAdditionalInfo);
      for (const id of ids) {
        const payout = await this.payoutFor(tx, id, tally);
        if (payout) await this.report(tx, payout, { status: 'FAILED', reason }, tally);
      }
    }
    for (const info of report.paymentInfos) {
      if (info.status !== 'RJCT') continue;
      // Payrail's PmtInfId is `<MsgId>-<mode>`: the block's payments are the file's payouts of that mode.
      const mode = info.originalPmtInfId.startsWith(`${report.originalMsgId}-`)
        ? info.originalPmtInfId.slice(report.originalMsgId.length + 1)
        : null;
      const ids = mode === null ? [] : await Repo.payoutIdsOf(tx, report.originalMsgId);
      const reason = describeReason(info.reasonCode, info.additionalInfo);
      let found = 0;
      for (const id of ids) {
        const current = await PayoutRepository.findById(tx, id);
        if (current?.paymentMode !== mode) continue;
        found++;
        const payout = await this.payoutFor(tx, id, tally);
        if (payout) await this.report(tx, payout, { status: 'FAILED', reason }, tally);
      }
      if (found === 0) tally.refuse(`OrgnlPmtInfId ${info.originalPmtInfId.slice(0, 40)}: no such payment block`);
    }
    for (const t of report.transactions) {
      if (t.status !== 'RJCT' && t.status !== 'PDNG') {
        // ACCP, ACTC, ACSP (and the other acceptances): the bank has it, nothing to change.
        tally.entries++;
        continue;
      }
      const payout = await this.payoutFor(tx, t.endToEndId, tally);
      if (!payout) continue;
      const reason = describeReason(t.reasonCode, t.additionalInfo);
      const outcome =
        t.status === 'RJCT'
          ? { status: 'FAILED', reason }
          : t.reasonCode
            ? { status: 'PENDING', reason }
            : { status: 'PENDING' };
      await this.report(tx, payout, outcome, tally);
    }
  }

  private async applyNotification(tx: Queryable, notification: Notification, tally: Tally): Promise<void> {
    for (const t of notification.transactions) {
      // Entries not booked are news to come; entries without a payout's EndToEndId are the account's others.
      if (t.entryStatus !== 'BOOK' || t.endToEndId === null) continue;
      if (t.direction === 'CRDT' && !t.isReturn) continue;
      const payout = await this.payoutFor(tx, t.endToEndId, tally);
      if (!payout) continue;
      if (t.direction === 'DBIT') {
        if (t.currency !== 'INR' || t.amount !== payout.amount) {
          const message = `bank file booked ${t.currency} ${formatPaise(t.amount)}, but the payout is for INR ${formatPaise(payout.amount)}; not applied`;
          if (payout.railError !== message) await this.lifecycle.recordRailError(tx, payout, message, BANKFILE_ACTOR);
          tally.refuse(`${payout.id}: amount ${formatPaise(t.amount)} differs from ${formatPaise(payout.amount)}`);
          continue;
        }
        const utr = t.clearingReference ?? t.accountServicerReference;
        if (!utr) {
          const message = 'bank file booked the debit without a reference (ClrSysRef or AcctSvcrRef); not applied';
          if (payout.railError !== message) await this.lifecycle.recordRailError(tx, payout, message, BANKFILE_ACTOR);
          tally.refuse(`${payout.id}: no reference`);
          continue;
        }
        await this.report(tx, payout, { status: 'SUCCESS', utr }, tally);
        continue;
      }
      const reason = describeReason(t.returnReasonCode, t.returnAdditionalInfo);
      // Money sent back after SUCCESS is a return; before SUCCESS the transfer simply failed.
      const outcome = payout.status === 'SUCCESS' ? { status: 'RETURNED', reason } : { status: 'FAILED', reason };
      await this.report(tx, payout, outcome, tally);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
