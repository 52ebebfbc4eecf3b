import type { PayoutStatus, Scheme } from '@payrail/protocol';
import type { BatchItem, PayoutBatch } from '../../domain/PayoutBatch.ts';
import type { Payout } from '../../domain/Payout.ts';
import type { Queryable } from '../Database.ts';
import { createdRangeWhere } from '../createdRangeWhere.ts';

interface BatchRow {
  merchant_id: string;
  batch_id: string;
  atomic: boolean;
  callback_url: string | null;
  scheme: Scheme;
  item_count: number;
  accepted: number;
  amount_accepted: bigint;
  open_items: number;
  created_at: Date;
  completed_at: Date | null;
}

const toBatch = (r: BatchRow): PayoutBatch => ({
  merchantId: r.merchant_id,
  batchId: r.batch_id,
  atomic: r.atomic,
  callbackUrl: r.callback_url,
  scheme: r.scheme,
  itemCount: Number(r.item_count),
  accepted: Number(r.accepted),
  amountAccepted: BigInt(r.amount_accepted),
  openItems: Number(r.open_items),
  createdAt: r.created_at,
  completedAt: r.completed_at,
});

interface ItemRow {
  item_index: number;
  sender_id: string;
  resp_code: number;
  resp_message: string;
  payout_id: string | null;
  status: PayoutStatus | null;
  utr: string | null;
  status_message: string | null;
  fee: bigint | null;
  tax: bigint | null;
}

const toItem = (r: ItemRow): BatchItem => ({
  index: Number(r.item_index),
  senderId: r.sender_id,
  code: Number(r.resp_code),
  message: r.resp_message,
  payoutId: r.payout_id,
  status: r.status,
  utr: r.utr,
  statusMessage: r.status_message,
  fee: r.fee === null ? null : BigInt(r.fee),
  tax: r.tax === null ? null : BigInt(r.tax),
});

export interface NewBatch {
  merchantId: string;
  batchId: string;
  atomic: boolean;
  callbackUrl: string | null;
  scheme: Scheme;
  itemCount: number;
  createdAt: Date;
}

/** A candidate item for `payout_open_batch`: the payout as it would be recorded, and its bank refusal if any. */
export interface BatchCandidate {
  payout: Payout;
  /** 4013, 4014 or 4015 when a bank rule refuses the item (it still gets 4009 first if the sender_id is taken). */
  bankCode: number | null;
}

export interface BatchTerms {
  merchantId: string;
  batchId: string;
  scheme: Scheme;
  statusMessage: string;
  rail: string;
  istDay: string;
  istMonth: string;
  at: Date;
  dailyLimit: bigint | null;
  monthlyLimit: bigint | null;
  firstStepDelayMs: number | null;
  /** GST on fees in hundredths of a percent, and whether a merchant without a pricing plan is refused (4015). */
  gstRateBp: number;
  requirePricing: boolean;
}

/** What `payout_open_batch` answered for one candidate: its code, and the fee and GST an accepted one is charged. */
export interface CandidateOutcome {
  code: number;
  fee: bigint;
  tax: bigint;
}

export interface RecordedVerdict {
  index: number;
  senderId: string;
  code: number;
  message: string;
  payoutId: string | null;
}

export interface BatchPageQuery {
  merchantId?: string;
  limit: number;
  /** `created_at|merchant_id|batch_id` of the last batch of the previous page (pages run newest first). */
  after?: { createdAt: Date; merchantId: string; batchId: string };
  /** Created at or after / before these instants (the console's IST date filters). */
  createdFrom?: Date;
  createdBefore?: Date;
}

export const BatchRepository = {
  /** Records the batch; false when this merchant already has this batch_id (a concurrent twin waits, then sees it). */
  async insert(q: Queryable, b: NewBatch): Promise<boolean> {
    const { rowCount } = await q.query(
      `INSERT INTO payout_batches (merchant_id, batch_id, atomic, callback_url, scheme, item_count, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (merchant_id, batch_id) DO NOTHING`,
      [b.merchantId, b.batchId, b.atomic, b.callbackUrl, b.scheme, b.itemCount, b.createdAt],
    );
    return rowCount === 1;
  },

  /**
   * Applies the candidates in order in one statement (function `payout_open_batch`, migrations 008 and 029). Returns
   * the outcome of each candidate, in the candidates' order: 2000 accepted (with its fee and GST), else 4009,
   * 4013-4015, 4002, 4010 or 4011.
   */
  async openPayouts(q: Queryable, terms: BatchTerms, candidates: BatchCandidate[]): Promise<CandidateOutcome[]> {
    const col = <T>(f: (c: BatchCandidate) => T) => candidates.map(f);
    const { rows } = await q.query<{ pos: number; code: number; item_fee: bigint; item_tax: bigint }>(
      `SELECT pos, code, item_fee, item_tax FROM payout_open_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
         $12::text[], $13::text[], $14::text[], $15::int8[], $16::text[], $17::text[], $18::text[], $19::text[],
         $20::text[], $21::text[], $22::text[], $23::int4[], $24, $25)`,
      [
        terms.merchantId,
        terms.batchId,
        terms.scheme,
        terms.statusMessage,
        terms.rail,
        terms.istDay,
        terms.istMonth,
        terms.at,
        terms.dailyLimit,
        terms.monthlyLimit,
        terms.firstStepDelayMs,
        col((c) => c.payout.id),
        col((c) => c.payout.walletId),
        col((c) => c.payout.senderId),
        col((c) => c.payout.amount.toString()),
        col((c) => c.payout.paymentMode),
        col((c) => c.payout.beneficiary.name),
        col((c) => c.payout.beneficiary.accountNumber),
        col((c) => c.payout.beneficiary.ifsc),
        col((c) => c.payout.beneficiary.bankName),
        col((c) => c.payout.remarks),
        col((c) => c.payout.callbackUrl),
        col((c) => c.bankCode),
        terms.gstRateBp,
        terms.requirePricing,
      ],
    );
    const outcomes: CandidateOutcome[] = candidates.map(() => ({ code: 0, fee: 0n, tax: 0n }));
    for (const r of rows) {
      outcomes[Number(r.pos) - 1] = { code: Number(r.code), fee: BigInt(r.item_fee), tax: BigInt(r.item_tax) };
    }
    return outcomes;
  },

  /** Stores every item's verdict and the batch's totals (one statement each). */
  async recordVerdicts(
    q: Queryable,
    merchantId: string,
    batchId: string,
    verdicts: RecordedVerdict[],
    totals: { accepted: number; amountAccepted: bigint; completedAt: Date | null },
  ): Promise<void> {
    await q.query(
      `UPDATE payout_batches SET accepted = $3, amount_accepted = $4, open_items = $3, completed_at = $5
        WHERE merchant_id = $1 AND batch_id = $2`,
      [merchantId, batchId, totals.accepted, totals.amountAccepted, totals.completedAt],
    );
    await q.query(
      `INSERT INTO payout_batch_items (merchant_id, batch_id, item_index, sender_id, resp_code, resp_message, payout_id)
       SELECT $1, $2, * FROM unnest($3::int4[], $4::text[], $5::int4[], $6::text[], $7::text[])`,
      [
        merchantId,
        batchId,
        verdicts.map((v) => v.index),
        verdicts.map((v) => v.senderId),
        verdicts.map((v) => v.code),
        verdicts.map((v) => v.message),
        verdicts.map((v) => v.payoutId),
      ],
    );
  },

  async find(q: Queryable, merchantId: string, batchId: string): Promise<PayoutBatch | null> {
    const { rows } = await q.query<BatchRow>('SELECT * FROM payout_batches WHERE merchant_id = $1 AND batch_id = $2', [
      merchantId,
      batchId,
    ]);
    return rows[0] ? toBatch(rows[0]) : null;
  },

  /** Items in index order after `afterIndex`, each with its payout's current status. */
  async items(q: Queryable, merchantId: string, batchId: string, afterIndex: number, limit: number) {
    const { rows } = await q.query<ItemRow>(
      `SELECT i.item_index, i.sender_id, i.resp_code, i.resp_message, i.payout_id, p.status, p.utr,
              p.status_message, p.fee, p.tax
         FROM payout_batch_items i LEFT JOIN payouts p ON p.id = i.payout_id
        WHERE i.merchant_id = $1 AND i.batch_id = $2 AND i.item_index > $3
        ORDER BY i.item_index LIMIT $4`,
      [merchantId, batchId, afterIndex, limit],
    );
    return rows.map(toItem);
  },

  /** How many of the batch's payouts are in each status. */
  async statusCounts(q: Queryable, merchantId: string, batchId: string): Promise<Map<PayoutStatus, number>> {
    const { rows } = await q.query<{ status: PayoutStatus; n: bigint }>(
      `SELECT status, count(*)::int8 AS n FROM payouts WHERE merchant_id = $1 AND batch_id = $2 GROUP BY status`,
      [merchantId, batchId],
    );
    return new Map(rows.map((r) => [r.status, Number(r.n)]));
  },

  /**
   * Locks these batch rows in (merchant, batch) order, FOR NO KEY UPDATE: the strength of itemFinal's update
   * (services/LockOrder.ts).
   */
  async lockMany(q: Queryable, rows: readonly { merchantId: string; batchId: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await q.query(
      `SELECT 1 FROM payout_batches b
         JOIN unnest($1::text[], $2::text[]) AS u (merchant_id, batch_id)
           ON b.merchant_id = u.merchant_id AND b.batch_id = u.batch_id
        ORDER BY b.merchant_id, b.batch_id FOR NO KEY UPDATE OF b`,
      [rows.map((r) => r.merchantId), rows.map((r) => r.batchId)],
    );
  },

  /**
   * One more accepted item became final. Returns the batch when that was the last one (its completed_at is set
   * now, in this transaction): the row lock makes exactly one transition see zero.
   */
  async itemFinal(q: Queryable, merchantId: string, batchId: string): Promise<PayoutBatch | null> {
    const { rows } = await q.query<BatchRow>(
      `UPDATE payout_batches
          SET open_items = open_items - 1,
              completed_at = CASE WHEN open_items = 1 THEN now() ELSE completed_at END
        WHERE merchant_id = $1 AND batch_id = $2 AND open_items > 0
        RETURNING *`,
      [merchantId, batchId],
    );
    const batch = rows[0] ? toBatch(rows[0]) : null;
    return batch && batch.openItems === 0 ? batch : null;
  },

  async page(q: Queryable, query: BatchPageQuery): Promise<PayoutBatch[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.merchantId) {
      params.push(query.merchantId);
      where.push(`merchant_id = $${params.length}`);
    }
    if (query.after) {
      params.push(query.after.createdAt, query.after.merchantId, query.after.batchId);
      const n = params.length;
      where.push(`(created_at, merchant_id, batch_id) < ($${n - 2}, $${n - 1}, $${n})`);
    }
    createdRangeWhere(query, where, params);
    params.push(query.limit);
    const { rows } = await q.query<BatchRow>(
      `SELECT * FROM payout_batches ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, merchant_id DESC, batch_id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toBatch);
  },
};
