import { PayoutCodes, withMessage, type CodeDef } from '@payrail/protocol';
import type { BeneficiaryVerification } from '../domain/BeneficiaryVerification.ts';
import { newId } from '../domain/ids.ts';
import type { Merchant } from '../domain/Merchant.ts';
import { matchNames } from '../domain/nameMatch.ts';
import { checkBeneficiary, type BeneficiaryFields } from '../domain/payoutRequest.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Clock } from '../clock.ts';
import type { AccountVerifier } from '../rails/AccountVerifier.ts';
import type { Database } from '../store/Database.ts';
import { VerificationRepository } from '../store/repositories/VerificationRepository.ts';
import type { BankDirectory } from './BankDirectory.ts';

/** A verification of the same account and IFSC is reused at initiation for this long. */
export const VERIFICATION_REUSE_MS = 30 * 24 * 3600 * 1000;

export const NOT_AVAILABLE = withMessage(
  PayoutCodes.beneficiaryVerificationFailed,
  'Beneficiary verification is not available: the bank connector cannot verify accounts',
);

const accountKey = (b: { accountNumber: string; ifsc: string }) => `${b.ifsc}:${b.accountNumber}`;

/**
 * Beneficiary verification (docs/merchant/bulk-and-verification.md): the merchant's explicit checks, and the check that initiation makes
 * when the merchant's setting is `required`. The bank side is an AccountVerifier; null when the deployment has
 * none (live mode without a verifying connector), which answers 4013 "not available".
 */
export class BeneficiaryVerificationService {
  constructor(
    private readonly db: Database,
    private readonly verifier: AccountVerifier | null,
    private readonly banks: BankDirectory,
    private readonly clock: Clock,
  ) {}

  /** POST /payout/v1/beneficiary/verify: checks the fields as initiation does (4003, 4007, 4008), then asks the bank. */
  async verify(merchant: Merchant, plain: Record<string, unknown>): Promise<BeneficiaryVerification> {
    const beneficiary = checkBeneficiary(plain, (ifsc) => this.banks.isKnownBranch(ifsc));
    const verification = await this.lookUp(merchant.id, beneficiary);
    await VerificationRepository.insert(this.db, verification);
    return verification;
  }

  /**
   * For each beneficiary of an initiation (one, or a batch's items), the 4013 refusal that the merchant's setting
   * calls for, or null. Off: all null. Required: an account verified (by the merchant or by an earlier initiation)
   * within 30 days is not asked again; its bank name is matched against this beneficiary's name.
   */
  async refusals(merchant: Merchant, beneficiaries: BeneficiaryFields[]): Promise<(CodeDef | null)[]> {
    if (merchant.beneficiaryVerification !== 'required' || beneficiaries.length === 0) {
      return beneficiaries.map(() => null);
    }
    if (!this.verifier) return beneficiaries.map(() => NOT_AVAILABLE);
    const since = new Date(this.clock() - VERIFICATION_REUSE_MS);
    const known = new Map(
      (await VerificationRepository.latest(this.db, merchant.id, beneficiaries, since)).map((v) => [accountKey(v), v]),
    );
    for (const b of beneficiaries) {
      if (known.has(accountKey(b))) continue;
      const fresh = await this.lookUp(merchant.id, b);
      await VerificationRepository.insert(this.db, fresh);
      known.set(accountKey(b), fresh);
    }
    return beneficiaries.map((b) => {
      const v = known.get(accountKey(b)) as BeneficiaryVerification;
      if (v.accountStatus === 'INVALID') {
        return withMessage(
          PayoutCodes.beneficiaryVerificationFailed,
          'Beneficiary verification failed: the account is INVALID',
        );
      }
      const { score } = matchNames(b.name, v.nameAtBank);
      if (score < merchant.minNameMatchScore) {
        return withMessage(
          PayoutCodes.beneficiaryVerificationFailed,
          `Beneficiary verification failed: name match score ${score} is below the minimum ${merchant.minNameMatchScore}`,
        );
      }
      return null;
    });
  }

  private async lookUp(merchantId: string, b: BeneficiaryFields): Promise<BeneficiaryVerification> {
    if (!this.verifier) throw new RequestRejected(NOT_AVAILABLE);
    const answer = await this.verifier.verifyAccount(b.accountNumber, b.ifsc, b.name);
    const match =
      answer.status === 'VALID' ? matchNames(b.name, answer.nameAtBank) : { score: 0, result: 'NO_MATCH' as const };
    const now = new Date(this.clock());
    return {
      id: newId('verification', now.getTime()),
      merchantId,
      accountNumber: b.accountNumber,
      ifsc: b.ifsc,
      nameGiven: b.name,
      accountStatus: answer.status,
      nameAtBank: answer.nameAtBank,
      score: match.score,
      result: match.result,
      bankName: this.banks.bankName(b.ifsc),
      utr: answer.utr,
      createdAt: now,
    };
  }
}
