import { randomBytes } from 'node:crypto';
import { istDay, istMonth } from '@payrail/protocol';
import { openDatabase } from '../packages/server/src/store/openDatabase.ts';
import { adminCall } from './benchMerchant.ts';
import { appName, freshStorage } from './benchServer.ts';
import pg from 'pg';
import { buildServer, cpuMsOf, freePort, rssOf, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

/**
 * A month's statement of a busy wallet (BENCH_ONLY=statement, issue 35): BENCH_STATEMENT_ENTRIES (default 120,000)
 * ledger entries of one wallet over the last 30 days, half of them payout debits of payouts of their own (the
 * statement reads each payout's sender_id beside its entry), half credits; written straight into the database
 * (triggers off, as bench/invoices.ts). Then the month is downloaded as CSV (`format=csv`, streamed) and as JSON lines,
 * each line counted and its amounts added up in bigint as it arrives; the server's RSS is sampled every 100 ms.
 * Targets: at least 50,000 entries a second, RSS under 300 MB, and the lines adding up: opening + Σ amounts = closing
 * = the sum of the wallet's entries.
 */
export const STATEMENT_RATE_TARGET = 50_000;
export const STATEMENT_RSS_TARGET_MB = 300;
const ENTRIES = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 120_000);
const DAYS = 30;

export interface StatementBenchRun {
  format: 'csv' | 'jsonl';
  entries: number;
  ms: number;
  mb: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  addsUp: boolean;
  /** CPU time of the download: the server process's, and its PostgreSQL backends' (null on PGlite, inside the server). */
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

/**
 * CPU ms of each PostgreSQL backend serving the bench server (application_name), by pid; the database is local. Kept
 * per backend so that one which ends during a download (the pool's idle timeout) loses its share instead of making
 * the difference negative.
 */
async function backendCpuMs(databaseUrl: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [appName('statement')],
    );
    return new Map(rows.map((r) => [r.pid, cpuMsOf(r.pid) ?? 0]));
  } finally {
    await client.end();
  }
}

/** The CPU the backends spent between two readings: each living backend's growth (a new one's all of it). */
function backendCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

async function seed(storage: { databaseUrl?: string; dataDir?: string }, walletId: string, merchantId: string) {
  const db = await openDatabase(
    storage.databaseUrl
      ? { databaseUrl: storage.databaseUrl, dataDir: '', statementTimeoutMs: 0 }
      : { dataDir: storage.dataDir as string },
  );
  try {
    const payouts = Math.floor(ENTRIES / 2);
    await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('session_replication_role', 'replica', true)`);
      await tx.query(`SELECT set_config('statement_timeout', '0', true)`);
      const span = DAYS * 86_400 - 600;
      await tx.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, scheme, rail, ist_day, ist_month, created_at, updated_at, status)
         SELECT 'PT' || lpad(g::text, 26, '0'), $1, $2, 'stmt-bench-' || g, 10000 + g % 90000, 'IMPS', 'Bench Payee',
                '123456789012', 'HDFC0001234', 'v2', 'sandbox', $5, $6, at, at, 'SUCCESS'
           FROM generate_series(1, $3::int) AS g
          CROSS JOIN LATERAL (SELECT now() - make_interval(secs => $4) + make_interval(secs => (g::float8 / $3) * $4) AS at) t`,
        // The allowances' day and month are not what a statement reads: today's for all.
        [merchantId, walletId, payouts, span, istDay(new Date()), istMonth(new Date())],
      );
      // Each payout's debit, and a credit beside it a second earlier that keeps the balance up.
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, reference, created_at)
         SELECT p.wallet_id, v.k, v.a, 0, v.p, v.r, v.at
           FROM payouts p
          CROSS JOIN LATERAL (VALUES ('credit', p.amount + 7, NULL, 'topup-' || p.sender_id, p.created_at - interval '1 second'),
                                     ('payout_debit', -p.amount, p.id, NULL, p.created_at)) AS v (k, a, p, r, at)
          WHERE p.sender_id LIKE 'stmt-bench-%'
          ORDER BY p.created_at, v.k DESC`,
      );
    });
    if (storage.databaseUrl) await db.query('VACUUM (ANALYZE) ledger_entries, payouts');
    const { rows } = await db.query<{ total: bigint; n: bigint }>(
      'SELECT sum(amount)::int8 AS total, count(*) AS n FROM ledger_entries WHERE wallet_id = $1',
      [walletId],
    );
    return { total: BigInt(rows[0]?.total ?? 0n), entries: Number(rows[0]?.n ?? 0) };
  } finally {
    await db.close();
  }
}

const paise = (rupees: string) => BigInt(rupees.replace('.', ''));

/** Downloads the statement, reading it as it arrives (never whole), and checks that it adds up. */
async function download(
  url: string,
  token: string,
  walletId: string,
  format: 'csv' | 'jsonl',
  pid: number,
  total: bigint,
  databaseUrl: string | null,
) {
  const cpu = async () => ({ server: cpuMsOf(pid), database: databaseUrl ? await backendCpuMs(databaseUrl) : null });
  const cpuBefore = await cpu();
  const from = new Date(Date.now() - (DAYS + 1) * 86_400_000).toISOString();
  const rssBefore = rssOf(pid) ?? 0;
  let peak = rssBefore;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 100);
  const started = performance.now();
  let entries = 0;
  let bytes = 0;
  let opening: bigint | null = null;
  let closing: bigint | null = null;
  let sum = 0n;
  try {
    const res = await fetch(
      `${url}/admin/v1/wallets/${walletId}/statement?format=${format}&from=${encodeURIComponent(from)}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    if (res.status !== 200 || !res.body) throw new Error(`statement: ${res.status} ${await res.text()}`);
    const decoder = new TextDecoder();
    let rest = '';
    const line = (l: string) => {
      if (l === '') return;
      if (format === 'csv') {
        const cells = l.split(',');
        if (cells[2] === 'opening_balance') opening = paise(cells[4] as string);
        else if (cells[2] === 'closing_balance') closing = paise(cells[4] as string);
        else if (cells[0] !== 'entry_id') {
          entries++;
          sum += paise(cells[3] as string);
        }
      } else {
        const o = JSON.parse(l) as Record<string, string>;
        if (o.type === 'opening') opening = paise(o.opening_balance as string);
        else if (o.type === 'closing') closing = paise(o.closing_balance as string);
        else {
          entries++;
          sum += paise(o.amount as string);
        }
      }
    };
    for await (const chunk of res.body) {
      bytes += chunk.length;
      const text = rest + decoder.decode(chunk, { stream: true });
      const lines = text.split(/\r?\n/);
      rest = lines.pop() ?? '';
      for (const l of lines) line(l);
    }
    line(rest);
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - started;
  const cpuAfter = await cpu();
  const o = opening as bigint | null;
  const c = closing as bigint | null;
  return {
    format,
    entries,
    ms,
    mb: bytes / 1048576,
    rssBeforeMb: rssBefore / 1048576,
    rssPeakMb: peak / 1048576,
    addsUp: o !== null && c !== null && o + sum === c && c === total,
    serverCpuMs: cpuAfter.server === null || cpuBefore.server === null ? null : cpuAfter.server - cpuBefore.server,
    databaseCpuMs:
      cpuAfter.database === null || cpuBefore.database === null
        ? null
        : backendCpuBetween(cpuBefore.database, cpuAfter.database),
  };
}

export async function benchStatement(
  engine: 'pglite' | 'postgres',
  o: { env: NodeJS.ProcessEnv; databaseUrl?: string; log: (m: string) => void },
): Promise<StatementBenchRun[]> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const adminToken = `bench-${randomBytes(8).toString('hex')}`;
  let server: Child | null = null;
  try {
    const place = await freshStorage(engine, 'statement', cleanups, o.databaseUrl);
    const storage = engine === 'postgres' ? { DATABASE_URL: place } : { PAYRAIL_DATA_DIR: place };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await buildServer();
    const start = async () => {
      const child = spawnServer({
        ...o.env,
        ...storage,
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYRAIL_ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'warn',
      });
      await waitHealthy(`${url}/healthz`, child);
      return child;
    };
    server = await start();
    const m = await adminCall(url, adminToken, 'POST', '/admin/v1/merchants', { name: 'Statement bench' });
    if (engine === 'pglite') {
      await stopChild(server);
      server = null;
    }
    o.log(`statement: writing ${ENTRIES} ledger entries of one wallet over ${DAYS} days`);
    const seeded = performance.now();
    const { total, entries } = await seed(
      engine === 'postgres' ? { databaseUrl: place } : { dataDir: place },
      String(m.wallet_id),
      String(m.merchant_id),
    );
    o.log(`statement: ${entries} entries in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);
    server ??= await start();
    const runs: StatementBenchRun[] = [];
    for (const format of ['csv', 'jsonl', 'csv', 'jsonl'] as const) {
      const run = await download(
        url,
        adminToken,
        String(m.wallet_id),
        format,
        server.pid,
        total,
        engine === 'postgres' ? place : null,
      );
      o.log(
        `statement: ${format} ${run.entries} entries in ${(run.ms / 1000).toFixed(2)} s, RSS ${run.rssBeforeMb.toFixed(0)} → ${run.rssPeakMb.toFixed(0)} MB`,
      );
      runs.push(run);
    }
    return runs;
  } finally {
    if (server) await stopChild(server);
    for (const step of cleanups) await step().catch(() => undefined);
  }
}

/** The header of the bench table's rows. */
export const STATEMENT_HEADER = [
  'engine',
  'scenario',
  's',
  'entries/s',
  'CPU ms, server + PG',
  'RSS MB',
  'adds up',
  'target',
  'met',
];

/**
 * Rows of the bench table: entries a second and the server's RSS per download, and the CPU it took (the figure that
 * does not depend on what else the machine runs).
 */
export function statementRows(engine: string, runs: StatementBenchRun[]): string[][] {
  return runs.map((r) => {
    const rate = r.entries / (r.ms / 1000);
    const met = rate >= STATEMENT_RATE_TARGET && r.rssPeakMb < STATEMENT_RSS_TARGET_MB && r.addsUp;
    const cpu = r.serverCpuMs === null ? '' : `${r.serverCpuMs.toFixed(0)} + ${r.databaseCpuMs?.toFixed(0) ?? '—'}`;
    return [
      engine,
      `statement ${r.format}, ${r.entries} entries (${r.mb.toFixed(1)} MB)`,
      (r.ms / 1000).toFixed(2),
      Math.round(rate).toLocaleString('en-US'),
      cpu,
      `${r.rssBeforeMb.toFixed(0)} → ${r.rssPeakMb.toFixed(0)}`,
      r.addsUp ? 'yes' : 'NO',
      `≥ ${STATEMENT_RATE_TARGET.toLocaleString('en-US')}/s, < ${STATEMENT_RSS_TARGET_MB} MB`,
      met ? 'yes' : 'no',
    ];
  });
}
