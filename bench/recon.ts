import { randomBytes } from 'node:crypto';
import { istDayStart } from '@payrail/protocol';
import { newId } from '../packages/server/src/domain/ids.ts';
import { openDatabase } from '../packages/server/src/store/openDatabase.ts';
import { camt053, type TestEntry } from '../packages/server/test/support/bankStatements.ts';
import { adminCall } from './benchMerchant.ts';
import { freshStorage } from './benchServer.ts';
import { buildServer, freePort, rssOf, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

/**
 * Reconciliation at scale (BENCH_ONLY=recon): one camt.053 of BENCH_RECON_ENTRIES (default 10,000) entries imported
 * and matched over HTTP against as many SUCCESS payouts paid through the bank file. Of the entries, 70 % name their
 * payout by EndToEndId, 15 % only by UTR, 3 % with another amount, 12 % are unknown to Payrail; 2 % of the payouts
 * have no entry (missing). Each round imports the statement under a new statement id (a full import, not the
 * idempotent answer); the time is the POST's, from the first byte sent to the answer. The server's peak RSS is
 * sampled every 100 ms. Target: under 5 s on PostgreSQL.
 */
export const RECON_ENTRIES = Number(process.env.BENCH_RECON_ENTRIES ?? 10_000);
export const RECON_TARGET_MS = 5000;
const ROUNDS = Math.max(1, Number(process.env.BENCH_RECON_ROUNDS ?? 3));
const DAY = '2026-03-02';

export interface ReconBenchResult {
  entries: number;
  bytes: number;
  roundsMs: number[];
  /** GET of the run with every item, and its CSV export. */
  readMs: number;
  csvMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  results: Record<string, { count: number }>;
}

/** Writes the payouts straight into the database (the API would take minutes): INITIATED, PROCESSING, SUCCESS. */
async function seedPayouts(
  storage: { databaseUrl?: string; dataDir?: string },
  merchantId: string,
  walletId: string,
  count: number,
) {
  const db = await openDatabase(
    storage.databaseUrl ? { databaseUrl: storage.databaseUrl, dataDir: '' } : { dataDir: storage.dataDir as string },
  );
  try {
    const ids = Array.from({ length: count }, () => newId('payout', Date.now()));
    const utrs = ids.map((_, i) => `BNK${String(i).padStart(9, '0')}`);
    const amounts = ids.map((_, i) => String(10_000 + i));
    // Noon IST of DAY.
    const at = new Date(istDayStart(DAY)!.getTime() + 12 * 60 * 60 * 1000);
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, scheme, rail, ist_day, ist_month, created_at, updated_at)
         SELECT u.id, $2, $3, 'recon-bench-' || u.ord, u.amount, 'NEFT', 'Bench Payee', '123456789012', 'HDFC0001234',
                'v2', 'bankfile', $4, $5, $6, $6
           FROM unnest($1::text[], $7::int8[]) WITH ORDINALITY AS u (id, amount, ord)`,
        [ids, merchantId, walletId, DAY, DAY.slice(0, 7), at, amounts],
      );
      await tx.query(`UPDATE payouts SET status = 'PROCESSING' WHERE merchant_id = $1`, [merchantId]);
      await tx.query(
        `UPDATE payouts p SET status = 'SUCCESS', utr = u.utr, updated_at = $3
           FROM unnest($1::text[], $2::text[]) AS u (id, utr) WHERE p.id = u.id`,
        [ids, utrs, at],
      );
    });
    return ids.map((id, i) => ({ id, utr: utrs[i] as string, amount: BigInt(amounts[i] as string) }));
  } finally {
    await db.close();
  }
}

const rupees = (paise: bigint) => `${paise / 100n}.${(paise % 100n).toString().padStart(2, '0')}`;

function statementEntries(payouts: { id: string; utr: string; amount: bigint }[], entries: number): TestEntry[] {
  const out: TestEntry[] = [];
  const known = Math.round(entries * 0.88);
  for (let i = 0; i < known; i++) {
    const p = payouts[i] as { id: string; utr: string; amount: bigint };
    const share = i % 100;
    if (share < 80) out.push({ direction: 'debit', amount: rupees(p.amount), e2e: p.id, utr: p.utr });
    else if (share < 97) out.push({ direction: 'debit', amount: rupees(p.amount), utr: p.utr });
    else out.push({ direction: 'debit', amount: rupees(p.amount + 100n), e2e: p.id });
  }
  for (let i = known; i < entries; i++) {
    out.push(
      i % 2
        ? { direction: 'credit', amount: '1500.00', utr: `XUTR${i}`, remittance: `Unknown sender ${i}` }
        : { direction: 'debit', amount: '12.34', bankRef: `CHG${i}` },
    );
  }
  return out;
}

async function importOnce(url: string, adminToken: string, body: string) {
  const started = performance.now();
  const res = await fetch(`${url}/admin/v1/reconciliation/statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/xml' },
    body,
  });
  const json = (await res.json()) as { runs?: { run_id: string; results: Record<string, { count: number }> }[] };
  const ms = performance.now() - started;
  if (res.status !== 201 || !json.runs?.[0]) throw new Error(`import: ${res.status} ${JSON.stringify(json)}`);
  return { ms, run: json.runs[0] };
}

export async function benchRecon(
  engine: 'pglite' | 'postgres',
  o: { env: NodeJS.ProcessEnv; databaseUrl?: string; log: (m: string) => void },
): Promise<ReconBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const adminToken = `bench-${randomBytes(8).toString('hex')}`;
  let server: Child | null = null;
  try {
    const place = await freshStorage(engine, 'recon', cleanups, o.databaseUrl);
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
    const m = await adminCall(url, adminToken, 'POST', '/admin/v1/merchants', { name: 'Recon bench' });
    // PGlite is one process's: the server stops while the payouts are written.
    await stopChild(server);
    server = null;
    const payoutCount = Math.round(RECON_ENTRIES * 0.9);
    o.log(`recon: writing ${payoutCount} SUCCESS payouts`);
    const payouts = await seedPayouts(
      engine === 'postgres' ? { databaseUrl: place } : { dataDir: place },
      String(m.merchant_id),
      String(m.wallet_id),
      payoutCount,
    );
    server = await start();
    const entries = statementEntries(payouts, RECON_ENTRIES);
    const documents = Array.from({ length: ROUNDS }, (_, i) =>
      camt053({ date: DAY, id: `BENCH-${i}-${randomBytes(3).toString('hex')}`, entries }),
    );
    const pid = server.pid;
    const rssBefore = rssOf(pid) ?? 0;
    let peak = rssBefore;
    const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 100);
    const roundsMs: number[] = [];
    let last: Awaited<ReturnType<typeof importOnce>> | undefined;
    try {
      for (const [i, body] of documents.entries()) {
        last = await importOnce(url, adminToken, body);
        roundsMs.push(last.ms);
        o.log(`recon: round ${i + 1}: ${RECON_ENTRIES} entries in ${last.ms.toFixed(0)} ms`);
      }
    } finally {
      clearInterval(timer);
    }
    const runId = (last as { run: { run_id: string } }).run.run_id;
    let t0 = performance.now();
    const read = await fetch(`${url}/admin/v1/reconciliation/runs/${runId}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    await read.arrayBuffer();
    const readMs = performance.now() - t0;
    t0 = performance.now();
    const csv = await fetch(`${url}/admin/v1/reconciliation/runs/${runId}?format=csv`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    await csv.arrayBuffer();
    const csvMs = performance.now() - t0;
    return {
      entries: RECON_ENTRIES,
      bytes: Buffer.byteLength(documents[0] as string),
      roundsMs,
      readMs,
      csvMs,
      rssBeforeMb: rssBefore / 1048576,
      rssPeakMb: peak / 1048576,
      results: (last as { run: { results: Record<string, { count: number }> } }).run.results,
    };
  } finally {
    if (server) await stopChild(server);
    for (const step of cleanups) await step().catch(() => undefined);
  }
}

/** The rows of the bench table: median and worst import, the reads, RSS. */
export function reconRows(engine: string, r: ReconBenchResult): string[][] {
  const sorted = [...r.roundsMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  const worst = sorted[sorted.length - 1] as number;
  const counts = ['matched', 'amount_mismatch', 'unmatched', 'missing']
    .map((k) => `${k} ${r.results[k]?.count ?? 0}`)
    .join(', ');
  return [
    [
      engine,
      `recon import ${r.entries} entries (${(r.bytes / 1048576).toFixed(1)} MB camt.053)`,
      median.toFixed(0),
      worst.toFixed(0),
      // The target is PostgreSQL's; PGlite's figure is shown for comparison.
      engine === 'postgres' ? `< ${RECON_TARGET_MS}` : '',
      engine === 'postgres' ? (worst < RECON_TARGET_MS ? 'yes' : 'NO') : '',
      `RSS ${r.rssBeforeMb.toFixed(0)} → peak ${r.rssPeakMb.toFixed(0)} MB; ${counts}`,
    ],
    [engine, 'recon read run (JSON, every item)', r.readMs.toFixed(0), '', '', '', ''],
    [engine, 'recon CSV export', r.csvMs.toFixed(0), '', '', '', ''],
  ];
}
