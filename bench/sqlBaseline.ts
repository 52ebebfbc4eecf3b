import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { ulid } from 'ulid';
import { percentile, type LoadResult } from './common.ts';

/**
 * Baseline (a): exactly the SQL one payout initiation executes (PayoutService.initiate with the repositories it
 * calls, in order), sent straight through `pg` (or straight to PGlite) at the benchmark's concurrency, without
 * HTTP, JSON, encryption or validation. What the server adds on top of this is its own overhead.
 *
 *   1. SELECT merchant by id               (token verification: TokenService.verify)
 *   2. SELECT wallet by id                 (WalletRepository.findById)
 *   3. BEGIN
 *   4. INSERT INTO payouts … ON CONFLICT DO NOTHING RETURNING *   (the unique constraint finds duplicates; the
 *      separate duplicate SELECT runs only when a bank rule refuses, never on this path)
 *   5. job upsert                          (JobRepository.schedule)
 *   6. INSERT INTO ledger_entries … RETURNING balance_after (the trigger debits the wallet)
 *   7. usage upsert for the IST day       (UsageRepository.add)
 *   8. usage upsert for the IST month
 *   9. COMMIT
 */

export interface SqlBaselinePlan {
  engine: 'postgres' | 'pglite';
  /** PostgreSQL connection string (with its search_path), or the PGlite data directory. */
  url?: string;
  dataDir?: string;
  poolSize: number;
  concurrency: number;
  warmupSec: number;
  durationSec: number;
  merchants: { merchantId: string; walletId: string }[];
  senderPrefix: string;
}

const INT8_OID = 20;

const SQL = {
  merchant: 'SELECT * FROM merchants WHERE id = $1',
  wallet: 'SELECT * FROM wallets WHERE id = $1',
  insertPayout: `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
         beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
         utr, rail, ist_day, ist_month, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, '', $16, $17, $18, $19, $19)
       ON CONFLICT (merchant_id, sender_id) DO NOTHING
       RETURNING *`,
  ledger: `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, collection_id, reference)
         VALUES ($1, $2, $3, 0, $4, $5, $6) RETURNING balance_after`,
  usage: `INSERT INTO merchant_usage (merchant_id, period, amount)
       SELECT $1, $2, $3::int8 WHERE $4::int8 IS NULL OR $3::int8 <= $4::int8
       ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
        WHERE $4::int8 IS NULL OR merchant_usage.amount + EXCLUDED.amount <= $4::int8
       RETURNING amount`,
  job: `INSERT INTO jobs (kind, subject_id, run_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
       ON CONFLICT (kind, subject_id)
       DO UPDATE SET run_at = EXCLUDED.run_at, attempts = 0, locked_until = NULL, last_error = NULL`,
};

interface Runner {
  read(sql: string, params: unknown[]): Promise<unknown>;
  transaction(
    fn: (q: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>) => Promise<void>,
  ): Promise<void>;
  close(): Promise<void>;
}

async function openRunner(plan: SqlBaselinePlan): Promise<Runner> {
  if (plan.engine === 'postgres') {
    const types = {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text'),
    };
    const pool = new pg.Pool({ connectionString: plan.url, max: plan.poolSize, types: types as pg.CustomTypesConfig });
    return {
      read: (sql, params) => pool.query(sql, params),
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await fn((sql, params) => client.query(sql, params));
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
  const db = await PGlite.create(plan.dataDir as string, { parsers: { [INT8_OID]: (v: string) => BigInt(v) } });
  return {
    read: (sql, params) => db.query(sql, params),
    transaction: (fn) => db.transaction(async (tx) => fn((sql, params) => tx.query(sql, params))),
    close: () => db.close(),
  };
}

const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

async function initiateOnce(run: Runner, merchantId: string, walletId: string, senderId: string): Promise<void> {
  await run.read(SQL.merchant, [merchantId]);
  await run.read(SQL.wallet, [walletId]);
  const now = new Date();
  const day = new Date(now.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
  const id = `PT${ulid(now.getTime())}`;
  await run.transaction(async (q) => {
    await q(SQL.insertPayout, [
      id,
      merchantId,
      walletId,
      senderId,
      100n,
      'IMPS',
      'Bench Beneficiary',
      '100000000001',
      'SBOX0000001',
      'Payrail Sandbox Bank',
      'bench',
      null,
      'v2',
      'INITIATED',
      'Payout accepted and queued for the bank',
      'sandbox',
      day,
      day.slice(0, 7),
      now,
    ]);
    await q(SQL.job, ['payout.advance', id, 600_000]);
    await q(SQL.ledger, [walletId, 'payout_debit', -100n, id, null, null]);
    await q(SQL.usage, [merchantId, `D${day}`, 100n, null]);
    await q(SQL.usage, [merchantId, `M${day.slice(0, 7)}`, 100n, null]);
  });
}

async function main() {
  const plan = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as SqlBaselinePlan;
  const run = await openRunner(plan);
  let n = 0;
  let failures = 0;
  const phase = async (seconds: number, latencies: number[] | null) => {
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: plan.concurrency }, async () => {
        while (performance.now() < end) {
          const i = n++;
          const m = plan.merchants[i % plan.merchants.length] as SqlBaselinePlan['merchants'][number];
          const started = performance.now();
          try {
            await initiateOnce(run, m.merchantId, m.walletId, `${plan.senderPrefix}-${i.toString(36)}`);
          } catch (err) {
            failures++;
            if (failures < 5) process.stderr.write(`baseline initiation failed: ${(err as Error).message}\n`);
          }
          latencies?.push(performance.now() - started);
        }
      }),
    );
  };
  await phase(plan.warmupSec, null);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await phase(plan.durationSec, latencies);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await run.close();
  latencies.sort((a, b) => a - b);
  const out: LoadResult = {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((s, v) => s + v, 0) / Math.max(1, latencies.length),
    total: latencies.length,
    failures,
    // With PGlite the database runs in this process, so this is the database's CPU time per initiation.
    detail: { cpuMsPerOp: (cpu.user + cpu.system) / 1000 / Math.max(1, latencies.length) },
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

void main().catch((err) => {
  process.stderr.write(`sql baseline failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
