import type { BankConnector, RailUpdate, Transfer } from './BankConnector.ts';

/**
 * Live mode without a bank integration: transfers are settled by the operator outside Payrail and recorded
 * with the admin resolve route (allowed from PROCESSING in live mode). A real bank connector replaces this.
 */
export class ManualRail implements BankConnector {
  readonly name = 'manual';

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<RailUpdate> {
    return { status: 'PROCESSING', reference: `MAN-${transfer.payoutId}` };
  }

  async poll(): Promise<RailUpdate | null> {
    return null;
  }

  nextStepDelayMs(status: 'INITIATED' | 'PROCESSING' | 'PENDING' | 'FAILED'): number | null {
    // Submission and refunds run at once; settlement waits for the operator.
    return status === 'INITIATED' || status === 'FAILED' ? 0 : null;
  }
}
