import type { PaymentMode, PayoutStatus } from '@payrail/protocol';
import type {
  Settlement,
  SettlementAccount,
  SettlementItem,
  SettlementSchedule,
  SettlementTrigger,
} from '../../domain/settlement.ts';
import type { Queryable } from '../Database.ts';

interface AccountRow {
  merchant_id: string;
  account_number: string;
  ifsc: string;
  holder_name: string;
  bank_name: string;
  schedule: SettlementSchedule;
  at_minute: number | null;
  reserve_bp: number;
  reserve_days: number;
  active_from: Date;
  last_run_day: string | null;
  created_at: Date;
  updated_at: Date;
}

const toAccount = (r: AccountRow): SettlementAccount => ({
  merchantId: r.merchant_id,
  accountNumber: r.account_number,
  ifsc: r.ifsc,
  holderName: r.holder_name,
  bankName: r.bank_name,
  schedule: r.schedule,
  atMinute: r.at_minute,
  reserveBp: r.reserve_bp,
  reserveDays: r.reserve_days,
  activeFrom: r.active_from,
  lastRunDay: r.last_run_day,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

interface SettlementRow {
  id: string;
  merchant_id: string;
  wallet_id: string;
  amount: bigint;
  fees: bigint;
  tax: bigint;
  state: PayoutStatus;
  payout_id: string;
  payment_mode: PaymentMode;
  utr: string;
  trigger: SettlementTrigger;
  collection_count: number;
  window_end: Date;
  created_at: Date;
  updated_at: Date;
}

const toSettlement = (r: SettlementRow): Settlement => ({
  id: r.id,
  merchantId: r.merchant_id,
  walletId: r.wallet_id,
  amount: BigInt(r.amount),
  fees: BigInt(r.fees),
  tax: BigInt(r.tax),
  state: r.state,
  payoutId: r.payout_id,
  paymentMode: r.payment_mode,
  utr: r.utr,
  trigger: r.trigger,
  collectionCount: Number(r.collection_count),
  windowEnd: r.window_end,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A settlement with what its payout says (mode, UTR) and how many collections it covers. */
const SETTLEMENT_SELECT = `
  SELECT s.id, s.merchant_id, s.wallet_id, s.amount, s.fees, s.tax, s.state, s.payout_id, p.payment_mode, p.utr,
         s.trigger, (SELECT count(*)::int4 FROM settlement_items i WHERE i.settlement_id = s.id) AS collection_count,
         s.window_end, s.created_at, s.updated_at
    FROM settlements s JOIN payouts p ON p.id = s.payout_id`;

/** What settlement_open_many decided for one wallet. */
export interface OpenedSettlement {
  walletId: string;
  settlementId: string;
  amount: bigint;
  refusal: 'no_account' | 'nothing' | null;
}

export interface SettlementOpenRequest {
  walletId: string;
  settlementId: string;
  payoutId: string;
  /** Exactly this much, or everything settleable (null). */
  cap: bigint | null;
}

export interface SettlementOpenContext {
  trigger: SettlementTrigger;
  windowEnd: Date;
  at: Date;
  istDay: string;
  istMonth: string;
  statusMessage: string;
  impsMax: bigint;
  rails: { IMPS: string; NEFT: string };
  firstStepDelayMs: { IMPS: number; NEFT: number };
}

export interface SettlementPageQuery {
  merchantId?: string;
  walletId?: string;
  from?: Date;
  to?: Date;
  /** Ids below this one (newest first). */
  before?: string;
  limit: number;
}

/** Settlement accounts, settlements and what they cover (migration 034). */
export const SettlementRepository = {
  async account(q: Queryable, merchantId: string): Promise<SettlementAccount | null> {
    const { rows } = await q.query<AccountRow>('SELECT * FROM settlement_accounts WHERE merchant_id = $1', [
      merchantId,
    ]);
    return rows[0] ? toAccount(rows[0]) : null;
  },

  /** The merchant's account row, locked (a change compares with what is there). */
  async lockAccount(q: Queryable, merchantId: string): Promise<SettlementAccount | null> {
    const { rows } = await q.query<AccountRow>('SELECT * FROM settlement_accounts WHERE merchant_id = $1 FOR UPDATE', [
      merchantId,
    ]);
    return rows[0] ? toAccount(rows[0]) : null;
  },

  async saveAccount(q: Queryable, a: SettlementAccount): Promise<SettlementAccount> {
    const { rows } = await q.query<AccountRow>(
      `INSERT INTO settlement_accounts (merchant_id, account_number, ifsc, holder_name, bank_name, schedule, at_minute,
           reserve_bp, reserve_days, active_from, last_run_day, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
       ON CONFLICT (merchant_id) DO UPDATE SET account_number = EXCLUDED.account_number, ifsc = EXCLUDED.ifsc,
           holder_name = EXCLUDED.holder_name, bank_name = EXCLUDED.bank_name, schedule = EXCLUDED.schedule,
           at_minute = EXCLUDED.at_minute, reserve_bp = EXCLUDED.reserve_bp, reserve_days = EXCLUDED.reserve_days,
           active_from = EXCLUDED.active_from, updated_at = EXCLUDED.updated_at
       RETURNING *`,
      [
        a.merchantId,
        a.accountNumber,
        a.ifsc,
        a.holderName,
        a.bankName,
        a.schedule,
        a.atMinute,
        a.reserveBp,
        a.reserveDays,
        a.activeFrom,
        a.lastRunDay,
        a.updatedAt,
      ],
    );
    return toAccount(rows[0] as AccountRow);
  },

  /**
   * Claims today's daily run for the merchants given (those whose run is due): marks the day on each account row
   * still without it and returns those merchants, so that of two instances (or two passes) only one settles them.
   */
  async claimDailyRun(q: Queryable, merchantIds: readonly string[], day: string): Promise<string[]> {
    if (merchantIds.length === 0) return [];
    const { rows } = await q.query<{ merchant_id: string }>(
      `UPDATE settlement_accounts SET last_run_day = $2
        WHERE merchant_id = ANY ($1::text[]) AND schedule = 'daily' AND (last_run_day IS NULL OR last_run_day < $2)
        RETURNING merchant_id`,
      [merchantIds, day],
    );
    return rows.map((r) => r.merchant_id).sort();
  },

  /**
   * The daily accounts whose run may be due at `now` (IST day `day`, minute of the day `minute`): not run today, its
   * time come, not held, its merchant not suspended (a suspension holds settlements: the money stays in the wallet
   * until the merchant is active again, and the next run covers it). Each pass asks this (every few seconds on every
   * instance), so it reads only those rows.
   */
  async dailyCandidates(q: Queryable, day: string, minute: number, now: Date): Promise<SettlementAccount[]> {
    const { rows } = await q.query<AccountRow>(
      `SELECT a.* FROM settlement_accounts a JOIN merchants m ON m.id = a.merchant_id AND m.status = 'active'
        WHERE a.schedule = 'daily' AND a.at_minute <= $2 AND a.active_from <= $3
          AND (a.last_run_day IS NULL OR a.last_run_day < $1)
        ORDER BY a.merchant_id`,
      [day, minute, now],
    );
    return rows.map(toAccount);
  },

  /** Whether any merchant settles instantly (a pass looks for their collections only then). */
  async anyInstant(q: Queryable): Promise<boolean> {
    const { rows } = await q.query("SELECT 1 FROM settlement_accounts WHERE schedule = 'instant' LIMIT 1");
    return rows.length > 0;
  },

  /** The merchants' wallets, in id order. */
  async walletsOf(q: Queryable, merchantIds: readonly string[]): Promise<string[]> {
    if (merchantIds.length === 0) return [];
    const { rows } = await q.query<{ id: string }>(
      'SELECT id FROM wallets WHERE merchant_id = ANY ($1::text[]) ORDER BY id',
      [merchantIds],
    );
    return rows.map((r) => r.id);
  },

  /**
   * The wallets of instant merchants, not suspended, with a collection credited and not yet settled (before `before`).
   */
  async instantWallets(q: Queryable, before: Date): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT w.id FROM settlement_accounts a
         JOIN merchants m ON m.id = a.merchant_id AND m.status = 'active'
         JOIN wallets w ON w.merchant_id = a.merchant_id
        WHERE a.schedule = 'instant' AND a.active_from <= $1
          AND EXISTS (SELECT 1 FROM settleable_collections q WHERE q.wallet_id = w.id AND q.credited_at < $1)
        ORDER BY w.id`,
      [before],
    );
    return rows.map((r) => r.id);
  },

  /** settlement_open_many (migration 034): one call for any number of wallets, in the caller's transaction. */
  async openMany(
    q: Queryable,
    requests: readonly SettlementOpenRequest[],
    ctx: SettlementOpenContext,
  ): Promise<OpenedSettlement[]> {
    if (requests.length === 0) return [];
    const { rows } = await q.query<{
      r_wallet: string;
      r_settlement: string;
      r_amount: bigint | null;
      r_refusal: string | null;
    }>(
      `SELECT * FROM settlement_open_many($1::text[], $2::text[], $3::text[], $4::int8[], $5, $6, $7, $8, $9, $10,
                                          $11, $12, $13, $14, $15)`,
      [
        requests.map((r) => r.walletId),
        requests.map((r) => r.settlementId),
        requests.map((r) => r.payoutId),
        requests.map((r) => (r.cap === null ? null : String(r.cap))),
        ctx.trigger,
        ctx.windowEnd,
        ctx.at,
        ctx.istDay,
        ctx.istMonth,
        ctx.statusMessage,
        String(ctx.impsMax),
        ctx.rails.IMPS,
        ctx.rails.NEFT,
        ctx.firstStepDelayMs.IMPS,
        ctx.firstStepDelayMs.NEFT,
      ],
    );
    return rows.map((r) => ({
      walletId: r.r_wallet,
      settlementId: r.r_settlement,
      amount: r.r_amount === null ? 0n : BigInt(r.r_amount),
      refusal: r.r_refusal as OpenedSettlement['refusal'],
    }));
  },

  async findById(q: Queryable, id: string): Promise<Settlement | null> {
    const { rows } = await q.query<SettlementRow>(`${SETTLEMENT_SELECT} WHERE s.id = $1`, [id]);
    return rows[0] ? toSettlement(rows[0]) : null;
  },

  async findMany(q: Queryable, ids: readonly string[]): Promise<Settlement[]> {
    if (ids.length === 0) return [];
    const { rows } = await q.query<SettlementRow>(`${SETTLEMENT_SELECT} WHERE s.id = ANY ($1::text[]) ORDER BY s.id`, [
      ids,
    ]);
    return rows.map(toSettlement);
  },

  /** The settlements of these payouts (a payout's move names at most one). */
  async findByPayouts(q: Queryable, payoutIds: readonly string[]): Promise<Settlement[]> {
    if (payoutIds.length === 0) return [];
    const { rows } = await q.query<SettlementRow>(
      `${SETTLEMENT_SELECT} WHERE s.payout_id = ANY ($1::text[]) ORDER BY s.id`,
      [payoutIds],
    );
    return rows.map(toSettlement);
  },

  /** The collections one settlement covers, in credit order. */
  async items(q: Queryable, settlementId: string): Promise<SettlementItem[]> {
    return (await this.itemsOf(q, [settlementId])).get(settlementId) ?? [];
  },

  /** The items of several settlements in one statement, by settlement (a page of a list answers them all). */
  async itemsOf(q: Queryable, settlementIds: readonly string[]): Promise<Map<string, SettlementItem[]>> {
    const out = new Map<string, SettlementItem[]>(settlementIds.map((id) => [id, []]));
    if (settlementIds.length === 0) return out;
    const { rows } = await q.query<{
      settlement_id: string;
      collection_id: string;
      amount: bigint;
      fee: bigint;
      tax: bigint;
      net: bigint;
    }>(
      `SELECT i.settlement_id, i.collection_id, i.amount, i.fee, i.tax, i.net
         FROM settlement_items i JOIN collections c ON c.id = i.collection_id
        WHERE i.settlement_id = ANY ($1::text[]) ORDER BY i.settlement_id, c.credited_at, c.id`,
      [settlementIds],
    );
    for (const r of rows) {
      out.get(r.settlement_id)?.push({
        collectionId: r.collection_id,
        amount: BigInt(r.amount),
        fee: BigInt(r.fee),
        tax: BigInt(r.tax),
        net: BigInt(r.net),
      });
    }
    return out;
  },

  /** Newest first (ids are time-ordered), filtered, one page. */
  async page(q: Queryable, query: SettlementPageQuery): Promise<Settlement[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.merchantId !== undefined) add('s.merchant_id = ?', query.merchantId);
    if (query.walletId !== undefined) add('s.wallet_id = ?', query.walletId);
    if (query.from !== undefined) add('s.created_at >= ?', query.from);
    if (query.to !== undefined) add('s.created_at < ?', query.to);
    if (query.before !== undefined) add('s.id < ?', query.before);
    params.push(query.limit);
    const { rows } = await q.query<SettlementRow>(
      `${SETTLEMENT_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY s.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toSettlement);
  },
};
