import { newUtr } from '../domain/utr.ts';
import type { BankConnector, RailUpdate, Transfer } from './BankConnector.ts';

/** The sandbox's designated test beneficiaries (CONTRACT.md §6). */
export const SANDBOX_IFSC = 'SBOX0000001';
export const SANDBOX_ACCOUNTS = {
  success: '100000000001',
  failure: '100000000002',
  pending: '100000000003',
  verificationFailure: '100000000004',
} as const;

/**
 * Simulated bank: INITIATED → PROCESSING → SUCCESS (with a UTR), or → FAILED (then REFUNDED by the worker),
 * or → PENDING until an operator resolves it; each arrow one `stepMs`. Outcomes are decided by the account.
 */
export class SandboxRail implements BankConnector {
  readonly name = 'sandbox';

  constructor(private readonly stepMs: number) {}

  async verifyBeneficiary(accountNumber: string, ifsc: string): Promise<boolean> {
    return !(ifsc === SANDBOX_IFSC && accountNumber === SANDBOX_ACCOUNTS.verificationFailure);
  }

  async submit(transfer: Transfer): Promise<RailUpdate> {
    return { status: 'PROCESSING', reference: `SBX-${transfer.payoutId}` };
  }

  async poll(transfer: Transfer, current: 'PROCESSING' | 'PENDING'): Promise<RailUpdate | null> {
    if (current === 'PENDING') return null;
    if (transfer.ifsc === SANDBOX_IFSC && transfer.accountNumber === SANDBOX_ACCOUNTS.failure) {
      return { status: 'FAILED', message: 'Beneficiary bank declined the transfer (sandbox)' };
    }
    if (transfer.ifsc === SANDBOX_IFSC && transfer.accountNumber === SANDBOX_ACCOUNTS.pending) {
      return { status: 'PENDING' };
    }
    return { status: 'SUCCESS', utr: newUtr() };
  }

  nextStepDelayMs(status: 'INITIATED' | 'PROCESSING' | 'PENDING' | 'FAILED'): number | null {
    return status === 'PENDING' ? null : this.stepMs;
  }
}
