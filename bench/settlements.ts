import { istDay, istDayStart } from '@payrail/protocol';
import pino from 'pino';
import { loadConfig } from '../packages/server/src/config.ts';
import { createServer } from '../packages/server/src/server.ts';
import { adminCall } from './benchMerchant.ts';
import { freshStorage } from './benchServer.ts';

/**
 * A daily settlement run at scale (BENCH_ONLY=settlements), in this process: BENCH_SETTLEMENT_MERCHANTS (default
 * 10,000) merchants on a daily 11:00 schedule, BENCH_SETTLEMENT_COLLECTIONS (default 100,000) priced collections
 * credited the day before, then POST /admin/v1/settlements/run at 11:00 IST of the next banking day: one settlement
 * (an IMPS payout with its debit and first step, its items) per merchant, opened by settlement_open_many in one
 * transaction (issue 31's target: under 10 s on PostgreSQL, set-based). The merchants are created through the admin
 * API; the collections and their ledger entries are written straight into the database with triggers off (the API
 * would take an hour), the wallets' balances set to what their entries add up to. Then a second run the same day
 * (nothing: the day is claimed) and the ledger verified. BENCH_SETTLEMENT_STOP_BEFORE_RUN=1 seeds, prints the
 * schema or directory and stops without cleaning up, to profile the run by hand (settlement_open_many with
 * auto_explain).
 */
const MERCHANTS = Number(process.env.BENCH_SETTLEMENT_MERCHANTS ?? 10_000);
const COLLECTIONS = Number(process.env.BENCH_SETTLEMENT_COLLECTIONS ?? 100_000);
const ADMIN_TOKEN = 'bench-admin-token-of-at-least-32-characters';
/** Issue 31: a daily run for 10,000 merchants covering 100,000 collections in under 10 s on PostgreSQL. */
const TARGET_MS = 10_000;
const DAY = 86_400_000;

export interface SettlementBenchResult {
  merchants: number;
  collections: number;
  seedMs: number;
  runMs: number;
  againMs: number;
  settlements: number;
}

/** 11:00 IST of the first banking day (Monday to Saturday) at least two days ahead. */
function nextRunAt(now: number): number {
  let at = now + 2 * DAY;
  while (new Date(`${istDay(new Date(at))}T00:00:00Z`).getUTCDay() === 0) at += DAY;
  return (istDayStart(istDay(new Date(at))) as Date).getTime() + 11 * 3_600_000;
}

export async function benchSettlements(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; log: (m: string) => void },
): Promise<SettlementBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const storage = await freshStorage(engine, 'settlements', cleanups, o.databaseUrl);
  const runAt = nextRunAt(Date.now());
  let offset = 0;
  const clock = () => Date.now() + offset;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    // The scheduler stays idle: the bench runs the pass itself.
    PAYRAIL_SETTLEMENT_SCAN_MS: '86400000',
    // The seed writes 500,000 rows in one transaction: longer than a statement may take in production.
    PAYRAIL_DB_STATEMENT_TIMEOUT_MS: '0',
    ...(engine === 'postgres' ? { DATABASE_URL: storage } : { PAYRAIL_DATA_DIR: storage }),
  });
  const server = await createServer(config, { logger: pino({ level: 'silent' }), noWorker: true, clock });
  try {
    const url = await server.listen();
    const seedStarted = performance.now();
    const merchants: string[] = [];
    for (let i = 0; i < MERCHANTS; i += 16) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(16, MERCHANTS - i) }, (_, k) =>
          adminCall(url, ADMIN_TOKEN, 'POST', '/admin/v1/merchants', { name: `Settlement bench ${i + k}` }),
        ),
      );
      merchants.push(...batch.map((m) => String(m.merchant_id)));
      if (i % 2000 === 0) o.log(`${engine}: ${merchants.length} merchants`);
    }
    const creditedAt = new Date(runAt - 11 * 3_600_000 - 6 * 3_600_000); // 18:00 IST the day before
    await server.db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('session_replication_role', 'replica', true)`);
      await tx.query(`SELECT set_config('statement_timeout', '0', true)`);
      await tx.query(
        `INSERT INTO settlement_accounts (merchant_id, account_number, ifsc, holder_name, bank_name, schedule, at_minute,
             active_from, created_at, updated_at)
         SELECT m, '100000000001', 'SBOX0000001', 'Bench Holder', 'Sandbox Bank', 'daily', 660, now() - interval '1 day',
                now(), now()
           FROM unnest($1::text[]) AS m`,
        [merchants],
      );
      const { rows: wallets } = await tx.query<{ id: string; merchant_id: string }>(
        'SELECT id, merchant_id FROM wallets WHERE merchant_id = ANY ($1::text[]) ORDER BY id',
        [merchants],
      );
      await tx.query(
        `INSERT INTO collections (id, merchant_id, wallet_id, sender_id, amount, payment_mode, scheme, status, utr,
             expires_at, created_at, updated_at, page_token, fee, tax, credited_at)
         SELECT 'CT' || lpad(g::text, 26, '0'), ($2::text[])[1 + g % $3], ($1::text[])[1 + g % $3], 'set-bench-' || g,
                25000 + g % 1000, 'Intent', 'v2', 'SUCCESS', 'UTR' || g, $5, $5, $5, 'pt-' || g, 200, 36, $5
           FROM generate_series(1, $4::int) AS g`,
        [wallets.map((w) => w.id), wallets.map((w) => w.merchant_id), wallets.length, COLLECTIONS, creditedAt],
      );
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, collection_id, created_at)
         SELECT v.w, v.k, v.a, CASE WHEN v.w LIKE 'PW_%' THEN NULL ELSE 0 END, c.id, c.credited_at
           FROM collections c
          CROSS JOIN LATERAL (VALUES (c.wallet_id, 'collection_credit', c.amount),
                                     (c.wallet_id, 'collection_fee', -c.fee), (c.wallet_id, 'collection_fee_gst', -c.tax),
                                     ('PW_FEES', 'collection_fee', c.fee), ('PW_GST', 'collection_fee_gst', c.tax)) AS v (w, k, a)
          WHERE c.sender_id LIKE 'set-bench-%'`,
      );
      await tx.query(
        `INSERT INTO settleable_collections (collection_id, wallet_id, credited_at, amount, fee, tax, rest)
         SELECT id, wallet_id, credited_at, amount, fee, tax, amount - fee - tax FROM collections
          WHERE sender_id LIKE 'set-bench-%'`,
      );
      await tx.query(
        `UPDATE wallets w SET balance = s.total
           FROM (SELECT wallet_id, sum(amount)::int8 AS total FROM ledger_entries GROUP BY wallet_id) s
          WHERE w.id = s.wallet_id`,
      );
    });
    if (engine === 'postgres') await server.db.query('ANALYZE');
    const seedMs = performance.now() - seedStarted;
    o.log(`${engine}: seeded ${MERCHANTS} merchants and ${COLLECTIONS} collections in ${(seedMs / 1000).toFixed(1)} s`);

    offset = runAt - Date.now();
    if (process.env.BENCH_SETTLEMENT_STOP_BEFORE_RUN === '1') {
      o.log(`${engine}: stopped before the run at ${new Date(runAt).toISOString()} (storage ${storage})`);
      return { merchants: MERCHANTS, collections: COLLECTIONS, seedMs, runMs: 0, againMs: 0, settlements: 0 };
    }
    const started = performance.now();
    const result = await adminCall(url, ADMIN_TOKEN, 'POST', '/admin/v1/settlements/run');
    const runMs = performance.now() - started;
    const settlements = (result.settlements as unknown[]).length;
    const { rows } = await server.db.query<{ n: string; total: string; covered: string; net: string }>(
      `SELECT (SELECT count(*) FROM settlements) AS n, (SELECT sum(amount) FROM settlements) AS total,
              (SELECT count(*) FROM settlement_items) AS covered,
              (SELECT sum(amount - fee - tax) FROM collections) AS net`,
    );
    const r = rows[0] as { n: string; total: string; covered: string; net: string };
    if (Number(r.n) !== MERCHANTS || r.total !== r.net || Number(r.covered) !== COLLECTIONS) {
      throw new Error(`settlement run: ${JSON.stringify(r)} for ${MERCHANTS} merchants and ${COLLECTIONS} collections`);
    }
    o.log(`${engine}: ${settlements} settlements covering ${COLLECTIONS} collections in ${runMs.toFixed(0)} ms`);
    const againStarted = performance.now();
    const again = await adminCall(url, ADMIN_TOKEN, 'POST', '/admin/v1/settlements/run');
    const againMs = performance.now() - againStarted;
    if ((again.settlements as unknown[]).length !== 0) throw new Error('the second run settled again');
    const ledger = await adminCall(url, ADMIN_TOKEN, 'GET', '/admin/v1/ledger/verify');
    if (ledger.ok !== true) throw new Error(`ledger: ${JSON.stringify(ledger).slice(0, 500)}`);
    return { merchants: MERCHANTS, collections: COLLECTIONS, seedMs, runMs, againMs, settlements };
  } finally {
    await server.close();
    if (process.env.BENCH_SETTLEMENT_STOP_BEFORE_RUN !== '1') {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    }
  }
}

export function settlementRows(engine: string, r: SettlementBenchResult): string[][] {
  const target = engine === 'postgres' ? `< ${TARGET_MS} ms` : '';
  const met = engine === 'postgres' ? (r.runMs < TARGET_MS ? 'yes' : 'NO') : '';
  return [
    [
      engine,
      `daily run: ${r.merchants} merchants, ${r.collections} collections`,
      r.runMs.toFixed(0),
      `${r.settlements} settlements`,
      target,
      met,
    ],
    [engine, 'the same day again (claimed: nothing)', r.againMs.toFixed(0), '', '', ''],
  ];
}
