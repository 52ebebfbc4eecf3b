import type { Payout } from '../domain/Payout.ts';
import type { BankConnector, Transfer } from '../rails/BankConnector.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import type { Database } from '../store/Database.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';

/**
 * How many times a transfer may be handed to the rail in all. More than once only when the answer to the
 * previous submission was never recorded (the process died, or the database failed, between the call and the
 * record); the same idempotency key (the payout id) lets the bank recognise the repeat.
 */
export const MAX_SUBMISSIONS = 3;

export const toTransfer = (p: Payout): Transfer => ({
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
    private readonly rail: BankConnector,
    private readonly lifecycle: PayoutLifecycle,
  ) {}

  async run(job: Job): Promise<void> {
    const payout = await PayoutRepository.findById(this.db, job.subjectId);
    if (payout?.status === 'INITIATED') return this.submit(job, payout);
    if (payout?.status === 'PROCESSING' || payout?.status === 'PENDING') return this.poll(job, payout);

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
  private async submit(job: Job, payout: Payout): Promise<void> {
    const claimed = await PayoutRepository.claimSubmission(this.db, payout.id);
    if (claimed && claimed.submitAttempts > MAX_SUBMISSIONS) {
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
    const { answer } = claimed ? await ask(() => this.rail.submit(toTransfer(claimed))) : { answer: undefined };

    await this.db.transaction(async (tx) => {
      const current = await PayoutRepository.lockById(tx, payout.id);
      if (!(await JobRepository.complete(tx, job))) return;
      if (!claimed || current?.status !== 'INITIATED') return;
      await this.lifecycle.applySubmitAnswer(tx, current, answer);
    });
  }

  /**
   * A poll is a question, not a transfer: when the connector throws, the error is kept on the payout and the
   * poll is asked again with the worker's backoff. An outcome the table refuses stops the polling.
   */
  private async poll(job: Job, payout: Payout): Promise<void> {
    const { answer, threw } = await ask(() => this.rail.poll(toTransfer(payout)));
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
