import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '../../src/services/TokenService.ts';
import { MemoryCounterStore } from '../../src/store/CounterStore.ts';
import { createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { movableClock, type TestClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * PAYRAIL_TOKEN_TTL_SECONDS=2: a token works at once and is refused once its lifetime has passed. (With 1 s a
 * token issued at x.999 s would already count as expired a millisecond later: `exp` is whole seconds.) The
 * server's clock is moved past the lifetime: nothing sleeps.
 */
describe.each(ENGINES)('token expiry on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  let clock: TestClock;
  beforeAll(async () => {
    clock = movableClock();
    t = await startTestServer(engine, { env: { PAYRAIL_TOKEN_TTL_SECONDS: '2' }, clock });
    m = await createMerchant(t.url);
  });
  afterAll(() => t.close());

  it('reports the configured lifetime, works until it passes, then answers 4001', async () => {
    const clients = await Promise.all([MerchantClient.connect(t.url, m, 'v2'), MerchantClient.connect(t.url, m, 'v1')]);
    const service = await TokenService.create(t.db, {
      ttlSeconds: 2,
      counters: new MemoryCounterStore(clock),
      failuresPerKey: 10,
      failuresPerAddress: 50,
      clock,
    });
    const path = `/payout/v1/balance?wallet_id=${m.wallet_id}`;
    for (const c of clients) {
      const payload = JSON.parse(Buffer.from(c.token.split('.')[1] as string, 'base64url').toString()) as {
        iat: number;
        exp: number;
      };
      expect(payload.exp - payload.iat).toBe(2);
      expect((await c.get(path)).body.resp_code).toBe(2000);
      expect(await service.verify(c.token)).not.toBeNull();
    }

    clock.advance(3_100);

    for (const c of clients) {
      const res = await c.get(path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
      expect(await service.verify(c.token)).toBeNull();
    }
    // A new token works again.
    await clients[0]?.login();
    expect((await clients[0]?.get(path))?.body.resp_code).toBe(2000);
  });

  it('says expiresIn = 2 in the token response', async () => {
    const res = await fetch(`${t.url}/v1/auth/client-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: m.api_key, secretKey: m.secret_key }),
    });
    expect(((await res.json()) as { expiresIn: number }).expiresIn).toBe(2);
  });
});
