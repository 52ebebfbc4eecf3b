import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { initiateOk, party, type Party } from '../support/collectionFixtures.ts';
import { http, MerchantClient, type HttpResult } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type EngineName, type TestServer } from '../support/testServer.ts';

const LIMIT = 5;
type Endpoint = 'payout' | 'collection';
const ENDPOINTS: Endpoint[] = ['payout', 'collection'];

/** One status request of `endpoint`; the query names something of the merchant's, so success is 2000. */
function statusRequest(client: MerchantClient, endpoint: Endpoint, query = ''): Promise<HttpResult> {
  const path =
    endpoint === 'payout'
      ? `/payout/v1/status?${query || 'sender_id=nothing-here'}`
      : `/collection/v1/status?${query || 'senderId=nothing-here'}`;
  return http(client.url, 'GET', path, { headers: client.auth() });
}

const codeOf = (res: HttpResult) => (res.body.resp_code ?? res.body.respCode) as number;

/** The refusal past the limit: HTTP 429, 4290 and the exact message in the endpoint's own envelope, headers. */
function expectLimited(res: HttpResult, endpoint: Endpoint, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual(
    endpoint === 'payout'
      ? { resp_code: 4290, resp_message: 'Rate limit exceeded' }
      : { respCode: 4290, respMessage: 'Rate limit exceeded' },
  );
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

/** Uses up the allowance of a merchant on one endpoint, checking that each of those requests got through. */
async function useUp(client: MerchantClient, endpoint: Endpoint, limit = LIMIT) {
  for (let i = 0; i < limit; i++) {
    const res = await statusRequest(client, endpoint);
    expect(res.status, JSON.stringify(res.body)).not.toBe(429);
  }
}

/** Another instance on the database of `t`. */
const sibling = (engine: EngineName, t: TestServer, env: Record<string, string>) =>
  startTestServer(engine, { env, ...(engine === 'postgres' ? { schema: t.schema } : { db: t.db }) });

describe.each(ENGINES)('status rate limits on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  describe.each(ENDPOINTS)('%s status', (endpoint) => {
    it(`lets ${LIMIT} requests a minute through, counting down RateLimit-Remaining, and refuses the next`, async () => {
      const { client } = await party(t.url, 'v2');
      const remaining: (string | null)[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const res = await statusRequest(client, endpoint);
        expect(res.status).toBe(404);
        expect(codeOf(res)).toBe(endpoint === 'payout' ? 4103 : 4104);
        expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
        remaining.push(res.headers.get('ratelimit-remaining'));
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      expectLimited(await statusRequest(client, endpoint), endpoint, LIMIT);
      expectLimited(await statusRequest(client, endpoint), endpoint, LIMIT);
    });

    it('refuses a request past the limit whatever it asks for, even a found transaction', async () => {
      const p = await party(t.url, 'v1');
      const c = await initiateOk(p.client);
      const query = endpoint === 'payout' ? '' : `txnId=${c.txnId}`;
      await useUp(p.client, endpoint);
      expectLimited(await statusRequest(p.client, endpoint, query), endpoint, LIMIT);
      expectLimited(await statusRequest(p.client, endpoint, 'x=1'), endpoint, LIMIT);
    });

    it('counts per merchant: other merchants are unaffected, every session of the merchant is limited', async () => {
      const a = await party(t.url, 'v2');
      const b = await party(t.url, 'v2');
      await useUp(a.client, endpoint);
      expectLimited(await statusRequest(a.client, endpoint), endpoint, LIMIT);
      // Another token of the same merchant (even of the other scheme) shares the allowance.
      const again = await MerchantClient.connect(t.url, a.merchant, 'v1');
      expectLimited(await statusRequest(again, endpoint), endpoint, LIMIT);
      const res = await statusRequest(b.client, endpoint);
      expect(res.status).not.toBe(429);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    });

    it('counts each status endpoint separately', async () => {
      const p = await party(t.url, 'v2');
      const other: Endpoint = endpoint === 'payout' ? 'collection' : 'payout';
      await useUp(p.client, endpoint);
      expectLimited(await statusRequest(p.client, endpoint), endpoint, LIMIT);
      await useUp(p.client, other);
      expectLimited(await statusRequest(p.client, other), other, LIMIT);
    });

    it('does not count requests without a valid token against the merchant', async () => {
      const p = await party(t.url, 'v2');
      const c = await initiateOk(p.client);
      const query = endpoint === 'payout' ? 'sender_id=x' : `txnId=${c.txnId}`;
      for (let i = 0; i < LIMIT * 2; i++) {
        const res = await http(t.url, 'GET', `/${endpoint}/v1/status?${query}`, {
          headers: { authorization: 'Bearer forged' },
        });
        expect(res.status).toBe(401);
      }
      await useUp(p.client, endpoint);
      expectLimited(await statusRequest(p.client, endpoint), endpoint, LIMIT);
    });

    it('lets the merchant through again once the minute has passed', async () => {
      const p = await party(t.url, 'v2');
      await useUp(p.client, endpoint);
      const refused = await statusRequest(p.client, endpoint);
      expectLimited(refused, endpoint, LIMIT);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + Number(refused.headers.get('retry-after')) * 1000 + 1000);
      const res = await statusRequest(p.client, endpoint);
      expect(res.status).toBe(404);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    });
  });

  it('does not limit the balance endpoint or initiation', async () => {
    const p = await party(t.url, 'v2');
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await p.client.get(`/payout/v1/balance?wallet_id=${p.merchant.wallet_id}`);
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < LIMIT + 2; i++) await initiateOk(p.client);
  });

  describe('with the default of 200 a minute', () => {
    let d: TestServer;
    beforeAll(async () => {
      d = await sibling(engine, t, {});
    });
    afterAll(() => d.close());

    it('refuses the 201st request', async () => {
      const p = await party(d.url, 'v1');
      for (let batch = 0; batch < 10; batch++) {
        const results = await Promise.all(Array.from({ length: 20 }, () => statusRequest(p.client, 'collection')));
        for (const r of results) expect(r.status).toBe(404);
      }
      expectLimited(await statusRequest(p.client, 'collection'), 'collection', 200);
      // The payout endpoint has its own 200.
      expect((await statusRequest(p.client, 'payout')).headers.get('ratelimit-remaining')).toBe('199');
    });
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('status rate limits shared through Redis', () => {
  const engine = ENGINES[ENGINES.length - 1] as EngineName;
  const prefix = `payrail-rl-test-${randomBytes(4).toString('hex')}:`;
  const shared = { REDIS_URL: process.env.TEST_REDIS_URL as string, PAYRAIL_REDIS_PREFIX: prefix };
  let a: TestServer;
  let b: TestServer;
  let isolated: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    a = await startTestServer(engine, { env: shared });
    b = await sibling(engine, a, shared);
    // Same Redis, another prefix: another deployment.
    isolated = await sibling(engine, a, { REDIS_URL: shared.REDIS_URL });
    redis = new Redis(shared.REDIS_URL);
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await isolated?.close();
    await b?.close();
    await a?.close();
  });

  /** The merchant's session on both instances. */
  async function onBoth(scheme: 'v1' | 'v2'): Promise<[MerchantClient, MerchantClient, Party]> {
    const p = await party(a.url, scheme);
    const onB = new MerchantClient(b.url, p.merchant, scheme);
    onB.token = p.client.token;
    return [p.client, onB, p];
  }

  it.each(ENDPOINTS)(
    '%s status: 200 requests spread over two instances pass, the 201st is refused on either',
    async (endpoint) => {
      const [onA, onB] = await onBoth('v2');
      for (let batch = 0; batch < 10; batch++) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => statusRequest(i % 2 ? onB : onA, endpoint)),
        );
        for (const r of results) expect(r.status).toBe(404);
      }
      expectLimited(await statusRequest(onA, endpoint), endpoint, 200);
      expectLimited(await statusRequest(onB, endpoint), endpoint, 200);
      // The other status endpoint has its own count in the shared store.
      const other: Endpoint = endpoint === 'payout' ? 'collection' : 'payout';
      const res = await statusRequest(onB, other);
      expect(res.status).toBe(404);
      expect(res.headers.get('ratelimit-remaining')).toBe('199');
    },
  );

  it('counts exactly under concurrency: of 30 simultaneous requests past 190 used, exactly 10 pass', async () => {
    const [onA, onB] = await onBoth('v1');
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 19 }, (_, i) => statusRequest(i % 2 ? onB : onA, 'payout')));
    }
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => statusRequest(i % 2 ? onB : onA, 'payout')));
    expect(results.filter((r) => r.status === 404)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it('keeps its counters under PAYRAIL_REDIS_PREFIX with a one-minute expiry, apart from other prefixes', async () => {
    const [onA, , p] = await onBoth('v2');
    await statusRequest(onA, 'collection');
    const keys = (await redis.keys(`${prefix}*`)).filter((k) => k.includes(p.merchant.merchant_id));
    expect(keys).toHaveLength(1);
    const ttl = await redis.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // The instance with another prefix does not see these counts.
    const elsewhere = new MerchantClient(isolated.url, p.merchant, 'v2');
    elsewhere.token = p.client.token;
    expect((await statusRequest(elsewhere, 'collection')).headers.get('ratelimit-remaining')).toBe('199');
  });

  it('lets the merchant through again on both instances when the shared window ends', async () => {
    const [onA, onB, p] = await onBoth('v2');
    await Promise.all(Array.from({ length: 200 }, (_, i) => statusRequest(i % 2 ? onB : onA, 'collection')));
    expectLimited(await statusRequest(onB, 'collection'), 'collection', 200);
    const [key] = (await redis.keys(`${prefix}*`)).filter((k) => k.includes(p.merchant.merchant_id));
    await redis.pexpire(key as string, 1);
    await new Promise((r) => setTimeout(r, 20));
    const res = await statusRequest(onA, 'collection');
    expect(res.status).toBe(404);
    expect(res.headers.get('ratelimit-remaining')).toBe('199');
    expect((await statusRequest(onB, 'collection')).headers.get('ratelimit-remaining')).toBe('198');
  });
});
