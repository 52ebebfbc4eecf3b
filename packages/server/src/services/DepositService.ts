import type { Clock } from '../clock.ts';
import { depositWire, newDepositId, type Deposit, type DepositReport } from '../domain/deposit.ts';
import { parseVirtualAccount, virtualAccountNumber, type VirtualAccountSettings } from '../domain/virtualAccount.ts';
import type { Wallet } from '../domain/Merchant.ts';
import type { Database, Queryable } from '../store/Database.ts';
import { DepositRepository, type DepositTarget } from '../store/repositories/DepositRepository.ts';
import { ExceptionRepository, type ExceptionRecord } from '../store/repositories/ExceptionRepository.ts';
import { recordExceptions, reportedOf } from './exceptionRecords.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';

/** Where a deposit report came from: the PSP's signed notification, the sandbox route, or a bank file's credit. */
export type DepositSource = 'psp_notify' | 'sandbox' | 'bank_file';

export type DepositOutcome =
  /** Credited now (`duplicate` false), or this UTR was credited before and nothing changed (`duplicate` true). */
  | { kind: 'credited'; deposit: Deposit; duplicate: boolean }
  /** Not credited: recorded (once) as an exception for finance to assign or dismiss. */
  | { kind: 'excepted'; exception: ExceptionRecord };

/** An exception assigned to a wallet that cannot be credited: nothing changed. */
export class DepositAssignRefused extends Error {}

/**
 * Deposits (docs/merchant/funding-a-wallet.md): a bank credit to a wallet's virtual account, credited once per UTR
 * with the fee and GST of the merchant's DEPOSIT rule, a `deposit.credited` webhook to its collection callback. A
 * number that names no wallet (or whose check digit fails), or a remitter outside the merchant's non-empty allowed
 * list, credits nothing: it is recorded once as an exception (`unknown_virtual_account`, `remitter_not_allowed`)
 * that finance assigns to a wallet or dismisses (services/ExceptionService.ts). Nothing is credited to a guessed
 * wallet.
 */
export class DepositService {
  constructor(
    private readonly db: Database,
    private readonly options: { virtualAccounts: VirtualAccountSettings; gstRateBp: number; clock: Clock },
  ) {}

  /** The wallet's virtual account, or null while it has none to show (a platform wallet; live without the IFSC). */
  virtualAccountOf(wallet: Wallet): { number: string; ifsc: string } | null {
    const { prefix, ifsc } = this.options.virtualAccounts;
    if (ifsc === null || wallet.vaSeq === undefined || wallet.vaSeq === null) return null;
    return { number: virtualAccountNumber(prefix, wallet.vaSeq), ifsc };
  }

  /** A bank's report of a credit: credited, answered as credited before, or recorded as an exception. */
  receive(report: DepositReport, source: DepositSource): Promise<DepositOutcome> {
    return this.db.transaction(async (tx): Promise<DepositOutcome> => {
      const earlier = await DepositRepository.findByUtr(tx, report.utr);
      if (earlier) return { kind: 'credited', deposit: earlier, duplicate: true };
      const seq = parseVirtualAccount(this.options.virtualAccounts.prefix, report.virtualAccount);
      const target = seq === null ? null : await DepositRepository.targetBySeq(tx, seq);
      if (!target) {
        return this.except(tx, report, source, {
          kind: 'unknown_virtual_account',
          reason:
            seq === null
              ? `${report.virtualAccount} is not a virtual account number of this operator (prefix or check digit)`
              : `virtual account ${report.virtualAccount} belongs to no wallet`,
          held: {},
        });
      }
      if (!remitterAllowed(target, report)) {
        return this.except(tx, report, source, {
          kind: 'remitter_not_allowed',
          target,
          reason: `remitter ${report.remitterAccount ?? '(no account)'} at ${report.remitterIfsc ?? '(no IFSC)'} is not on the allowed remitters of merchant ${target.merchantId}`,
          held: {
            wallet_id: target.walletId,
            allowed_remitters: target.allowed.map((a) => ({ account_number: a.accountNumber, ifsc: a.ifsc })),
          },
        });
      }
      const credited = await this.credit(tx, target, report, source, null);
      return { kind: 'credited', deposit: credited.deposit, duplicate: !credited.created };
    });
  }

  /**
   * An exception's deposit credited to `walletId`, inside the resolution's transaction (the exception locked by the
   * caller): priced as a deposit, once per UTR. The operator's choice waives the allowed-remitter check.
   */
  async assignWithin(tx: Queryable, exception: ExceptionRecord, walletId: string): Promise<Deposit> {
    const r = exception.reported;
    const utr = typeof r.utr === 'string' ? r.utr : null;
    const amount = exception.amount;
    if (!utr || amount === null || amount <= 0n) throw new DepositAssignRefused('the exception names no deposit');
    const target = await DepositRepository.targetByWallet(tx, walletId);
    if (!target) throw new DepositAssignRefused(`wallet ${walletId} is no merchant's wallet`);
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const held = exception.held;
    const report: DepositReport = {
      virtualAccount: text(r.virtual_account) ?? '',
      amount,
      utr,
      remitterName: text(r.remitter_name),
      remitterAccount: text(r.remitter_account),
      remitterIfsc: text(r.remitter_ifsc),
      creditedAt: typeof held.credited_at === 'string' ? new Date(held.credited_at) : null,
    };
    const credited = await this.credit(tx, target, report, 'exception', exception.id);
    if (!credited.created) {
      throw new DepositAssignRefused(
        `UTR ${utr} is credited already (deposit ${credited.deposit.id} to wallet ${credited.deposit.walletId})`,
      );
    }
    return credited.deposit;
  }

  private async credit(
    tx: Queryable,
    target: DepositTarget,
    report: DepositReport,
    source: Deposit['source'],
    exceptionId: string | null,
  ): Promise<{ deposit: Deposit; created: boolean }> {
    const now = this.options.clock();
    const credited = await DepositRepository.credit(
      tx,
      {
        id: newDepositId(now),
        walletId: target.walletId,
        amount: report.amount,
        utr: report.utr,
        virtualAccount: report.virtualAccount || '-',
        remitterName: report.remitterName,
        remitterAccount: report.remitterAccount,
        remitterIfsc: report.remitterIfsc,
        source,
        exceptionId,
        creditedAt: report.creditedAt ?? new Date(now),
      },
      this.options.gstRateBp,
    );
    if (credited.created) {
      const merchant = await DepositRepository.merchantWebhook(tx, target.merchantId);
      await enqueueWebhook(
        tx,
        {
          merchantId: target.merchantId,
          subjectId: credited.deposit.id,
          type: 'deposit.credited',
          url: merchant?.url ?? null,
          scheme: merchant?.scheme ?? 'v2',
          object: depositWire(credited.deposit),
        },
        new Date(now),
      );
    }
    return credited;
  }

  private async except(
    tx: Queryable,
    report: DepositReport,
    source: DepositSource,
    what: {
      kind: 'unknown_virtual_account' | 'remitter_not_allowed';
      reason: string;
      held: Record<string, unknown>;
      target?: DepositTarget;
    },
  ): Promise<DepositOutcome> {
    const now = this.options.clock();
    // What was reported, without when or by which route: the same bank credit arriving by the PSP and by the
    // sandbox is one exception.
    const [id] = await recordExceptions(
      tx,
      [
        {
          kind: what.kind,
          source: 'deposit',
          sourceRef: source,
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
        },
      ],
      now,
    );
    const exception = await ExceptionRepository.findById(tx, id as string);
    return { kind: 'excepted', exception: exception as ExceptionRecord };
  }

  /** A page of a merchant wallet's deposits, newest first; null when there is no such merchant wallet. */
  async pageByWallet(walletId: string, limit: number, before: string | undefined): Promise<Deposit[] | null> {
    if (!(await DepositRepository.targetByWallet(this.db, walletId))) return null;
    return DepositRepository.pageByWallet(this.db, walletId, limit, before);
  }

  /** Replaces a merchant's allowed remitters (none: all allowed); false when there is no such merchant. */
  setAllowedRemitters(
    merchantId: string,
    accounts: readonly { accountNumber: string; ifsc: string }[],
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await DepositRepository.merchantWebhook(tx, merchantId))) return false;
      await DepositRepository.replaceAllowedRemitters(tx, merchantId, accounts);
      return true;
    });
  }

  allowedRemitters(merchantId: string): Promise<{ accountNumber: string; ifsc: string }[]> {
    return DepositRepository.allowedRemitters(this.db, merchantId);
  }
}

/** A remitter on the merchant's list, or any remitter when the list is empty. */
function remitterAllowed(target: DepositTarget, report: DepositReport): boolean {
  if (target.allowed.length === 0) return true;
  return target.allowed.some((a) => a.accountNumber === report.remitterAccount && a.ifsc === report.remitterIfsc);
}
