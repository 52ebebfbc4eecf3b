import {
  formatPaise,
  parseRupeesOrZero,
  type PaymentMode,
  type PayoutStatus,
  type SettlementWire,
  type WebhookEventType,
} from '@payrail/protocol';
import { istDay, istDayStartOf } from './istPeriod.ts';

/**
 * Settlements (docs/operator/settlements.md): a merchant's collections, net of their fees, paid out to the merchant's
 * own bank account by an ordinary payout. The rules that need no database are here: schedules, banking days, the
 * reserve's percentage, the wire object.
 */

export type SettlementSchedule = 'manual' | 'daily' | 'instant';
export type SettlementTrigger = SettlementSchedule;

/** A changed settlement account holds settlements this long (the cooling period banks use against account takeover). */
export const ACCOUNT_CHANGE_HOLD_MS = 24 * 60 * 60 * 1000;

/** IMPS carries up to ₹5,00,000; a larger settlement goes by NEFT (CONTRACT: the payment-mode routes choose the rail). */
export const IMPS_MAX_PAISE = 5_00_000_00n;

export interface SettlementAccount {
  merchantId: string;
  accountNumber: string;
  ifsc: string;
  holderName: string;
  bankName: string;
  schedule: SettlementSchedule;
  /** daily: the IST minute of the day of the run (660 = 11:00); null otherwise. */
  atMinute: number | null;
  reserveBp: number;
  reserveDays: number;
  activeFrom: Date;
  lastRunDay: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SettlementItem {
  collectionId: string;
  amount: bigint;
  fee: bigint;
  tax: bigint;
  net: bigint;
}

export interface Settlement {
  id: string;
  merchantId: string;
  walletId: string;
  amount: bigint;
  fees: bigint;
  tax: bigint;
  state: PayoutStatus;
  payoutId: string;
  paymentMode: PaymentMode;
  utr: string;
  trigger: SettlementTrigger;
  collectionCount: number;
  windowEnd: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** The merchant's (and the webhooks') settlement object; `items` adds the collections it covers. */
export function toSettlementWire(s: Settlement, items?: readonly SettlementItem[]): SettlementWire {
  return {
    settlement_id: s.id,
    merchant_id: s.merchantId,
    wallet_id: s.walletId,
    amount: formatPaise(s.amount),
    fees: formatPaise(s.fees),
    tax: formatPaise(s.tax),
    state: s.state,
    payout_id: s.payoutId,
    payment_mode: s.paymentMode,
    utr: s.utr,
    trigger: s.trigger,
    collection_count: s.collectionCount,
    ...(items
      ? {
          collections: items.map((i) => ({
            collection_id: i.collectionId,
            amount: formatPaise(i.amount),
            fee: formatPaise(i.fee),
            tax: formatPaise(i.tax),
            net: formatPaise(i.net),
          })),
        }
      : {}),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** The settlement.* event of a state: one per state, the payout's states. */
export function settlementEventType(state: PayoutStatus): WebhookEventType {
  return `settlement.${state.toLowerCase()}` as WebhookEventType;
}

/** "HH:MM" (IST) → minute of the day; null for anything else. */
export function parseDailyAt(text: string): number | null {
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])$/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export function formatDailyAt(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/** A reserve percentage (0–100, at most two decimals; text or number) → basis points; null when invalid. */
export function parseReservePercent(input: unknown): number | null {
  const bp = parseRupeesOrZero(input);
  return bp === null || bp > 10_000n ? null : Number(bp);
}

export const formatReservePercent = (bp: number) => formatPaise(BigInt(bp));

/**
 * Whether an IST day ("2026-11-29") is a banking day: not a Sunday, not one of the configured holidays
 * (PAYRAIL_BANK_HOLIDAYS; the second and fourth Saturdays and the RBI's list go there).
 */
export function isBankingDay(day: string, holidays: ReadonlySet<string>): boolean {
  return new Date(`${day}T00:00:00Z`).getUTCDay() !== 0 && !holidays.has(day);
}

/**
 * Whether a daily account's run is due at `now`: today (IST) is a banking day, its time of day has come, and today's
 * run has not settled it yet. A day without a run (a Sunday, a holiday) leaves its collections to the next banking
 * day's run, whose window (everything credited before that day's midnight) covers them.
 */
export function dailyRunDue(account: SettlementAccount, now: Date, holidays: ReadonlySet<string>): boolean {
  if (account.schedule !== 'daily' || account.atMinute === null) return false;
  // A changed account in its 24 hours: the day's run waits for the hold to end (at the first pass after it).
  if (account.activeFrom.getTime() > now.getTime()) return false;
  const today = istDay(now);
  if (!isBankingDay(today, holidays)) return false;
  if (account.lastRunDay !== null && account.lastRunDay >= today) return false;
  return now.getTime() >= istDayStartOf(now).getTime() + account.atMinute * 60_000;
}

/** The window of a daily run at `now`: collections credited before today's IST midnight. */
export const dailyWindowEnd = (now: Date): Date => istDayStartOf(now);
