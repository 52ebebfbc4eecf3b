import type { Merchant, MerchantStatus } from '../../domain/Merchant.ts';
import type { Queryable } from '../Database.ts';
import { SEALED_PREFIX, SecretBox } from '../SecretBox.ts';

interface MerchantRow {
  id: string;
  name: string;
  status: MerchantStatus;
  api_key: string;
  api_key_lookup: string | null;
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
  default_scheme: 'v1' | 'v2';
  legal_name: string | null;
  gstin: string | null;
  billing_state: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Additional data of every sealed column of a merchant: a value moved to another merchant's row does not open. */
const sealContext = (merchantId: string) => `merchant:${merchantId}`;

/** The row's secrets opened (decrypted); everything else as it is. */
const toMerchant = (box: SecretBox, r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  status: r.status,
  apiKey: box.open(r.api_key, sealContext(r.id)),
  secretKey: box.open(r.secret_key, sealContext(r.id)),
  webhookSecret: box.open(r.webhook_secret, sealContext(r.id)),
  previousWebhookSecret:
    r.previous_webhook_secret === null ? null : box.open(r.previous_webhook_secret, sealContext(r.id)),
  previousWebhookSecretExpiresAt: r.previous_webhook_secret_expires_at,
  credentialsVersion: Number(r.credentials_version),
  dailyLimit: r.daily_limit,
  monthlyLimit: r.monthly_limit,
  collectionCallbackUrl: r.collection_callback_url,
  upiVpa: r.upi_vpa,
  upiPayeeName: r.upi_payee_name,
  beneficiaryVerification: r.beneficiary_verification,
  minNameMatchScore: Number(r.min_name_match_score),
  defaultScheme: r.default_scheme,
  legalName: r.legal_name,
  gstin: r.gstin,
  billingState: r.billing_state,
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
  defaultScheme?: 'v1' | 'v2';
  legalName?: string | null;
  gstin?: string | null;
  billingState?: string | null;
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
  defaultScheme: 'default_scheme',
  legalName: 'legal_name',
  gstin: 'gstin',
  billingState: 'billing_state',
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

/** How many merchants `resealBatch` rewrote, and where the next batch starts (null: no more rows). */
export interface ResealProgress {
  resealed: number;
  /** Rows of this batch that needed something (written now, or changed by someone else meanwhile). */
  candidates: number;
  next: string | null;
}

/**
 * Merchants and their credentials. Secrets are sealed by the SecretBox on the way in and opened on the way out
 * (docs/operator/secrets-at-rest.md): callers see plain domain objects; the database holds no usable credential when a
 * master key is configured. Merchants are found by API key through its keyed lookup hash.
 */
export class MerchantRepository {
  constructor(private readonly box: SecretBox = SecretBox.plain()) {}

  /**
   * Where the merchants' collection-side events go (deposits, settlements: the collection callback) and in which
   * scheme, by merchant id; an unknown merchant is absent. One statement for any number.
   */
  static async collectionWebhooks(
    q: Queryable,
    merchantIds: readonly string[],
  ): Promise<Map<string, { url: string | null; scheme: 'v1' | 'v2' }>> {
    if (merchantIds.length === 0) return new Map();
    const { rows } = await q.query<{ id: string; collection_callback_url: string | null; default_scheme: 'v1' | 'v2' }>(
      'SELECT id, collection_callback_url, default_scheme FROM merchants WHERE id = ANY ($1::text[])',
      [merchantIds],
    );
    return new Map(rows.map((r) => [r.id, { url: r.collection_callback_url, scheme: r.default_scheme }]));
  }

  /**
   * What a money movement must see as it is now, not as a cache holds it: status, credentials version and
   * allowances (null when there is no such merchant).
   */
  static async paymentTerms(
    q: Queryable,
    id: string,
  ): Promise<Pick<Merchant, 'status' | 'credentialsVersion' | 'dailyLimit' | 'monthlyLimit'> | null> {
    const { rows } = await q.query<
      Pick<MerchantRow, 'status' | 'credentials_version' | 'daily_limit' | 'monthly_limit'>
    >('SELECT status, credentials_version, daily_limit, monthly_limit FROM merchants WHERE id = $1', [id]);
    const r = rows[0];
    return r
      ? {
          status: r.status,
          credentialsVersion: Number(r.credentials_version),
          dailyLimit: r.daily_limit,
          monthlyLimit: r.monthly_limit,
        }
      : null;
  }

  /** The collection callback URL of a merchant, without opening its secrets. */
  static async collectionCallbackUrl(q: Queryable, id: string): Promise<string | null> {
    const { rows } = await q.query<{ url: string | null }>(
      'SELECT collection_callback_url AS url FROM merchants WHERE id = $1',
      [id],
    );
    return rows[0]?.url ?? null;
  }

  /** The distinct master key ids that sealed values of merchants and of the given settings name. */
  static async sealedKeyIds(q: Queryable, settings: readonly string[]): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT DISTINCT substr(v, 5, 8) AS id FROM (
         SELECT api_key AS v FROM merchants UNION ALL SELECT secret_key FROM merchants
         UNION ALL SELECT webhook_secret FROM merchants UNION ALL SELECT previous_webhook_secret FROM merchants
         UNION ALL SELECT value FROM settings WHERE key = ANY($1::text[])) s
        WHERE v LIKE '${SEALED_PREFIX}%' ORDER BY 1`,
      [settings],
    );
    return rows.map((r) => r.id);
  }

  private merchant(row: MerchantRow | undefined): Merchant | null {
    return row ? toMerchant(this.box, row) : null;
  }

  async insert(q: Queryable, m: NewMerchant): Promise<Merchant> {
    const ctx = sealContext(m.id);
    const { rows } = await q.query<MerchantRow>(
      `INSERT INTO merchants (id, name, api_key, api_key_lookup, secret_key, webhook_secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [
        m.id,
        m.name,
        this.box.seal(m.apiKey, ctx),
        this.box.lookupHash(m.apiKey),
        this.box.seal(m.secretKey, ctx),
        this.box.seal(m.webhookSecret, ctx),
      ],
    );
    return toMerchant(this.box, rows[0] as MerchantRow);
  }

  /**
   * Other merchants with this name, any case and outer spaces aside (at most `limit`, oldest first): what a new
   * merchant's creation warns of. A scan of the merchants table, once per creation.
   */
  static async namesakes(q: Queryable, name: string, exceptId: string, limit = 10): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id FROM merchants WHERE lower(btrim(name)) = lower(btrim($1)) AND id <> $2 ORDER BY id LIMIT $3`,
      [name, exceptId, limit],
    );
    return rows.map((r) => r.id);
  }

  async findById(q: Queryable, id: string): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE id = $1', [id]);
    return this.merchant(rows[0]);
  }

  /** `findById` for several merchants in one statement (the webhook worker's claimed deliveries), by id. */
  async findByIds(q: Queryable, ids: readonly string[]): Promise<Map<string, Merchant>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE id = ANY($1::text[])', [
      [...new Set(ids)],
    ]);
    return new Map(rows.map((r) => [r.id, toMerchant(this.box, r)]));
  }

  /** By the lookup hash under any key the box knows (a master-key rotation may be half done). */
  async findByApiKey(q: Queryable, apiKey: string): Promise<Merchant | null> {
    const { rows } = await q.query<MerchantRow>('SELECT * FROM merchants WHERE api_key_lookup = ANY($1::text[])', [
      this.box.lookupHashes(apiKey),
    ]);
    return this.merchant(rows[0]);
  }

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
    return this.merchant(rows[0]);
  }

  async rotateCredentials(q: Queryable, id: string, apiKey: string, secretKey: string): Promise<Merchant | null> {
    const ctx = sealContext(id);
    const { rows } = await q.query<MerchantRow>(
      `UPDATE merchants SET api_key = $2, api_key_lookup = $3, secret_key = $4,
              credentials_version = credentials_version + 1, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, this.box.seal(apiKey, ctx), this.box.lookupHash(apiKey), this.box.seal(secretKey, ctx)],
    );
    return this.merchant(rows[0]);
  }

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
      [id, this.box.seal(webhookSecret, sealContext(id)), overlapMs],
    );
    return this.merchant(rows[0]);
  }

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
    return rows.map((r) => toMerchant(this.box, r));
  }

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
    return { merchants: rows.map((r) => toMerchant(this.box, r)), now: (clock.rows[0] as { now: Date }).now };
  }

  /**
   * Rewrites up to `limit` merchants (ids after `after`, in id order) whose stored secrets or lookup hash are not
   * as the box would write them now: plain values get sealed, values under the previous master key get sealed
   * under the current one, and the lookup hash is recomputed. `onlyPlain` leaves values under the previous key
   * alone (what every start does; a rotation does all). Each row is written only if it still holds what was read,
   * so this is safe beside serving instances and a second run at once (a row changed meanwhile is written by
   * its writer under the current key, or found again by the next pass).
   */
  async resealBatch(q: Queryable, after: string, limit: number, onlyPlain: boolean): Promise<ResealProgress> {
    // What a row must look like to need nothing (LIKE pattern of its values); null for the plain box.
    const current = this.box.currentKeyId;
    const sealedLike = current === null ? null : onlyPlain ? `${SEALED_PREFIX}%` : `${SEALED_PREFIX}${current}:%`;
    const { rows } = await q.query<MerchantRow>(
      `SELECT * FROM merchants
        WHERE id > $1 AND (api_key_lookup IS NULL OR api_key NOT LIKE $3 OR secret_key NOT LIKE $3
              OR webhook_secret NOT LIKE $3 OR previous_webhook_secret NOT LIKE $3)
        ORDER BY id LIMIT $2`,
      [after, limit, sealedLike],
    );
    // Plain box: nothing is sealed. Start: only plain values. Rotation: whatever is not under the current key.
    const stale = (v: string | null): v is string =>
      v !== null &&
      this.box.currentKeyId !== null &&
      (onlyPlain ? !v.startsWith(SEALED_PREFIX) : this.box.needsReseal(v));
    let resealed = 0;
    for (const row of rows) {
      const stored = [row.api_key, row.secret_key, row.webhook_secret, row.previous_webhook_secret] as const;
      const m = toMerchant(this.box, row);
      // The lookup hash follows the API key: recomputed when the key is resealed (or was never computed).
      const lookup =
        row.api_key_lookup === null || stale(row.api_key) || !onlyPlain
          ? this.box.lookupHash(m.apiKey)
          : row.api_key_lookup;
      if (!stored.some(stale) && lookup === row.api_key_lookup) continue;
      const ctx = sealContext(row.id);
      const plain = [m.apiKey, m.secretKey, m.webhookSecret, m.previousWebhookSecret];
      const next = stored.map((v, i) => (stale(v) ? this.box.seal(plain[i] as string, ctx) : v));
      const { rowCount } = await q.query(
        `UPDATE merchants SET api_key = $6, secret_key = $7, webhook_secret = $8, previous_webhook_secret = $9,
                api_key_lookup = $10
          WHERE id = $1 AND api_key = $2 AND secret_key = $3 AND webhook_secret = $4
            AND previous_webhook_secret IS NOT DISTINCT FROM $5`,
        [row.id, ...stored, ...next, lookup],
      );
      resealed += rowCount;
    }
    return {
      resealed,
      candidates: rows.length,
      next: rows.length < limit ? null : (rows[rows.length - 1] as MerchantRow).id,
    };
  }
}
