import type { NameMatchResult } from '@payrail/protocol';
import type { BeneficiaryVerification } from '../../domain/BeneficiaryVerification.ts';
import type { Queryable } from '../Database.ts';

interface VerificationRow {
  id: string;
  merchant_id: string;
  account_number: string;
  ifsc: string;
  name_given: string;
  account_status: 'VALID' | 'INVALID';
  name_at_bank: string;
  name_match_score: number;
  name_match_result: NameMatchResult;
  bank_name: string;
  utr: string;
  created_at: Date;
}

const toVerification = (r: VerificationRow): BeneficiaryVerification => ({
  id: r.id,
  merchantId: r.merchant_id,
  accountNumber: r.account_number,
  ifsc: r.ifsc,
  nameGiven: r.name_given,
  accountStatus: r.account_status,
  nameAtBank: r.name_at_bank,
  score: Number(r.name_match_score),
  result: r.name_match_result,
  bankName: r.bank_name,
  utr: r.utr,
  createdAt: r.created_at,
});

export const VerificationRepository = {
  async insert(q: Queryable, v: BeneficiaryVerification): Promise<void> {
    await q.query(
      `INSERT INTO beneficiary_verifications (id, merchant_id, account_number, ifsc, name_given, account_status,
         name_at_bank, name_match_score, name_match_result, bank_name, utr, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        v.id,
        v.merchantId,
        v.accountNumber,
        v.ifsc,
        v.nameGiven,
        v.accountStatus,
        v.nameAtBank,
        v.score,
        v.result,
        v.bankName,
        v.utr,
        v.createdAt,
      ],
    );
  },

  /** The newest verification of each of these accounts (account number + IFSC) made since `since`. */
  async latest(
    q: Queryable,
    merchantId: string,
    accounts: { accountNumber: string; ifsc: string }[],
    since: Date,
  ): Promise<BeneficiaryVerification[]> {
    if (accounts.length === 0) return [];
    const { rows } = await q.query<VerificationRow>(
      `SELECT DISTINCT ON (v.account_number, v.ifsc) v.*
         FROM beneficiary_verifications v
         JOIN unnest($2::text[], $3::text[]) AS a (account_number, ifsc)
           ON v.account_number = a.account_number AND v.ifsc = a.ifsc
        WHERE v.merchant_id = $1 AND v.created_at >= $4
        ORDER BY v.account_number, v.ifsc, v.created_at DESC`,
      [merchantId, accounts.map((a) => a.accountNumber), accounts.map((a) => a.ifsc), since],
    );
    return rows.map(toVerification);
  },
};
