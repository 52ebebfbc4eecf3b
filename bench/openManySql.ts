import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createPgDatabase } from '../packages/server/src/store/pgDatabase.ts';
import { migrate } from '../packages/server/src/store/migrate.ts';

/**
 * `npx tsx bench/openManySql.ts` (issue 34): PostgreSQL's CPU per initiation, opened one statement each
 * (`payout_open_checked`, as before the groups) against groups of BENCH_GROUP (default 16) in one statement
 * (`payout_open_many`), on one hot wallet and spread over 40 wallets, in alternating rounds on one connection. No
 * HTTP, no worker: the database's share of the initiation alone, read from /proc for the backend (PostgreSQL must
 * run on this machine). BENCH_DATABASE_URL (default postgres://root@127.0.0.1:5432/test), BENCH_PAYOUTS (per round,
 * default 1600), BENCH_ROUNDS (default 3; the first is a warm-up and not counted).
 */

const URL_ = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const N = Number(process.env.BENCH_PAYOUTS ?? 1600);
const G = Number(process.env.BENCH_GROUP ?? 16);
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 3));
const WALLETS = 40;

async function main() {
  const schema = `bench_openmany_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: URL_ });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const db = createPgDatabase({ url: URL_, schema });
    await migrate(db);
    await db.close();
    const c = new pg.Client({ connectionString: URL_, options: `-c search_path=${schema}` });
    await c.connect();
    try {
      await c.query(
        `INSERT INTO merchants (id, name, api_key, secret_key, webhook_secret) VALUES ('m1', 'M', 'k', 's', 'w')`,
      );
      await c.query(
        `INSERT INTO wallets (id, merchant_id) SELECT 'w' || g, 'm1' FROM generate_series(1, ${WALLETS}) g`,
      );
      await c.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after)
           SELECT 'w' || g, 'credit', 1000000000000, 0 FROM generate_series(1, ${WALLETS}) g`,
      );
      const pid = Number((await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
      /** The backend's CPU time in ms (utime + stime, in clock ticks of 10 ms). */
      const cpu = () => {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        return (Number(f[11]) + Number(f[12])) * 10;
      };
      let seq = 0;
      const next = () => `${++seq}`;
      const lone = async (wallet: (i: number) => string) => {
        for (let i = 0; i < N; i++) {
          const k = next();
          await c.query({
            name: 'lone',
            text: `SELECT * FROM payout_open_checked($1, 'm1', 1, $2, $3, 100, 'IMPS', 'n', '1', 'SBOX0000001', 'b', '',
                     NULL, 'v2', 'm', 'sandbox', '2026-11-28', '2026-11', now(), 0, 1800, false)`,
            values: [`p${k}`, wallet(i), `s${k}`],
          });
        }
      };
      const many = async (wallet: (i: number) => string) => {
        for (let i = 0; i < N; i += G) {
          const ks = Array.from({ length: G }, () => next());
          const all = <T>(v: T) => ks.map(() => v);
          await c.query({
            name: 'many',
            text: `SELECT r.o_pos, r.o_sqlstate, (r.o_payout).*
                     FROM payout_open_many($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::int8[],
                       $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                       $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::timestamptz[],
                       $20::float8[], $21::int4[], $22::boolean[]) AS r`,
            values: [
              ks.map((k) => `p${k}`),
              all('m1'),
              all(1),
              ks.map((_, j) => wallet(i + j)),
              ks.map((k) => `s${k}`),
              all('100'),
              all('IMPS'),
              all('n'),
              all('1'),
              all('SBOX0000001'),
              all('b'),
              all(''),
              all(null),
              all('v2'),
              all('m'),
              all('sandbox'),
              all('2026-11-28'),
              all('2026-11'),
              all(new Date().toISOString()),
              all(0),
              all(1800),
              all(false),
            ],
          });
        }
      };
      const hot = () => 'w1';
      const spread = (i: number) => `w${1 + (i % WALLETS)}`;
      const cases: [string, () => Promise<void>][] = [
        ['one at a time, one hot wallet', () => lone(hot)],
        [`groups of ${G}, one hot wallet`, () => many(hot)],
        [`one at a time, ${WALLETS} wallets`, () => lone(spread)],
        [`groups of ${G}, ${WALLETS} wallets`, () => many(spread)],
      ];
      const totals = cases.map(() => ({ cpu: 0, wall: 0 }));
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, [, run]] of cases.entries()) {
          const c0 = cpu();
          const w0 = performance.now();
          await run();
          if (round === 0) continue;
          totals[i]!.cpu += cpu() - c0;
          totals[i]!.wall += performance.now() - w0;
        }
      }
      const per = (ms: number) => (ms / (N * (ROUNDS - 1))).toFixed(3);
      process.stdout.write(`${N} payouts a round, ${ROUNDS - 1} rounds counted\n`);
      for (const [i, [label]] of cases.entries()) {
        process.stdout.write(
          `${label.padEnd(32)} PostgreSQL CPU ${per(totals[i]!.cpu)} ms/payout, wall ${per(totals[i]!.wall)} ms/payout\n`,
        );
      }
    } finally {
      await c.end();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
