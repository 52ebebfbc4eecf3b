import type { Wallet } from '../../domain/Merchant.ts';
import type { Queryable } from '../Database.ts';

interface WalletRow {
  id: string;
  merchant_id: string;
  balance: bigint;
  va_seq: bigint | string | null;
  created_at: Date;
  updated_at: Date;
}

const toWallet = (r: WalletRow): Wallet => ({
  id: r.id,
  merchantId: r.merchant_id,
  balance: r.balance,
  vaSeq: r.va_seq === null || r.va_seq === undefined ? null : BigInt(r.va_seq),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * A wallet's columns, its balance as its ledger sums to: a platform wallet's is its row's plus its stripes'
 * (migration 040; the CASE reads the stripes only for one, so a merchant wallet's read costs what it did).
 */
const WALLET_COLUMNS = `w.id, w.merchant_id, w.va_seq, w.created_at, w.updated_at,
  CASE WHEN w.platform_kind IS NULL THEN w.balance
       ELSE (SELECT p.balance FROM platform_wallet_balances p WHERE p.id = w.id) END AS balance`;

export const WalletRepository = {
  async insert(q: Queryable, id: string, merchantId: string): Promise<Wallet> {
    const { rows } = await q.query<WalletRow>('INSERT INTO wallets (id, merchant_id) VALUES ($1, $2) RETURNING *', [
      id,
      merchantId,
    ]);
    return toWallet(rows[0] as WalletRow);
  },

  async findById(q: Queryable, id: string): Promise<Wallet | null> {
    const { rows } = await q.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets w WHERE w.id = $1`, [id]);
    return rows[0] ? toWallet(rows[0]) : null;
  },

  /**
   * The wallet, its row held until the transaction ends. NO KEY UPDATE, as payout_open takes it: it serialises
   * with payouts and other credits without conflicting with the key-share locks of rows that reference it.
   */
  async lockById(q: Queryable, id: string): Promise<Wallet | null> {
    const { rows } = await q.query<WalletRow>('SELECT * FROM wallets WHERE id = $1 FOR NO KEY UPDATE', [id]);
    return rows[0] ? toWallet(rows[0]) : null;
  },

  /**
   * Locks several wallets in one statement, in id order (the database's collation, as payout_open_batch sorts
   * them), FOR NO KEY UPDATE as lockById (services/LockOrder.ts).
   */
  async lockMany(q: Queryable, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await q.query('SELECT 1 FROM wallets WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [[...ids]]);
  },

  /** Several wallets in one query (a bulk request's). */
  async findByIds(q: Queryable, ids: string[]): Promise<Wallet[]> {
    if (ids.length === 0) return [];
    const { rows } = await q.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets w WHERE w.id = ANY ($1::text[])`, [
      ids,
    ]);
    return rows.map(toWallet);
  },

  async listByMerchant(q: Queryable, merchantId: string): Promise<Wallet[]> {
    const { rows } = await q.query<WalletRow>('SELECT * FROM wallets WHERE merchant_id = $1 ORDER BY id', [merchantId]);
    return rows.map(toWallet);
  },

  /** The wallets of several merchants at once (a page of merchants), each merchant's in creation order. */
  async listByMerchants(q: Queryable, merchantIds: string[]): Promise<Wallet[]> {
    if (merchantIds.length === 0) return [];
    const { rows } = await q.query<WalletRow>(
      'SELECT * FROM wallets WHERE merchant_id = ANY($1::text[]) ORDER BY merchant_id, id',
      [merchantIds],
    );
    return rows.map(toWallet);
  },

  /** The merchant's first wallet (the one created with the merchant): the default for collections. */
  async firstOfMerchant(q: Queryable, merchantId: string): Promise<Wallet | null> {
    const { rows } = await q.query<WalletRow>('SELECT * FROM wallets WHERE merchant_id = $1 ORDER BY id LIMIT 1', [
      merchantId,
    ]);
    return rows[0] ? toWallet(rows[0]) : null;
  },

  /**
   * What Payrail owes its merchants in all: every wallet's balance plus every payout still on hold (debited from its
   * wallet, not yet paid out). The treasury compares it with the money the connector's account holds.
   */
  async owedInAll(q: Queryable): Promise<bigint> {
    const { rows } = await q.query<{ total: bigint | null }>(
      `SELECT ((SELECT coalesce(sum(balance), 0) FROM wallets)
             + (SELECT coalesce(sum(balance), 0) FROM platform_balance_stripes)
             + (SELECT coalesce(sum(amount), 0) FROM payouts WHERE status IN ('INITIATED', 'PROCESSING', 'PENDING')))::int8
              AS total`,
    );
    return rows[0]?.total ?? 0n;
  },

  /** Sum of the wallet's payouts that are not final yet (INITIATED, PROCESSING, PENDING). */
  async onHold(q: Queryable, walletId: string): Promise<bigint> {
    const { rows } = await q.query<{ total: bigint | null }>(
      `SELECT sum(amount)::int8 AS total FROM payouts
        WHERE wallet_id = $1 AND status IN ('INITIATED', 'PROCESSING', 'PENDING')`,
      [walletId],
    );
    return rows[0]?.total ?? 0n;
  },
};
