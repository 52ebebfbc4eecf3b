import { newUtr } from '../domain/utr.ts';
import type { BankConnector, RailOutcome, SubmitAnswer, Transfer } from './BankConnector.ts';

/** The sandbox's designated test beneficiaries (docs/merchant/api-reference.md, "The sandbox"). */
export const SANDBOX_IFSC = 'SBOX0000001';
export const SANDBOX_ACCOUNTS = {
  success: '100000000001',
  failure: '100000000002',
  pending: '100000000003',
  verificationFailure: '100000000004',
} as const;

/**
 * The provider's own documented sandbox beneficiaries, so that an integration's existing tests pass unchanged:
 * IFSC `TEST0001234` with account `1234567890` succeeds, with `9876543210` fails (then is refunded).
 */
export const PROVIDER_TEST_IFSC = 'TEST0001234';
export const PROVIDER_TEST_ACCOUNTS = { success: '1234567890', failure: '9876543210' } as const;

const failsInSandbox = (t: Transfer) =>
  (t.ifsc === SANDBOX_IFSC && t.accountNumber === SANDBOX_ACCOUNTS.failure) ||
  (t.ifsc === PROVIDER_TEST_IFSC && t.accountNumber === PROVIDER_TEST_ACCOUNTS.failure);

/**
 * Simulated bank: INITIATED → PROCESSING → SUCCESS (with a UTR), or → FAILED (then REFUNDED by the payout
 * lifecycle), or → PENDING until an operator resolves it; each arrow one `stepMs`. Outcomes depend on the account.
 */
export class SandboxConnector implements BankConnector {
  readonly name = 'sandbox';

  constructor(private readonly stepMs: number) {}

  get submitDelayMs(): number {
    return this.stepMs;
  }

  async verifyBeneficiary(accountNumber: string, ifsc: string): Promise<boolean> {
    return !(ifsc === SANDBOX_IFSC && accountNumber === SANDBOX_ACCOUNTS.verificationFailure);
  }

  async submit(transfer: Transfer): Promise<SubmitAnswer> {
    return { accepted: true, reference: `SBX-${transfer.idempotencyKey}` };
  }

  async poll(transfer: Transfer): Promise<RailOutcome | null> {
    if (failsInSandbox(transfer)) {
      return { status: 'FAILED', reason: 'Beneficiary bank declined the transfer (sandbox)' };
    }
    if (transfer.ifsc === SANDBOX_IFSC && transfer.accountNumber === SANDBOX_ACCOUNTS.pending) {
      return { status: 'PENDING' };
    }
    return { status: 'SUCCESS', utr: newUtr() };
  }

  /** A PENDING sandbox payout waits for the operator. */
  pollDelayMs(status: 'PROCESSING' | 'PENDING'): number | null {
    return status === 'PENDING' ? null : this.stepMs;
  }
}
