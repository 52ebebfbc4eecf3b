import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { luhnCheckDigit, parseVirtualAccount, virtualAccountNumber } from '../../src/domain/virtualAccount.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import { loadMigrations, migrate } from '../../src/store/migrate.ts';
import { testDatabases } from '../support/testDatabase.ts';
import { ENGINES } from '../support/testServer.ts';

/** Luhn as its definition says: double every second digit from the right (the check digit not doubled), sum ≡ 0. */
const luhnValid = (n: string) =>
  [...n].reverse().reduce((sum, c, i) => {
    const d = Number(c) * (i % 2 === 1 ? 2 : 1);
    return sum + (d > 9 ? d - 9 : d);
  }, 0) %
    10 ===
  0;

describe('virtual account numbers', () => {
  it('are the prefix, ten digits of the wallet and a Luhn check digit', () => {
    expect(virtualAccountNumber('9988', 1n)).toBe('998800000000015');
    expect(luhnValid('998800000000015')).toBe(true);
    // The textbook Luhn example: 7992739871 takes 3.
    expect(luhnCheckDigit('7992739871')).toBe(3);
    for (let seq = 1n; seq < 2000n; seq += 7n) {
      const n = virtualAccountNumber('123', seq);
      expect(luhnValid(n)).toBe(true);
      expect(parseVirtualAccount('123', n)).toBe(seq);
    }
  });

  it('refuses every single mistyped digit, another prefix, length or zero', () => {
    const n = virtualAccountNumber('9988', 4242n);
    for (let i = 0; i < n.length; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === n[i]) continue;
        const typo = n.slice(0, i) + String(d) + n.slice(i + 1);
        // A typo in the prefix is another operator's number; anywhere else the check digit fails.
        expect(parseVirtualAccount('9988', typo)).toBeNull();
      }
    }
    expect(parseVirtualAccount('9977', n)).toBeNull();
    expect(parseVirtualAccount('9988', n + '0')).toBeNull();
    expect(parseVirtualAccount('9988', virtualAccountNumber('9988', 0n))).toBeNull();
    expect(parseVirtualAccount('9988', ` ${n} `)).toBe(4242n);
  });
});

describe.each(ENGINES)('virtual accounts in the database on %s', (engine) => {
  const dbs = testDatabases(engine);
  afterAll(() => dbs.closeAll());

  it('numbers the wallets that existed before migration 032 and every new one, uniquely', async () => {
    const t = await dbs.fresh();
    const all = await loadMigrations();
    await migrate(
      t.db,
      all.filter((m) => m.name < '032'),
    );
    // The wallets of before on a pool of their own: a prepared `RETURNING *` of the old table stays with its
    // connections (as an instance running 031 is stopped before 032 runs).
    const old = new MerchantService(t.another(), systemClock);
    const before: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { merchant } = await old.create(`Before ${i}`);
      before.push(merchant.id);
    }
    await migrate(t.db, all);
    const { merchant: after } = await new MerchantService(t.db, systemClock).create('After');
    const { rows } = await t.db.query<{ id: string; merchant_id: string | null; va_seq: string | null }>(
      'SELECT id, merchant_id, va_seq::text AS va_seq FROM wallets ORDER BY id',
    );
    const merchantWallets = rows.filter((r) => r.merchant_id !== null);
    expect(merchantWallets.map((r) => r.merchant_id).sort()).toEqual([...before, after.id].sort());
    const seqs = merchantWallets.map((r) => BigInt(r.va_seq as string));
    expect(new Set(seqs).size).toBe(4);
    // The old ones in the order they were created, the new one after them.
    const seqOf = (m: string) => BigInt(merchantWallets.find((r) => r.merchant_id === m)?.va_seq as string);
    expect(before.map(seqOf)).toEqual([1n, 2n, 3n]);
    expect(seqOf(after.id)).toBe(4n);
    // The platform's wallets have none.
    expect(rows.filter((r) => r.merchant_id === null).every((r) => r.va_seq === null)).toBe(true);
    for (const s of seqs) expect(luhnValid(virtualAccountNumber('9988', s))).toBe(true);
  });
});
