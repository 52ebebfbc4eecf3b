import type { BeneficiaryVerificationWire, NameMatchResult } from '@payrail/protocol';

/** One account verification (docs/merchant/bulk-and-verification.md), as recorded and as answered. */
export interface BeneficiaryVerification {
  id: string;
  merchantId: string;
  accountNumber: string;
  ifsc: string;
  nameGiven: string;
  accountStatus: 'VALID' | 'INVALID';
  nameAtBank: string;
  score: number;
  result: NameMatchResult;
  bankName: string;
  utr: string;
  createdAt: Date;
}

export function toVerificationWire(v: BeneficiaryVerification): BeneficiaryVerificationWire {
  return {
    verification_id: v.id,
    account_status: v.accountStatus,
    name_at_bank: v.nameAtBank,
    name_match_score: v.score,
    name_match_result: v.result,
    bank_name: v.bankName,
    utr: v.utr,
    created_at: v.createdAt.toISOString(),
  };
}
