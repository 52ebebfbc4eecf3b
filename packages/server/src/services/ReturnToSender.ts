import type { Clock } from '../clock.ts';
import { newDepositId } from '../domain/deposit.ts';
import { newId } from '../domain/ids.ts';
import { istDay, istMonth } from '../domain/istPeriod.ts';
import { DEFAULT_STATUS_MESSAGE } from '../domain/payoutStateMachine.ts';
import { returnTargetOf } from '../domain/returnToSender.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { Queryable } from '../store/Database.ts';
import type { ExceptionRecord } from '../store/repositories/ExceptionRepository.ts';
import { PayoutRepository } from '../store/repositories/PayoutRepository.ts';
import { ReturnToSenderRepository } from '../store/repositories/ReturnToSenderRepository.ts';
import type { Payout } from '../domain/Payout.ts';
import type { BankDirectory } from './BankDirectory.ts';
import type { PayoutLifecycle } from './PayoutLifecycle.ts';

/** The return cannot be opened: `invalid` when the report lacks what a return needs, `state` when the books refuse. */
export class ReturnToSenderRefused extends Error {
  constructor(
    readonly kind: 'invalid' | 'state',
    message: string,
  ) {
    super(message);
  }
}

/**
 * `return_to_sender` (docs/operator/exceptions.md): a deposit credited nowhere goes back to the account it came from,
 * as an ordinary payout of the platform from its suspense wallet, through the connector its mode routes to. The
 * deposit enters the suspense wallet first (once per UTR, so it can never also be assigned to a merchant); a return
 * that fails or comes back refunds the suspense wallet and opens the exception again (migration 037), and can be
 * tried again. Runs in the resolution's transaction, after the exception is locked.
 */
export class ReturnToSender {
  constructor(
    private readonly connectors: ConnectorRegistry,
    private readonly lifecycle: PayoutLifecycle,
    private readonly banks: BankDirectory,
    private readonly clock: Clock,
  ) {}

  async openWithin(tx: Queryable, e: ExceptionRecord): Promise<Payout> {
    const read = returnTargetOf(e.reported, e.held, e.amount);
    if (!read.ok) throw new ReturnToSenderRefused('invalid', read.message);
    const t = read.target;
    const now = this.clock();
    const at = new Date(now);
    const payoutId = newId('payout', now);
    const refusal = await ReturnToSenderRepository.open(tx, {
      exceptionId: e.id,
      depositId: newDepositId(now),
      payoutId,
      amount: t.amount,
      utr: t.utr,
      virtualAccount: t.virtualAccount,
      remitterName: t.name,
      remitterAccount: t.account,
      remitterIfsc: t.ifsc,
      bankName: this.banks.bankName(t.ifsc),
      creditedAt: t.creditedAt ?? at,
      mode: t.mode,
      rail: this.connectors.forMode(t.mode).name,
      statusMessage: DEFAULT_STATUS_MESSAGE.INITIATED,
      istDay: istDay(at),
      istMonth: istMonth(at),
      at,
    });
    if (refusal === 'credited') {
      throw new ReturnToSenderRefused(
        'state',
        `UTR ${t.utr} is credited to a merchant's wallet already: nothing to return`,
      );
    }
    if (refusal === 'in_flight') {
      throw new ReturnToSenderRefused('state', `a return of UTR ${t.utr} is under way already (see return_payout_id)`);
    }
    const payout = (await PayoutRepository.findById(tx, payoutId)) as Payout;
    await this.lifecycle.scheduleNext(tx, payout);
    return payout;
  }
}
