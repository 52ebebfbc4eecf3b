import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import {
  DuplicateEntry,
  InsufficientFunds,
  LedgerRepository,
  type NewEntry,
} from '../../src/store/repositories/LedgerRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

describe.each(ENGINES)('ledger on %s', (engine) => {
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

  const newWallet = async () => (await merchants.create('Ledger Test')).wallet.id;

  const balance = async (walletId: string) => {
    const { rows } = await db.query<{ balance: bigint }>('SELECT balance FROM wallets WHERE id = $1', [walletId]);
    return rows[0]?.balance;
  };
  const entries = async (walletId: string) => {
    const { rows } = await db.query<{ amount: bigint; balance_after: bigint; kind: string }>(
      'SELECT amount, balance_after, kind FROM ledger_entries WHERE wallet_id = $1 ORDER BY id',
      [walletId],
    );
    return rows;
  };
  const sumOfEntries = async (walletId: string) =>
    (await entries(walletId)).reduce((sum, e) => sum + BigInt(e.amount), 0n);

  const append = (e: NewEntry) => db.transaction((tx) => LedgerRepository.append(tx, e));
  const credit = (walletId: string, amount: bigint, reference?: string) =>
    append({ walletId, kind: 'credit', amount, reference });
  const debit = (walletId: string, amount: bigint) =>
    append({ walletId, kind: 'payout_debit', amount: -amount, payoutId: newId('payout', Date.now()) });

  it('returns the balance after each entry, and the balance equals the sum of the entries', async () => {
    const w = await newWallet();
    expect(await balance(w)).toBe(0n);
    expect(await credit(w, 100_000n)).toBe(100_000n);
    expect(await credit(w, 50n)).toBe(100_050n);
    expect(await debit(w, 30_000n)).toBe(70_050n);
    const payoutId = newId('payout', Date.now());
    await append({ walletId: w, kind: 'payout_debit', amount: -20_000n, payoutId });
    expect(await append({ walletId: w, kind: 'payout_refund', amount: 20_000n, payoutId })).toBe(70_050n);
    await append({
      walletId: w,
      kind: 'collection_credit',
      amount: 999n,
      collectionId: newId('collection', Date.now()),
    });

    expect(await balance(w)).toBe(71_049n);
    expect(await sumOfEntries(w)).toBe(71_049n);
    expect((await entries(w)).map((e) => BigInt(e.balance_after))).toEqual([
      100_000n,
      100_050n,
      70_050n,
      50_050n,
      70_050n,
      71_049n,
    ]);
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [] });
  });

  it('allows a debit that takes the balance exactly to zero', async () => {
    const w = await newWallet();
    await credit(w, 500n);
    expect(await debit(w, 500n)).toBe(0n);
  });

  it('refuses a debit beyond the balance with InsufficientFunds, and nothing changes', async () => {
    const w = await newWallet();
    await credit(w, 1_000n);
    const before = await entries(w);
    await expect(debit(w, 1_001n)).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await balance(w)).toBe(1_000n);
    expect(await entries(w)).toEqual(before);
  });

  it('rolls back everything else done in the transaction of a refused debit', async () => {
    const w = await newWallet();
    await credit(w, 1_000n);
    await expect(
      db.transaction(async (tx) => {
        await LedgerRepository.append(tx, { walletId: w, kind: 'credit', amount: 5n });
        await LedgerRepository.append(tx, {
          walletId: w,
          kind: 'payout_debit',
          amount: -5_000n,
          payoutId: newId('payout', Date.now()),
        });
      }),
    ).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await balance(w)).toBe(1_000n);
    expect(await entries(w)).toHaveLength(1);
  });

  it('refuses a debit from an empty wallet', async () => {
    const w = await newWallet();
    await expect(debit(w, 1n)).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await entries(w)).toHaveLength(0);
  });

  it('refuses an entry for a wallet that does not exist', async () => {
    await expect(credit(newId('wallet', Date.now()), 100n)).rejects.toThrow();
  });

  it.each([
    ['a zero amount', { kind: 'credit', amount: 0n }],
    ['a negative credit', { kind: 'credit', amount: -5n }],
    ['a positive payout debit', { kind: 'payout_debit', amount: 5n, payoutId: 'PT1' }],
    ['a payout debit without payout', { kind: 'payout_debit', amount: -5n }],
    ['a collection credit without collection', { kind: 'collection_credit', amount: 5n }],
  ] as const)('refuses %s', async (_label, entry) => {
    const w = await newWallet();
    await credit(w, 1_000n);
    await expect(append({ walletId: w, ...entry })).rejects.toThrow();
    expect(await balance(w)).toBe(1_000n);
    expect(await entries(w)).toHaveLength(1);
  });

  it('entries are append-only: UPDATE and DELETE raise and change nothing', async () => {
    const w = await newWallet();
    await credit(w, 1_000n);
    await expect(db.query('UPDATE ledger_entries SET amount = 1000000 WHERE wallet_id = $1', [w])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query('UPDATE ledger_entries SET reference = $2 WHERE wallet_id = $1', [w, 'x'])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query('DELETE FROM ledger_entries WHERE wallet_id = $1', [w])).rejects.toThrow(/append-only/);
    const rows = await entries(w);
    expect(rows).toHaveLength(1);
    expect(BigInt(rows[0]?.amount as bigint)).toBe(1_000n);
    expect(await balance(w)).toBe(1_000n);
  });

  it('a credit reference is credited once per wallet', async () => {
    const w = await newWallet();
    expect(await credit(w, 700n, 'bank-ref-1')).toBe(700n);
    await expect(credit(w, 700n, 'bank-ref-1')).rejects.toBeInstanceOf(DuplicateEntry);
    await expect(credit(w, 1n, 'bank-ref-1')).rejects.toBeInstanceOf(DuplicateEntry);
    expect(await balance(w)).toBe(700n);
    expect(await entries(w)).toHaveLength(1);
    // Another reference, no reference, or the same reference on another wallet are separate credits.
    expect(await credit(w, 300n, 'bank-ref-2')).toBe(1_000n);
    expect(await credit(w, 1n)).toBe(1_001n);
    expect(await credit(w, 1n)).toBe(1_002n);
    const other = await newWallet();
    expect(await credit(other, 5n, 'bank-ref-1')).toBe(5n);
  });

  it('MerchantService.credit answers a repeated reference with duplicate and the unchanged balance', async () => {
    const w = await newWallet();
    expect(await merchants.credit(w, 1_000n, 'ref-A')).toEqual({ walletId: w, balance: 1_000n, duplicate: false });
    expect(await merchants.credit(w, 1_000n, 'ref-A')).toEqual({ walletId: w, balance: 1_000n, duplicate: true });
    expect(await merchants.credit(newId('wallet', Date.now()), 1_000n)).toBeNull();
    expect(await sumOfEntries(w)).toBe(1_000n);
  });

  it('a payout is debited once and refunded once', async () => {
    const w = await newWallet();
    await credit(w, 10_000n);
    const payoutId = newId('payout', Date.now());
    await append({ walletId: w, kind: 'payout_debit', amount: -1_000n, payoutId });
    await expect(append({ walletId: w, kind: 'payout_debit', amount: -1_000n, payoutId })).rejects.toBeInstanceOf(
      DuplicateEntry,
    );
    await append({ walletId: w, kind: 'payout_refund', amount: 1_000n, payoutId });
    await expect(append({ walletId: w, kind: 'payout_refund', amount: 1_000n, payoutId })).rejects.toBeInstanceOf(
      DuplicateEntry,
    );
    const collectionId = newId('collection', Date.now());
    await append({ walletId: w, kind: 'collection_credit', amount: 10n, collectionId });
    await expect(append({ walletId: w, kind: 'collection_credit', amount: 10n, collectionId })).rejects.toBeInstanceOf(
      DuplicateEntry,
    );
    expect(await balance(w)).toBe(10_010n);
  });

  it('under concurrent debits the balance never goes below zero and stays the sum of its entries', async () => {
    const w = await newWallet();
    await credit(w, 1_000n);
    // 25 debits of 100 against 1000: exactly 10 can succeed, whatever the interleaving. On PostgreSQL these run
    // on separate pooled connections; on a second pool too, as a second instance would.
    const pools = [db, t.another()];
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) =>
        (pools[i % 2] as Database).transaction((tx) =>
          LedgerRepository.append(tx, {
            walletId: w,
            kind: 'payout_debit',
            amount: -100n,
            payoutId: newId('payout', Date.now()),
          }),
        ),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(10);
    for (const r of refused) expect(r.reason).toBeInstanceOf(InsufficientFunds);
    expect(await balance(w)).toBe(0n);
    expect(await sumOfEntries(w)).toBe(0n);
    const afters = (await entries(w)).map((e) => BigInt(e.balance_after));
    expect(afters.every((b) => b >= 0n)).toBe(true);
    expect(await LedgerRepository.verify(db)).toMatchObject({ mismatches: [] });
  });

  it('verify reports a wallet whose balance was changed behind the ledger', async () => {
    const w = await newWallet();
    await credit(w, 100n);
    await db.query('UPDATE wallets SET balance = 5 WHERE id = $1', [w]);
    const result = await LedgerRepository.verify(db);
    expect(result.walletsChecked).toBeGreaterThan(0);
    expect(result.mismatches).toContainEqual({ wallet_id: w, balance: '5', ledger_sum: '100' });
  });
});
