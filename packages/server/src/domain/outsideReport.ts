import { EXCEPTION_KIND_NAMES, formatPaise, type PayoutStatus } from '@payrail/protocol';
import type { Payout } from './Payout.ts';

/**
 * The rules every report about a payout that comes from outside Payrail passes before it changes anything
 * (docs/operator/exceptions.md): an upstream event or poll answer, a signed PSP notification, a pain.002, a camt.054
 * entry. A report that fails one changes no payout and no wallet: it becomes an exception. Pure: the callers lock the
 * payout, read what was sent, and record the exception.
 */

/** The exceptions queue's kinds (protocol's list): refused reports, contradictions, reconciliation's results. */
export const EXCEPTION_KINDS = EXCEPTION_KIND_NAMES;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];

/** The refusals a report check makes. */
export type ReportRefusalKind = 'report_refused' | 'status_contradiction' | 'return_mismatch';

/** What an outside report says about one payout, as far as the rules need it. */
export interface PayoutReport {
  /** The connector the report belongs to: `upstream` (events, polls), `manual` (PSP notifications), `bankfile`. */
  connector: string;
  status: string;
  /** A failure or a refund reported about a SUCCESS payout means its money came back (upstream): else never. */
  failureIsReturn: boolean;
  /** The amount the report carries, in paise, and its currency (INR when the source has no other). */
  amount?: bigint;
  currency?: string;
  /** The connector's own reference of the transfer (the upstream's `transaction_id`). */
  railReference?: string;
  /** A pain.002: the file (`OrgnlMsgId`) and, when it names one, the payment block (`OrgnlPmtInfId`) it reports on. */
  file?: { msgId: string; pmtInfId?: string };
}

/** What Payrail holds of the payout a report names. */
export interface HeldPayout {
  id: string;
  rail: string;
  status: PayoutStatus;
  amount: bigint;
  paymentMode: string;
  railReference: string | null;
  /** Returned after SUCCESS (REFUNDED, but the bank had paid it). */
  returned: boolean;
  /** The bank file (MsgId) the payout went into, for bank-file payouts; null when in none. */
  fileMsgId?: string | null;
}

/** A payout as the checks see it; `fileMsgId` for a bank-file payout's file, when the caller knows it. */
export function heldPayout(p: Payout, fileMsgId?: string | null): HeldPayout {
  return {
    id: p.id,
    rail: p.rail,
    status: p.status,
    amount: p.amount,
    paymentMode: p.paymentMode,
    railReference: p.railReference,
    returned: Boolean(p.returnedAt),
    ...(fileMsgId === undefined ? {} : { fileMsgId }),
  };
}

export type ReportCheck = { ok: true } | { ok: false; kind: ReportRefusalKind; reason: string };

const RETURN_STATUSES = new Set(['RETURNED', 'REFUNDED']);

/** True when the report, if applied, would send the payout's money back (a return, or a failure before SUCCESS). */
function movesMoneyBack(held: HeldPayout, report: PayoutReport): boolean {
  if (RETURN_STATUSES.has(report.status)) return true;
  return report.status === 'FAILED' && (held.status !== 'SUCCESS' || report.failureIsReturn);
}

const money = (currency: string, amount: bigint) => `${currency} ${formatPaise(amount)}`;

/**
 * Checks `report` against `held`, in this order: its source (connector, then the file a status report names), the
 * connector's reference, the amount and currency to the paisa, and whether it may move money back at all.
 */
export function checkPayoutReport(held: HeldPayout, report: PayoutReport): ReportCheck {
  if (report.connector !== held.rail) {
    return {
      ok: false,
      kind: 'report_refused',
      reason: `a report from the ${report.connector} connector about payout ${held.id}, which is paid through ${held.rail}`,
    };
  }
  if (report.file) {
    const inFile = held.fileMsgId ?? null;
    if (inFile !== report.file.msgId) {
      return {
        ok: false,
        kind: 'report_refused',
        reason: `a status report on file ${report.file.msgId} about payout ${held.id}, which ${inFile ? `went in file ${inFile}` : 'is in no file'}`,
      };
    }
    const block = `${report.file.msgId}-${held.paymentMode}`;
    if (report.file.pmtInfId !== undefined && report.file.pmtInfId !== block) {
      return {
        ok: false,
        kind: 'report_refused',
        reason: `a status report on payment block ${report.file.pmtInfId} about payout ${held.id}, which is in block ${block}`,
      };
    }
  }
  if (
    report.railReference !== undefined &&
    held.railReference !== null &&
    report.railReference !== held.railReference
  ) {
    return {
      ok: false,
      kind: 'report_refused',
      reason: `a report about transfer ${report.railReference}, but payout ${held.id} was sent as ${held.railReference}`,
    };
  }
  const backward = movesMoneyBack(held, report);
  if (report.amount !== undefined) {
    const currency = report.currency ?? 'INR';
    if (currency !== 'INR' || report.amount !== held.amount) {
      return {
        ok: false,
        kind: backward ? 'return_mismatch' : 'report_refused',
        reason: `reported ${report.status} of ${money(currency, report.amount)}, but payout ${held.id} is for ${money('INR', held.amount)}`,
      };
    }
  }
  // (A returned payout's money is back already: a failure reported about it moves nothing, and is no news.)
  if (held.status === 'SUCCESS' && report.status === 'FAILED' && !report.failureIsReturn) {
    return {
      ok: false,
      kind: 'status_contradiction',
      reason: `a failure reported about payout ${held.id}, which the bank paid (SUCCESS): a status report never moves money back`,
    };
  }
  return { ok: true };
}
