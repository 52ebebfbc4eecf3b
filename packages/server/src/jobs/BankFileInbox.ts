import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { Camt054Reader, CAMT054_NAME, type Notification } from '../rails/bankfile/camt054.ts';
import { readPain002, PAIN002_NAME, type StatusReport } from '../rails/bankfile/pain002.ts';
import { isFileGone, isUsableName, type BankFileTransport } from '../rails/bankfile/transport.ts';
import {
  BankFileUnreadable,
  MAX_BANK_FILE_BYTES,
  MAX_WHOLE_BANK_FILE_BYTES,
  readIsoMessage,
} from '../rails/bankfile/xmlRead.ts';
import type { BankNotifications } from '../services/BankNotifications.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import { StatementUnbalanced, StatementUnreadable } from '../services/ReconciliationService.ts';
import type { Database, Queryable } from '../store/Database.ts';
import type { BankStatement } from '../rails/bankfile/bankStatement.ts';
import { creditsOfNotification, creditsOfStatements } from '../rails/bankfile/bankCredits.ts';
import type { BankFileDeposits, FileDeposits } from '../services/BankFileDeposits.ts';
import { BankFileRepository as Repo } from '../store/repositories/BankFileRepository.ts';
import { BANKFILE_RAIL_ACTOR, type CutoffLog } from './BankFileCutoff.ts';
import { FilePlan, Tally } from './BankFileEntries.ts';
import { recordExceptions } from '../services/exceptionRecords.ts';

/** Who applies a bank file's entries, in the payouts' history. */
export const BANKFILE_ACTOR = BANKFILE_RAIL_ACTOR;

/** What became of one inbox file. */
export type InboxResult =
  | { kind: 'applied'; messageType: string; entries: number; refused: number; reason: string | null }
  | { kind: 'failed'; messageType: string | null; reason: string }
  | { kind: 'known' }
  | { kind: 'busy' };

/** camt.053 and MT940 statements go to reconciliation (services/ReconciliationService.ts). */
export interface StatementImporter {
  importStatement(
    bytes: Buffer,
    format: 'camt.053' | 'mt940',
    actor: string,
    before?: (tx: Queryable, statements: readonly BankStatement[]) => Promise<void>,
  ): Promise<unknown>;
}

/** The message type an MT940 statement is recorded with (an inbox file is MT940 when it is text opening a :20:). */
export const MT940_TYPE = 'MT940';
/** SWIFT text whose first field is :20: (bare, after a bank's header lines, or in a block 4), not XML. */
function looksLikeMt940(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return !head.trimStart().startsWith('<') && /(?:^|[\n{:])\s*:20:/.test(head);
}

const CAMT053 = /^camt\.053\.001\.\d\d$/;
const NAMESPACE = /urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})/;
/** The message type is the namespace found in a file's first bytes. */
const HEAD_BYTES = 4096;

/**
 * An inbox file as read: its SHA-256, its message type, and a camt.054's notification (read as it streamed), or
 * another file's bytes (read whole: status reports and statements), or why it cannot be read.
 */
type InboxFile = { sha256: string; messageType: string | null } & (
  { camt054: Notification } | { bytes: Buffer } | { unreadable: string }
);

/**
 * Reads one inbox file in one pass over its stream, hashing each chunk as it arrives: the bytes are never held
 * twice, and a camt.054's not at all (its reader keeps the transactions). The first 4 KiB decide the message; a
 * file found unreadable is still read to its end, for its hash.
 */
class InboxFileReader {
  private readonly hash = createHash('sha256');
  private head: Buffer[] | null = [];
  private headBytes = 0;
  private messageType: string | null = null;
  private camt054: Camt054Reader | null = null;
  private whole: Buffer[] = [];
  private wholeBytes = 0;
  private unreadable: string | null = null;

  static async read(transport: BankFileTransport, name: string): Promise<InboxFile> {
    const reader = new InboxFileReader();
    const stream = await transport.readStream('inbox', name);
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) reader.write(chunk);
    } finally {
      stream.destroy();
    }
    return reader.end();
  }

  private write(chunk: Buffer): void {
    this.hash.update(chunk);
    if (!this.head) return this.take(chunk);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes >= HEAD_BYTES) this.decide();
  }

  private decide(): void {
    const head = Buffer.concat(this.head ?? []);
    this.head = null;
    this.messageType = NAMESPACE.exec(head.subarray(0, HEAD_BYTES).toString('utf8'))?.[1] ?? null;
    if (this.messageType === CAMT054_NAME) this.camt054 = new Camt054Reader(MAX_BANK_FILE_BYTES);
    this.take(head);
  }

  private take(chunk: Buffer): void {
    if (this.unreadable !== null) return;
    if (this.camt054) {
      this.unreadable = unreadable(() => this.camt054?.write(chunk));
      return;
    }
    this.wholeBytes += chunk.length;
    if (this.wholeBytes <= MAX_WHOLE_BANK_FILE_BYTES) {
      this.whole.push(chunk);
      return;
    }
    this.whole = [];
    this.unreadable = `the file is larger than ${MAX_WHOLE_BANK_FILE_BYTES} bytes (only a camt.054 may be larger)`;
  }

  private end(): InboxFile {
    if (this.head) this.decide();
    const read = { sha256: this.hash.digest('hex'), messageType: this.messageType };
    if (this.camt054 && this.unreadable === null) {
      let notification: Notification | null = null;
      this.unreadable = unreadable(() => (notification = this.camt054?.end() ?? null));
      if (notification) return { ...read, camt054: notification };
    }
    if (this.unreadable !== null) return { ...read, unreadable: this.unreadable };
    return { ...read, bytes: Buffer.concat(this.whole, this.wholeBytes) };
  }
}

/** Runs `fn`: the reason when it finds the file unreadable, else null. */
function unreadable(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof BankFileUnreadable) return err.message;
    throw err;
  }
}

/** The inbox's log: the cut-off's, and debug for what is no news (a pino logger has all three). */
export interface InboxLog extends CutoffLog {
  debug?(obj: object, msg: string): void;
}

/**
 * Reads the bank's files from inbox/ (docs/operator/bank-files.md). Each file is applied whole, in one transaction, or not
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
    /** Kept for the composition root; a file's entries are applied set-based (BankFileEntries.ts). */
    readonly notifications: BankNotifications,
    private readonly statements: StatementImporter | null,
    private readonly transport: BankFileTransport,
    private readonly scanMs: number,
    private readonly log: InboxLog,
    /** The composition root's clock (the lifecycle holds its own). */
    readonly clock: Clock,
    /** Credits to virtual accounts in the files (docs/operator/bank-files.md, "Deposits"); null: none read. */
    private readonly deposits: BankFileDeposits | null = null,
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
        if (isUsableName(name)) await this.handle(name);
        else await this.reportUnusable(name);
      } catch (err) {
        // Instances sharing one folder all list the same files and the first takes each (it is applied once: the
        // inbox lock and the file's hash). The others find it gone: nothing failed, so one debug line, no stack.
        if (isFileGone(err) && !(await this.stillInInbox(name))) {
          this.log.debug?.({ file: name }, 'bank file taken by another instance; skipped');
          continue;
        }
        this.log.warn({ err, file: name }, 'bank file not applied; retried at the next scan');
      }
    }
  }

  /** Whether the inbox still lists the file (an error that says it is gone is checked, not believed). */
  private async stillInInbox(name: string): Promise<boolean> {
    return (await this.transport.list('inbox').catch(() => [name])).includes(name);
  }

  /**
   * A listed name no path can reach (isUsableName): the file can be neither read nor moved to failed/, so it stays
   * in the inbox. It is recorded failed once, keyed by its name, and logged then without a stack trace (nothing
   * failed but the name); every later scan, of any instance, finds the record and skips the file.
   */
  private async reportUnusable(name: string): Promise<void> {
    const sha256 = createHash('sha256').update(`unusable name\n${name}`).digest('hex');
    if (await Repo.inboundKnown(this.db, sha256)) return;
    const reason =
      'not a usable file name (it has a / or \\ or a NUL, or is . or ..): left unread in inbox/; rename or remove it there';
    // A database text holds no NUL: the record shows it as \0.
    const recorded = await this.recordFailed(sha256, name.replaceAll('\0', '\\0'), null, reason);
    if (recorded) this.log.warn({ file: name, reason }, 'bank file refused: its name is unusable; left in inbox/');
  }

  /** Reads, applies and moves one inbox file. */
  async handle(name: string): Promise<InboxResult> {
    const size = await this.transport.size('inbox', name);
    if (size > MAX_BANK_FILE_BYTES) {
      // Refused unread: its record is keyed by name and size, as its bytes are never hashed.
      const reason = `the file is larger than ${MAX_BANK_FILE_BYTES} bytes`;
      const sha256 = createHash('sha256').update(`oversize\n${name}\n${size}`).digest('hex');
      await this.recordFailed(sha256, name, null, reason);
      await this.transport.move('inbox', name, 'failed');
      return { kind: 'failed', messageType: null, reason };
    }
    // One pass over the file's stream: hashed, and a camt.054 read, as its bytes arrive (InboxFileReader).
    const file = await InboxFileReader.read(this.transport, name);
    const { sha256 } = file;
    if (await Repo.inboundKnown(this.db, sha256)) {
      await this.transport.move('inbox', name, 'processed');
      return { kind: 'known' };
    }
    const result = await this.apply(name, file);
    if (result.kind === 'busy') return result;
    if (result.kind === 'failed') {
      await this.recordFailed(sha256, name, result.messageType, result.reason);
      this.log.warn({ file: name, reason: result.reason }, 'bank file refused: moved to failed/');
    }
    await this.transport.move('inbox', name, result.kind === 'failed' ? 'failed' : 'processed');
    return result;
  }

  /** Records a refused file (nothing of it applied); false when its key was recorded first. */
  private recordFailed(sha256: string, name: string, messageType: string | null, reason: string): Promise<boolean> {
    return Repo.recordInbound(this.db, { sha256, name, messageType, state: 'failed', reason, entries: 0, refused: 0 });
  }

  private async apply(name: string, file: InboxFile): Promise<InboxResult> {
    const { sha256, messageType } = file;
    if ('unreadable' in file) return { kind: 'failed', messageType, reason: file.unreadable };
    let parsed: { pain002: StatusReport } | { camt054: Notification };
    if ('camt054' in file) parsed = { camt054: file.camt054 };
    else {
      const { bytes } = file;
      if (messageType && CAMT053.test(messageType)) return this.importStatement(name, bytes, sha256, messageType);
      if (!messageType && looksLikeMt940(bytes)) return this.importStatement(name, bytes, sha256, MT940_TYPE);
      try {
        if (messageType === PAIN002_NAME) parsed = { pain002: readPain002(bytes) };
        else {
          // Not one of ours: the reader says why (not XML, no namespace, another message).
          readIsoMessage(bytes, [PAIN002_NAME, CAMT054_NAME, 'camt.053.001.08']);
          throw new BankFileUnreadable(`${messageType} is not a message Payrail reads`);
        }
      } catch (err) {
        if (err instanceof BankFileUnreadable) return { kind: 'failed', messageType, reason: err.message };
        throw err;
      }
    }
    return this.db.transaction(async (tx): Promise<InboxResult> => {
      // Two instances never apply the same inbox at once.
      if (!(await Repo.tryLockInbox(tx))) return { kind: 'busy' };
      // Another instance applied the same bytes between our check and this lock.
      if (await Repo.inboundKnown(tx, sha256)) return { kind: 'known' };
      // Every entry read against the payouts as the earlier ones leave them, then written set-based.
      const plan = await FilePlan.prepare(tx, parsed, BANKFILE_ACTOR, name);
      // A camt.054's credits to virtual accounts: their deposit rows beside the payouts (the lock order's first
      // step), their wallets locked with the payouts' before the first write, their credits after the payouts'.
      const deposits =
        'camt054' in parsed && this.deposits
          ? await this.deposits.prepare(tx, creditsOfNotification(parsed.camt054), name)
          : null;
      await plan.execute(tx, this.lifecycle, deposits?.wallets ?? []);
      await deposits?.credit(tx);
      // What the file reported that did not match what Payrail sent: the exceptions queue, with the file.
      await recordExceptions(tx, plan.exceptions, this.clock());
      const tally = plan.tally;
      if (deposits) countDeposits(tally, deposits);
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
    const credited: { deposits: FileDeposits | null } = { deposits: null };
    try {
      // Its own transaction; the same statement again changes nothing there either.
      const format = messageType === MT940_TYPE ? 'mt940' : 'camt.053';
      // The statements' credits to virtual accounts are deposits too, credited in the import's transaction before
      // it matches them (so they reconcile as matched).
      const deposits = this.deposits;
      await this.statements.importStatement(
        bytes,
        format,
        `bankfile:${name}`.slice(0, 200),
        deposits
          ? async (tx, statements) => {
              const found = await deposits.prepare(tx, creditsOfStatements(statements), name);
              await found.credit(tx);
              credited.deposits = found;
            }
          : undefined,
      );
    } catch (err) {
      if (err instanceof StatementUnreadable || err instanceof StatementUnbalanced) {
        return { kind: 'failed', messageType, reason: err.message };
      }
      throw err;
    }
    const tally = new Tally();
    if (credited.deposits) countDeposits(tally, credited.deposits);
    const reason = tally.reason();
    await Repo.recordInbound(this.db, {
      sha256,
      name,
      messageType,
      state: 'applied',
      reason: reason ?? 'imported for reconciliation',
      entries: tally.entries,
      refused: tally.refused.length,
    });
    return { kind: 'applied', messageType, entries: tally.entries, refused: tally.refused.length, reason };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

/** A file's deposits in its tally: each credited or already credited counts as applied, each excepted as refused. */
function countDeposits(tally: Tally, deposits: FileDeposits): void {
  tally.entries += deposits.credited + deposits.duplicates;
  for (const why of deposits.refused) tally.refuse(why);
}
