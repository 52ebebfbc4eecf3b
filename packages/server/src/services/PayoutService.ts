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
import { spendable } from '../domain/lien.ts';
import type { Merchant, Wallet } from '../domain/Merchant.ts';
import { toPayoutWire, type Payout } from '../domain/Payout.ts';
import type { CommercialTerms } from '../domain/pricingPlan.ts';
import { checkSenderId, checkWalletIdShape, parsePayoutFields, type PayoutFields } from '../domain/payoutRequest.ts';
import { DEFAULT_STATUS_MESSAGE } from '../domain/payoutStateMachine.ts';
import { RequestRejected } from '../domain/RequestRejected.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { Database } from '../store/Database.ts';
import { PayoutOpenRefused, PayoutRepository, type OpenRefusal } from '../store/repositories/PayoutRepository.ts';
import { LienRepository } from '../store/repositories/LienRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { BankDirectory } from './BankDirectory.ts';
import type { BeneficiaryVerificationService } from './BeneficiaryVerificationService.ts';
import type { CallbackPolicy } from './CallbackPolicy.ts';
import { PayoutOpenGroups } from './PayoutOpenGroups.ts';
import { dateOf, type Clock } from '../clock.ts';

const UNKNOWN_WALLET = withMessage(PayoutCodes.invalidWallet, 'Unknown wallet_id');

/** The codes of the refusals the database makes while recording a payout, in the contract's order. */
const REFUSAL_CODES: Record<OpenRefusal, CodeDef> = {
  // Suspended or rotated since the token check read the merchant (its cache is bounded, the database is not).
  merchant_changed: PayoutCodes.unauthorized,
  foreign_wallet: UNKNOWN_WALLET,
  insufficient_balance: PayoutCodes.insufficientBalance,
  daily_limit: PayoutCodes.dailyLimitExceeded,
  monthly_limit: PayoutCodes.monthlyLimitExceeded,
  no_pricing: PayoutCodes.commercialsMissing,
};

/** An initiation request that passed every check that needs no write (everything before 4009). */
export interface CheckedRequest {
  senderId: string;
  walletId: string;
  fields: PayoutFields;
}

/** Finds a wallet by id; the bulk path answers from one query for the whole batch. */
export type WalletLookup = (walletId: string) => Promise<Wallet | null>;

/** Merchant-side payouts: initiation with every check of docs/merchant/api-reference.md in order, status and balance. */
export class PayoutService {
  constructor(
    private readonly db: Database,
    private readonly connectors: ConnectorRegistry,
    private readonly bankRules: BankRules,
    private readonly banks: BankDirectory,
    private readonly callbackPolicy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly verification: BeneficiaryVerificationService,
    private readonly clock: Clock,
    private readonly commercials: CommercialTerms,
    /**
     * Initiations in flight together are opened by one statement; a merchant's go one group at a time, in the order
     * they came (which also keeps a hot wallet's lock queue short).
     */
    private readonly openGroups = new PayoutOpenGroups(db, (size) => metrics.payoutOpenGroupSize.observe(size)),
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

  /**
   * The checks of docs/merchant/api-reference.md that precede 4009, in order: sender_id, wallet_id (known and the caller's),
   * payment_mode, amount, beneficiary, remarks, callback_url (including the webhook policy). Throws
   * RequestRejected with the first failure. Shared by single and bulk initiation.
   */
  async checkRequest(
    merchant: Merchant,
    plain: Record<string, unknown>,
    findWallet: WalletLookup = (id) => WalletRepository.findById(this.db, id),
    checkCallback: (url: string) => Promise<string | null> = (url) => this.callbackPolicy.check(url),
  ): Promise<CheckedRequest> {
    const senderId = checkSenderId(plain);
    const walletId = checkWalletIdShape(plain);
    await this.requireOwnWallet(merchant, walletId, findWallet);
    return { senderId, walletId, fields: await this.checkFields(plain, checkCallback) };
  }

  /** The fields after wallet_id, in the contract's order: payment_mode, amount, beneficiary, remarks, callback_url. */
  private async checkFields(
    plain: Record<string, unknown>,
    checkCallback: (url: string) => Promise<string | null> = (url) => this.callbackPolicy.check(url),
  ): Promise<PayoutFields> {
    const fields = parsePayoutFields(plain, (ifsc) => this.banks.isKnownBranch(ifsc));
    if (fields.callbackUrl !== null) {
      const problem = await checkCallback(fields.callbackUrl);
      if (problem) throw new RequestRejected(withMessage(PayoutCodes.invalidField, `Invalid callback_url: ${problem}`));
    }
    return fields;
  }

  /** 4008 unless the wallet exists and is the merchant's. */
  private async requireOwnWallet(
    merchant: Merchant,
    walletId: string,
    findWallet: WalletLookup = (id) => WalletRepository.findById(this.db, id),
  ): Promise<void> {
    const wallet = await findWallet(walletId);
    if (!wallet || wallet.merchantId !== merchant.id) throw new RequestRejected(UNKNOWN_WALLET);
  }

  /**
   * The checks before 4009 for one initiation, without a database read on the way to the write: the wallet's
   * ownership is checked by the write itself (payout_open_checked). Only when a later field fails is the wallet
   * looked up here, because 4008 comes before every field's code.
   */
  private async checkSingle(merchant: Merchant, plain: Record<string, unknown>): Promise<CheckedRequest> {
    const senderId = checkSenderId(plain);
    const walletId = checkWalletIdShape(plain);
    try {
      return { senderId, walletId, fields: await this.checkFields(plain) };
    } catch (err) {
      if (err instanceof RequestRejected) await this.requireOwnWallet(merchant, walletId);
      throw err;
    }
  }

  /**
   * The bank's refusals of docs/merchant/api-reference.md (they follow 4009): the connector's own beneficiary check (4013), the
   * bank rules (4014 down, 4015 not allowed), then the merchant's beneficiary verification when it is required
   * (4013, the message says why). One entry per request, null when the bank side accepts it.
   */
  async bankRefusals(merchant: Merchant, requests: CheckedRequest[]): Promise<(CodeDef | null)[]> {
    const refusals = await Promise.all(
      requests.map(async ({ fields }) =>
        (await this.connectors.forMode(fields.paymentMode).verifyBeneficiary(fields.accountNumber, fields.ifsc))
          ? bankRuleRejection(this.bankRules, fields.ifsc)
          : PayoutCodes.beneficiaryVerificationFailed,
      ),
    );
    const pending = requests.filter((_, i) => refusals[i] === null);
    const verdicts = await this.verification.refusals(
      merchant,
      pending.map(({ fields }) => ({
        name: fields.beneficiaryName,
        accountNumber: fields.accountNumber,
        ifsc: fields.ifsc,
      })),
    );
    let k = 0;
    return refusals.map((r) => r ?? verdicts[k++] ?? null);
  }

  /** The payout a checked request would record, INITIATED now (not yet written). */
  draft(merchant: Merchant, scheme: Scheme, request: CheckedRequest, now: Date): Payout {
    const { senderId, walletId, fields } = request;
    return {
      id: newId('payout', now.getTime()),
      merchantId: merchant.id,
      walletId,
      senderId,
      amount: fields.amount,
      // The database prices it as it writes it (payout_open_checked): what it charged comes back with the row.
      fee: 0n,
      tax: 0n,
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
      // The connector is chosen now and kept: a later change of the routes does not move it.
      rail: this.connectors.forMode(fields.paymentMode).name,
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
  }

  /**
   * The delay of a new payout's first background step on `rail`. A connector that collects payouts at a cut-off
   * (null) still gets a step at once: it finds nothing to submit and ends, so the job queue holds no waiting row.
   */
  firstStepDelayMs(rail: string): number | null {
    const connector = this.connectors.get(rail);
    return connector ? connector.submitDelayMs : 0;
  }

  /** GST rate and whether a plan is required: bulk batches price their items with the same terms. */
  get commercialTerms(): CommercialTerms {
    return this.commercials;
  }

  /** The connectors of this server (bulk batches route each item by its mode). */
  get connectorRegistry(): ConnectorRegistry {
    return this.connectors;
  }

  private async initiateChecked(merchant: Merchant, scheme: Scheme, plain: Record<string, unknown>) {
    const request = await this.checkSingle(merchant, plain);
    const [bankRefusal] = await this.bankRefusals(merchant, [request]);
    if (bankRefusal) {
      // 4008 and 4009 come before the bank rules; on the happy path the write itself finds both instead.
      await this.requireOwnWallet(merchant, request.walletId);
      await this.refuseDuplicate(merchant.id, request.senderId);
      throw new RequestRejected(bankRefusal);
    }
    const senderId = request.senderId;
    const draft = this.draft(merchant, scheme, request, new Date(this.clock()));

    let payout: Payout | null;
    try {
      payout = await this.openGroups.open(draft, {
        credentialsVersion: merchant.credentialsVersion,
        firstStepDelayMs: this.firstStepDelayMs(draft.rail),
        gstRateBp: this.commercials.gstRateBp,
        requirePricing: this.commercials.requirePricing,
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
    const onLien = await LienRepository.onLien(this.db, walletId, dateOf(this.clock));
    return {
      wallet_id: wallet.id,
      balance: formatPaise(wallet.balance),
      available_balance: formatPaise(spendable(wallet.balance, onLien)),
      on_lien: formatPaise(onLien),
      on_hold: formatPaise(onHold),
      currency: 'INR',
      updated_at: wallet.updatedAt.toISOString(),
    };
  }
}
