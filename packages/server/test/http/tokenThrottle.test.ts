import { randomBytes } from 'node:crypto';
import { encryptJson } from '@payrail/protocol';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { counterName } from '../../src/services/FailureThrottle.ts';
import { createMerchant, http, MerchantClient, type HttpResult, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type EngineName, type TestServer } from '../support/testServer.ts';

const PER_KEY = 3;
const WINDOW_MS = 15 * 60_000;

/** A secret of the right shape that is not the merchant's. */
const wrongSecret = (m: TestMerchant) => (m.secret_key[0] === 'A' ? 'B' : 'A') + m.secret_key.slice(1);

function v2Token(url: string, apiKey: string, secretKey: string): Promise<HttpResult> {
  return http(url, 'POST', '/v1/auth/client-token', { body: { apiKey, secretKey } });
}

/** A V1 token request: the payload is encrypted with the API key and the (claimed) secret as IV. */
function v1Token(url: string, apiKey: string, secretKey: string): Promise<HttpResult> {
  const keys = { apiKey, secretKey };
  return http(url, 'POST', '/v1/auth/clients/token', {
    body: { payload: encryptJson(keys, 'v1', keys) },
    headers: { 'x-api-key': apiKey },
  });
}

type Attempt = (url: string, apiKey: string, secretKey: string) => Promise<HttpResult>;
const SCHEMES: [string, Attempt][] = [
  ['V2', v2Token],
  ['V1', v1Token],
];

function expectUnauthorized(res: HttpResult) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ respCode: 4001, respMessage: expect.any(String) });
}

function expectThrottled(res: HttpResult) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ respCode: 4290, respMessage: expect.any(String) });
}

function expectIssued(res: HttpResult) {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ respCode: 2000, data: expect.any(String), tokenType: 'Bearer' });
}

const sibling = (engine: EngineName, t: TestServer, env: Record<string, string>) =>
  startTestServer(engine, { env, ...(engine === 'postgres' ? { schema: t.schema } : { db: t.db }) });

describe.each(ENGINES)('failed-token throttle on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, {
      env: { PAYRAIL_TOKEN_FAILURES_PER_KEY: String(PER_KEY), PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' },
    });
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  describe.each(SCHEMES)('failures on the %s endpoint', (_name, attempt) => {
    it.each(SCHEMES)(
      `after ${PER_KEY} failures for a key, even the right secret on the %s endpoint gets 4290`,
      async (_other, next) => {
        const m = await createMerchant(t.url, 'Guessed');
        for (let i = 0; i < PER_KEY; i++) expectUnauthorized(await attempt(t.url, m.api_key, wrongSecret(m)));
        expectThrottled(await next(t.url, m.api_key, m.secret_key));
        expectThrottled(await attempt(t.url, m.api_key, wrongSecret(m)));
      },
    );

    it('leaves other keys alone', async () => {
      const [m, other] = await Promise.all([createMerchant(t.url, 'Guessed'), createMerchant(t.url, 'Bystander')]);
      for (let i = 0; i < PER_KEY; i++) expectUnauthorized(await attempt(t.url, m.api_key, wrongSecret(m)));
      expectThrottled(await attempt(t.url, m.api_key, m.secret_key));
      expectIssued(await v2Token(t.url, other.api_key, other.secret_key));
      expectIssued(await v1Token(t.url, other.api_key, other.secret_key));
    });
  });

  it(`issues tokens normally below the limit (${PER_KEY - 1} failures)`, async () => {
    const m = await createMerchant(t.url, 'Careless');
    for (let i = 0; i < PER_KEY - 1; i++) expectUnauthorized(await v2Token(t.url, m.api_key, wrongSecret(m)));
    expectIssued(await v2Token(t.url, m.api_key, m.secret_key));
    expectIssued(await v1Token(t.url, m.api_key, m.secret_key));
  });

  it.each(SCHEMES)(
    'checks at most the limit of a burst of simultaneous wrong guesses on %s',
    async (_name, attempt) => {
      const m = await createMerchant(t.url, 'Burst');
      const results = await Promise.all(Array.from({ length: 20 }, () => attempt(t.url, m.api_key, wrongSecret(m))));
      for (const r of results) expect([401, 429]).toContain(r.status);
      expect(results.filter((r) => r.status === 401)).toHaveLength(PER_KEY);
      expectThrottled(await v2Token(t.url, m.api_key, m.secret_key));
    },
  );

  it('does not let a burst of right and wrong secrets past the limit either', async () => {
    const m = await createMerchant(t.url, 'Mixed');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => v2Token(t.url, m.api_key, i % 4 === 3 ? m.secret_key : wrongSecret(m))),
    );
    expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(PER_KEY);
  });

  it('keeps sessions already issued working while the key is throttled', async () => {
    const m = await createMerchant(t.url, 'Busy');
    const client = await MerchantClient.connect(t.url, m, 'v2');
    for (let i = 0; i < PER_KEY; i++) expectUnauthorized(await v2Token(t.url, m.api_key, wrongSecret(m)));
    expectThrottled(await v2Token(t.url, m.api_key, m.secret_key));
    const res = await client.get(`/payout/v1/balance?wallet_id=${m.wallet_id}`);
    expect(res.body.resp_code).toBe(2000);
  });

  it('lets the right secret through again once the 15-minute window has passed', async () => {
    const m = await createMerchant(t.url, 'Patient');
    for (let i = 0; i < PER_KEY; i++) expectUnauthorized(await v2Token(t.url, m.api_key, wrongSecret(m)));
    expectThrottled(await v2Token(t.url, m.api_key, m.secret_key));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + WINDOW_MS - 5_000);
    expectThrottled(await v2Token(t.url, m.api_key, m.secret_key));
    vi.setSystemTime(Date.now() + 10_000);
    expectIssued(await v2Token(t.url, m.api_key, m.secret_key));
  });

  describe('with the defaults (10 per key, 50 per address)', () => {
    let d: TestServer;
    beforeAll(async () => {
      d = await sibling(engine, t, {});
    });
    afterAll(() => d.close());

    it('throttles a key after 10 failures and the address after 50', async () => {
      const [m, fresh] = await Promise.all([createMerchant(d.url, 'Target'), createMerchant(d.url, 'Fresh')]);
      for (let i = 0; i < 9; i++) expectUnauthorized(await v2Token(d.url, m.api_key, wrongSecret(m)));
      expectIssued(await v2Token(d.url, m.api_key, m.secret_key));
      expectUnauthorized(await v1Token(d.url, m.api_key, wrongSecret(m)));
      expectThrottled(await v2Token(d.url, m.api_key, m.secret_key));
      // 10 failures from this address so far; 40 more with keys that do not exist.
      for (let i = 0; i < 40; i++) {
        expectUnauthorized(await v2Token(d.url, randomBytes(16).toString('hex'), 'x'.repeat(16)));
      }
      expectThrottled(await v2Token(d.url, fresh.api_key, fresh.secret_key));
      expectThrottled(await v1Token(d.url, fresh.api_key, fresh.secret_key));
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + WINDOW_MS + 1_000);
      expectIssued(await v2Token(d.url, fresh.api_key, fresh.secret_key));
      expectIssued(await v2Token(d.url, m.api_key, m.secret_key));
    });
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('failed-token throttle shared through Redis', () => {
  const engine = ENGINES[ENGINES.length - 1] as EngineName;
  const prefix = `payrail-tok-test-${randomBytes(4).toString('hex')}:`;
  const env = {
    REDIS_URL: process.env.TEST_REDIS_URL as string,
    PAYRAIL_REDIS_PREFIX: prefix,
    PAYRAIL_TOKEN_FAILURES_PER_KEY: '4',
    PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000',
  };
  let a: TestServer;
  let b: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    a = await startTestServer(engine, { env });
    b = await sibling(engine, a, env);
    redis = new Redis(env.REDIS_URL);
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await b?.close();
    await a?.close();
  });

  it('counts failures on every instance against one limit with a 15-minute window', async () => {
    const m = await createMerchant(a.url, 'Shared');
    expectUnauthorized(await v2Token(a.url, m.api_key, wrongSecret(m)));
    expectUnauthorized(await v1Token(b.url, m.api_key, wrongSecret(m)));
    expectUnauthorized(await v2Token(b.url, m.api_key, wrongSecret(m)));
    expectIssued(await v2Token(a.url, m.api_key, m.secret_key));
    expectUnauthorized(await v1Token(a.url, m.api_key, wrongSecret(m)));
    expectThrottled(await v2Token(a.url, m.api_key, m.secret_key));
    expectThrottled(await v1Token(b.url, m.api_key, m.secret_key));

    const keys = await redis.keys(`${prefix}*`);
    // Named by a hash of the API key, never the key itself (the V1 AES key).
    expect(keys.filter((k) => k.includes(m.api_key))).toEqual([]);
    const key = keys.find((k) => k === prefix + counterName('tokfail:key', m.api_key));
    expect(key).toBeDefined();
    const ttl = await redis.pttl(key as string);
    expect(ttl).toBeGreaterThan(WINDOW_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    // The window ends (in Redis time) for both instances at once.
    await redis.pexpire(key as string, 1);
    await new Promise((r) => setTimeout(r, 20));
    expectIssued(await v2Token(b.url, m.api_key, m.secret_key));
    expectIssued(await v1Token(a.url, m.api_key, m.secret_key));
  });
});
