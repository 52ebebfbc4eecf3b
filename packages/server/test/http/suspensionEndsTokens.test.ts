import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiate, senderId } from '../support/collectionFixtures.ts';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { payoutRequest } from '../support/payoutFixtures.ts';
import { fixedClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** PAYRAIL_MERCHANT_CACHE_MS of both instances: how long B may use a merchant row it read (the clock moves past it). */
const CACHE_MS = 5000;
/** PAYRAIL_TOKEN_TTL_SECONDS (the default): the old tokens are checked again late in their lifetime. */
const TTL_SECONDS = 300;

const iatOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as { iat: number }).iat;

/** The same session (token and scheme) sent to another instance. */
function on(url: string, client: MerchantClient): MerchantClient {
  const moved = new MerchantClient(url, client.merchant, client.scheme);
  moved.token = client.token;
  return moved;
}

/**
 * Contract §18: a suspension ends every token issued before it, for good, on every instance; reactivating the
 * merchant does not bring them back (issue 28). The clock stands still unless a step moves it, so the suspension,
 * the reactivation and the tokens on either side of them all fall in the same second of `iat`.
 */
describe.each(ENGINES)('a suspension ends the tokens issued before it, for good, on %s', (engine) => {
  const clock = fixedClock(Math.floor(Date.now() / 1000) * 1000 + 500);
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { PAYRAIL_MERCHANT_CACHE_MS: String(CACHE_MS), PAYRAIL_TOKEN_TTL_SECONDS: String(TTL_SECONDS) };
    a = await startTestServer(engine, { env, clock });
    b = await startTestServer(engine, { env, clock, ...(engine === 'postgres' ? { schema: a.schema } : { db: a.db }) });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const setStatus = async (m: TestMerchant, status: 'active' | 'suspended') => {
    const res = await admin(a.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(status);
  };
  const suspendAndReactivate = async (m: TestMerchant) => {
    await setStatus(m, 'suspended');
    await setStatus(m, 'active');
  };
  /** The payout routes' answer to the token: 2000, or 4001 (HTTP 401) for a token that is not valid. */
  const balance = async (client: MerchantClient) => {
    const res = await client.get(`/payout/v1/balance?wallet_id=${client.merchant.wallet_id}`);
    if (res.body.resp_code !== 2000) expect(res.status).toBe(401);
    return res.body.resp_code;
  };
  const pay = (client: MerchantClient) =>
    client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: client.merchant.wallet_id, amount: '1.00' }),
    );

  it('refuses a token issued before the suspension after the reactivation (4001, 4008); one issued after works', async () => {
    const m = await createMerchant(a.url, 'Reactivated', '100.00');
    const old = await Promise.all([MerchantClient.connect(a.url, m, 'v2'), MerchantClient.connect(a.url, m, 'v1')]);
    for (const c of old) expect(await balance(c)).toBe(2000);

    await setStatus(m, 'suspended');
    for (const c of old) expect(await balance(c)).toBe(4001);
    await setStatus(m, 'active');
    const fresh = await MerchantClient.connect(a.url, m, 'v2');
    // Issued in the same second as the old ones, the suspension and the reactivation.
    expect(old.map((c) => iatOf(c.token))).toEqual([iatOf(fresh.token), iatOf(fresh.token)]);

    for (const c of old) expect(await balance(c)).toBe(4001);
    const payout = await pay(old[0] as MerchantClient);
    expect(payout.status).toBe(401);
    expect(payout.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
    const collection = await initiate(old[0] as MerchantClient, { senderId: senderId(), amount: '1.00' });
    expect(collection.status).toBe(401);
    expect(collection.body).toEqual({ respCode: 4008, respMessage: expect.any(String) });
    expect(await balance(fresh)).toBe(2000);

    // For good: late in the old tokens' lifetime they are still refused, and a second suspension ends the new one.
    clock.advance((TTL_SECONDS - 10) * 1000);
    for (const c of old) expect(await balance(c)).toBe(4001);
    expect(await balance(fresh)).toBe(2000);
    await suspendAndReactivate(m);
    expect(await balance(fresh)).toBe(4001);
    expect(await balance(await MerchantClient.connect(a.url, m, 'v1'))).toBe(2000);
  });

  it('on every instance: B refuses the old token (money at once, the rest within its cache bound)', async () => {
    const m = await createMerchant(a.url, 'Two instances', '100.00');
    const oldOnB = await MerchantClient.connect(b.url, m, 'v2');
    expect(await balance(oldOnB)).toBe(2000); // B's merchant cache now holds the merchant, active

    await suspendAndReactivate(m);
    // Money never waits for the cache: the initiation statement reads the merchant itself.
    const payout = await pay(oldOnB);
    expect(payout.status).toBe(401);
    expect(payout.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
    // A token issued on A after the reactivation is newer than B's copy of the merchant: B reads it again at once.
    const fresh = await MerchantClient.connect(a.url, m, 'v2');
    expect(await balance(on(b.url, fresh))).toBe(2000);
    expect(await balance(oldOnB)).toBe(4001);

    // Again, with B's copy current before the suspension: past the cache bound B refuses the old token too.
    await suspendAndReactivate(m);
    clock.advance(CACHE_MS);
    expect(await balance(on(b.url, fresh))).toBe(4001);
    expect(await balance(oldOnB)).toBe(4001);
    expect(await balance(await MerchantClient.connect(b.url, m, 'v1'))).toBe(2000);
  });

  it("ends the merchant's console sessions opened before the suspension for good, too", async () => {
    const m = await createMerchant(a.url, 'Console');
    const session = await ConsoleSession.merchant(a.url, m.api_key, m.secret_key);
    expect((await session.request('GET', '/console/api/merchant/overview')).status).toBe(200);
    await suspendAndReactivate(m);
    expect((await session.request('GET', '/console/api/merchant/overview')).status).toBe(401);
    const again = await ConsoleSession.merchant(a.url, m.api_key, m.secret_key);
    expect((await again.request('GET', '/console/api/merchant/overview')).status).toBe(200);
  });
});
