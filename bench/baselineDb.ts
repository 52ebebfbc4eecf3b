import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Database, Queryable, QueryResult } from '../packages/server/src/store/Database.ts';
import { migrate } from '../packages/server/src/store/migrate.ts';

/**
 * The databases of the two baselines: a copy of Payrail's schema (its own migrations) in a PostgreSQL schema
 * or a PGlite directory of its own, seeded with the benchmark's merchants, and then used raw — `pg` or PGlite
 * directly, not through the server's store.
 */

const INT8_OID = 20;

type Rows = { rows: Record<string, unknown>[] };

export interface RawTx {
  query(sql: string, params: unknown[]): Promise<Rows>;
  /** A script of several statements (migrations). */
  exec(sql: string): Promise<void>;
}

export interface RawDb extends RawTx {
  transaction(fn: (tx: RawTx) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface SeedMerchant {
  merchantId: string;
  walletId: string;
  apiKey: string;
  secretKey: string;
}

/** Opens `target` (a postgres:// URL carrying its search_path, or a PGlite directory) with `pg`/PGlite directly. */
export async function openRaw(target: string, poolSize = 20): Promise<RawDb> {
  if (/^postgres(ql)?:/.test(target)) {
    const types = {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text'),
    };
    const pool = new pg.Pool({ connectionString: target, max: poolSize, types: types as pg.CustomTypesConfig });
    // Named prepared statements, as the server runs them by default (store/pgDatabase.ts), so that a baseline
    // gets what the server gets from PostgreSQL.
    const names = new Map<string, string>();
    const nameOf = (sql: string) => {
      let name = names.get(sql);
      if (name === undefined)
        names.set(sql, (name = `b_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`));
      return name;
    };
    return {
      query: (sql, params) => pool.query({ name: nameOf(sql), text: sql, values: params }),
      exec: async (sql) => {
        await pool.query(sql);
      },
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await fn({
            query: (sql, params) => client.query(sql, params),
            exec: async (sql) => {
              await client.query(sql);
            },
          });
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const db = await PGlite.create(target, { parsers: { [INT8_OID]: (v: string) => BigInt(v) } });
  return {
    query: (sql, params) => db.query(sql, params) as Promise<Rows>,
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (fn) =>
      db.transaction(async (tx) =>
        fn({
          query: (sql, params) => tx.query(sql, params) as Promise<Rows>,
          exec: async (sql) => {
            await tx.exec(sql);
          },
        }),
      ),
    close: () => db.close(),
  };
}

/** Applies Payrail's migrations through the raw connection (the migrator only needs query/exec/transaction). */
export async function migrateRaw(raw: RawDb): Promise<void> {
  const toResult = <R>(r: { rows: unknown[] }): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rows.length });
  const wrap = (t: RawTx): Queryable => ({
    query: async (sql, params) => toResult(await t.query(sql, (params ?? []) as unknown[])),
    exec: (sql) => t.exec(sql),
  });
  const asDb: Database = {
    engine: 'postgres',
    ...wrap(raw),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let out: T | undefined;
      await raw.transaction(async (t) => {
        out = await fn(wrap(t));
      });
      return out as T;
    },
    close: () => raw.close(),
  };
  await migrate(asDb);
}

/** The benchmark's merchants with one wallet each, credited through the ledger. */
export async function seedMerchants(raw: RawDb, merchants: SeedMerchant[], creditPaise: bigint): Promise<void> {
  await raw.transaction(async (tx) => {
    for (const m of merchants) {
      await tx.query(
        `INSERT INTO merchants (id, name, api_key, secret_key, webhook_secret) VALUES ($1, $2, $3, $4, 'whsec_bench')
         ON CONFLICT (id) DO NOTHING`,
        [m.merchantId, `Bench ${m.merchantId}`, m.apiKey, m.secretKey],
      );
      await tx.query('INSERT INTO wallets (id, merchant_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
        m.walletId,
        m.merchantId,
      ]);
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, reference)
         VALUES ($1, 'credit', $2, 0, 'bench-seed') ON CONFLICT DO NOTHING`,
        [m.walletId, creditPaise],
      );
    }
  });
}
