import { ulidFactory } from '../domain/ulidFactory.ts';
import type { Cutoffs } from '../bankFileConfig.ts';
import type { Clock } from '../clock.ts';
import { IST_DAY_MS, istDay, istDayStartOf } from '../domain/istPeriod.ts';
import { toTransfer } from '../rails/BankConnector.ts';
import { pain001FileName, writePain001, type Debtor } from '../rails/bankfile/pain001.ts';
import type { BankFileTransport } from '../rails/bankfile/transport.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import type { Database } from '../store/Database.ts';
import { BankFileRepository as Repo } from '../store/repositories/BankFileRepository.ts';

const ulid = ulidFactory();

/** Who moves a bank file's payouts, in their history (PayoutLifecycle.railActor of the bankfile connector). */
export const BANKFILE_RAIL_ACTOR = 'rail:bankfile';

/** A file holds at most this many payouts; more waiting are cut into the next file at once. */
export const MAX_PAYOUTS_PER_FILE = 10_000;

/** MsgId: Max35Text, unique: `PR` and a ULID (28 characters). */
export const newMsgId = (now: number) => `PR${ulid(now)}`;

/** Milliseconds from `now` to the next cut-off (times of day in IST: today's still to come, else tomorrow's). */
export function msToNextCutoff(cutoffs: Cutoffs, now: number): number {
  if ('every' in cutoffs) return cutoffs.every;
  const today = istDayStartOf(new Date(now)).getTime();
  for (const day of [0, 1]) {
    for (const minute of cutoffs.istMinutes) {
      const at = today + day * IST_DAY_MS + minute * 60_000;
      if (at > now) return at - now;
    }
  }
  return IST_DAY_MS;
}

export interface CutoffLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * At each cut-off, the payouts routed to bank files that wait go into one pain.001 (docs/operator/bank-files.md). The cut
 * is one transaction: claim the waiting payouts, record the file and its items (a payout in at most one file:
 * the database's unique index). The file is written to the outbox after that transaction, then marked delivered
 * and its payouts moved INITIATED → PROCESSING with the MsgId as their rail reference. A crash in between leaves
 * the file recorded and undelivered: it is delivered again, the same stored bytes, never cut anew.
 */
export class BankFileCutoff {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: PayoutLifecycle,
    private readonly transport: BankFileTransport,
    private readonly debtor: Debtor,
    private readonly cutoffs: Cutoffs,
    private readonly log: CutoffLog,
    private readonly clock: Clock,
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    // Files left undelivered by a crash go out at once, not at the next cut-off.
    void this.run(false);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        void this.run(true).finally(() => this.schedule());
      },
      msToNextCutoff(this.cutoffs, this.clock()),
    );
    this.timer.unref?.();
  }

  /** One cut-off now (what the timer runs): deliver what is pending, then cut. Never overlaps itself. */
  run(cut = true): Promise<void> {
    if (this.running) return this.running;
    this.running = this.pass(cut)
      .catch((err: unknown) => this.log.warn({ err }, 'bank-file cut-off failed; retried at the next one'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async pass(cut: boolean): Promise<void> {
    await this.transport.prepare();
    for (const file of await Repo.leaseUndelivered(this.db)) await this.deliver(file.msgId, file.xml);
    if (!cut) return;
    // A backlog larger than one file is cut into several at this cut-off.
    for (;;) {
      const file = await this.cut();
      if (!file) return;
      await this.deliver(file.msgId, file.xml);
      if (file.count < MAX_PAYOUTS_PER_FILE || this.stopped) return;
    }
  }

  /** Claims the waiting payouts and records their file; null when nothing waits (no file is written). */
  async cut(): Promise<{ msgId: string; xml: string; count: number } | null> {
    return this.db.transaction(async (tx) => {
      // Two instances never cut at once: the cut runs under a transaction-level advisory lock.
      if (!(await Repo.tryLockCutoff(tx))) return null;
      const payouts = await Repo.claimWaiting(tx, MAX_PAYOUTS_PER_FILE);
      if (payouts.length === 0) return null;
      const at = new Date(this.clock());
      const msgId = newMsgId(at.getTime());
      const xml = writePain001({
        msgId,
        createdAt: at,
        executionDate: istDay(at),
        debtor: this.debtor,
        payments: payouts.map(toTransfer),
      });
      await Repo.insertFile(tx, {
        msgId,
        xml,
        ctrlSum: payouts.reduce((sum, p) => sum + p.amount, 0n),
        payoutIds: payouts.map((p) => p.id),
      });
      this.log.info({ msgId, payouts: payouts.length }, 'bank file cut');
      return { msgId, xml, count: payouts.length };
    });
  }

  /** Writes the file to the outbox, then records the delivery and moves its payouts to PROCESSING. */
  async deliver(msgId: string, xml: string): Promise<void> {
    await this.transport.write('outbox', pain001FileName(msgId), xml);
    await this.db.transaction(async (tx) => {
      if (!(await Repo.markDelivered(tx, msgId))) return;
      // The bank may have answered already (a status report read before this delivery was recorded).
      const waiting = (await Repo.lockPayoutsOf(tx, msgId)).filter((p) => p.status === 'INITIATED');
      // The file's acceptance is every payout's (PayoutLifecycle.applySubmitAnswer's accepted), set-based.
      await this.lifecycle.moveMany(
        tx,
        waiting.map((payout) => ({ payout, to: 'PROCESSING' as const, railReference: msgId })),
        BANKFILE_RAIL_ACTOR,
      );
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
