import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClosings } from '../../src/jobs/LedgerClosings.ts';
import { systemClock } from '../../src/clock.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database, Queryable } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { LedgerRepository } from '../../src/store/repositories/LedgerRepository.ts';
import { LedgerClosingRepository } from '../../src/store/repositories/LedgerClosingRepository.ts';
import { openingBalanceSql, StatementRepository } from '../../src/store/repositories/StatementRepository.ts';
import { statementsOf } from '../support/recordStatements.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

/*
 * Migration 044: a statement's opening balance is the wallet's last day closing plus the entries after it, and must
 * equal the plain sum of every entry before `from` whatever the order in which days were closed and entries written,
 * back-dated ones included.
 */

const DAY_MS = 86_400_000;
const quiet = { info: () => {}, warn: () => {} };

/** Midnight UTC `days` days before today's. */
const midnight = (days: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - days * DAY_MS);

/** An entry written with a created_at of its own (the server's entries take their transaction's start). */
async function entry(q: Queryable, wallet: string, amount: bigint, at: Date, payoutId: string | null = null) {
  await q.query(
    `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
     VALUES ($1, $2, $3, 0, $4, $5)`,
    [wallet, amount < 0n ? 'payout_debit' : 'credit', String(amount), payoutId, at],
  );
}

/** The plain sum of the wallet's entries before `from`: what the opening balance must be. */
async function plainSum(q: Queryable, wallet: string, from: Date): Promise<bigint> {
  const { rows } = await q.query<{ s: bigint }>(
    'SELECT coalesce(sum(amount), 0)::int8 AS s FROM ledger_entries WHERE wallet_id = $1 AND created_at < $2',
    [wallet, from],
  );
  return BigInt((rows[0] as { s: bigint }).s);
}

/** The first UTC day not yet closed, YYYY-MM-DD (null: none closed yet). */
async function closedUntil(q: Queryable): Promise<string | null> {
  const { rows } = await q.query<{ d: string | null }>('SELECT closed_until::text AS d FROM ledger_closings');
  return rows[0]?.d ?? null;
}

describe.each(ENGINES)('ledger day closings on %s', (engine) => {
  const dbs = testDatabases(engine);
  let t: TestDatabase;
  let db: Database;
  let merchants: MerchantService;

  beforeAll(async () => {
    t = await dbs.fresh();
    db = t.db;
    await migrate(db);
    merchants = new MerchantService(db, systemClock);
  });
  afterAll(() => dbs.closeAll());

  const closeAll = () => db.transaction((tx) => LedgerClosingRepository.closeDays(tx, 400));

  it('an empty ledger closes nothing', async () => {
    expect(await closeAll()).toBe(0);
    expect(await closedUntil(db)).toBeNull();
  });

  it('opening balances equal the plain sums, whatever was closed when and whatever was back-dated after', async () => {
    let payout = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('entry' as const),
              daysAgo: fc.integer({ min: 0, max: 12 }),
              msIntoDay: fc.integer({ min: 0, max: DAY_MS - 1 }),
              amount: fc.bigInt({ min: -5_000_000n, max: 9_000_000_000_000n }).filter((a) => a !== 0n),
            }),
            fc.record({ op: fc.constant('close' as const), maxDays: fc.integer({ min: 1, max: 5 }) }),
          ),
          { minLength: 1, maxLength: 25 },
        ),
        fc.array(fc.tuple(fc.integer({ min: -1, max: 14 }), fc.integer({ min: 0, max: DAY_MS })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (ops, froms) => {
          const wallet = (await merchants.create('Closings')).wallet.id;
          // Enough money from long ago that no debit ever takes the wallet below zero.
          await entry(db, wallet, 1_000_000_000n, midnight(30));
          for (const op of ops) {
            if (op.op === 'close') {
              await db.transaction((tx) => LedgerClosingRepository.closeDays(tx, op.maxDays));
              continue;
            }
            // Today's entries (daysAgo 0) are stamped no later than now, so they stay in a day not yet final.
            const at = new Date(Math.min(midnight(op.daysAgo).getTime() + op.msIntoDay, Date.now() - 1000));
            payout += 1;
            await entry(db, wallet, op.amount, at, op.amount < 0n ? `PT-close-${payout}` : null);
          }
          for (const [daysAgo, ms] of [...froms, [0, 0] as [number, number]]) {
            const from = new Date(midnight(daysAgo).getTime() + ms);
            const expected = await plainSum(db, wallet, from);
            expect(await StatementRepository.openingBalance(db, wallet, from)).toBe(expected);
            const both = await StatementRepository.openingBalanceAndLastId(db, wallet, from);
            expect(both.opening).toBe(expected);
          }
        },
      ),
      { numRuns: engine === 'pglite' ? 25 : 40 },
    );
    // Every closing is its day's plain sum, every day of history before today is closed, and today is not.
    await closeAll();
    // Today is never closed. Yesterday is, once ten minutes have passed since midnight (UTC) and no transaction
    // begun before then is still open; in the first hour after midnight, another test file's might be.
    const day = (daysAgo: number) => midnight(daysAgo).toISOString().slice(0, 10);
    const until = await closedUntil(db);
    if (Date.now() % DAY_MS < 3_600_000) expect([day(0), day(1)]).toContain(until);
    else expect(until).toBe(day(0));
    const { rows } = await db.query<{ wrong: bigint }>(
      `SELECT count(*)::int8 AS wrong FROM ledger_day_closings c
        WHERE c.closing <> (SELECT coalesce(sum(amount), 0) FROM ledger_entries e
                             WHERE e.wallet_id = c.wallet_id
                               AND e.created_at < ((c.day + 1)::timestamp AT TIME ZONE 'UTC'))`,
    );
    expect(BigInt((rows[0] as { wrong: bigint }).wrong)).toBe(0n);
    // And each closed day's kind totals are that day's plain sums per kind, no closed day's kind missing.
    const kinds = await db.query<{ wrong: bigint }>(
      `SELECT count(*)::int8 AS wrong
         FROM (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, kind, sum(amount) AS total
                 FROM ledger_entries GROUP BY 1, 2) p
         FULL JOIN ledger_day_kind_totals t ON t.day = p.day AND t.kind = p.kind
        WHERE coalesce(p.day, t.day) < (SELECT closed_until FROM ledger_closings)
          AND (p.total IS DISTINCT FROM t.total)`,
    );
    expect(BigInt((kinds.rows[0] as { wrong: bigint }).wrong)).toBe(0n);
  });

  it('verify from the closings finds what the full re-add finds: a balance moved by hand, a one-sided fee', async () => {
    // After the property: many wallets with closed days and today's entries.
    await closeAll();
    const clean = await LedgerRepository.verify(db);
    expect(clean).toMatchObject({ mismatches: [], unbalancedKinds: [] });
    expect(clean).toEqual(await LedgerRepository.verify(db, true));
    const wallet = (await merchants.create('Closings Verify')).wallet.id;
    await entry(db, wallet, 7_000n, midnight(4));
    await entry(db, wallet, 5_000n, new Date(Date.now() - 1000));
    // A balance no entry explains, and a fee with no platform side: one on a closed day, one today.
    await db.query('UPDATE wallets SET balance = balance + 1 WHERE id = $1', [wallet]);
    await db.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
       VALUES ($1, 'payout_fee', -300, 0, 'PT-fee-closed', $2), ($1, 'payout_fee_gst', -54, 0, 'PT-fee-today', now())`,
      [wallet, midnight(2)],
    );
    const found = await LedgerRepository.verify(db);
    expect(found.mismatches).toEqual([{ wallet_id: wallet, balance: '11647', ledger_sum: '11646' }]);
    expect(found.unbalancedKinds).toEqual([
      { kind: 'payout_fee', sum: -300n },
      { kind: 'payout_fee_gst', sum: -54n },
    ]);
    expect(found).toEqual(await LedgerRepository.verify(db, true));
    // Put the books right for the tests after this one.
    await db.query('UPDATE wallets SET balance = balance - 1 WHERE id = $1', [wallet]);
    await db.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
       VALUES ('PW_FEES', 'payout_fee', 300, 0, 'PT-fee-closed', $1), ('PW_GST', 'payout_fee_gst', 54, 0, 'PT-fee-today', now())`,
      [midnight(2)],
    );
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [], unbalancedKinds: [] });
  });

  it('the worker pass closes what is final and says how many days', async () => {
    const wallet = (await merchants.create('Closings Pass')).wallet.id;
    await entry(db, wallet, 500n, midnight(3));
    const closings = new LedgerClosings(db, quiet, { daysPerStep: 1, maxSteps: 2 });
    // Nothing left from the property (but, in the hour after midnight, perhaps yesterday): every day before today is
    // closed already; an entry three days back is added to its closed day by the trigger, not by a pass.
    expect(await closings.run()).toEqual(Date.now() % DAY_MS < 3_600_000 ? expect.any(Number) : 0);
    const { rows } = await db.query<{ closing: bigint }>(
      'SELECT closing FROM ledger_day_closings WHERE wallet_id = $1 ORDER BY day',
      [wallet],
    );
    expect(rows.map((r) => BigInt(r.closing))).toEqual([500n]);
    await closings.stop();
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))(
  'ledger day closings on postgres: what is final, and the plan',
  () => {
    const dbs = testDatabases('postgres');
    let db: Database;
    let merchants: MerchantService;

    beforeAll(async () => {
      db = (await dbs.fresh()).db;
      await migrate(db);
      merchants = new MerchantService(db, systemClock);
    });
    afterAll(() => dbs.closeAll());

    it('a day is not final while a transaction that began before its end is open', async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let began: Date | null = null;
      let ready: () => void = () => {};
      const open = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const holder = db.transaction(async (tx) => {
        const { rows } = await tx.query<{ at: Date }>('SELECT now() AS at');
        began = (rows[0] as { at: Date }).at;
        ready();
        await held;
      });
      await open;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { rows } = await db.query<{ before: Date; now: Date }>(
        'SELECT ledger_final_before() AS before, now() AS now',
      );
      const r = rows[0] as { before: Date; now: Date };
      release();
      await holder;
      // Ten minutes before the open transaction's start, not before this statement's.
      expect((began as Date | null)?.getTime()).toBeLessThan(r.now.getTime());
      // At most: another test file's older transaction in the same database bounds it too.
      expect(r.before.getTime()).toBeLessThanOrEqual((began as unknown as Date).getTime() - 600_000);
      const after = await db.query<{ before: Date; now: Date }>('SELECT ledger_final_before() AS before, now() AS now');
      const a = after.rows[0] as { before: Date; now: Date };
      expect(a.before.getTime()).toBeLessThanOrEqual(a.now.getTime() - 600_000);
    });

    it('a busy wallet opens from its closing and a day of entries: the closings key and ledger_by_wallet_time', async () => {
      const busy = (await merchants.create('Closings Busy')).wallet.id;
      const other = (await merchants.create('Closings Other')).wallet.id;
      // 30 days of 300 entries a day for the busy wallet and 50 for the other (10,500 entries), in the last 6
      // minutes of each day; a statement a day, so that no statement moves one wallet's row too many times.
      for (let day = 1; day <= 30; day++) {
        for (const [wallet, perDay] of [
          [busy, 300],
          [other, 50],
        ] as const) {
          await db.query(
            `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, created_at)
           SELECT $1, 'credit', 100 + g % 7, 0, $3::timestamptz - interval '1 minute' - g * interval '1 second'
             FROM generate_series(0, $2 - 1) AS g`,
            [wallet, perDay, midnight(day - 1)],
          );
        }
      }
      await db.query('VACUUM ANALYZE ledger_entries');
      await db.transaction((tx) => LedgerClosingRepository.closeDays(tx, 400));
      await db.query('ANALYZE ledger_day_closings');
      // Yesterday, 30 s before its end: its closing is the day before's, then nearly all of yesterday's entries.
      const from = new Date(midnight(0).getTime() - 30_000);
      expect(await StatementRepository.openingBalance(db, busy, from)).toBe(await plainSum(db, busy, from));
      const sql = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT ${openingBalanceSql} AS total`;
      const plan = JSON.stringify((await db.query(sql, [busy, from])).rows);
      expect(plan).toContain('ledger_day_closings_pkey');
      expect(plan).toContain('ledger_by_wallet_time');
      expect(plan).not.toContain('"Seq Scan"');
      // A day's worth of pages, not a month's: the sum read at most the 300 entries after the closing (the busy
      // wallet's month is over 40 index pages).
      const buffers = [...plan.matchAll(/"Shared Hit Blocks":\s*(\d+)/g)].map((m) => Number(m[1]));
      expect(buffers.length).toBeGreaterThan(0);
      expect(Math.max(...buffers)).toBeLessThan(20);
      // A day ten days back: its id span (StatementRepository.idSpan) bounds the pages to that day's entries, and
      // the pages find the same entries as without it. (At a million payouts the server's prepared, generic plan
      // walked the wallet's entries by id from its first to the day without the span: docs/internals/performance.md.)
      const day = { from: midnight(10), to: midnight(9) };
      const span = await StatementRepository.idSpan(db, busy, day);
      const bounded = await StatementRepository.entryPage(db, busy, day, span, 2_000);
      const unbounded = await StatementRepository.entryPage(db, busy, day, { after: 0n, upTo: null }, 2_000);
      expect(bounded).toHaveLength(300);
      expect(bounded).toEqual(unbounded);
      expect(span).toEqual({ after: (bounded[0]?.id as bigint) - 1n, upTo: bounded[299]?.id });
      expect(await StatementRepository.idSpan(db, busy, { from: midnight(-1), to: null })).toEqual({
        after: 0n,
        upTo: 0n,
      });
      expect(await StatementRepository.idSpan(db, busy, { from: null, to: null })).toEqual({ after: 0n, upTo: null });
      // The ledger check's two statements: each wallet's last closing and the range after it; the closed days' kind
      // totals and, per wallet, the range after them. No statement reads the whole ledger.
      for (const { sql, params } of await statementsOf((q) => LedgerRepository.verify(q))) {
        const verifyPlan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)).rows);
        expect(verifyPlan, sql).toContain('ledger_by_wallet_time');
        expect(verifyPlan, sql).not.toMatch(/"Seq Scan"[^}]*"Relation Name":\s*"ledger_entries"/);
      }
    });
  },
);
