import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, MerchantClient } from '../support/merchantClient.ts';
import { payoutRequest, setLimits } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** The bound this file proves (PAYRAIL_MERCHANT_CACHE_MS, the default). */
const BOUND_MS = 1000;
/** What a request and the polling step may add on a busy machine. */
const MARGIN_MS = 600;

/**
 * The merchant cache of the token check (issue 13): a rotation or suspension made on one instance is refused on
 * another within PAYRAIL_MERCHANT_CACHE_MS, and on the instance that made it at once.
 */
describe.each(ENGINES)('merchant cache bound across instances on %s', (engine) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { PAYRAIL_MERCHANT_CACHE_MS: String(BOUND_MS) };
    a = await startTestServer(engine, { env });
    b = await startTestServer(engine, { env, ...(engine === 'postgres' ? { schema: a.schema } : { db: a.db }) });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Polls B with the client's token until it is refused; the milliseconds that took from `since`. */
  async function refusedOnB(client: MerchantClient, walletId: string, since: number): Promise<number> {
    for (;;) {
      const res = await client.get(`/payout/v1/balance?wallet_id=${walletId}`);
      if (res.body.resp_code === 4001) return Date.now() - since;
      expect(res.body.resp_code).toBe(2000);
      if (Date.now() - since > BOUND_MS + 5000) throw new Error('still accepted long after the bound');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it.each([
    ['rotated', (url: string, id: string) => admin(url, 'POST', `/admin/v1/merchants/${id}/credentials/rotate`)],
    [
      'suspended',
      (url: string, id: string) => admin(url, 'PATCH', `/admin/v1/merchants/${id}`, { status: 'suspended' }),
    ],
  ])('a merchant %s on A is refused on B within the bound, and on A at once', async (_label, change) => {
    const m = await createMerchant(a.url, 'Cached');
    const onA = await MerchantClient.connect(a.url, m, 'v2');
    const onB = await MerchantClient.connect(b.url, m, 'v2');
    // Both instances have the merchant in their caches now.
    for (const c of [onA, onB])
      expect((await c.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`)).body.resp_code).toBe(2000);

    const changed = await change(a.url, m.merchant_id);
    expect(changed.status).toBe(200);
    const since = Date.now();
    expect((await onA.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`)).body.resp_code).toBe(4001);
    expect(await refusedOnB(onB, m.wallet_id, since)).toBeLessThanOrEqual(BOUND_MS + MARGIN_MS);
  });

  it('money never waits for the bound: a payout on B right after a suspension, rotation or new limit on A', async () => {
    const m = await createMerchant(a.url, 'Paying', '1000.00');
    const onB = await MerchantClient.connect(b.url, m, 'v2');
    const pay = (amount: string) =>
      onB.post('/payout/v1/initiate', payoutRequest('nested', { wallet_id: m.wallet_id, amount }));
    expect((await pay('10.00')).body.resp_code).toBe(2000); // B's token check now holds the merchant

    await setLimits(a.url, m.merchant_id, { daily_limit: '15.00' });
    expect((await pay('10.00')).body.resp_code).toBe(4010);
    await setLimits(a.url, m.merchant_id, { daily_limit: null });

    await admin(a.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status: 'suspended' });
    expect((await pay('10.00')).body.resp_code).toBe(4001);
    await admin(a.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status: 'active' });
    await MerchantClient.connect(b.url, m, 'v2').then((fresh) => (onB.token = fresh.token));

    await admin(a.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`);
    expect((await pay('10.00')).body.resp_code).toBe(4001);
  });
});
