import type { Merchant, MerchantStatus } from '../../domain/Merchant.ts';
import type { Queryable } from '../Database.ts';

interface MerchantRow {
  id: string;
  name: string;
  status: MerchantStatus;
  api_key: string;
  secret_key: string;
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: Date | null;
  credentials_version: number;
  daily_limit: bigint | null;
  monthly_limit: bigint | null;
  collection_callback_url: string | null;
  upi_vpa: string | null;
  upi_payee_name: string | null;
  beneficiary_verification: 'off' | 'required';
  min_name_match_score: number;
  created_at: Date;
  updated_at: Date;
}

const toMerchant = (r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  status: r.status,
  apiKey: r.api_key,
  secretKey: r.secret_key,
  webhookSecret: r.webhook_secret,
  previousWebhookSecret: r.previous_webhook_secret,
  previousWebhookSecretExpiresAt: r.previous_webhook_secret_expires_at,
  credentialsVersion: Number(r.credentials_version),
  dailyLimit: r.daily_limit,
  monthlyLimit: r.monthly_limit,
  collectionCallbackUrl: r.collection_callback_url,
  upiVpa: r.upi_vpa,
  upiPayeeName: r.upi_payee_name,
  beneficiaryVerification: r.beneficiary_verification,
  minNameMatchScore: Number(r.min_name_match_score),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface NewMerchant {
  id: string;
  name: string;
  apiKey: string;
  secretKey: string;
  webhookSecret: string;
}

/** Settings an operator may change; an absent key is left as it is, null clears it. */
export interface MerchantPatch {
  dailyLimit?: bigint | null;
  monthlyLimit?: bigint | null;
  collectionCallbackUrl?: string | null;
  upiVpa?: string | null;
  upiPayeeName?: string | null;
  status?: MerchantStatus;
  beneficiaryVerification?: 'off' | 'required';
  minNameMatchScore?: number;
}

const PATCH_COLUMNS: Record<keyof MerchantPatch, string> = {
  dailyLimit: 'daily_limit',
  monthlyLimit: 'monthly_limit',
  collectionCallbackUrl: 'collection_callback_url',
  upiVpa: 'upi_vpa',
  upiPayeeName: 'upi_payee_name',
  status: 'status',
  beneficiaryVerification: 'beneficiary_verification',
  minNameMatchScore: 'min_name_match_score',
};

/** A page of the operator's merchant list: `search` is an exact merchant id or part of the name (any case). */
export interface MerchantPageQuery {
  search?: string;
  status?: MerchantStatus;
  limit: number;
  /** The id of the last merchant of the previous page (ids grow with time, so this pages newest first). */
  after?: string;
}

/** LIKE treats `%`, `_` and the escape character itself as special: a search for them means the characters. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, '\\$&');

export const MerchantRepository = {
  async insert(q: Queryable, m: NewMerchant): Promise<Merchant> {
    const { rows } = await q.query<MerchantRow>(
      `INSERT INTO merchants (id, name, api_key, secret_key, webhook_secret)
       VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [m.id, m.name, m.apiKey, m.secretKey, m.webhookSecret],
    );
    return toMerchant(rows[0] as MerchantRow);
  },

  async findById(q: Queryable, id: string): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE id = $1', [id]);
    return rows[0] ? toMerchant(rows[0]) : null;
  },

  async findByApiKey(q: Queryable, apiKey: string): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE api_key = $1', [apiKey]);
    return rows[0] ? toMerchant(rows[0]) : null;
  },

  async update(q: Queryable, id: string, patch: MerchantPatch): Promise<Merchant | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, column] of Object.entries(PATCH_COLUMNS) as [keyof MerchantPatch, string][]) {
      if (patch[key] === undefined) continue;
      params.push(patch[key]);
      sets.push(`${column} = $${params.length}`);
    }
    const { rows } = await q.query<MerchantRow>(
      `UPDATE merchants SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
      params,
    );
    return rows[0] ? toMerchant(rows[0]) : null;
  },

  async rotateCredentials(q: Queryable, id: string, apiKey: string, secretKey: string): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>(
      `UPDATE merchants SET api_key = $2, secret_key = $3, credentials_version = credentials_version + 1,
              updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, apiKey, secretKey],
    );
    return rows[0] ? toMerchant(rows[0]) : null;
  },

  /**
   * Makes `webhookSecret` current; the secret current until now keeps signing for `overlapMs` (a previous
   * secret from an earlier rotation is dropped: only the one current just before this rotation survives).
   */
  async rotateWebhookSecret(
    q: Queryable,
    id: string,
    webhookSecret: string,
    overlapMs: number,
  ): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>(
      `UPDATE merchants SET previous_webhook_secret = webhook_secret,
              previous_webhook_secret_expires_at = now() + make_interval(secs => $3::float8 / 1000),
              webhook_secret = $2, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, webhookSecret, overlapMs],
    );
    return rows[0] ? toMerchant(rows[0]) : null;
  },

  async page(q: Queryable, query: MerchantPageQuery): Promise<Merchant[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.search !== undefined) {
      params.push(query.search, `%${likeLiteral(query.search)}%`);
      where.push(`(id = $${params.length - 1} OR name ILIKE $${params.length})`);
    }
    if (query.after !== undefined) {
      params.push(query.after);
      where.push(`id < $${params.length}`);
    }
    params.push(query.limit);
    const { rows } = await q.query<MerchantRow>(
      `SELECT * FROM merchants ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toMerchant);
  },

  /**
   * Merchants whose credentials or status changed at or after `since` (all of them when null), with the
   * database's clock at the time of the query, for the in-memory V1 key index.
   */
  async keysChangedSince(q: Queryable, since: Date | null): Promise<{ merchants: Merchant[]; now: Date }> {
    // The clock first: a change committed while the rows are read is then found again by the next call.
    const clock = await q.query<{ now: Date }>('SELECT now() AS now');
    const { rows } = await q.query<MerchantRow>(
      'SELECT * FROM merchants WHERE $1::timestamptz IS NULL OR keys_changed_at >= $1',
      [since],
    );
    return { merchants: rows.map(toMerchant), now: (clock.rows[0] as { now: Date }).now };
  },
};
