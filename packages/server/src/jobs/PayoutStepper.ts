import type { Payout } from '../domain/Payout.ts';
import type { BankConnector, RailUpdate, Transfer } from '../rails/BankConnector.ts';
import type { PayoutLifecycle } from '../services/PayoutLifecycle.ts';
import type { Database } from '../store/Database.ts';
import { JobRepository, type Job } from '../store/repositories/JobRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';

const toTransfer = (p: Payout): Transfer => ({
  payoutId: p.id,
  amount: p.amount,
  paymentMode: p.paymentMode,
  beneficiaryName: p.beneficiary.name,
  accountNumber: p.beneficiary.accountNumber,
  ifsc: p.beneficiary.ifsc,
  remarks: p.remarks,
  reference: p.railReference,
});

/**
 * Runs one `payout.advance` job: asks the rail (outside any transaction), then records its answer in one
 * transaction that also deletes the job. If the payout moved meanwhile, or another worker took the job, the
 * transaction changes nothing.
 */
export class PayoutStepper {
  constructor(
    private readonly db: Database,
    private readonly rail: BankConnector,
    private readonly lifecycle: PayoutLifecycle,
  ) {}

  async run(job: Job): Promise<void> {
    const payout = await PayoutRepository.findById(this.db, job.subjectId);
    let update: RailUpdate | null = null;
    if (payout?.status === 'INITIATED') update = await this.rail.submit(toTransfer(payout));
    else if (payout?.status === 'PROCESSING' || payout?.status === 'PENDING') {
      update = await this.rail.poll(toTransfer(payout), payout.status);
    }

    await this.db.transaction(async (tx) => {
      // Lock order payout → job, as everywhere else (admin resolve), so that the two cannot deadlock.
      const current = payout ? await PayoutRepository.lockById(tx, payout.id) : null;
      if (!(await JobRepository.complete(tx, job))) return;
      if (!current || current.status !== payout?.status) return;
      if (current.status === 'FAILED') {
        if (!(await this.lifecycle.refund(tx, current))) throw new Error('refund lost a race');
        return;
      }
      if (update === null || update.status === current.status) {
        // Nothing new from the bank: look again later, unless the rail waits for an operator.
        await this.lifecycle.scheduleNext(tx, current);
        return;
      }
      const moved = await this.lifecycle.move(tx, current, update.status, {
        message: update.message,
        utr: update.utr,
        railReference: update.reference,
      });
      if (!moved) throw new Error(`payout ${current.id} moved during its step`);
    });
  }
}
