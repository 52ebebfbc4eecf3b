import { formatPaise, parseRupees } from '@payrail/protocol';
import { ulidFactory } from './ulidFactory.ts';

const ulid = ulidFactory();

/** A deposit's identifier: `DP` + ULID (time-ordered). */
export function newDepositId(now: number): string {
  return 'DP' + ulid(now);
}

/** A bank credit to a virtual account (migration 032's `deposits`), credited to its wallet once per UTR. */
export interface Deposit {
  id: string;
  utr: string;
  merchantId: string;
  walletId: string;
  /** Paise. */
  amount: bigint;
  fee: bigint;
  tax: bigint;
  virtualAccount: string;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
  source: 'psp_notify' | 'sandbox' | 'bank_file' | 'exception';
  exceptionId: string | null;
  creditedAt: Date;
  createdAt: Date;
}

/** What a bank (or the sandbox) reports of a credit to a virtual account. */
export interface DepositReport {
  virtualAccount: string;
  amount: bigint;
  utr: string;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
  /** When the bank credited it; the receiving clock's time when the report gives none. */
  creditedAt: Date | null;
}

const UTR = /^[0-9A-Za-z]{1,64}$/;
const IFSC = /^[A-Z]{4}0[A-Z0-9]{6}$/;
const ACCOUNT = /^[0-9A-Za-z]{1,34}$/;

/** An IFSC as compared: upper case, trimmed. */
export const normalIfsc = (ifsc: string): string => ifsc.trim().toUpperCase();

/** Whether `s` is an IFSC (4 letters, 0, 6 letters or digits). */
export const isIfsc = (s: string): boolean => IFSC.test(s);

/** Whether `s` is a bank account number as remitters are listed (1–34 letters or digits). */
export const isAccountNumber = (s: string): boolean => ACCOUNT.test(s);

const optionalText = (v: unknown, max: number): string | null | undefined => {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > max) return undefined;
  return v.trim();
};

/**
 * A deposit report from a request body (the sandbox route's, the PSP's), or what is wrong with it. The virtual
 * account is not checked here: a number that names no wallet is still a deposit the bank made (an exception).
 */
export function parseDepositReport(
  body: Record<string, unknown>,
  opts: { creditedAt: boolean },
): { ok: true; report: DepositReport } | { ok: false; message: string } {
  const va = body.virtual_account;
  if (typeof va !== 'string' || va.trim() === '' || va.length > 40) {
    return { ok: false, message: 'virtual_account is required (at most 40 characters)' };
  }
  const amount = parseRupees(body.amount);
  if (amount === null) return { ok: false, message: 'amount must be a positive amount like "1000.00"' };
  const utr = body.utr;
  if (typeof utr !== 'string' || !UTR.test(utr.trim())) {
    return { ok: false, message: 'utr is required: 1 to 64 letters or digits' };
  }
  const name = optionalText(body.remitter_name, 140);
  if (name === undefined) return { ok: false, message: 'remitter_name must be text of at most 140 characters' };
  const account = optionalText(body.remitter_account, 34);
  if (account === undefined || (account !== null && !ACCOUNT.test(account))) {
    return { ok: false, message: 'remitter_account must be 1 to 34 letters or digits' };
  }
  const rawIfsc = optionalText(body.remitter_ifsc, 11);
  const ifsc = rawIfsc ? normalIfsc(rawIfsc) : rawIfsc;
  if (ifsc === undefined || (ifsc !== null && !IFSC.test(ifsc))) {
    return { ok: false, message: 'remitter_ifsc must be an IFSC like HDFC0001234' };
  }
  let creditedAt: Date | null = null;
  if (opts.creditedAt && body.credited_at !== undefined && body.credited_at !== null) {
    const at = typeof body.credited_at === 'string' ? new Date(body.credited_at) : null;
    if (!at || Number.isNaN(at.getTime())) {
      return { ok: false, message: 'credited_at must be an ISO 8601 date-time with its offset' };
    }
    creditedAt = at;
  }
  return {
    ok: true,
    report: {
      virtualAccount: va.trim(),
      amount,
      utr: utr.trim(),
      remitterName: name,
      remitterAccount: account,
      remitterIfsc: ifsc,
      creditedAt,
    },
  };
}

/** A deposit as the admin API and the `deposit.credited` webhook show it (amounts as rupees text). */
export function depositWire(d: Deposit): Record<string, unknown> {
  return {
    deposit_id: d.id,
    merchant_id: d.merchantId,
    wallet_id: d.walletId,
    virtual_account: d.virtualAccount,
    amount: formatPaise(d.amount),
    fees: formatPaise(d.fee),
    tax: formatPaise(d.tax),
    utr: d.utr,
    remitter_name: d.remitterName,
    remitter_account: d.remitterAccount,
    remitter_ifsc: d.remitterIfsc,
    source: d.source,
    ...(d.exceptionId ? { exception_id: d.exceptionId } : {}),
    credited_at: d.creditedAt.toISOString(),
    created_at: d.createdAt.toISOString(),
  };
}
