import { newUtr } from '../domain/utr.ts';
import type { AccountLookup, AccountVerifier } from './AccountVerifier.ts';
import { SANDBOX_ACCOUNTS, SANDBOX_IFSC } from './SandboxConnector.ts';

/** The sandbox's designated verification accounts (docs/merchant/bulk-and-verification.md). */
export const SANDBOX_VERIFICATION = {
  invalid: SANDBOX_ACCOUNTS.verificationFailure,
  knownHolder: '100000000005',
  knownHolderName: 'RAHUL KUMAR VERMA',
} as const;

/**
 * Simulated verification: on IFSC SBOX0000001, account 100000000004 is INVALID and 100000000005 belongs to
 * RAHUL KUMAR VERMA; every other well-formed account is VALID in the name given, in capitals.
 */
export class SandboxAccountVerifier implements AccountVerifier {
  readonly name = 'sandbox';

  async verifyAccount(accountNumber: string, ifsc: string, nameGiven: string): Promise<AccountLookup> {
    if (ifsc === SANDBOX_IFSC && accountNumber === SANDBOX_VERIFICATION.invalid) {
      return { status: 'INVALID', nameAtBank: '', utr: '' };
    }
    const nameAtBank =
      ifsc === SANDBOX_IFSC && accountNumber === SANDBOX_VERIFICATION.knownHolder
        ? SANDBOX_VERIFICATION.knownHolderName
        : nameGiven.toUpperCase();
    return { status: 'VALID', nameAtBank, utr: newUtr() };
  }
}
