import type { PaymentMode } from '@payrail/protocol';
import { isAccountNumber, isIfsc, normalIfsc } from './deposit.ts';
import { IMPS_MAX_PAISE } from './settlement.ts';

/** Where a deposit credited nowhere goes back to: the account that sent it, as the bank reported it. */
export interface ReturnTarget {
  utr: string;
  amount: bigint;
  name: string;
  account: string;
  ifsc: string;
  virtualAccount: string;
  creditedAt: Date | null;
  mode: PaymentMode;
}

export type ReturnTargetResult = { ok: true; target: ReturnTarget } | { ok: false; message: string };

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * The return of a deposit to its sender, read from what the bank reported (an exception's `reported`, and `held.credited_at`): the UTR, the
 * remitter's account, IFSC and name, each required, since money goes back only to the account it came from (the
 * operator cannot name another). The mode is the settlements' rule: IMPS up to ₹5,00,000, NEFT above.
 */
export function returnTargetOf(
  reported: Record<string, unknown>,
  held: Record<string, unknown>,
  amount: bigint | null,
): ReturnTargetResult {
  const utr = text(reported.utr);
  if (!utr || amount === null || amount <= 0n) {
    return { ok: false, message: 'the exception names no deposit (a UTR and an amount) to return' };
  }
  const account = text(reported.remitter_account);
  if (!account || !isAccountNumber(account)) {
    return {
      ok: false,
      message: `remitter_account ${account ? 'is not an account number' : 'is missing'} in the bank's report: the money cannot be returned through Payrail; return it at the bank, then dismiss`,
    };
  }
  const ifsc = normalIfsc(text(reported.remitter_ifsc));
  if (!isIfsc(ifsc)) {
    return {
      ok: false,
      message: `remitter_ifsc ${ifsc ? 'is not an IFSC' : 'is missing'} in the bank's report: the money cannot be returned through Payrail; return it at the bank, then dismiss`,
    };
  }
  const name = text(reported.remitter_name).slice(0, 140);
  if (!name) {
    return {
      ok: false,
      message:
        "remitter_name is missing in the bank's report: the money cannot be returned through Payrail; return it at the bank, then dismiss",
    };
  }
  // When the bank credited it: kept beside what was reported (the same credit by two routes is one exception).
  const at = typeof held.credited_at === 'string' ? new Date(held.credited_at) : null;
  return {
    ok: true,
    target: {
      utr,
      amount,
      name,
      account,
      ifsc,
      virtualAccount: text(reported.virtual_account).slice(0, 40) || '-',
      creditedAt: at && !Number.isNaN(at.getTime()) ? at : null,
      mode: amount <= IMPS_MAX_PAISE ? 'IMPS' : 'NEFT',
    },
  };
}
