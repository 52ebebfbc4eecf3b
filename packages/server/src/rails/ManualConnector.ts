import type { BankConnector, RailOutcome, SubmitAnswer, Transfer } from './BankConnector.ts';

/**
 * Live mode without a bank integration: transfers are settled by the operator outside Payrail and recorded
 * with the admin resolve route (allowed from PROCESSING in live mode). A real bank connector replaces this.
 */
export class ManualConnector implements BankConnector {
  readonly name = 'manual';
  /** Submission at once; settlement waits for the operator (no polling). */
  readonly submitDelayMs = 0;

  async verifyBeneficiary(): Promise<boolean> {
    return true;
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    return { accepted: true, reference: `MAN-${transfer.idempotencyKey}` };
  }

  async poll(): Promise<RailOutcome | null> {
    return null;
  }

  pollDelayMs(): number | null {
    return null;
  }
}
