import type { Clock } from '../clock.ts';
import { readBankCredit, type BankCredit } from '../domain/bankCredit.ts';
import { depositWire, newDepositId, type DepositReport } from '../domain/deposit.ts';
import { newId } from '../domain/ids.ts';
import { parseVirtualAccount, type VirtualAccountSettings } from '../domain/virtualAccount.ts';
import type { Queryable } from '../store/Database.ts';
import {
  DepositRepository,
  type DepositTarget,
  type FileDepositTarget,
  type NewDeposit,
} from '../store/repositories/DepositRepository.ts';
import type { NewException } from '../store/repositories/ExceptionRepository.ts';
import { WebhookRepository } from '../store/repositories/WebhookRepository.ts';
import { recordExceptions, reportedOf } from './exceptionRecords.ts';

/** The exceptions queue's source for a bank file's credit that names a virtual account but cannot be credited. */
const BANKFILE_SOURCE = 'bankfile';

/** What a file's credits to virtual accounts came to; `refused` names each credit not credited, and why. */
export interface FileDeposits {
  credited: number;
  /** Credits whose UTR was credited before (by the PSP, the sandbox, an earlier file, or earlier in this file). */
  duplicates: number;
  /** Recorded as exceptions (unknown virtual account, remitter not allowed, unusable credit). */
  excepted: number;
  refused: string[];
  /** Wallets the deposits credit: the caller locks them with the file's others before `credit`. */
  wallets: string[];
  /** Writes the deposits' ledger entries and webhooks; the caller holds `wallets`' locks. */
  credit(tx: Queryable): Promise<void>;
}

/**
 * Deposits from the bank's files (docs/operator/bank-files.md, "Deposits"): every credit of a camt.054, camt.053 or
 * MT940 that names a virtual account, applied set-based in the file's transaction, with exactly the rules of
 * DepositService.receive: once per UTR whichever way it arrived first (the PSP's notification, the sandbox, a file),
 * an unknown number or a remitter outside the merchant's allowed list recorded as the same exception the
 * notification opens (never failing the file), a `deposit.credited` webhook for each credited. A fixed number of
 * statements whatever the file's size: no statement per deposit.
 */
export class BankFileDeposits {
  constructor(private readonly options: { virtualAccounts: VirtualAccountSettings; gstRateBp: number; clock: Clock }) {}

  /**
   * Records the file's deposits (their rows: the first step of the lock order, beside the file's payouts) and its
   * exceptions, and answers what remains to write once the caller has locked the wallets: `credit`.
   */
  async prepare(tx: Queryable, credits: readonly BankCredit[], fileName: string): Promise<FileDeposits> {
    const now = this.options.clock();
    const prefix = this.options.virtualAccounts.prefix;
    const exceptions: NewException[] = [];
    const refused: string[] = [];
    const reports: DepositReport[] = [];
    for (const credit of credits) {
      const reading = readBankCredit(prefix, credit);
      if (reading.kind === 'other') continue;
      if (reading.kind === 'deposit') {
        reports.push(reading.report);
        continue;
      }
      refused.push(reading.reason);
      exceptions.push({
        kind: 'report_refused',
        source: BANKFILE_SOURCE,
        sourceRef: fileName,
        amount: credit.amount,
        reported: reportedOf({
          file: fileName,
          virtual_account: reading.virtualAccount,
          amount: credit.amount ?? undefined,
          currency: credit.currency ?? undefined,
          utr: credit.utr ?? undefined,
          remitter_name: credit.remitterName ?? undefined,
        }),
        held: {},
        reason: `${reading.reason}; nothing credited`,
      });
    }

    // A UTR credited before is answered as credited, as the notification answers it: no exception, no second credit.
    const earlier = new Set(
      (await DepositRepository.findByUtrs(tx, distinct(reports.map((r) => r.utr)))).map((d) => d.utr),
    );
    const fresh = reports.filter((r) => !earlier.has(r.utr));
    let duplicates = reports.length - fresh.length;
    const seqOf = new Map(fresh.map((r) => [r, parseVirtualAccount(prefix, r.virtualAccount)]));
    const seqs = distinct([...seqOf.values()].filter((s): s is bigint => s !== null).map(String)).map(BigInt);
    const targets = await DepositRepository.targetsBySeq(tx, seqs);

    const toCredit: { report: DepositReport; target: FileDepositTarget }[] = [];
    for (const report of fresh) {
      const seq = seqOf.get(report) ?? null;
      const target = seq === null ? undefined : targets.get(String(seq));
      if (!target) {
        refused.push(`UTR ${report.utr}: virtual account ${report.virtualAccount} names no wallet`);
        exceptions.push(
          depositException(report, now, {
            kind: 'unknown_virtual_account',
            reason:
              seq === null
                ? `${report.virtualAccount} is not a virtual account number of this operator (prefix or check digit)`
                : `virtual account ${report.virtualAccount} belongs to no wallet`,
            held: {},
          }),
        );
        continue;
      }
      if (!remitterAllowed(target, report)) {
        refused.push(`UTR ${report.utr}: remitter not allowed for merchant ${target.merchantId}`);
        exceptions.push(
          depositException(report, now, {
            kind: 'remitter_not_allowed',
            target,
            reason: `remitter ${report.remitterAccount ?? '(no account)'} at ${report.remitterIfsc ?? '(no IFSC)'} is not on the allowed remitters of merchant ${target.merchantId}`,
            held: {
              wallet_id: target.walletId,
              allowed_remitters: target.allowed.map((a) => ({ account_number: a.accountNumber, ifsc: a.ifsc })),
            },
          }),
        );
        continue;
      }
      toCredit.push({ report, target });
    }
    await recordExceptions(tx, exceptions, now);

    const rows: NewDeposit[] = toCredit.map(({ report, target }) => ({
      id: newDepositId(now),
      walletId: target.walletId,
      amount: report.amount,
      utr: report.utr,
      virtualAccount: report.virtualAccount,
      remitterName: report.remitterName,
      remitterAccount: report.remitterAccount,
      remitterIfsc: report.remitterIfsc,
      source: 'bank_file',
      exceptionId: null,
      creditedAt: new Date(now),
    }));
    const recorded = await DepositRepository.insertMany(tx, rows, 'bank_file', this.options.gstRateBp);
    const created = recorded.filter((r) => r.created);
    duplicates += recorded.length - created.length;
    const webhookOf = new Map(toCredit.map(({ target }) => [target.walletId, target]));
    return {
      credited: created.length,
      duplicates,
      excepted: exceptions.length,
      refused,
      wallets: distinct(created.map((c) => c.deposit.walletId)),
      async credit(q: Queryable): Promise<void> {
        await DepositRepository.creditMany(
          q,
          created.map((c) => c.deposit.id),
        );
        const at = new Date(now);
        const deliveries = created.flatMap(({ deposit: d }) => {
          const target = webhookOf.get(d.walletId);
          if (!target?.webhookUrl) return [];
          return [
            {
              id: newId('event', now),
              merchantId: d.merchantId,
              subjectId: d.id,
              type: 'deposit.credited' as const,
              url: target.webhookUrl,
              scheme: target.scheme,
              snapshot: JSON.stringify(depositWire(d)),
            },
          ];
        });
        await WebhookRepository.insertMany(q, deliveries, at);
      },
    };
  }
}

/**
 * The exception of a deposit that cannot be credited, built as DepositService.except builds it (what was reported,
 * without when or by which route), so that the same bank credit arriving by the PSP and in a file is one exception.
 */
function depositException(
  report: DepositReport,
  now: number,
  what: {
    kind: 'unknown_virtual_account' | 'remitter_not_allowed';
    reason: string;
    held: Record<string, unknown>;
    target?: DepositTarget;
  },
): NewException {
  return {
    kind: what.kind,
    source: 'deposit',
    sourceRef: 'bank_file',
    merchantId: what.target?.merchantId ?? null,
    walletId: what.target?.walletId ?? null,
    amount: report.amount,
    reported: reportedOf({
      virtual_account: report.virtualAccount,
      amount: report.amount,
      currency: 'INR',
      utr: report.utr,
      remitter_name: report.remitterName,
      remitter_account: report.remitterAccount,
      remitter_ifsc: report.remitterIfsc,
    }),
    held: { ...what.held, credited_at: (report.creditedAt ?? new Date(now)).toISOString() },
    reason: what.reason,
  };
}

/** A remitter on the merchant's list, or any remitter when the list is empty (DepositService's rule). */
function remitterAllowed(target: DepositTarget, report: DepositReport): boolean {
  if (target.allowed.length === 0) return true;
  return target.allowed.some((a) => a.accountNumber === report.remitterAccount && a.ifsc === report.remitterIfsc);
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
