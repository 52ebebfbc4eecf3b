import { createHash } from 'node:crypto';
import type { ExceptionKind } from '../../domain/outsideReport.ts';
import type { Queryable } from '../Database.ts';
import { createdRangeWhere, type CreatedBounds } from '../createdRangeWhere.ts';

export type ExceptionState = 'open' | 'resolved';
export type ExceptionAction =
  'apply_as_reported' | 'refund_in_full' | 'assign_to_wallet' | 'return_to_sender' | 'dismiss';

/** One entry of the exceptions queue (migration 026). */
export interface ExceptionRecord {
  id: string;
  kind: ExceptionKind;
  state: ExceptionState;
  source: string;
  sourceRef: string | null;
  merchantId: string | null;
  payoutId: string | null;
  walletId: string | null;
  /** Paise at stake; null when the report gives no amount. */
  amount: bigint | null;
  reported: Record<string, unknown>;
  held: Record<string, unknown>;
  reason: string;
  reconItemId: bigint | null;
  createdAt: Date;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  resolutionAction: ExceptionAction | null;
  resolutionReason: string | null;
  /** When a return to sender failed and opened it again, and why (migration 037); null otherwise. */
  reopenedAt: Date | null;
  reopenReason: string | null;
  /** The latest payout returning its deposit to the sender (return_to_sender); null when none was made. */
  returnPayoutId: string | null;
}

/** An exception to record: its id and fingerprint are made here. */
export interface NewException {
  kind: ExceptionKind;
  source: string;
  sourceRef?: string | null;
  merchantId?: string | null;
  payoutId?: string | null;
  walletId?: string | null;
  amount?: bigint | null;
  reported: Record<string, unknown>;
  held: Record<string, unknown>;
  reason: string;
  reconItemId?: bigint | null;
}

export interface ExceptionQuery extends CreatedBounds {
  limit: number;
  /** The id after which the page starts (oldest first). */
  after?: string;
  state?: ExceptionState;
  kind?: string;
  merchantId?: string;
}

interface Row {
  id: string;
  kind: ExceptionKind;
  state: ExceptionState;
  source: string;
  source_ref: string | null;
  merchant_id: string | null;
  payout_id: string | null;
  wallet_id: string | null;
  amount: bigint | null;
  reported: Record<string, unknown>;
  held: Record<string, unknown>;
  reason: string;
  recon_item_id: bigint | null;
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution_action: ExceptionAction | null;
  resolution_reason: string | null;
  reopened_at: Date | null;
  reopen_reason: string | null;
  return_payout_id: string | null;
}

const COLUMNS = `id, kind, state, source, source_ref, merchant_id, payout_id, wallet_id, amount, reported, held, reason,
  recon_item_id, created_at, resolved_at, resolved_by, resolution_action, resolution_reason, reopened_at,
  reopen_reason,
  (SELECT r.id FROM payouts r WHERE r.exception_id = exceptions.id ORDER BY r.id DESC LIMIT 1) AS return_payout_id`;

const toRecord = (r: Row): ExceptionRecord => ({
  id: r.id,
  kind: r.kind,
  state: r.state,
  source: r.source,
  sourceRef: r.source_ref,
  merchantId: r.merchant_id,
  payoutId: r.payout_id,
  walletId: r.wallet_id,
  amount: r.amount === null ? null : BigInt(r.amount),
  reported: r.reported,
  held: r.held,
  reason: r.reason,
  reconItemId: r.recon_item_id === null ? null : BigInt(r.recon_item_id),
  createdAt: r.created_at,
  resolvedAt: r.resolved_at,
  resolvedBy: r.resolved_by,
  resolutionAction: r.resolution_action,
  resolutionReason: r.resolution_reason,
  reopenedAt: r.reopened_at ?? null,
  reopenReason: r.reopen_reason ?? null,
  returnPayoutId: r.return_payout_id ?? null,
});

/** JSON with bigints as text and keys in a fixed order, so that the same content always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    return v;
  });
}

/**
 * The key that makes an exception recorded once: its source and what was reported about which payout (or which
 * reconciliation item). What was reported names its file or run where it has one.
 */
export function fingerprintOf(e: NewException): string {
  const key = canonicalJson([
    e.kind,
    e.source,
    e.payoutId ?? null,
    e.walletId ?? null,
    e.reconItemId === undefined || e.reconItemId === null ? null : String(e.reconItemId),
    e.reported,
  ]);
  return createHash('sha256').update(key).digest('hex');
}

/** The exceptions queue: append-only but for each entry's resolution (a trigger refuses the rest). */
export const ExceptionRepository = {
  /**
   * Records `items` (ids from `newId`), each once: an item whose fingerprint is known already records nothing. Answers
   * the id of each item's exception, new or earlier, in order.
   */
  async record(q: Queryable, items: readonly NewException[], newId: () => string, at: Date): Promise<string[]> {
    if (items.length === 0) return [];
    const prints = items.map(fingerprintOf);
    const ids = items.map(() => newId());
    await q.query(
      `INSERT INTO exceptions (id, kind, source, source_ref, fingerprint, merchant_id, payout_id, wallet_id, amount,
         reported, held, reason, recon_item_id, created_at)
       SELECT u.id, u.kind, u.source, u.source_ref, u.fingerprint,
         -- The merchant, when the caller does not know it, is the payout's or the wallet's: the queue filters by it.
         COALESCE(u.merchant_id, (SELECT p.merchant_id FROM payouts p WHERE p.id = u.payout_id),
           (SELECT w.merchant_id FROM wallets w WHERE w.id = u.wallet_id)),
         u.payout_id, u.wallet_id, u.amount,
         u.reported::jsonb, u.held::jsonb, u.reason, u.recon_item_id, $14
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::int8[], $10::text[], $11::text[], $12::text[], $13::int8[])
         AS u(id, kind, source, source_ref, fingerprint, merchant_id, payout_id, wallet_id, amount, reported, held,
           reason, recon_item_id)
       ON CONFLICT (fingerprint) DO NOTHING`,
      [
        ids,
        items.map((e) => e.kind),
        items.map((e) => e.source),
        items.map((e) => (e.sourceRef ?? null)?.slice(0, 300) ?? null),
        prints,
        items.map((e) => e.merchantId ?? null),
        items.map((e) => e.payoutId ?? null),
        items.map((e) => e.walletId ?? null),
        items.map((e) => (e.amount === undefined || e.amount === null ? null : e.amount < 0n ? -e.amount : e.amount)),
        items.map((e) => canonicalJson(e.reported)),
        items.map((e) => canonicalJson(e.held)),
        items.map((e) => e.reason.slice(0, 2000)),
        items.map((e) => e.reconItemId ?? null),
        at,
      ],
    );
    const { rows } = await q.query<{ id: string; fingerprint: string }>(
      'SELECT id, fingerprint FROM exceptions WHERE fingerprint = ANY($1::text[])',
      [prints],
    );
    const byPrint = new Map(rows.map((r) => [r.fingerprint, r.id]));
    return prints.map((p) => byPrint.get(p) as string);
  },

  async findById(q: Queryable, id: string): Promise<ExceptionRecord | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM exceptions WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  },

  async lockById(q: Queryable, id: string): Promise<ExceptionRecord | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM exceptions WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  },

  async lockByReconItem(q: Queryable, itemId: bigint): Promise<ExceptionRecord | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM exceptions WHERE recon_item_id = $1 FOR UPDATE`, [
      itemId,
    ]);
    return rows[0] ? toRecord(rows[0]) : null;
  },

  /** Oldest first, filtered; `limit` rows (the caller asks one more to know whether there is a next page). */
  async page(q: Queryable, query: ExceptionQuery): Promise<ExceptionRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.after) add('id > ?', query.after);
    if (query.state) add('state = ?', query.state);
    if (query.kind) add('kind = ?', query.kind);
    if (query.merchantId) add('merchant_id = ?', query.merchantId);
    createdRangeWhere(query, where, params);
    params.push(query.limit);
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM exceptions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRecord);
  },

  async resolve(
    q: Queryable,
    id: string,
    by: string,
    action: ExceptionAction,
    reason: string,
    at: Date,
  ): Promise<ExceptionRecord> {
    const { rows } = await q.query<Row>(
      `UPDATE exceptions SET state = 'resolved', resolved_at = $5, resolved_by = $2, resolution_action = $3,
         resolution_reason = $4
       WHERE id = $1 AND state = 'open' RETURNING ${COLUMNS}`,
      [id, by.slice(0, 200), action, reason.slice(0, 1000), at],
    );
    if (!rows[0]) throw new Error(`exception ${id} is not open`);
    return toRecord(rows[0]);
  },

  /** Open exceptions per kind (the metric payrail_exceptions_open). */
  async openByKind(q: Queryable): Promise<{ kind: string; count: number }[]> {
    const { rows } = await q.query<{ kind: string; count: string | number | bigint }>(
      `SELECT kind, count(*) AS count FROM exceptions WHERE state = 'open' GROUP BY kind`,
    );
    return rows.map((r) => ({ kind: r.kind, count: Number(r.count) }));
  },
};
