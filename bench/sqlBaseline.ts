import { readFileSync } from 'node:fs';
import { istDay } from '@payrail/protocol';
import { ulid } from 'ulid';
import { migrateRaw, openRaw, seedMerchants, type RawDb, type SeedMerchant } from './baselineDb.ts';
import { serveIpc, type RawRun } from './common.ts';

/**
 * Baseline (a): the minimal correct initiation, straight through `pg` (named prepared statements, as the server)
 * or straight to PGlite, at the benchmark's concurrency, without HTTP, JSON, encryption or validation: the one
 * statement a Payrail initiation sends, `payout_open_checked(…)` (migration 013: the merchant's status and
 * credentials version, the wallet's owner, the allowances, then payout, first step, ledger debit and both
 * allowances). What the server adds on top of this is its own overhead; the merchant cache means the server
 * sends nothing else on the happy path.
 */

export interface SqlBaselineConfig {
  /** A postgres:// URL whose search_path is a fresh schema, or a fresh PGlite directory. */
  target: string;
  poolSize: number;
  concurrency: number;
  merchants: SeedMerchant[];
  /** Opening balance of every wallet, in paise. */
  creditPaise: string;
}

export interface SqlBaselineRequest {
  seconds: number;
  senderPrefix: string;
  /** Every initiation on this merchant's wallet (a hot wallet); default: rotate over all of them. */
  hotIndex?: number;
  /**
   * 'statements' (default): the server's statements, one round trip each. 'single': an experiment, the same
   * writes as one plain-SQL statement (CTEs) instead of the payout_open function, for comparison.
   */
  variant?: 'statements' | 'single';
}

const SQL = {
  merchant: 'SELECT * FROM merchants WHERE id = $1',
  wallet: 'SELECT * FROM wallets WHERE id = $1',
  open: `SELECT * FROM payout_open_checked($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                                           $17, $18, $19, $20, $21, $22)`,
};

/** The experiment of SqlBaselineRequest.variant 'single': the initiation's writes as one statement. */
const SINGLE = `WITH p AS (
    INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
      beneficiary_account, beneficiary_ifsc, bank_name, remarks, callback_url, scheme, status, status_message,
      utr, rail, ist_day, ist_month, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, 'IMPS', 'Bench Beneficiary', '100000000001', 'SBOX0000001', 'Payrail Sandbox Bank',
      'bench', NULL, 'v2', 'INITIATED', 'Payout accepted and queued for the bank', '', 'sandbox', $6, $7, $8, $8)
    ON CONFLICT (merchant_id, sender_id) DO NOTHING RETURNING id),
  j AS (INSERT INTO jobs (kind, subject_id, run_at) SELECT 'payout.advance', id, now() + interval '10 minutes' FROM p
    ON CONFLICT (kind, subject_id) DO UPDATE SET run_at = EXCLUDED.run_at RETURNING 1),
  l AS (INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
    SELECT $3, 'payout_debit', -$5::int8, 0, id FROM p, (SELECT count(*) FROM j) AS jc RETURNING balance_after),
  u AS (INSERT INTO merchant_usage (merchant_id, period, amount)
    SELECT $2, v.period, $5::int8 FROM (VALUES (1, 'D' || $6), (2, 'M' || $7)) AS v (ord, period), l ORDER BY v.ord
    ON CONFLICT (merchant_id, period) DO UPDATE SET amount = merchant_usage.amount + EXCLUDED.amount
    RETURNING period)
  SELECT (SELECT count(*) FROM u) AS periods`;

async function initiateSingle(run: RawDb, merchantId: string, walletId: string, senderId: string): Promise<void> {
  await run.query(SQL.merchant, [merchantId]);
  await run.query(SQL.wallet, [walletId]);
  const now = new Date();
  const day = istDay(now);
  const { rows } = await run.query(SINGLE, [
    `PT${ulid(now.getTime())}`,
    merchantId,
    walletId,
    senderId,
    100n,
    day,
    day.slice(0, 7),
    now,
  ]);
  if (Number(rows[0]?.periods) !== 2) throw new Error('single-statement initiation wrote nothing');
}

async function initiateOnce(run: RawDb, merchantId: string, walletId: string, senderId: string): Promise<void> {
  const now = new Date();
  const day = istDay(now);
  const id = `PT${ulid(now.getTime())}`;
  const { rows } = await run.query(SQL.open, [
    id,
    merchantId,
    1,
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
    'Payout accepted and queued for the bank',
    'sandbox',
    day,
    day.slice(0, 7),
    now,
    600_000,
    // GST at 18 %, no plan required (the merchants of the baseline have none: no fee, as the server's).
    1800,
    false,
  ]);
  if (rows.length !== 1) throw new Error('initiation recorded nothing');
}

/**
 * A long-lived process: migrates and seeds its own copy of the schema at start, then runs timed phases of
 * back-to-back initiations (`concurrency` callers over a pool of `poolSize`) whenever asked over IPC.
 */
async function main() {
  const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as SqlBaselineConfig;
  const run = await openRaw(config.target, config.poolSize);
  await migrateRaw(run);
  await seedMerchants(run, config.merchants, BigInt(config.creditPaise));

  serveIpc(async (req: SqlBaselineRequest): Promise<RawRun> => {
    let n = 0;
    let failures = 0;
    const latencies: number[] = [];
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const end = started + req.seconds * 1000;
    await Promise.all(
      Array.from({ length: config.concurrency }, async () => {
        while (performance.now() < end) {
          const i = n++;
          const m = config.merchants[req.hotIndex ?? i % config.merchants.length] as SeedMerchant;
          const t0 = performance.now();
          try {
            const initiate = req.variant === 'single' ? initiateSingle : initiateOnce;
            await initiate(run, m.merchantId, m.walletId, `${req.senderPrefix}-${i.toString(36)}`);
            latencies.push(performance.now() - t0);
          } catch (err) {
            failures++;
            if (failures < 5) process.stderr.write(`baseline initiation failed: ${(err as Error).message}\n`);
          }
        }
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    return {
      seconds: (performance.now() - started) / 1000,
      latencies,
      failures,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  });
}

void main().catch((err) => {
  process.stderr.write(`sql baseline failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
