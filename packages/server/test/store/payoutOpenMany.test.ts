import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { Payout } from '../../src/domain/Payout.ts';
import { parsePricingPlan } from '../../src/domain/pricingPlan.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import { PayoutOpenGroups } from '../../src/services/PayoutOpenGroups.ts';
import type { Database } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { LedgerRepository } from '../../src/store/repositories/LedgerRepository.ts';
import { PayoutOpenRefused, PayoutRepository, type OpenTerms } from '../../src/store/repositories/PayoutRepository.ts';
import { PricingRepository } from '../../src/store/repositories/PricingRepository.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';
import { draftPayout } from '../support/payoutFixtures.ts';
import { ENGINES } from '../support/testServer.ts';

/**
 * Issue 34: initiations opened in groups (`payout_open_many`, migration 042, through `PayoutOpenGroups`) get exactly
 * what each would get alone (`payout_open_checked`, one call each), and leave the same balances, ledgers, allowances,
 * payouts and jobs. Each run builds two identical worlds (two merchants, two wallets each, the same funding, limits
 * and plans), opens the same random initiations in one world one at a time and in the other in random groups, and
 * compares the two, element by element.
 */

/** One initiation of a run: whose, from which wallet (2: the other merchant's), which sender_id, how much. */
interface Step {
  m: 0 | 1;
  w: 0 | 1 | 2;
  s: number;
  amount: bigint;
  mode: 'IMPS' | 'NEFT';
  /** Sent with an older credentials version (a rotation since the token was issued): PR001. */
  staleToken: boolean;
}

const arbStep: fc.Arbitrary<Step> = fc.record({
  m: fc.constantFrom(0 as const, 1 as const),
  w: fc.constantFrom(0 as const, 0 as const, 1 as const, 2 as const),
  // Few sender ids: duplicates within a run, and within a group, are common.
  s: fc.integer({ min: 0, max: 6 }),
  amount: fc.bigInt(1n, 250_000n),
  mode: fc.constantFrom('IMPS' as const, 'NEFT' as const),
  staleToken: fc.integer({ min: 0, max: 11 }).map((n) => n === 0),
});

const arbWorld = fc.record({
  funding: fc.array(fc.bigInt(0n, 900_000n), { minLength: 4, maxLength: 4 }),
  daily: fc.array(fc.option(fc.bigInt(1n, 1_200_000n), { nil: null }), { minLength: 2, maxLength: 2 }),
  monthly: fc.array(fc.option(fc.bigInt(1n, 2_000_000n), { nil: null }), { minLength: 2, maxLength: 2 }),
  requirePricing: fc.boolean(),
});

const PLAN = parsePricingPlan({
  name: 'Grouped',
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

interface World {
  merchants: { id: string; cv: number }[];
  /** wallets[m][w]: w 0 and 1 are the merchant's own, 2 the other merchant's first. */
  wallets: string[][];
}

/** What one element was answered, free of ids: comparable between the two worlds. */
type Answer =
  | { ok: true; amount: bigint; fee: bigint; tax: bigint; wallet: number; status: string }
  | { ok: 'duplicate' }
  | { ok: false; refused: string };

describe.each(ENGINES)('payouts opened in groups answer as one at a time (%s)', (engine) => {
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

  async function world(spec: WorldSpec): Promise<World> {
    const ms: { id: string; cv: number }[] = [];
    const own: string[][] = [];
    for (const m of [0, 1] as const) {
      const { merchant, wallet } = await merchants.create(`Grouped ${m}`);
      const second = await merchants.createWallet(merchant.id);
      await merchants.update(merchant.id, { dailyLimit: spec.daily[m] ?? null, monthlyLimit: spec.monthly[m] ?? null });
      // Merchant 0 pays fees; merchant 1 has no plan (refused 4015 when a plan is required).
      if (m === 0) await PricingRepository.put(db, merchant.id, PLAN, new Date());
      ms.push({ id: merchant.id, cv: merchant.credentialsVersion });
      own.push([wallet.id, second!.id]);
    }
    for (const [k, amount] of spec.funding.entries()) {
      if (amount === 0n) continue;
      const walletId = own[k >> 1]![k & 1]!;
      await db.transaction((tx) => LedgerRepository.append(tx, { walletId, kind: 'credit', amount }));
    }
    return { merchants: ms, wallets: [0, 1].map((m) => [...own[m]!, own[1 - m]![0]!]) };
  }

  function request(w: World, step: Step, requirePricing: boolean): { payout: Payout; terms: OpenTerms } {
    const merchant = w.merchants[step.m]!;
    return {
      payout: draftPayout({
        merchantId: merchant.id,
        walletId: w.wallets[step.m]![step.w]!,
        senderId: `s-${step.s}`,
        amount: step.amount,
        paymentMode: step.mode,
      }),
      terms: {
        credentialsVersion: step.staleToken ? merchant.cv - 1 : merchant.cv,
        firstStepDelayMs: 0,
        gstRateBp: 1800,
        requirePricing,
      },
    };
  }

  function answer(w: World, result: Payout | null | Error): Answer {
    if (result === null) return { ok: 'duplicate' };
    if (result instanceof PayoutOpenRefused) return { ok: false, refused: result.reason };
    if (result instanceof Error) return { ok: false, refused: `error ${(result as { code?: string }).code}` };
    const wallet = w.wallets.flat().indexOf(result.walletId);
    return { ok: true, amount: result.amount, fee: result.fee, tax: result.tax, wallet, status: result.status };
  }

  /** Everything the initiations changed in a world, with ids replaced by their place in the world or the run. */
  async function state(w: World, payoutIds: string[]) {
    const walletIds = [...w.wallets[0]!.slice(0, 2), ...w.wallets[1]!.slice(0, 2)];
    const index = (id: string | null) => (id === null ? null : payoutIds.indexOf(id));
    const balances = await db.query<{ id: string; balance: bigint }>(
      'SELECT id, balance FROM wallets WHERE id = ANY ($1::text[])',
      [walletIds],
    );
    const entries = await db.query<{ wallet_id: string; kind: string; amount: bigint; payout_id: string | null }>(
      `SELECT wallet_id, kind, amount, payout_id FROM ledger_entries
        WHERE wallet_id = ANY ($1::text[]) OR payout_id = ANY ($2::text[]) ORDER BY id`,
      [walletIds, payoutIds],
    );
    const usage = await db.query<{ merchant_id: string; period: string; amount: bigint }>(
      'SELECT merchant_id, period, amount FROM merchant_usage WHERE merchant_id = ANY ($1::text[]) ORDER BY 1, 2',
      [w.merchants.map((m) => m.id)],
    );
    const payouts = await db.query<{ id: string; wallet_id: string; status: string; amount: bigint; fee: bigint }>(
      'SELECT id, wallet_id, status, amount, fee, tax, sender_id FROM payouts WHERE id = ANY ($1::text[])',
      [payoutIds],
    );
    const jobs = await db.query<{ subject_id: string; kind: string }>(
      'SELECT subject_id, kind FROM jobs WHERE subject_id = ANY ($1::text[])',
      [payoutIds],
    );
    const walletIndex = (id: string) => walletIds.indexOf(id);
    const merchantIndex = (id: string) => w.merchants.findIndex((m) => m.id === id);
    return {
      balances: walletIds.map((id) => balances.rows.find((r) => r.id === id)?.balance),
      // Per wallet, in the order written (a wallet's payouts in arrival order); the platform's entries by payout.
      ledger: [...walletIds, 'PW_FEES', 'PW_GST'].map((id) =>
        entries.rows
          .filter((e) => e.wallet_id === id)
          .map((e) => ({ kind: e.kind, amount: e.amount, payout: index(e.payout_id) }))
          .sort((a, b) =>
            id.startsWith('PW_') ? (a.payout ?? -1) - (b.payout ?? -1) || a.kind.localeCompare(b.kind) : 0,
          ),
      ),
      allowances: usage.rows.map((u) => ({ m: merchantIndex(u.merchant_id), period: u.period, amount: u.amount })),
      payouts: payouts.rows
        .map((p) => ({ ...p, id: index(p.id), wallet_id: walletIndex(p.wallet_id) }))
        .sort((a, b) => (a.id ?? 0) - (b.id ?? 0)),
      jobs: jobs.rows.map((j) => ({ kind: j.kind, payout: index(j.subject_id) })).sort((a, b) => a.payout! - b.payout!),
    };
  }

  it('gives each initiation the answer it gets alone and leaves the same books (property)', async () => {
    const groupSizes: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        arbWorld,
        fc.array(arbStep, { minLength: 1, maxLength: 24 }),
        fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 24 }),
        fc.constantFrom(1, 2),
        async (spec, steps, chunks, lanes) => {
          // One at a time: each initiation its own payout_open_checked, as before issue 34.
          const alone = await world(spec);
          const aloneIds: string[] = [];
          const aloneAnswers: Answer[] = [];
          for (const step of steps) {
            const { payout, terms } = request(alone, step, spec.requirePricing);
            aloneIds.push(payout.id);
            aloneAnswers.push(
              answer(alone, await PayoutRepository.open(db, payout, terms).catch((e: unknown) => e as Error)),
            );
          }

          // In groups: the chunks' initiations reach the store together (as concurrent requests do).
          const grouped = await world(spec);
          const groups = new PayoutOpenGroups(db, (size) => groupSizes.push(size), lanes);
          const groupedIds: string[] = [];
          const groupedAnswers: Answer[] = [];
          let k = 0;
          for (let c = 0; k < steps.length; c++) {
            const chunk = steps.slice(k, k + chunks[c % chunks.length]!);
            k += chunk.length;
            const requests = chunk.map((step) => request(grouped, step, spec.requirePricing));
            groupedIds.push(...requests.map((r) => r.payout.id));
            const results = await Promise.all(
              requests.map((r) => groups.open(r.payout, r.terms).catch((e: unknown) => e as Error)),
            );
            groupedAnswers.push(...results.map((r) => answer(grouped, r)));
          }

          expect(groupedAnswers).toEqual(aloneAnswers);
          expect(await state(grouped, groupedIds)).toEqual(await state(alone, aloneIds));
        },
      ),
      { numRuns: engine === 'pglite' ? 40 : 60 },
    );
    // The runs did make groups (else they compared one at a time with itself).
    expect(Math.max(...groupSizes)).toBeGreaterThan(3);
    // 60 runs on PostgreSQL take 16 s alone on a slow machine, and CI runs other files beside it.
  }, 120_000);

  it('opens an empty group and a group whose every element is refused, changing nothing', async () => {
    expect(await PayoutRepository.openMany(db, [])).toEqual([]);
    const w = await world({
      funding: [0n, 0n, 0n, 0n],
      daily: [null, null],
      monthly: [null, null],
      requirePricing: false,
    });
    const items = [0, 1, 2].map((s) =>
      request(w, { m: 0, w: 0, s, amount: 100n, mode: 'IMPS', staleToken: false }, false),
    );
    const outcomes = await PayoutRepository.openMany(db, items);
    expect(outcomes.map((o) => (o.ok ? 'ok' : (o.error as PayoutOpenRefused).reason))).toEqual([
      'insufficient_balance',
      'insufficient_balance',
      'insufficient_balance',
    ]);
    expect(
      await state(
        w,
        items.map((i) => i.payout.id),
      ),
    ).toMatchObject({ balances: [0n, 0n, 0n, 0n], payouts: [], jobs: [] });
  });
});

type WorldSpec = {
  funding: bigint[];
  daily: (bigint | null)[];
  monthly: (bigint | null)[];
  requirePricing: boolean;
};
