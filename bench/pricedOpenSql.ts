import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { systemClock } from '../packages/server/src/clock.ts';
import { MerchantService } from '../packages/server/src/services/MerchantService.ts';
import { createPgDatabase } from '../packages/server/src/store/pgDatabase.ts';
import { migrate } from '../packages/server/src/store/migrate.ts';
import { LedgerRepository } from '../packages/server/src/store/repositories/LedgerRepository.ts';

/**
 * `npx tsx bench/pricedOpenSql.ts` (issue 30): PostgreSQL's CPU per `payout_open` without a fee, with a fee and no
 * GST (two more ledger entries) and with a fee and its GST (four more), one transaction each on one connection, in
 * alternating rounds, each on a wallet of its own. No HTTP, no concurrency, no hot row: what the entries themselves
 * cost, read from /proc for the backend (PostgreSQL must run on this machine). BENCH_DATABASE_URL (default
 * postgres://root@127.0.0.1:5432/test), BENCH_PAYOUTS (per round and kind, default 4000), BENCH_ROUNDS (default 4).
 */

const URL_ = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const N = Number(process.env.BENCH_PAYOUTS ?? 4000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4));
/** Fee and GST in paise of each kind, and its label. */
const KINDS = [
  { label: 'no fee', fee: 0, tax: 0 },
  { label: 'fee, no GST', fee: 500, tax: 0 },
  { label: 'fee and GST', fee: 500, tax: 90 },
] as const;

async function main() {
  const schema = `bench_pricedopen_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: URL_ });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const db = createPgDatabase({ url: URL_, schema, maxConnections: 2 });
    await migrate(db);
    const merchants = new MerchantService(db, systemClock);
    const wallets: { wallet: string; merchant: string }[] = [];
    for (const kind of KINDS) {
      const { merchant, wallet } = await merchants.create(`Priced open ${kind.label}`);
      await db.transaction((tx) =>
        LedgerRepository.append(tx, { walletId: wallet.id, kind: 'credit', amount: 10_000_000_000n }),
      );
      wallets.push({ wallet: wallet.id, merchant: merchant.id });
    }
    await db.close();

    const c = new pg.Client({ connectionString: URL_, options: `-c search_path=${schema}` });
    await c.connect();
    const pid = Number((await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
    /** The backend's user + system CPU in ms (clock ticks of 10 ms). */
    const cpu = () => {
      const f = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] as string).split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    };
    let seq = 0;
    const run = async (k: number) => {
      const { wallet, merchant } = wallets[k] as { wallet: string; merchant: string };
      const { fee, tax } = KINDS[k] as (typeof KINDS)[number];
      const start = cpu();
      for (let i = 0; i < N; i++) {
        seq++;
        await c.query('BEGIN');
        await c.query(
          `SELECT id FROM payout_open($1, $2, $3, $4, $5, 'IMPS', 'Asha', '000100010001', 'SBIN0000001', 'SBI', 'bench',
             NULL, 'v2', 'Initiated', 'sandbox', '2026-11-28', '2026-11', now(), NULL, NULL, NULL, $6, $7)`,
          [`PT${String(seq).padStart(26, '0')}`, merchant, wallet, `s${seq}`, 10_000, fee, tax],
        );
        await c.query('COMMIT');
      }
      return (cpu() - start) / N;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const ms: number[] = [];
      for (let k = 0; k < KINDS.length; k++) ms.push(await run(k));
      const base = ms[0] as number;
      console.log(
        `round ${round}: ` +
          KINDS.map((kind, k) => {
            const v = ms[k] as number;
            return `${kind.label} ${v.toFixed(3)} ms${k ? ` (+${((v / base - 1) * 100).toFixed(0)} %)` : ''}`;
          }).join('; ') +
          ' of PostgreSQL CPU per payout',
      );
    }
    await c.end();
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
