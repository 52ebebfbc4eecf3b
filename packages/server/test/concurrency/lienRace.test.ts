import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { SANDBOX, senderId } from '../support/payoutFixtures.ts';
import { createTestSchema, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * Issue 31: a lien placed on one instance while a payout is initiated on another, both on one PostgreSQL (two
 * pools). Each round a fresh wallet holds ₹100.00; the lien and the payout are ₹60.00 each: both together would be
 * beyond the balance. The payout's check (payout_open, migration 033) and the lien's (LienService.place) are both
 * made under the wallet's FOR NO KEY UPDATE lock, so at most one of them passes, and afterwards the balance always
 * covers the liens. PostgreSQL only: PGlite has one connection and nothing races.
 */

if (!process.env.TEST_DATABASE_URL && !process.env.CI) {
  console.warn('lienRace.test.ts skipped: set TEST_DATABASE_URL (PostgreSQL) to run it');
}

describe.runIf(!process.env.TEST_DATABASE_URL && process.env.CI)('a lien racing a payout on PostgreSQL (CI)', () => {
  it('needs PostgreSQL', () => {
    expect.fail('CI=1 but TEST_DATABASE_URL is not set: .ci/run starts PostgreSQL and sets it');
  });
});

const ROUNDS = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('a lien racing a payout: two instances, one PostgreSQL', () => {
  const instances: TestServer[] = [];
  let drop: (() => Promise<void>) | undefined;
  let m: TestMerchant;
  let client: MerchantClient;

  beforeAll(async () => {
    const created = await createTestSchema();
    drop = created.drop;
    for (let k = 0; k < 2; k++) {
      instances.push(
        await startTestServer('postgres', {
          schema: created.schema,
          env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000', PAYRAIL_SANDBOX_STEP_MS: '5000' },
        }),
      );
    }
    m = await createMerchant((instances[0] as TestServer).url, 'Lien Race Merchant');
    client = await MerchantClient.connect((instances[1] as TestServer).url, m, 'v2');
  }, 60_000);

  afterAll(async () => {
    for (const t of instances) await t.close();
    await drop?.();
  });

  it(`${ROUNDS} rounds of a ₹60 lien against a ₹60 payout on ₹100: never both, the balance always covers the liens`, async () => {
    const url0 = (instances[0] as TestServer).url;
    const tally = { payout: 0, lien: 0, both: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const wallet = await admin(url0, 'POST', `/admin/v1/merchants/${m.merchant_id}/wallets`);
      const walletId = wallet.body.wallet_id as string;
      expect((await admin(url0, 'POST', `/admin/v1/wallets/${walletId}/credits`, { amount: '100.00' })).status).toBe(
        200,
      );
      const [lien, payout] = await Promise.all([
        // The payout's request takes longer (its cipher, its checks): the lien starts a little later, by a delay
        // that varies by round, so that each of the two wins some rounds.
        sleep((round % 8) * 4).then(() =>
          admin(url0, 'POST', `/admin/v1/wallets/${walletId}/liens`, { amount: '60.00', reason: `race ${round}` }),
        ),
        client.post('/payout/v1/initiate', {
          sender_id: senderId('lien'),
          wallet_id: walletId,
          amount: '60.00',
          payment_mode: 'IMPS',
          beneficiary: {
            beneficiary_name: 'Lien Race',
            beneficiary_ifsc: SANDBOX.ifsc,
            beneficiary_acc_number: SANDBOX.success,
          },
        }),
      ]);
      expect([201, 422], JSON.stringify(lien.body)).toContain(lien.status);
      expect([2000, 4002], JSON.stringify(payout.body)).toContain(payout.body.resp_code);
      const lienOk = lien.status === 201;
      const payoutOk = payout.body.resp_code === 2000;
      if (lienOk && payoutOk) tally.both++;
      if (lienOk) tally.lien++;
      if (payoutOk) tally.payout++;
      expect(lienOk || payoutOk, 'one of the two passes').toBe(true);
      const view = await admin(url0, 'GET', `/admin/v1/wallets/${walletId}`);
      expect(BigInt(String(view.body.balance).replace('.', ''))).toBeGreaterThanOrEqual(
        BigInt(String(view.body.on_lien).replace('.', '')),
      );
    }
    expect(tally.both).toBe(0);
    expect(tally.lien + tally.payout).toBe(ROUNDS);
    const verify = await admin(url0, 'GET', '/admin/v1/ledger/verify');
    expect(verify.body).toMatchObject({ ok: true, mismatches: [] });
  }, 120_000);
});
