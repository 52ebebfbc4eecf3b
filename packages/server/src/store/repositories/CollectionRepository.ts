import type { CollectionStatus, CollectionTxnType, Scheme } from '@payrail/protocol';
import type { Collection, CollectionMode } from '../../domain/Collection.ts';
import type { Queryable } from '../Database.ts';
import { createdRangeWhere } from '../createdRangeWhere.ts';
import { isUniqueViolation } from '../dbErrors.ts';

interface CollectionRow {
  id: string;
  merchant_id: string;
  wallet_id: string;
  sender_id: string;
  amount: bigint;
  fee?: bigint;
  tax?: bigint;
  remarks: string;
  payment_mode: CollectionMode;
  txn_type: CollectionTxnType;
  payer_vpa: string;
  payee_vpa: string;
  payee_name: string;
  channel: string;
  callback_url: string | null;
  scheme: Scheme;
  status: CollectionStatus;
  status_message: string;
  utr: string;
  page_token: string;
  psp_reference: string | null;
  connector: string | null;
  upstream_txn_id: string | null;
  upstream_intent_url: string | null;
  upstream_payment_url: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

const toCollection = (r: CollectionRow): Collection => ({
  id: r.id,
  merchantId: r.merchant_id,
  walletId: r.wallet_id,
  senderId: r.sender_id,
  amount: r.amount,
  fee: r.fee ?? 0n,
  tax: r.tax ?? 0n,
  remarks: r.remarks,
  paymentMode: r.payment_mode,
  txnType: r.txn_type,
  payerVpa: r.payer_vpa,
  payeeVpa: r.payee_vpa,
  payeeName: r.payee_name,
  channel: r.channel,
  callbackUrl: r.callback_url,
  scheme: r.scheme,
  status: r.status,
  statusMessage: r.status_message,
  utr: r.utr,
  pageToken: r.page_token,
  pspReference: r.psp_reference,
  connector: r.connector ?? null,
  upstream:
    r.upstream_txn_id && r.upstream_intent_url && r.upstream_payment_url
      ? { txnId: r.upstream_txn_id, intentUrl: r.upstream_intent_url, paymentUrl: r.upstream_payment_url }
      : null,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface CollectionPageQuery {
  merchantId?: string;
  status?: CollectionStatus;
  senderId?: string;
  limit: number;
  /** Id of the last collection of the previous page (newest first). */
  after?: string;
  /** Created at or after / before these instants (the console's IST date filters). */
  createdFrom?: Date;
  createdBefore?: Date;
}

export const CollectionRepository = {
  /** Inserts a new collection; null when this merchant already used the senderId. */
  async insert(q: Queryable, c: Collection): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>(
      `INSERT INTO collections (id, merchant_id, wallet_id, sender_id, amount, remarks, payment_mode, payer_vpa,
         callback_url, scheme, status, status_message, utr, expires_at, created_at, updated_at,
         txn_type, payee_vpa, payee_name, channel, page_token, connector)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, '', $13, $14, $14, $15, $16, $17, $18, $19, $20)
       ON CONFLICT (merchant_id, sender_id) DO NOTHING
       RETURNING *`,
      [
        c.id,
        c.merchantId,
        c.walletId,
        c.senderId,
        c.amount,
        c.remarks,
        c.paymentMode,
        c.payerVpa,
        c.callbackUrl,
        c.scheme,
        c.status,
        c.statusMessage,
        c.expiresAt,
        c.createdAt,
        c.txnType,
        c.payeeVpa,
        c.payeeName,
        c.channel,
        c.pageToken,
        c.connector ?? null,
      ],
    );
    return rows[0] ? toCollection(rows[0]) : null;
  },

  /**
   * Records the upstream's copy of a collection routed upstream, while it is still INITIATED and not linked to
   * another copy; the payee address becomes the upstream's (where the payer pays). Null when it is no longer so.
   */
  async linkUpstream(
    q: Queryable,
    id: string,
    link: { txnId: string; intentUrl: string; paymentUrl: string; payeeVpa?: string },
  ): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>(
      `UPDATE collections SET upstream_txn_id = $2, upstream_intent_url = $3, upstream_payment_url = $4,
              payee_vpa = coalesce($5, payee_vpa)
        WHERE id = $1 AND connector = 'upstream' AND status = 'INITIATED'
          AND (upstream_txn_id IS NULL OR upstream_txn_id = $2)
        RETURNING *`,
      [id, link.txnId, link.intentUrl, link.paymentUrl, link.payeeVpa ?? null],
    );
    return rows[0] ? toCollection(rows[0]) : null;
  },

  async findById(q: Queryable, id: string): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>('SELECT * FROM collections WHERE id = $1', [id]);
    return rows[0] ? toCollection(rows[0]) : null;
  },

  async findByPageToken(q: Queryable, token: string): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>('SELECT * FROM collections WHERE page_token = $1', [token]);
    return rows[0] ? toCollection(rows[0]) : null;
  },

  async lockById(q: Queryable, id: string): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>('SELECT * FROM collections WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toCollection(rows[0]) : null;
  },

  async findBySenderId(q: Queryable, merchantId: string, senderId: string): Promise<Collection | null> {
    const { rows } = await q.query<CollectionRow>(
      'SELECT * FROM collections WHERE merchant_id = $1 AND sender_id = $2',
      [merchantId, senderId],
    );
    return rows[0] ? toCollection(rows[0]) : null;
  },

  /** Moves a collection from `from` to `to`; null when it is no longer in `from`. The trigger guards the table. */
  async transition(
    q: Queryable,
    id: string,
    from: CollectionStatus,
    to: CollectionStatus,
    fields: { statusMessage: string; utr?: string; actor: string; reason?: string; at: Date },
  ): Promise<Collection | null> {
    // updated_at is the caller's clock: a SUCCESS stamps it as the collection's credited_at (migration 034), which
    // settlement windows compare with the same clock.
    // The actor (and the reason, when it is not the status message) are set for this transaction in the same
    // statement; the history trigger (migration 007) reads them.
    const { rows } = await q.query<CollectionRow>(
      `UPDATE collections AS c SET status = $3, status_message = $4, utr = coalesce($5, utr), updated_at = $8
         FROM (SELECT set_config('payrail.actor', $6, true), set_config('payrail.reason', $7, true)) AS actor
        WHERE id = $1 AND status = $2 RETURNING c.*`,
      [id, from, to, fields.statusMessage, fields.utr ?? null, fields.actor, fields.reason ?? '', fields.at],
    );
    return rows[0] ? toCollection(rows[0]) : null;
  },

  /** The collection whose payment the PSP knows by `reference` (migration 011), if one was recorded. */
  async findIdByPspReference(q: Queryable, reference: string): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>('SELECT id FROM collections WHERE psp_reference = $1', [reference]);
    return rows[0]?.id ?? null;
  },

  /**
   * Keeps the PSP's reference of the collection's payment (set once; the caller holds the row lock and checked that
   * no other collection has it). False when another collection took it meanwhile: a concurrent transaction that
   * committed after the caller's check, which only the unique index sees. The statement runs under a savepoint, so
   * the caller's transaction stays usable to record the refusal.
   */
  async recordPspReference(q: Queryable, id: string, reference: string): Promise<boolean> {
    await q.query('SAVEPOINT psp_reference');
    try {
      await q.query('UPDATE collections SET psp_reference = $2 WHERE id = $1 AND psp_reference IS NULL', [
        id,
        reference,
      ]);
    } catch (err) {
      if (!isUniqueViolation(err, 'collections_by_psp_reference')) throw err;
      await q.query('ROLLBACK TO SAVEPOINT psp_reference');
      return false;
    }
    await q.query('RELEASE SAVEPOINT psp_reference');
    return true;
  },

  async page(q: Queryable, query: CollectionPageQuery): Promise<Collection[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of [
      ['merchant_id', query.merchantId],
      ['status', query.status],
      ['sender_id', query.senderId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    if (query.after) {
      params.push(query.after);
      where.push(`id < $${params.length}`);
    }
    createdRangeWhere(query, where, params);
    params.push(query.limit);
    const { rows } = await q.query<CollectionRow>(
      `SELECT * FROM collections ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toCollection);
  },
};
