import { randomBytes } from 'node:crypto';
import { istDay, istDayStart, istMonth } from '@payrail/protocol';
import { openDatabase } from '../packages/server/src/store/openDatabase.ts';
import { adminCall } from './benchMerchant.ts';
import { appName, freshStorage } from './benchServer.ts';
import pg from 'pg';
import { buildServer, cpuMsOf, freePort, rssOf, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

/**
 * A month's tax invoice run at scale (BENCH_ONLY=invoices): BENCH_INVOICE_MERCHANTS (default 1,000) merchants and
 * BENCH_INVOICE_TRANSACTIONS (default 1,000,000 on PostgreSQL, 100,000 on PGlite) priced transactions in the current
 * IST month: 70 % payouts (IMPS, NEFT, RTGS; 2 % of them failed and refunded in the month, whose fees cancel) and 30 %
 * collections, each with its fee and GST on both sides of the ledger. They are written straight into the database
 * (the API would take hours; triggers off while seeding, so wallet balances are not what the ledger says, which the
 * run does not read). The time is the POST /admin/v1/invoices/run's, from the request to the answer; the server's
 * RSS is sampled every 100 ms. Then the month again (the idempotent answer). Target: under 30 s on PostgreSQL with
 * the server's RSS under 300 MB.
 */
export const INVOICE_TARGET_MS = 30_000;
export const INVOICE_RSS_TARGET_MB = 300;
const MERCHANTS = Number(process.env.BENCH_INVOICE_MERCHANTS ?? 1_000);
const transactionsFor = (engine: 'pglite' | 'postgres') =>
  Number(process.env.BENCH_INVOICE_TRANSACTIONS ?? (engine === 'postgres' ? 1_000_000 : 100_000));

const OPERATOR = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Bench Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: 'Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};

export interface InvoiceBenchResult {
  merchants: number;
  transactions: number;
  ledgerEntries: number;
  seedMs: number;
  runMs: number;
  againMs: number;
  invoices: number;
  /** The invoices' taxable values added up, and what the seeded fees add up to: equal when the run is right. */
  taxable: bigint;
  expectedTaxable: bigint;
  rssBeforeMb: number;
  rssPeakMb: number;
  /** CPU time of the run: the server process's, and its PostgreSQL backends' (null on PGlite, inside the server). */
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

/** CPU ms of the PostgreSQL backends serving the bench server (application_name), summed; the database is local. */
async function backendCpuMs(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [appName('invoices')],
    );
    return rows.reduce((sum, r) => sum + (cpuMsOf(r.pid) ?? 0), 0);
  } finally {
    await client.end();
  }
}

/** Writes the month's priced payouts and collections with their ledger entries, set-based. */
export async function seed(
  storage: { databaseUrl?: string; dataDir?: string },
  wallets: { walletId: string; merchantId: string }[],
  transactions: number,
): Promise<{ month: string; ledgerEntries: number; expectedTaxable: bigint }> {
  const db = await openDatabase(
    storage.databaseUrl
      ? { databaseUrl: storage.databaseUrl, dataDir: '', statementTimeoutMs: 0 }
      : { dataDir: storage.dataDir as string },
  );
  try {
    const payouts = Math.round(transactions * 0.7);
    const collections = transactions - payouts;
    const walletIds = wallets.map((w) => w.walletId);
    const merchantIds = wallets.map((w) => w.merchantId);
    return await db.transaction(async (tx) => {
      // Triggers (the ledger's balance updates, the guards, foreign keys) are off for the seed: it writes what they
      // would have allowed, without a wallet update per entry.
      await tx.query(`SELECT set_config('session_replication_role', 'replica', true)`);
      await tx.query(`SELECT set_config('statement_timeout', '0', true)`);
      const { rows } = await tx.query<{ now: Date }>('SELECT now()');
      const now = (rows[0] as { now: Date }).now;
      const month = istMonth(now);
      const day = istDay(now);
      const start = istDayStart(`${month}-01`) as Date;
      const span = Math.max(1, (now.getTime() - start.getTime()) / 1000 - 120);
      const n = wallets.length;
      await tx.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, scheme, rail, ist_day, ist_month, created_at, updated_at, status, fee,
           tax)
         SELECT 'PT' || lpad(g::text, 26, '0'), ($2::text[])[1 + g % $3], ($1::text[])[1 + g % $3], 'inv-bench-' || g,
                100000 + g % 100000, (ARRAY['IMPS', 'NEFT', 'RTGS'])[1 + g % 3], 'Bench Payee', '123456789012',
                'HDFC0001234', 'v2', 'sandbox', $8, $6, at, at,
                CASE WHEN g % 50 = 0 THEN 'REFUNDED' ELSE 'SUCCESS' END, 500 + g % 7, (((500 + g % 7) * 1800) + 5000) / 10000
           FROM generate_series(1, $4::int) AS g
           CROSS JOIN LATERAL (SELECT $5::timestamptz + make_interval(secs => (g::float8 / $4) * $7) AS at) t`,
        [walletIds, merchantIds, n, payouts, start, month, span, day],
      );
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
         SELECT v.w, v.k, v.a, CASE WHEN v.w LIKE 'PW_%' THEN NULL ELSE 0 END, p.id, p.created_at
           FROM payouts p
          CROSS JOIN LATERAL (VALUES (p.wallet_id, 'payout_debit', -p.amount), (p.wallet_id, 'payout_fee', -p.fee),
                                     (p.wallet_id, 'payout_fee_gst', -p.tax), ('PW_FEES', 'payout_fee', p.fee),
                                     ('PW_GST', 'payout_fee_gst', p.tax)) AS v (w, k, a)
          WHERE p.sender_id LIKE 'inv-bench-%'`,
      );
      // The failed ones, a minute later: amount, fee and GST back (the fee and its refund cancel on the invoice).
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
         SELECT v.w, v.k, v.a, CASE WHEN v.w LIKE 'PW_%' THEN NULL ELSE 0 END, p.id, p.created_at + interval '1 minute'
           FROM payouts p
          CROSS JOIN LATERAL (VALUES (p.wallet_id, 'payout_refund', p.amount),
                                     (p.wallet_id, 'payout_fee_refund', p.fee),
                                     (p.wallet_id, 'payout_fee_gst_refund', p.tax),
                                     ('PW_FEES', 'payout_fee_refund', -p.fee),
                                     ('PW_GST', 'payout_fee_gst_refund', -p.tax)) AS v (w, k, a)
          WHERE p.sender_id LIKE 'inv-bench-%' AND p.status = 'REFUNDED'`,
      );
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, collection_id, created_at)
         SELECT v.w, v.k, v.a, CASE WHEN v.w LIKE 'PW_%' THEN NULL ELSE 0 END, 'CT' || lpad(g::text, 26, '0'), at
           FROM generate_series(1, $3::int) AS g
          CROSS JOIN LATERAL (SELECT ($1::text[])[1 + g % $2] AS w,
                                     $4::timestamptz + make_interval(secs => (g::float8 / $3) * $5) AS at,
                                     100 + g % 3 AS fee) c
          CROSS JOIN LATERAL (VALUES (c.w, 'collection_credit', 25000::int8), (c.w, 'collection_fee', -c.fee),
                                     (c.w, 'collection_fee_gst', -((c.fee * 1800 + 5000) / 10000)),
                                     ('PW_FEES', 'collection_fee', c.fee),
                                     ('PW_GST', 'collection_fee_gst', (c.fee * 1800 + 5000) / 10000)) AS v (w, k, a)`,
        [walletIds, n, collections, start, span],
      );
      const { rows: sums } = await tx.query<{ taxable: bigint; entries: bigint }>(
        `SELECT (SELECT coalesce(sum(fee), 0) FROM payouts WHERE sender_id LIKE 'inv-bench-%' AND status = 'SUCCESS')
                + (SELECT coalesce(sum(100 + g % 3), 0) FROM generate_series(1, $1::int) AS g) AS taxable,
                (SELECT count(*) FROM ledger_entries) AS entries`,
        [collections],
      );
      return {
        month,
        ledgerEntries: Number(sums[0]?.entries),
        expectedTaxable: BigInt(sums[0]?.taxable ?? 0),
      };
    });
  } finally {
    // A month written over a month has been through autovacuum (hint bits set, statistics fresh); a month written in
    // two minutes has not, and its first reader would pay for that instead of the run.
    if (storage.databaseUrl) await db.query('VACUUM (ANALYZE) ledger_entries, payouts').catch(() => undefined);
    await db.close();
  }
}

async function runMonth(url: string, adminToken: string, month: string) {
  const started = performance.now();
  const res = await fetch(`${url}/admin/v1/invoices/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ month }),
  });
  const json = (await res.json()) as { invoices?: { taxable: string }[] };
  const ms = performance.now() - started;
  if (res.status !== 200 || !json.invoices) throw new Error(`invoice run: ${res.status} ${JSON.stringify(json)}`);
  return { ms, invoices: json.invoices };
}

export async function benchInvoices(
  engine: 'pglite' | 'postgres',
  o: { env: NodeJS.ProcessEnv; databaseUrl?: string; log: (m: string) => void },
): Promise<InvoiceBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const adminToken = `bench-${randomBytes(8).toString('hex')}`;
  let server: Child | null = null;
  try {
    const place = await freshStorage(engine, 'invoices', cleanups, o.databaseUrl);
    const storage = engine === 'postgres' ? { DATABASE_URL: place } : { PAYRAIL_DATA_DIR: place };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await buildServer();
    const start = async () => {
      const child = spawnServer({
        ...o.env,
        ...storage,
        ...OPERATOR,
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYRAIL_ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'warn',
      });
      await waitHealthy(`${url}/healthz`, child);
      return child;
    };
    server = await start();
    o.log(`invoices: creating ${MERCHANTS} merchants`);
    const wallets: { walletId: string; merchantId: string }[] = [];
    for (let i = 0; i < MERCHANTS; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, MERCHANTS - i) }, (_, k) =>
          adminCall(url, adminToken, 'POST', '/admin/v1/merchants', { name: `Invoice bench ${i + k}` }),
        ),
      );
      wallets.push(...batch.map((m) => ({ walletId: String(m.wallet_id), merchantId: String(m.merchant_id) })));
    }
    // PGlite is one process's: the server stops while the month is written.
    if (engine === 'pglite') {
      await stopChild(server);
      server = null;
    }
    const transactions = transactionsFor(engine);
    o.log(`invoices: writing ${transactions} priced payouts and collections`);
    const seeded = performance.now();
    const { month, ledgerEntries, expectedTaxable } = await seed(
      engine === 'postgres' ? { databaseUrl: place } : { dataDir: place },
      wallets,
      transactions,
    );
    const seedMs = performance.now() - seeded;
    o.log(`invoices: ${ledgerEntries} ledger entries in ${(seedMs / 1000).toFixed(0)} s; running ${month}`);
    server ??= await start();
    const pid = server.pid;
    const rssBefore = rssOf(pid) ?? 0;
    let peak = rssBefore;
    const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 100);
    const cpu = async () => ({
      server: cpuMsOf(pid),
      database: engine === 'postgres' ? await backendCpuMs(place) : null,
    });
    let first: Awaited<ReturnType<typeof runMonth>>;
    const cpuBefore = await cpu();
    try {
      first = await runMonth(url, adminToken, month);
    } finally {
      clearInterval(timer);
    }
    const cpuAfter = await cpu();
    o.log(`invoices: ${first.invoices.length} invoices in ${(first.ms / 1000).toFixed(1)} s`);
    const again = await runMonth(url, adminToken, month);
    const taxable = first.invoices.reduce((sum, i) => sum + BigInt(i.taxable.replace('.', '')), 0n);
    return {
      merchants: MERCHANTS,
      transactions,
      ledgerEntries,
      seedMs,
      runMs: first.ms,
      againMs: again.ms,
      invoices: first.invoices.length,
      taxable,
      expectedTaxable,
      rssBeforeMb: rssBefore / 1048576,
      rssPeakMb: peak / 1048576,
      serverCpuMs: cpuAfter.server === null || cpuBefore.server === null ? null : cpuAfter.server - cpuBefore.server,
      databaseCpuMs:
        cpuAfter.database === null || cpuBefore.database === null ? null : cpuAfter.database - cpuBefore.database,
    };
  } finally {
    if (server) await stopChild(server);
    for (const step of cleanups) await step().catch(() => undefined);
  }
}

/** The rows of the bench table: the run and its idempotent repeat. */
export function invoiceRows(engine: string, r: InvoiceBenchResult): string[][] {
  const met = r.runMs < INVOICE_TARGET_MS && r.rssPeakMb < INVOICE_RSS_TARGET_MB && r.taxable === r.expectedTaxable;
  return [
    [
      engine,
      `invoice run: ${r.merchants} merchants, ${r.transactions.toLocaleString('en')} priced transactions (${r.ledgerEntries.toLocaleString('en')} ledger entries)`,
      (r.runMs / 1000).toFixed(1),
      // The target is PostgreSQL's; PGlite's figure is shown for comparison.
      engine === 'postgres' ? `< ${INVOICE_TARGET_MS / 1000} s, RSS < ${INVOICE_RSS_TARGET_MB} MB` : '',
      engine === 'postgres' ? (met ? 'yes' : 'NO') : '',
      `RSS ${r.rssBeforeMb.toFixed(0)} → peak ${r.rssPeakMb.toFixed(0)} MB; CPU: server ` +
        `${r.serverCpuMs === null ? '?' : (r.serverCpuMs / 1000).toFixed(1)} s` +
        (r.databaseCpuMs === null ? '' : `, PostgreSQL ${(r.databaseCpuMs / 1000).toFixed(1)} s`) +
        `; ${r.invoices} invoices; taxable ` +
        `${r.taxable === r.expectedTaxable ? 'equals' : 'DIFFERS FROM'} the seeded fees`,
    ],
    [
      engine,
      'invoice run of the same month again (answers the issued invoices)',
      (r.againMs / 1000).toFixed(1),
      '',
      '',
      '',
    ],
  ];
}
