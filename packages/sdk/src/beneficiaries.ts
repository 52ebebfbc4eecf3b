import type { Core } from './core.ts';
import { toVerification } from './mapping.ts';
import { readData } from './payouts.ts';
import type { BeneficiaryVerification, BeneficiaryVerifyInput, CallOptions } from './types.ts';

export class Beneficiaries {
  constructor(private readonly core: Core) {}

  /**
   * Verifies a beneficiary account with its bank and scores the holder's name against `name` (docs/merchant/bulk-and-verification.md).
   * An INVALID account is an answer, not an error. Throws `ValidationError` for a bad name, IFSC or account
   * number (4003, 4007, 4008) and `BankRejectedError` (4013) where verification is not available.
   */
  async verify(input: BeneficiaryVerifyInput, options: CallOptions = {}): Promise<BeneficiaryVerification> {
    const operation = 'beneficiaries.verify';
    const outcome = await this.core.request({
      operation,
      family: 'payout',
      method: 'POST',
      path: '/payout/v1/beneficiary/verify',
      encrypted: {
        beneficiary_name: input.name,
        beneficiary_acc_number: input.accountNumber,
        beneficiary_ifsc: input.ifsc,
      },
      auth: true,
      // Nothing moves money: a repeat only makes another verification.
      retry: 'read',
      signal: options.signal,
    });
    if (!outcome.ok) throw outcome.error;
    return readData(outcome, operation, toVerification);
  }
}
