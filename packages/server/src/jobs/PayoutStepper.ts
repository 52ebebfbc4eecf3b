import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseUnavailable } from '../domain/DatabaseUnavailable.ts';
import type { Payout } from '../domain/Payout.ts';
import type { BankConnector, Transfer } from '../rails/BankConnector.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { ConnectorHealth } from '../services/ConnectorHealth.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import type { Database } from '../store/Database.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';

/**
 * How many submissions of a transfer may lose their answer. More than one submission without a recorded answer
 * only when the process died, or the database failed, between the call and the record; the same idempotency key
 * (the payout id) lets the bank recognise the repeat. (A temporary refusal is a recorded answer: it does not count.)
 */
export const MAX_SUBMISSIONS = 3;

export const toTransfer = (p: Payout): Transfer => ({
  attempt: Math.max(1, p.submitAttempts),
  payoutId: p.id,
  idempotencyKey: p.id,
  amount: p.amount,
  paymentMode: p.paymentMode,
  beneficiaryName: p.beneficiary.name,
  accountNumber: p.beneficiary.accountNumber,
  ifsc: p.beneficiary.ifsc,
  remarks: p.remarks,
  reference: p.railReference,
});

/** Calls the connector; what it throws is an answer too (kept as the Error). */
async function ask(call: () => Promise<unknown>): Promise<{ answer: unknown; threw: boolean }> {
  try {
    return { answer: await call(), threw: false };
  } catch (err) {
    return { answer: err instanceof Error ? err : new Error(String(err)), threw: true };
  }
}

/**
 * Runs one `payout.advance` job: submits an INITIATED payout (once), polls a PROCESSING or PENDING one, refunds
 * a FAILED one. The rail is asked outside any transaction; its answer is recorded in one transaction that also
 * deletes the job. If the payout moved meanwhile, or another worker took the job, that transaction changes
 * nothing.
 */
export class PayoutStepper {
  constructor(
    private readonly db: Database,
    private readonly connectors: ConnectorRegistry,
    private readonly lifecycle: PayoutLifecycle,
    /** The time now (the composition root's clock). */
    private readonly now: () => number = Date.now,
    /** Where each connector's answers are counted for the operator's view (optional in tests). */
    private readonly health?: ConnectorHealth,
    /**
     * How long an answer the connector gave is kept in memory while the database cannot record it (a failover):
     * within the job's lease, so that no other worker runs the step and submits the payout a second time.
     */
    private readonly answerHoldMs = 20_000,
  ) {}

  async run(job: Job): Promise<void> {
    const payout = await PayoutRepository.findById(this.db, job.subjectId);
    const open = payout?.status === 'INITIATED' || payout?.status === 'PROCESSING' || payout?.status === 'PENDING';
    const rail = payout && open ? this.connectors.get(payout.rail) : null;
    if (payout && open && !rail) return this.unconfigured(job, payout);
    if (payout?.status === 'INITIATED' && rail) {
      // A connector that does not submit one by one (bank files at a cut-off) takes the payout from the database.
      if (rail.submitDelayMs === null) return this.finish(job);
      return this.submit(job, payout, rail);
    }
    if ((payout?.status === 'PROCESSING' || payout?.status === 'PENDING') && rail) return this.poll(job, payout, rail);

    await this.db.transaction(async (tx) => {
      // Lock order payout → job, as everywhere else (admin resolve), so that the two cannot deadlock.
      const current = payout ? await PayoutRepository.lockById(tx, payout.id) : null;
      if (!(await JobRepository.complete(tx, job))) return;
      if (current?.status === 'FAILED' && !(await this.lifecycle.refund(tx, current))) {
        throw new Error('refund lost a race');
      }
    });
  }

  /**
   * The submission is recorded (its own statement, committed) before the connector is called, so that a step
   * run again never submits again: `submit` is called once per payout, except after a crash that lost its answer.
   */
  private async submit(job: Job, payout: Payout, rail: BankConnector): Promise<void> {
    const claimed = await PayoutRepository.claimSubmission(this.db, payout.id);
    const lost = claimed ? claimed.submitAttempts - (claimed.submitAnswers ?? 0) - 1 : 0;
    if (claimed && !rail.readsBackSubmissions && lost >= MAX_SUBMISSIONS) {
      await this.db.transaction(async (tx) => {
        if (!(await JobRepository.complete(tx, job))) return;
        const current = await PayoutRepository.lockById(tx, payout.id);
        if (current?.status !== 'INITIATED') return;
        await this.lifecycle.recordRailError(
          tx,
          current,
          `the answers to ${MAX_SUBMISSIONS} submissions were lost; ask the bank about idempotency key ${payout.id}`,
        );
      });
      return;
    }
    const since = claimed?.railRetrySince;
    if (claimed && since && rail.retryForMs !== undefined && this.now() - since.getTime() > rail.retryForMs) {
      // Refused for now for longer than the connector's retry period: the payout fails instead of trying again.
      const reason = `${claimed.railError ?? 'temporarily refused'} (gave up after ${Math.round(rail.retryForMs / 1000)} s of retries)`;
      await this.db.transaction(async (tx) => {
        const current = await PayoutRepository.lockById(tx, payout.id);
        if (!(await JobRepository.complete(tx, job))) return;
        if (current?.status !== 'INITIATED') return;
        await this.lifecycle.applySubmitAnswer(tx, current, { accepted: false, reason: reason.slice(0, 255) });
      });
      return;
    }
    const { answer, threw } = claimed
      ? await ask(() => rail.submit(toTransfer(claimed)))
      : { answer: undefined, threw: false };
    if (claimed) this.noteAnswer(rail, answer, threw);

    // The connector has acted: its answer must be recorded, or the step would run again and submit again.
    await this.recordHeld(() =>
      this.db.transaction(async (tx) => {
        const current = await PayoutRepository.lockById(tx, payout.id);
        if (!(await JobRepository.complete(tx, job))) return;
        if (!claimed || current?.status !== 'INITIATED') return;
        await this.lifecycle.applySubmitAnswer(tx, current, answer, retryDelayMs(rail, current.submitAnswers ?? 0));
      }),
    );
  }

  /**
   * Runs `record` until it succeeds, retrying while the database is unavailable, for at most `answerHoldMs`.
   * Running it again is safe: a record that did commit before its acknowledgement was lost has deleted the job, so
   * the retry finds no job of ours and changes nothing.
   */
  private async recordHeld(record: () => Promise<void>): Promise<void> {
    const until = this.now() + this.answerHoldMs;
    for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
      try {
        return await record();
      } catch (err) {
        if (!(err instanceof DatabaseUnavailable) || this.now() + wait > until) throw err;
        await sleep(wait);
      }
    }
  }

  /** The payout names a connector this server does not have (configuration changed): the operator's to settle. */
  private async unconfigured(job: Job, payout: Payout): Promise<void> {
    await this.db.transaction(async (tx) => {
      const current = await PayoutRepository.lockById(tx, payout.id);
      if (!(await JobRepository.complete(tx, job))) return;
      if (!current || current.railError) return;
      await this.lifecycle.recordRailError(
        tx,
        current,
        `connector ${current.rail} is not configured on this server (PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES)`,
        'worker',
      );
    });
  }

  /** A thrown error or a temporary refusal means the connector could not serve us; any other answer, that it did. */
  private noteAnswer(rail: BankConnector, answer: unknown, threw: boolean): void {
    if (!this.health) return;
    const temporary = (answer as { temporary?: unknown } | null)?.temporary === true;
    if (threw || temporary) {
      const why = threw ? (answer as Error).message : String((answer as { reason?: unknown }).reason ?? 'refused');
      this.health.failed(rail.name, why);
    } else {
      this.health.succeeded(rail.name);
    }
  }

  private async finish(job: Job): Promise<void> {
    await this.db.transaction(async (tx) => {
      await JobRepository.complete(tx, job);
    });
  }

  /**
   * A poll is a question, not a transfer: when the connector throws, the error is kept on the payout and the
   * poll is asked again with the worker's backoff. An outcome the table refuses stops the polling.
   */
  private async poll(job: Job, payout: Payout, rail: BankConnector): Promise<void> {
    const { answer, threw } = await ask(() => rail.poll(toTransfer(payout)));
    this.noteAnswer(rail, answer, threw);
    if (threw) {
      await this.db.transaction(async (tx) => {
        const current = await PayoutRepository.lockById(tx, payout.id);
        if (current?.status === payout.status) {
          await this.lifecycle.recordRailError(tx, current, `poll failed: ${(answer as Error).message}`.slice(0, 255));
        }
      });
      throw answer;
    }
    await this.db.transaction(async (tx) => {
      const current = await PayoutRepository.lockById(tx, payout.id);
      if (!(await JobRepository.complete(tx, job))) return;
      if (current?.status !== payout.status) return;
      await this.lifecycle.applyOutcome(tx, current, answer);
    });
  }
}

/**
 * Backoff between submissions refused for now: 1 s, 2 s, 4 s, … capped at the connector's poll interval while
 * PROCESSING (a connector that cannot poll: one minute).
 */
export function retryDelayMs(rail: BankConnector, answersSoFar: number): number {
  const cap = rail.pollDelayMs('PROCESSING') ?? 60_000;
  return Math.min(1000 * 2 ** Math.min(answersSoFar, 16), Math.max(cap, 1));
}
