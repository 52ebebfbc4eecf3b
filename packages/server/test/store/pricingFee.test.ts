import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { Payout } from '../../src/domain/Payout.ts';
import { parsePricingPlan, PRICED_PRODUCTS, type PricingPlan, type Slab } from '../../src/domain/pricingPlan.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { LedgerRepository } from '../../src/store/repositories/LedgerRepository.ts';
import { PayoutOpenRefused, PayoutRepository } from '../../src/store/repositories/PayoutRepository.ts';
import { PricingRepository } from '../../src/store/repositories/PricingRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { draftPayout } from '../support/payoutFixtures.ts';
import { ENGINES } from '../support/testServer.ts';

/**
 * The fee rule as docs/operator/charging-merchants.md states it, written here independently of the database's `pricing_fee` (migration
 * 029): the first slab whose up_to (inclusive) covers the amount; flat + amount × bps / 10000 half-up to the paisa;
 * clamped to [min, max]; a product the plan does not name is free. GST half-up to the paisa.
 */
function oracleFee(plan: PricingPlan | null, product: string, amount: bigint): bigint {
  const slabs = plan?.rules[product as keyof PricingPlan['rules']];
  const slab = slabs?.find((s) => s.upTo === null || amount <= s.upTo);
  if (!slab) return 0n;
  let fee = slab.flat + (amount * BigInt(slab.bps) + 5000n) / 10000n;
  if (slab.max !== null && fee > slab.max) fee = slab.max;
  if (slab.min !== null && fee < slab.min) fee = slab.min;
  return fee;
}
const oracleGst = (fee: bigint, rateBp: number) => (fee * BigInt(rateBp) + 5000n) / 10000n;

const rupees = (paise: bigint) => `${paise / 100n}.${String(paise % 100n).padStart(2, '0')}`;

/** A random valid plan, sent as the admin API would receive it (so parsePricingPlan is exercised too). */
const slabBody = (s: Omit<Slab, 'upTo'> & { upTo: bigint | null }) => ({
  ...(s.upTo === null ? {} : { up_to: rupees(s.upTo) }),
  flat: rupees(s.flat),
  bps: s.bps,
  ...(s.min === null ? {} : { min: rupees(s.min) }),
  ...(s.max === null ? {} : { max: rupees(s.max) }),
});
const arbSlab = fc
  .record({
    flat: fc.bigInt(0n, 5_000n),
    bps: fc.integer({ min: 0, max: 500 }),
    min: fc.option(fc.bigInt(0n, 2_000n), { nil: null }),
    span: fc.bigInt(0n, 10_000n),
  })
  .map(({ flat, bps, min, span }) => ({ flat, bps, min, max: min === null ? null : min + span }));
const arbRule = fc
  .tuple(
    fc.array(arbSlab, { minLength: 1, maxLength: 4 }),
    fc.uniqueArray(fc.bigInt(1n, 10_000_000n), { minLength: 3 }),
  )
  .map(([slabs, bounds]) => {
    const ups = [...bounds].sort((a, b) => (a < b ? -1 : 1));
    return { slabs: slabs.map((s, i) => slabBody({ ...s, upTo: i === slabs.length - 1 ? null : (ups[i] as bigint) })) };
  });
const arbPlanBody = fc
  .dictionary(fc.constantFrom(...PRICED_PRODUCTS), arbRule, { minKeys: 0, maxKeys: 5 })
  .map((rules) => ({ name: 'Random plan', rules }));

describe.each(ENGINES)('pricing in the database on %s', (engine) => {
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

  it('computes every fee and its GST as the contract states the rule (property)', async () => {
    const { merchant } = await merchants.create('Pricing property');
    await fc.assert(
      fc.asyncProperty(
        arbPlanBody,
        fc.constantFrom(...PRICED_PRODUCTS),
        fc.array(fc.bigInt(1n, 20_000_000n), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 2_800 }),
        async (body, product, amounts, rateBp) => {
          const plan = parsePricingPlan(body);
          await PricingRepository.put(db, merchant.id, plan, new Date());
          const quoted = await PricingRepository.quote(db, merchant.id, product, amounts, rateBp);
          const expected = amounts.map((a) => {
            const fee = oracleFee(plan, product, a);
            return { fee, tax: oracleGst(fee, rateBp) };
          });
          expect(quoted).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('takes the slab whose up_to equals the amount, rounds half-up, clamps, and charges nothing unpriced', async () => {
    const { merchant } = await merchants.create('Pricing edges');
    const plan = parsePricingPlan({
      name: 'Edges',
      rules: {
        IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '25000.00', flat: '5.00' }, { flat: '10.00' }] },
        NEFT: { slabs: [{ bps: 15, min: '3.00', max: '25.00' }] },
      },
    });
    await PricingRepository.put(db, merchant.id, plan, new Date());
    const fees = async (product: string, amounts: bigint[]) =>
      (await PricingRepository.quote(db, merchant.id, product, amounts, 1800)).map((q) => `${q.fee}+${q.tax}`);
    // ₹1,000.00 is the first slab (inclusive); a paisa more is the second; above ₹25,000 the last.
    expect(await fees('IMPS', [100_000n, 100_001n, 2_500_000n, 2_500_001n])).toEqual([
      '200+36',
      '500+90',
      '500+90',
      '1000+180',
    ]);
    // 15 bps of ₹3,000.00 = 450 paise; of ₹1,000.00 = 150 → min 300; of ₹20,000.00 = 3000 → max 2500;
    // of ₹3,003.33 = 450.4995 → 450; of ₹3,003.34 = 450.501 → 451 (half-up on the paisa).
    expect(await fees('NEFT', [300_000n, 100_000n, 2_000_000n, 300_333n, 300_334n])).toEqual([
      '450+81',
      '300+54',
      '2500+450',
      '450+81',
      '451+81',
    ]);
    // GST half-up: 18 % of 451 paise = 81.18 → 81; of 475 = 85.5 → 86.
    expect(await PricingRepository.quote(db, merchant.id, 'NEFT', [316_667n], 1800)).toEqual([{ fee: 475n, tax: 86n }]);
    expect(await fees('RTGS', [50_000_000n])).toEqual(['0+0']);
    const { merchant: unpriced } = await merchants.create('No plan');
    expect(await PricingRepository.quote(db, unpriced.id, 'IMPS', [100_000n], 1800)).toEqual([{ fee: 0n, tax: 0n }]);
  });

  /** A payout as PayoutService would draft it, on the merchant's wallet. */
  const draft = (merchantId: string, walletId: string, amount: bigint, i: number): Payout =>
    draftPayout({
      merchantId,
      walletId,
      senderId: `fee-${i}-${Math.random().toString(36).slice(2)}`,
      amount,
      paymentMode: i % 2 === 0 ? 'IMPS' : 'NEFT',
    });

  it('debits and refunds fee and GST with the amount, and the platform books sum to zero (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ amount: fc.bigInt(100n, 400_000n), refund: fc.boolean() }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.bigInt(0n, 3_000_000n),
        async (steps, funding) => {
          const { merchant, wallet } = await merchants.create('Fees property');
          const plan = parsePricingPlan({
            name: 'Two products',
            rules: {
              IMPS: {
                slabs: [
                  { up_to: '1000.00', flat: '2.00' },
                  { flat: '5.00', bps: 7 },
                ],
              },
              NEFT: { slabs: [{ bps: 25, min: '1.00', max: '30.00' }] },
            },
          });
          await PricingRepository.put(db, merchant.id, plan, new Date());
          if (funding > 0n) {
            await db.transaction((tx) =>
              LedgerRepository.append(tx, { walletId: wallet.id, kind: 'credit', amount: funding }),
            );
          }
          let expectedBalance = funding;
          for (const [i, step] of steps.entries()) {
            const p = draft(merchant.id, wallet.id, step.amount, i);
            const fee = oracleFee(plan, p.paymentMode, p.amount);
            const total = p.amount + fee + oracleGst(fee, 1800);
            let opened: Payout | null;
            try {
              opened = await PayoutRepository.open(db, p, {
                credentialsVersion: merchant.credentialsVersion,
                firstStepDelayMs: null,
                gstRateBp: 1800,
                requirePricing: false,
              });
            } catch (err) {
              // Refused exactly when the balance does not cover amount + fee + GST; nothing moved.
              expect(err).toBeInstanceOf(PayoutOpenRefused);
              expect((err as PayoutOpenRefused).reason).toBe('insufficient_balance');
              expect(expectedBalance).toBeLessThan(total);
              continue;
            }
            expect(expectedBalance).toBeGreaterThanOrEqual(total);
            expect(opened).not.toBeNull();
            const payout = opened as Payout;
            expect([payout.fee, payout.tax]).toEqual([fee, oracleGst(fee, 1800)]);
            expectedBalance -= payout.amount + payout.fee + payout.tax;
            expect(expectedBalance).toBeGreaterThanOrEqual(0n);
            if (step.refund) {
              await db.transaction((tx) =>
                LedgerRepository.appendRefunds(tx, [
                  { walletId: wallet.id, amount: payout.amount, payoutId: payout.id },
                ]),
              );
              expectedBalance += payout.amount + payout.fee + payout.tax;
            }
            const { rows } = await db.query<{ kind: string; total: bigint }>(
              `SELECT kind, sum(amount)::int8 AS total FROM ledger_entries WHERE payout_id = $1 AND wallet_id = $2
                GROUP BY kind ORDER BY kind`,
              [payout.id, wallet.id],
            );
            const byKind = Object.fromEntries(rows.map((r) => [r.kind, BigInt(r.total)]));
            // Fee and GST always together: charged with the debit, both given back with the refund.
            expect(byKind.payout_fee ?? 0n).toBe(-payout.fee);
            expect(byKind.payout_fee_gst ?? 0n).toBe(-payout.tax);
            expect(byKind.payout_fee_refund ?? 0n).toBe(step.refund ? payout.fee : 0n);
            expect(byKind.payout_fee_gst_refund ?? 0n).toBe(step.refund ? payout.tax : 0n);
          }
          const { rows: walletRows } = await db.query<{ balance: bigint }>(
            'SELECT balance FROM wallets WHERE id = $1',
            [wallet.id],
          );
          expect(BigInt((walletRows[0] as { balance: bigint }).balance)).toBe(expectedBalance);
          // Double entry: every fee kind sums to zero over all wallets, and every wallet equals its ledger.
          const { rows: sums } = await db.query<{ kind: string; total: bigint }>(
            `SELECT kind, sum(amount)::int8 AS total FROM ledger_entries
              WHERE kind LIKE '%fee%' GROUP BY kind HAVING sum(amount) <> 0`,
          );
          expect(sums).toEqual([]);
          expect((await LedgerRepository.verify(db)).mismatches).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  });
});
