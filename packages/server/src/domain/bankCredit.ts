import { formatPaise } from '@payrail/protocol';
import { isAccountNumber, isIfsc, normalIfsc, type DepositReport } from './deposit.ts';
import { VA_SEQ_DIGITS } from './virtualAccount.ts';

/**
 * A credit to the operator's collection account as a bank file reports it (a camt.054 or camt.053 transaction, an
 * MT940 :61: with its :86:), and when it is a deposit to a virtual account (docs/operator/bank-files.md, "Deposits").
 * Pure: the parsers fill it in, the deposits service decides where it goes.
 */
export interface BankCredit {
  /** Paise; null when a batched entry does not give the transaction's own amount. */
  amount: bigint | null;
  currency: string | null;
  /**
   * The bank's reference of the transfer, which is the deposit's UTR: the clearing system reference (camt
   * Refs/ClrSysRef, the NEFT/IMPS/RTGS UTR) when the bank gives one, else the bank's own reference (AcctSvcrRef;
   * MT940: a UTR written in :86:, else the bank reference after //). Never the EndToEndId: that is the remitter's
   * own reference, which two remitters may share.
   */
  utr: string | null;
  /** The creditor account the bank credited (camt RltdPties/CdtrAcct), where a bank names the virtual account. */
  creditorAccount: string | null;
  /** Unstructured remittance information (camt RmtInf/Ustrd; MT940 :86:), where other banks name it. */
  remittance: string | null;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
}

/** What a credit is: not a deposit (it names no virtual account), a deposit report, or a deposit it cannot credit. */
export type CreditReading =
  | { kind: 'other' }
  | { kind: 'deposit'; report: DepositReport }
  | { kind: 'refused'; virtualAccount: string; reason: string };

/** A bank reference kept as a deposit's UTR: 1 to 64 letters, digits and the separators banks use. */
const UTR = /^[0-9A-Za-z][0-9A-Za-z/_.-]{0,63}$/;

/**
 * The virtual account number a credit names, or null: its creditor account when that has the shape of one of this
 * prefix's numbers (the prefix, then ten digits and a check digit), else the first such run of digits in the
 * remittance information. The shape only: a number whose check digit fails is still named (and becomes an
 * `unknown_virtual_account` exception), so a remitter's typo is recorded, never credited elsewhere.
 */
export function virtualAccountNamed(
  prefix: string,
  creditorAccount: string | null,
  remittance: string | null,
): string | null {
  const length = prefix.length + VA_SEQ_DIGITS + 1;
  const shaped = (n: string) => n.length === length && n.startsWith(prefix) && /^[0-9]+$/.test(n);
  const account = creditorAccount?.replace(/\s+/g, '') ?? '';
  if (shaped(account)) return account;
  if (!remittance) return null;
  for (const run of remittance.matchAll(/[0-9]+/g)) if (shaped(run[0])) return run[0];
  return null;
}

/**
 * Reads a bank file's credit: a deposit report when it names a virtual account and can be credited (a UTR, an
 * amount in rupees); refused, with why, when it names one but cannot; `other` when it names none (the account's
 * other credits: returns, collections, the operator's own transfers). `creditedAt` is left to the receiving clock.
 */
export function readBankCredit(prefix: string, credit: BankCredit): CreditReading {
  const virtualAccount = virtualAccountNamed(prefix, credit.creditorAccount, credit.remittance);
  if (virtualAccount === null) return { kind: 'other' };
  const refused = (reason: string): CreditReading => ({ kind: 'refused', virtualAccount, reason });
  if (credit.currency !== null && credit.currency !== 'INR') {
    return refused(`a credit in ${credit.currency} to virtual account ${virtualAccount}: deposits are in INR`);
  }
  if (credit.amount === null || credit.amount <= 0n) {
    return refused(`a credit to virtual account ${virtualAccount} without an amount of its own`);
  }
  const utr = credit.utr?.trim() ?? '';
  if (!UTR.test(utr)) {
    return refused(
      `a credit of ${formatPaise(credit.amount)} to virtual account ${virtualAccount} without a usable bank reference (ClrSysRef or AcctSvcrRef, at most 64 characters)`,
    );
  }
  const account = credit.remitterAccount?.replace(/\s+/g, '') ?? '';
  const ifsc = normalIfsc(credit.remitterIfsc ?? '');
  const name = credit.remitterName?.trim() ?? '';
  return {
    kind: 'deposit',
    report: {
      virtualAccount,
      amount: credit.amount,
      utr,
      remitterName: name ? name.slice(0, 140) : null,
      remitterAccount: isAccountNumber(account) ? account : null,
      remitterIfsc: isIfsc(ifsc) ? ifsc : null,
      creditedAt: null,
    },
  };
}
