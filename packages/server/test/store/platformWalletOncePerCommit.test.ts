import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database, Queryable } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { LedgerRepository } from '../../src/store/repositories/LedgerRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

/*
 * Migration 038: a platform wallet's balance moves once per wallet at commit (the sum of the transaction's entries,
 * kept in a transaction-local setting), not once per entry. What a rollback, a rollback to a savepoint or an
 * exception block undoes must leave the sum too, so that every platform wallet still equals its ledger.
 */
describe.each(ENGINES)('platform wallets move once per commit on %s', (engine) => {
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

  const PLATFORM = ['PW_FEES', 'PW_GST', 'PW_RECOVERY'] as const;
  type Books = Record<string, { balance: bigint; sum: bigint; entries: bigint }>;
  /** Each platform wallet's balance (its row's and its stripes', migration 040), its entries' sum and count. */
  const books = async (q: Queryable = db): Promise<Books> => {
    const { rows } = await q.query<{ id: string; balance: bigint; sum: bigint; entries: bigint }>(
      `SELECT w.id, w.balance, coalesce(sum(e.amount), 0)::int8 AS sum, count(e.id)::int8 AS entries
         FROM platform_wallet_balances w LEFT JOIN ledger_entries e ON e.wallet_id = w.id
        WHERE w.id = ANY ($1::text[]) GROUP BY w.id, w.balance`,
      [PLATFORM],
    );
    return Object.fromEntries(rows.map((r) => [r.id, { balance: r.balance, sum: r.sum, entries: r.entries }]));
  };

  const fundedWallet = async () => {
    const w = (await merchants.create('Platform Once')).wallet.id;
    await db.transaction((tx) => LedgerRepository.append(tx, { walletId: w, kind: 'credit', amount: 100_000_000n }));
    return w;
  };

  let run = 0;
  /**
   * `count` payouts' fee and GST in one statement, as payout_open_batch writes them: the merchant's side, then the
   * platform's (four entries per payout). With `refund`, each fee and its GST given back, as on a failure.
   */
  const charge = (q: Queryable, wallet: string, count: number, fee: bigint, tax: bigint, refund = false) => {
    run += 1;
    const sign = refund ? -1n : 1n;
    const suffix = refund ? '_refund' : '';
    return q.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
       SELECT v.w, v.k, v.a, 0, $2 || '-' || g
         FROM generate_series(1, $3::int) AS g
        CROSS JOIN LATERAL (VALUES (1, $1::text, 'payout_fee' || $6, -$4::int8), (2, $1, 'payout_fee_gst' || $6, -$5::int8),
                                   (3, 'PW_FEES', 'payout_fee' || $6, $4::int8),
                                   (4, 'PW_GST', 'payout_fee_gst' || $6, $5::int8)) AS v (o, w, k, a)
        ORDER BY v.o >= 3, g, v.o`,
      [wallet, refund ? `pf-${run - 1}` : `pf-${run}`, count, sign * fee, sign * tax, suffix],
    );
  };

  it('one transaction of many fee entries, with a savepoint rolled back and an exception caught, keeps balance = sum', async () => {
    const w = await fundedWallet();
    const before = await books();

    await db.transaction(async (tx) => {
      await charge(tx, w, 500, 1_000n, 180n); // 2,000 entries in one statement
      for (let i = 0; i < 100; i++) await charge(tx, w, 1, 7n, 1n); // many statements
      await tx.query('SAVEPOINT s');
      await charge(tx, w, 300, 99_999n, 18_000n);
      await tx.query('ROLLBACK TO SAVEPOINT s');
      await charge(tx, w, 50, 500n, 90n);
      await charge(tx, w, 50, 500n, 90n, true); // the last 50 given back in the same transaction
      // An exception block is a subtransaction too: what it added is undone with it.
      await tx.query(`DO $$
        BEGIN
          INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
            VALUES ('PW_FEES', 'payout_fee', 123456, 0, 'pf-caught');
          RAISE EXCEPTION 'undo';
        EXCEPTION WHEN raise_exception THEN NULL;
        END $$`);
      // Mid-transaction the platform wallets have not moved: their rows are locked only at commit.
      expect((await books(tx)).PW_FEES?.balance).toBe(before.PW_FEES?.balance);
      await charge(tx, w, 20, 3n, 1n);
    });

    const after = await books();
    for (const id of PLATFORM) expect(after[id]?.balance, id).toBe(after[id]?.sum);
    expect(after.PW_FEES?.balance).toBe((before.PW_FEES?.balance ?? 0n) + 500n * 1_000n + 100n * 7n + 20n * 3n);
    expect(after.PW_GST?.balance).toBe((before.PW_GST?.balance ?? 0n) + 500n * 180n + 100n * 1n + 20n * 1n);
    expect(after.PW_FEES?.entries).toBe((before.PW_FEES?.entries ?? 0n) + 500n + 100n + 50n + 50n + 20n);
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [], unbalancedKinds: [] });
  });

  it('a rolled-back transaction changes no platform wallet, and leaves nothing pending for the next', async () => {
    const w = await fundedWallet();
    const before = await books();
    await expect(
      db.transaction(async (tx) => {
        await charge(tx, w, 400, 2_000n, 360n);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await books()).toEqual(before);

    // The next transaction on the same connection applies its own entries only.
    await db.transaction((tx) => charge(tx, w, 1, 10n, 2n));
    const after = await books();
    expect(after.PW_FEES?.balance).toBe((before.PW_FEES?.balance ?? 0n) + 10n);
    expect(after.PW_GST?.balance).toBe((before.PW_GST?.balance ?? 0n) + 2n);
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [], unbalancedKinds: [] });
  });

  it('updates each platform wallet row once per commit, however many entries', async () => {
    const w = await fundedWallet();
    const updates = await db.transaction(async (tx) => {
      await charge(tx, w, 200, 100n, 18n);
      for (let i = 0; i < 20; i++) await charge(tx, w, 1, 100n, 18n);
      const walletUpdates = async () =>
        (
          await tx.query<{ n: bigint }>(
            `SELECT sum(n_tup_upd)::int8 AS n FROM pg_stat_xact_user_tables
              WHERE relid IN ('wallets'::regclass, 'platform_balance_stripes'::regclass)`,
          )
        ).rows[0]?.n ?? 0n;
      const pending = await walletUpdates();
      // Fires the deferred events now, inside the transaction, where its own update count can be read.
      await tx.query('SET CONSTRAINTS ledger_apply_platform IMMEDIATE');
      return (await walletUpdates()) - pending;
    });
    expect(updates).toBe(2n); // PW_FEES and PW_GST, once each, for 440 platform entries
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [] });
  });

  it('with the trigger made IMMEDIATE, each statement moves the platform wallets at its end', async () => {
    const w = await fundedWallet();
    const before = await books();
    await db.transaction(async (tx) => {
      await tx.query('SET CONSTRAINTS ledger_apply_platform IMMEDIATE');
      await charge(tx, w, 30, 40n, 7n);
      const mid = await books(tx);
      expect(mid.PW_FEES?.balance).toBe((before.PW_FEES?.balance ?? 0n) + 30n * 40n);
      expect(mid.PW_GST?.balance).toBe((before.PW_GST?.balance ?? 0n) + 30n * 7n);
      await charge(tx, w, 1, 5n, 1n);
    });
    const after = await books();
    for (const id of PLATFORM) expect(after[id]?.balance, id).toBe(after[id]?.sum);
    expect(after.PW_FEES?.balance).toBe((before.PW_FEES?.balance ?? 0n) + 30n * 40n + 5n);
  });

  it('refuses a commit that would take a platform wallet below zero, whichever stripe it lands in (040)', async () => {
    const w = await fundedWallet();
    await db.transaction((tx) => charge(tx, w, 1, 700n, 126n));
    const before = await books();
    const fees = before.PW_FEES?.balance ?? 0n;
    await expect(
      db.transaction((tx) =>
        tx.query(
          `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
           VALUES ('PW_FEES', 'payout_fee_refund', $1::int8, 0, 'pf-overdrawn')`,
          [-(fees + 1n)],
        ),
      ),
    ).rejects.toThrow(/PW_FEES would go negative/);
    expect(await books()).toEqual(before);
    // Taking all it holds is allowed, and leaves it at zero.
    await db.transaction((tx) =>
      tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
         VALUES ('PW_FEES', 'payout_fee_refund', $1::int8, 0, 'pf-emptied'), ($2, 'payout_fee_refund', $3::int8, 0, 'pf-emptied')`,
        [-fees, w, fees],
      ),
    );
    expect((await books()).PW_FEES?.balance).toBe(0n);
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [] });
  });

  it.runIf(engine === 'postgres')(
    'concurrent commits land in their own stripes, and the sum is every commit',
    async () => {
      const w = await fundedWallet();
      const before = await books();
      await Promise.all(Array.from({ length: 8 }, () => db.transaction((tx) => charge(tx, w, 5, 3n, 1n))));
      const after = await books();
      expect(after.PW_FEES?.balance).toBe((before.PW_FEES?.balance ?? 0n) + 8n * 5n * 3n);
      expect(after.PW_GST?.balance).toBe(after.PW_GST?.sum);
      const { rows } = await db.query<{ n: bigint }>(
        `SELECT count(*)::int8 AS n FROM platform_balance_stripes WHERE wallet_id = 'PW_FEES' AND balance <> 0`,
      );
      // The pool's connections are different backends: more than one stripe holds money.
      expect(rows[0]?.n).toBeGreaterThan(1n);
    },
  );
});
