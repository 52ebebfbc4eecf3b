import {
  formatPaise,
  isId,
  isSenderId,
  PayoutCodes,
  withMessage,
  type BalanceWire,
  type CodeDef,
  type Scheme,
} from '@payrail/protocol';
import { bankRuleRejection, type BankRules } from '../domain/bankRules.ts';
import { newId } from '../domain/ids.ts';
import { istDay, istMonth } from '../domain/istPeriod.ts';
import type { Merchant } from '../domain/Merchant.ts';
import { toPayoutWire, type Payout } from '../domain/Payout.ts';
import { checkSenderId, checkWalletIdShape, parsePayoutFields } from '../domain/payoutRequest.ts';
import { DEFAULT_STATUS_MESSAGE } from '../domain/payoutStateMachine.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { BankConnector } from '../rails/BankConnector.ts';
import type { Database } from '../store/Database.ts';
import { PayoutOpenRefused, PayoutRepository, type OpenRefusal } from '../store/repositories/PayoutRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { BankDirectory } from './BankDirectory.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';
import type { PayoutLifecycle } from './PayoutLifecycle.ts';

/** The codes of the refusals the database makes while recording a payout, in the contract's order. */
const REFUSAL_CODES: Record<OpenRefusal, CodeDef> = {
  insufficient_balance: PayoutCodes.insufficientBalance,
  daily_limit: PayoutCodes.dailyLimitExceeded,
  monthly_limit: PayoutCodes.monthlyLimitExceeded,
};

/** Merchant-side payouts: initiation with every check of CONTRACT.md §4 in order, status and balance. */
export class PayoutService {
  constructor(
    private readonly db: Database,
    private readonly rail: BankConnector,
    private readonly lifecycle: PayoutLifecycle,
    private readonly bankRules: BankRules,
    private readonly banks: BankDirectory,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Initiates a payout from a decrypted request. Throws RequestRejected with the first failing check's code;
   * a refused request records nothing and moves no money (everything that writes is one transaction).
   */
  async initiate(merchant: Merchant, scheme: Scheme, plain: Record<string, unknown>): Promise<Payout> {
    try {
      return await this.initiateChecked(merchant, scheme, plain);
    } catch (err) {
      if (err instanceof RequestRejected) this.metrics.payoutsRejected.inc({ code: String(err.def.code) });
      throw err;
    }
  }

  private async initiateChecked(merchant: Merchant, scheme: Scheme, plain: Record<string, unknown>) {
    const senderId = checkSenderId(plain);
    const walletId = checkWalletIdShape(plain);
    const wallet = await WalletRepository.findById(this.db, walletId);
    if (!wallet || wallet.merchantId !== merchant.id) {
      throw new RequestRejected(withMessage(PayoutCodes.invalidWallet, 'Unknown wallet_id'));
    }
    const fields = parsePayoutFields(plain, (ifsc) => this.banks.isKnownBranch(ifsc));
    if (fields.callbackUrl !== null) {
      const problem = await this.callbackPolicy.check(fields.callbackUrl);
      if (problem) throw new RequestRejected(withMessage(PayoutCodes.invalidField, `Invalid callback_url: ${problem}`));
    }
    const bankRefusal = (await this.rail.verifyBeneficiary(fields.accountNumber, fields.ifsc))
      ? bankRuleRejection(this.bankRules, fields.ifsc)
      : PayoutCodes.beneficiaryVerificationFailed;
    if (bankRefusal) {
      // 4009 comes before the bank rules; on the happy path the unique constraint finds duplicates instead.
      await this.refuseDuplicate(merchant.id, senderId);
      throw new RequestRejected(bankRefusal);
    }

    const now = new Date();
    const draft: Payout = {
      id: newId('payout', now.getTime()),
      merchantId: merchant.id,
      walletId,
      senderId,
      amount: fields.amount,
      paymentMode: fields.paymentMode,
      beneficiary: {
        name: fields.beneficiaryName,
        accountNumber: fields.accountNumber,
        ifsc: fields.ifsc,
        bankName: this.banks.bankName(fields.ifsc),
      },
      remarks: fields.remarks,
      callbackUrl: fields.callbackUrl,
      scheme,
      status: 'INITIATED',
      statusMessage: DEFAULT_STATUS_MESSAGE.INITIATED,
      utr: '',
      rail: this.rail.name,
      railReference: null,
      submittedAt: null,
      submitAttempts: 0,
      railError: null,
      failureReason: null,
      istDay: istDay(now),
      istMonth: istMonth(now),
      createdAt: now,
      updatedAt: now,
    };

    let payout: Payout | null;
    try {
      payout = await PayoutRepository.open(this.db, draft, {
        dailyLimit: merchant.dailyLimit,
        monthlyLimit: merchant.monthlyLimit,
        firstStepDelayMs: this.rail.submitDelayMs,
      });
    } catch (err) {
      if (err instanceof PayoutOpenRefused) throw new RequestRejected(REFUSAL_CODES[err.reason]);
      throw err;
    }
    if (!payout) {
      // The unique constraint found a committed payout with this sender_id: answer 4009 with it.
      await this.refuseDuplicate(merchant.id, senderId);
      throw new RequestRejected(PayoutCodes.duplicateSenderId);
    }
    this.metrics.payoutsInitiated.inc({ mode: payout.paymentMode });
    return payout;
  }

  /** 4009 with the existing payout in `data`, when this merchant already used the sender_id. */
  private async refuseDuplicate(merchantId: string, senderId: string): Promise<void> {
    const existing = await PayoutRepository.findBySenderId(this.db, merchantId, senderId);
    if (existing) throw new RequestRejected(PayoutCodes.duplicateSenderId, toPayoutWire(existing));
  }

  /** The caller's payout by one identifier; another merchant's is "not found" (no leak of existence). */
  async find(merchantId: string, by: { transactionId?: string; senderId?: string }): Promise<Payout | null> {
    let payout: Payout | null = null;
    if (by.transactionId !== undefined) {
      payout = isId('payout', by.transactionId) ? await PayoutRepository.findById(this.db, by.transactionId) : null;
    } else if (by.senderId !== undefined) {
      // A sender_id that could never have been accepted matches nothing (and may not even be storable text).
      payout = isSenderId(by.senderId) ? await PayoutRepository.findBySenderId(this.db, merchantId, by.senderId) : null;
    }
    return payout && payout.merchantId === merchantId ? payout : null;
  }

  async balance(merchantId: string, walletId: string): Promise<BalanceWire | null> {
    const wallet = isId('wallet', walletId) ? await WalletRepository.findById(this.db, walletId) : null;
    if (!wallet || wallet.merchantId !== merchantId) return null;
    const onHold = await WalletRepository.onHold(this.db, walletId);
    return {
      wallet_id: wallet.id,
      balance: formatPaise(wallet.balance),
      on_hold: formatPaise(onHold),
      currency: 'INR',
      updated_at: wallet.updatedAt.toISOString(),
    };
  }
}
