import type { Deposit } from '../../domain/deposit.ts';
import type { Queryable } from '../Database.ts';
import { MerchantRepository } from './MerchantRepository.ts';

interface Row {
  id: string;
  utr: string;
  merchant_id: string;
  wallet_id: string;
  amount: bigint;
  fee: bigint;
  tax: bigint;
  virtual_account: string;
  remitter_name: string | null;
  remitter_account: string | null;
  remitter_ifsc: string | null;
  source: Deposit['source'];
  exception_id: string | null;
  credited_at: Date;
  created_at: Date;
}

const toDeposit = (r: Row): Deposit => ({
  id: r.id,
  utr: r.utr,
  merchantId: r.merchant_id,
  walletId: r.wallet_id,
  amount: BigInt(r.amount),
  fee: BigInt(r.fee),
  tax: BigInt(r.tax),
  virtualAccount: r.virtual_account,
  remitterName: r.remitter_name,
  remitterAccount: r.remitter_account,
  remitterIfsc: r.remitter_ifsc,
  source: r.source,
  exceptionId: r.exception_id,
  creditedAt: r.credited_at,
  createdAt: r.created_at,
});

export interface NewDeposit {
  id: string;
  walletId: string;
  amount: bigint;
  utr: string;
  virtualAccount: string;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
  source: Deposit['source'];
  exceptionId: string | null;
  creditedAt: Date;
}

/** A wallet a virtual account number names: its merchant, and the merchant's allowed remitters (none: all). */
export interface DepositTarget {
  walletId: string;
  merchantId: string;
  allowed: { accountNumber: string; ifsc: string }[];
}

/** A deposit's wallet with where its merchant's webhooks go (a file's deposits, read in one query). */
export type FileDepositTarget = DepositTarget & { webhookUrl: string | null; scheme: 'v1' | 'v2' };

/** Deposits (migration 032) and what decides where one goes: the wallet of a number, the allowed remitters. */
export const DepositRepository = {
  /** A page of the wallet's deposits, newest first, after the deposit `before` (by id: DP + ULID, time-ordered). */
  async pageByWallet(q: Queryable, walletId: string, limit: number, before: string | undefined): Promise<Deposit[]> {
    const { rows } = await q.query<Row>(
      `SELECT * FROM deposits WHERE wallet_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [walletId, before ?? null, limit],
    );
    return rows.map(toDeposit);
  },

  /**
   * Credits the deposit, its fee and GST in one statement (deposit_credit, migration 032), or answers the deposit
   * already credited with this UTR (`created` false) and writes nothing.
   */
  async credit(q: Queryable, d: NewDeposit, gstBp: number): Promise<{ deposit: Deposit; created: boolean }> {
    const { rows } = await q.query<{ out_deposit: string; out_created: boolean }>(
      'SELECT out_deposit, out_created FROM deposit_credit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
      [
        d.id,
        d.walletId,
        d.amount,
        d.utr,
        d.virtualAccount,
        d.remitterName,
        d.remitterAccount,
        d.remitterIfsc,
        d.source,
        d.exceptionId,
        d.creditedAt,
        gstBp,
      ],
    );
    const row = rows[0] as { out_deposit: string; out_created: boolean };
    const deposit = await DepositRepository.findById(q, row.out_deposit);
    return { deposit: deposit as Deposit, created: row.out_created };
  },

  /**
   * Records many deposits (deposit_insert_many, migration 035), priced, without their ledger entries yet: each
   * element's deposit in order, `created` false when its UTR was credited before (or earlier in `deposits`). The
   * caller then locks the wallets and writes the entries (creditMany), keeping the lock order.
   */
  async insertMany(
    q: Queryable,
    deposits: readonly NewDeposit[],
    source: 'bank_file',
    gstBp: number,
  ): Promise<{ deposit: Deposit; created: boolean }[]> {
    if (deposits.length === 0) return [];
    const col = <T>(f: (d: NewDeposit) => T) => deposits.map(f);
    const { rows } = await q.query<Row & { out_ord: number; out_created: boolean }>(
      `SELECT * FROM deposit_insert_many($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[],
         $7::text[], $8::text[], $9::timestamptz[], $10, $11)`,
      [
        col((d) => d.id),
        col((d) => d.walletId),
        col((d) => d.amount.toString()),
        col((d) => d.utr),
        col((d) => d.virtualAccount),
        col((d) => d.remitterName),
        col((d) => d.remitterAccount),
        col((d) => d.remitterIfsc),
        col((d) => d.creditedAt.toISOString()),
        source,
        gstBp,
      ],
    );
    return rows.map((r) => ({ deposit: toDeposit(r), created: r.out_created }));
  },

  /** The ledger entries (credit, fee, GST) of deposits recorded by insertMany; the caller holds their wallets. */
  async creditMany(q: Queryable, depositIds: readonly string[]): Promise<void> {
    if (depositIds.length === 0) return;
    await q.query('SELECT deposit_ledger_many($1::text[])', [depositIds]);
  },

  /** The deposits already credited with any of `utrs`. */
  async findByUtrs(q: Queryable, utrs: readonly string[]): Promise<Deposit[]> {
    if (utrs.length === 0) return [];
    const { rows } = await q.query<Row>('SELECT * FROM deposits WHERE utr = ANY($1::text[])', [utrs]);
    return rows.map(toDeposit);
  },

  /**
   * The merchant wallets numbered `seqs` (migration 032's va_seq), each with its merchant's allowed remitters and
   * where its merchant's webhooks go: what a file's deposits need, in one query whatever their number.
   */
  async targetsBySeq(q: Queryable, seqs: readonly bigint[]): Promise<Map<string, FileDepositTarget>> {
    const out = new Map<string, FileDepositTarget>();
    if (seqs.length === 0) return out;
    const { rows } = await q.query<{
      va_seq: bigint;
      id: string;
      merchant_id: string;
      accounts: string[][] | null;
      collection_callback_url: string | null;
      default_scheme: 'v1' | 'v2';
    }>(
      `SELECT w.va_seq, w.id, w.merchant_id, m.collection_callback_url, m.default_scheme,
              (SELECT array_agg(ARRAY[r.account_number, r.ifsc] ORDER BY r.account_number, r.ifsc)
                 FROM allowed_remitters r WHERE r.merchant_id = w.merchant_id) AS accounts
         FROM wallets w JOIN merchants m ON m.id = w.merchant_id
        WHERE w.va_seq = ANY($1::int8[])`,
      [seqs.map(String)],
    );
    for (const r of rows) {
      out.set(String(r.va_seq), {
        walletId: r.id,
        merchantId: r.merchant_id,
        allowed: (r.accounts ?? []).map(([accountNumber, ifsc]) => ({
          accountNumber: accountNumber as string,
          ifsc: ifsc as string,
        })),
        webhookUrl: r.collection_callback_url,
        scheme: r.default_scheme,
      });
    }
    return out;
  },

  async findById(q: Queryable, id: string): Promise<Deposit | null> {
    const { rows } = await q.query<Row>('SELECT * FROM deposits WHERE id = $1', [id]);
    return rows[0] ? toDeposit(rows[0]) : null;
  },

  async findByUtr(q: Queryable, utr: string): Promise<Deposit | null> {
    const { rows } = await q.query<Row>('SELECT * FROM deposits WHERE utr = $1', [utr]);
    return rows[0] ? toDeposit(rows[0]) : null;
  },

  /** The merchant wallet numbered `seq` (migration 032's va_seq) with its merchant's allowed remitters. */
  async targetBySeq(q: Queryable, seq: bigint): Promise<DepositTarget | null> {
    return DepositRepository.target(q, 'w.va_seq = $1', seq);
  },

  /** A merchant wallet by id, with its merchant's allowed remitters (an exception assigned to it). */
  async targetByWallet(q: Queryable, walletId: string): Promise<DepositTarget | null> {
    return DepositRepository.target(q, 'w.id = $1', walletId);
  },

  async target(q: Queryable, where: 'w.va_seq = $1' | 'w.id = $1', key: unknown): Promise<DepositTarget | null> {
    const { rows } = await q.query<{ id: string; merchant_id: string; accounts: string[][] | null }>(
      `SELECT w.id, w.merchant_id,
              (SELECT array_agg(ARRAY[r.account_number, r.ifsc] ORDER BY r.account_number, r.ifsc)
                 FROM allowed_remitters r WHERE r.merchant_id = w.merchant_id) AS accounts
         FROM wallets w
        WHERE ${where} AND w.merchant_id IS NOT NULL`,
      [key],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      walletId: r.id,
      merchantId: r.merchant_id,
      allowed: (r.accounts ?? []).map(([accountNumber, ifsc]) => ({
        accountNumber: accountNumber as string,
        ifsc: ifsc as string,
      })),
    };
  },

  /** Replaces the merchant's allowed remitters with `accounts` (none: every remitter is allowed). */
  async replaceAllowedRemitters(
    q: Queryable,
    merchantId: string,
    accounts: readonly { accountNumber: string; ifsc: string }[],
  ): Promise<void> {
    await q.query('DELETE FROM allowed_remitters WHERE merchant_id = $1', [merchantId]);
    if (accounts.length === 0) return;
    await q.query(
      `INSERT INTO allowed_remitters (merchant_id, account_number, ifsc)
       SELECT $1, a, i FROM unnest($2::text[], $3::text[]) AS u (a, i) ON CONFLICT DO NOTHING`,
      [merchantId, accounts.map((a) => a.accountNumber), accounts.map((a) => a.ifsc)],
    );
  },

  async allowedRemitters(q: Queryable, merchantId: string): Promise<{ accountNumber: string; ifsc: string }[]> {
    const { rows } = await q.query<{ account_number: string; ifsc: string }>(
      'SELECT account_number, ifsc FROM allowed_remitters WHERE merchant_id = $1 ORDER BY account_number, ifsc',
      [merchantId],
    );
    return rows.map((r) => ({ accountNumber: r.account_number, ifsc: r.ifsc }));
  },

  /** Where a merchant's deposit webhooks go (its collection callback) and their scheme; null: no such merchant. */
  async merchantWebhook(q: Queryable, merchantId: string): Promise<{ url: string | null; scheme: 'v1' | 'v2' } | null> {
    return (await MerchantRepository.collectionWebhooks(q, [merchantId])).get(merchantId) ?? null;
  },
};
