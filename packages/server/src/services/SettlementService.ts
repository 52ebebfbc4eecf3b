import { isId } from '@payrail/protocol';
import { dateOf, type Clock } from '../clock.ts';
import { newId } from '../domain/ids.ts';
import { istDay, istDayStartOf, istMonth } from '../domain/istPeriod.ts';
import { DEFAULT_STATUS_MESSAGE } from '../domain/payoutStateMachine.ts';
import {
  ACCOUNT_CHANGE_HOLD_MS,
  dailyRunDue,
  dailyWindowEnd,
  isBankingDay,
  IMPS_MAX_PAISE,
  type Settlement,
  type SettlementAccount,
  type SettlementItem,
  type SettlementSchedule,
  type SettlementTrigger,
} from '../domain/settlement.ts';
import type { ConnectorRegistry } from '../rails/ConnectorRegistry.ts';
import type { Database, Queryable } from '../store/Database.ts';
import type { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import {
  SettlementRepository,
  type OpenedSettlement,
  type SettlementOpenRequest,
} from '../store/repositories/SettlementRepository.ts';
import { WalletRepository } from '../store/repositories/WalletRepository.ts';
import type { BankDirectory } from './BankDirectory.ts';
import type { BeneficiaryVerificationService } from './BeneficiaryVerificationService.ts';
import { enqueueSettlementEvents } from './settlementEvents.ts';

/** What an operator (or the merchant in the console) sets: the account and the schedule. */
export interface SettlementAccountInput {
  accountNumber: string;
  ifsc: string;
  holderName: string;
  schedule: SettlementSchedule;
  atMinute: number | null;
  reserveBp: number;
  reserveDays: number;
}

export type AccountOutcome =
  | { ok: true; account: SettlementAccount; held: boolean }
  | { ok: false; reason: 'not_found' | 'unknown_ifsc' }
  | { ok: false; reason: 'verification_failed'; message: string };

export type InitiateOutcome =
  | { ok: true; settlement: Settlement; items: SettlementItem[] }
  | { ok: false; reason: 'wallet_not_found' | 'no_account' | 'nothing' };

export interface RunResult {
  settlements: Settlement[];
  refused: { walletId: string; reason: 'no_account' | 'nothing' }[];
}

/**
 * Settlements (docs/operator/settlements.md): the settlement account, manual settlements (the merchant's API, an
 * operator), and the scheduled pass (daily runs and instant settlements) that jobs/SettlementScheduler.ts calls. Every
 * settlement is opened by `settlement_open_many` (migration 034), set-based: one call for one wallet or for every
 * wallet of a daily run, in one transaction with its settlement.initiated events.
 */
export class SettlementService {
  constructor(
    private readonly db: Database,
    private readonly merchants: MerchantRepository,
    private readonly connectors: ConnectorRegistry,
    private readonly banks: BankDirectory,
    private readonly verification: BeneficiaryVerificationService,
    /** PAYRAIL_BANK_HOLIDAYS: IST days without a daily run (Sundays never have one). */
    private readonly holidays: ReadonlySet<string>,
    private readonly clock: Clock,
  ) {}

  account(merchantId: string): Promise<SettlementAccount | null> {
    return SettlementRepository.account(this.db, merchantId);
  }

  /**
   * Sets the merchant's account and schedule. With verification required for the merchant (§11), the account is
   * verified first (outside the transaction: the bank is asked); a changed account (number, IFSC or holder) holds
   * settlements for 24 hours, the first one does not, a schedule change alone does not.
   */
  async setAccount(
    merchantId: string,
    input: SettlementAccountInput,
    /**
     * The merchant's console: the account only. The schedule and reserve in force are kept, read under the row's
     * lock, so that an operator's change made meanwhile is not written over (`input`'s are used for a first account).
     */
    options: { keepTerms?: boolean } = {},
  ): Promise<AccountOutcome> {
    const merchant = await this.merchants.findById(this.db, merchantId);
    if (!merchant) return { ok: false, reason: 'not_found' };
    if (!this.banks.isKnownBranch(input.ifsc)) return { ok: false, reason: 'unknown_ifsc' };
    const [refusal] = await this.verification.refusals(merchant, [
      { name: input.holderName, accountNumber: input.accountNumber, ifsc: input.ifsc },
    ]);
    if (refusal) return { ok: false, reason: 'verification_failed', message: refusal.message };
    const now = dateOf(this.clock);
    return this.db.transaction(async (tx) => {
      const before = await SettlementRepository.lockAccount(tx, merchantId);
      const changed =
        before !== null &&
        (before.accountNumber !== input.accountNumber ||
          before.ifsc !== input.ifsc ||
          before.holderName !== input.holderName);
      const activeFrom = changed
        ? new Date(now.getTime() + ACCOUNT_CHANGE_HOLD_MS)
        : before && before.activeFrom.getTime() > now.getTime()
          ? before.activeFrom
          : now;
      const terms =
        options.keepTerms && before
          ? {
              schedule: before.schedule,
              atMinute: before.atMinute,
              reserveBp: before.reserveBp,
              reserveDays: before.reserveDays,
            }
          : {};
      const account = await SettlementRepository.saveAccount(tx, {
        merchantId,
        ...input,
        ...terms,
        bankName: this.banks.bankName(input.ifsc),
        activeFrom,
        lastRunDay: before?.lastRunDay ?? null,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      });
      return { ok: true, account, held: account.activeFrom.getTime() > now.getTime() };
    });
  }

  /**
   * A manual settlement of one wallet of the merchant (the merchant's API, or an operator when `merchantId` is
   * null): everything settleable now, or exactly `amount`.
   */
  async initiate(merchantId: string | null, walletId: string, amount: bigint | null): Promise<InitiateOutcome> {
    const wallet = isId('wallet', walletId) ? await WalletRepository.findById(this.db, walletId) : null;
    if (!wallet || !wallet.merchantId || (merchantId !== null && wallet.merchantId !== merchantId)) {
      return { ok: false, reason: 'wallet_not_found' };
    }
    const now = dateOf(this.clock);
    const { settlements, refused } = await this.open([{ walletId, cap: amount }], 'manual', now, now);
    const settlement = settlements[0];
    if (!settlement) return { ok: false, reason: refused[0]?.reason ?? 'nothing' };
    return { ok: true, settlement, items: await SettlementRepository.items(this.db, settlement.id) };
  }

  /**
   * One scheduled pass at the clock's now: the daily runs that are due (each merchant once per IST banking day,
   * whichever instance runs it; its window is everything credited before today's midnight), then the instant
   * merchants' wallets with anything credited and not yet settled.
   */
  async runDue(): Promise<RunResult> {
    const now = dateOf(this.clock);
    const today = istDay(now);
    const candidates = isBankingDay(today, this.holidays)
      ? await SettlementRepository.dailyCandidates(
          this.db,
          today,
          Math.floor((now.getTime() - istDayStartOf(now).getTime()) / 60_000),
          now,
        )
      : [];
    const due = candidates.filter((a) => dailyRunDue(a, now, this.holidays)).map((a) => a.merchantId);
    const result: RunResult = { settlements: [], refused: [] };
    if (due.length > 0) {
      const daily = await this.db.transaction(async (tx) => {
        const claimed = await SettlementRepository.claimDailyRun(tx, due, istDay(now));
        const wallets = await SettlementRepository.walletsOf(tx, claimed);
        return this.openWithin(
          tx,
          wallets.map((walletId) => ({ walletId, cap: null })),
          'daily',
          dailyWindowEnd(now),
          now,
        );
      });
      result.settlements.push(...daily.settlements);
      result.refused.push(...daily.refused);
    }
    if (await SettlementRepository.anyInstant(this.db)) {
      const wallets = await SettlementRepository.instantWallets(this.db, now);
      const instant = await this.open(
        wallets.map((walletId) => ({ walletId, cap: null })),
        'instant',
        now,
        now,
      );
      result.settlements.push(...instant.settlements);
      result.refused.push(...instant.refused);
    }
    return result;
  }

  async get(id: string): Promise<{ settlement: Settlement; items: SettlementItem[] } | null> {
    const settlement = await SettlementRepository.findById(this.db, id);
    return settlement ? { settlement, items: await SettlementRepository.items(this.db, id) } : null;
  }

  page(query: Parameters<typeof SettlementRepository.page>[1]): Promise<Settlement[]> {
    return SettlementRepository.page(this.db, query);
  }

  /** The collections of each settlement, in one read (a list answers settlements with their collections). */
  itemsOf(ids: readonly string[]): Promise<Map<string, SettlementItem[]>> {
    return SettlementRepository.itemsOf(this.db, ids);
  }

  private open(
    wallets: { walletId: string; cap: bigint | null }[],
    trigger: SettlementTrigger,
    windowEnd: Date,
    now: Date,
  ): Promise<RunResult> {
    if (wallets.length === 0) return Promise.resolve({ settlements: [], refused: [] });
    return this.db.transaction((tx) => this.openWithin(tx, wallets, trigger, windowEnd, now));
  }

  /** settlement_open_many for these wallets, and a settlement.initiated event for each settlement it opened. */
  private async openWithin(
    tx: Queryable,
    wallets: { walletId: string; cap: bigint | null }[],
    trigger: SettlementTrigger,
    windowEnd: Date,
    now: Date,
  ): Promise<RunResult> {
    if (wallets.length === 0) return { settlements: [], refused: [] };
    const at = now.getTime();
    const requests: SettlementOpenRequest[] = wallets.map((w) => ({
      ...w,
      settlementId: newId('settlement', at),
      payoutId: newId('payout', at),
    }));
    const imps = this.connectors.forMode('IMPS');
    const neft = this.connectors.forMode('NEFT');
    const opened: OpenedSettlement[] = await SettlementRepository.openMany(tx, requests, {
      trigger,
      windowEnd,
      at: now,
      istDay: istDay(now),
      istMonth: istMonth(now),
      statusMessage: DEFAULT_STATUS_MESSAGE.INITIATED,
      impsMax: IMPS_MAX_PAISE,
      rails: { IMPS: imps.name, NEFT: neft.name },
      // A connector that collects payouts at a cut-off (null) still gets a step at once (PayoutService).
      firstStepDelayMs: { IMPS: imps.submitDelayMs ?? 0, NEFT: neft.submitDelayMs ?? 0 },
    });
    const settlements = await SettlementRepository.findMany(
      tx,
      opened.filter((o) => o.refusal === null).map((o) => o.settlementId),
    );
    await enqueueSettlementEvents(tx, settlements, now);
    return {
      settlements,
      refused: opened.flatMap((o) => (o.refusal === null ? [] : [{ walletId: o.walletId, reason: o.refusal }])),
    };
  }
}
