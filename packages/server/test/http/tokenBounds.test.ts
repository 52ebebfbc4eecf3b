import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCounterStore } from '../../src/store/CounterStore.ts';
import { fixedClock } from '../support/testClock.ts';
import { createMerchant, http, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * SECURITY.md / issue 10 finding 1: token requests with maximal fields and headers grow neither the heap nor
 * Redis beyond a bound. Before the fix every failed request kept its raw apiKey (or X-Api-Key) as a counter name
 * for 15 minutes: 1,000 requests with 60 KiB keys held ~60 MB in memory, or in Redis key names.
 */
const REQUESTS = 1_000;
const FIELD = 60 * 1024;
/** Bounds this test asserts: counters are two per request at most, each name a fixed-length hash. */
const MAX_KEYS = 2 * REQUESTS + 2;
const MAX_BYTES_PER_KEY = 120;
const MAX_HEAP_GROWTH = 6 * 2 ** 20;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const big = (n: number) =>
  randomBytes(Math.ceil((n * 3) / 4))
    .toString('base64')
    .slice(0, n);

/**
 * A test server of the file's own on PGlite with Redis under a fresh key prefix, and a Redis client to read that
 * prefix; the prefix's keys are deleted afterwards. Use inside a describe block.
 */
function redisServer(name: string, env: Record<string, string>) {
  const state = { prefix: `${name}-${randomBytes(4).toString('hex')}:` } as {
    prefix: string;
    t: TestServer;
    redis: Redis;
  };
  beforeAll(async () => {
    state.t = await startTestServer('pglite', {
      env: { REDIS_URL: process.env.TEST_REDIS_URL as string, PAYRAIL_REDIS_PREFIX: state.prefix, ...env },
    });
    state.redis = new Redis(process.env.TEST_REDIS_URL as string);
  });
  afterAll(async () => {
    const keys = await state.redis.keys(`${state.prefix}*`);
    if (keys.length) await state.redis.del(...keys);
    state.redis.disconnect();
    await state.t.close();
  });
  return state;
}

/** 1,000 requests: V2 and V1, huge and maximal-but-allowed fields and headers, valid and invalid. */
async function flood(url: string, m: TestMerchant) {
  for (let i = 0; i < REQUESTS; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, j) => {
        const n = i + j;
        const header = n % 2 === 0 ? big(12 * 1024) : big(128);
        switch (n % 5) {
          case 0:
            return http(url, 'POST', '/v1/auth/client-token', { body: { apiKey: big(FIELD), secretKey: big(FIELD) } });
          case 1:
            return http(url, 'POST', '/v1/auth/client-token', { body: { apiKey: big(128), secretKey: big(128) } });
          case 2:
            return http(url, 'POST', '/v1/auth/clients/token', {
              body: { payload: big(FIELD) },
              headers: { 'x-api-key': header },
            });
          case 3:
            // Headerless with a payload no merchant's key opens: only one wave in ten is real base64 (each such
            // miss waits for the index's next refresh, up to a second).
            return http(url, 'POST', '/v1/auth/clients/token', {
              body: { payload: i % 200 === 0 ? big(4096) : `!${big(4095)}` },
            });
          default:
            return http(url, 'POST', '/v1/auth/client-token', {
              body: { apiKey: m.api_key, secretKey: m.secret_key },
              headers: { 'x-api-key': header },
            });
        }
      }),
    );
  }
}

describe('bounded token-throttle counters', () => {
  it('the in-memory store keeps at most its cap, dropping the oldest', async () => {
    const store = new MemoryCounterStore(fixedClock(), 100);
    for (let i = 0; i < 1_000; i++) await store.increment(`k${i}`, 60_000);
    expect(store.size).toBe(100);
    expect((await store.get('k999')).count).toBe(1);
    expect((await store.get('k0')).count).toBe(0);
  });

  it('a too-long field is a normal 4001 and counts toward the address limit', async () => {
    const t = await startTestServer('pglite', { env: { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '2' } });
    try {
      const m = await createMerchant(t.url);
      for (let i = 0; i < 2; i++) {
        const res = await http(t.url, 'POST', '/v1/auth/client-token', {
          body: { apiKey: big(129), secretKey: m.secret_key },
        });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ respCode: 4001, respMessage: expect.any(String) });
      }
      const res = await http(t.url, 'POST', '/v1/auth/client-token', {
        body: { apiKey: m.api_key, secretKey: m.secret_key },
      });
      expect(res.status).toBe(429);
    } finally {
      await t.close();
    }
  }, 120_000);

  it(`${REQUESTS} requests with maximal fields grow the heap by less than ${MAX_HEAP_GROWTH / 2 ** 20} MB`, async () => {
    const t = await startTestServer('pglite', { env: { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' } });
    try {
      const m = await createMerchant(t.url);
      await flood(t.url, m); // warms every code path up first
      const before = heapUsed();
      await flood(t.url, m);
      const growth = heapUsed() - before;
      expect(growth).toBeLessThan(MAX_HEAP_GROWTH);
    } finally {
      await t.close();
    }
  }, 300_000);

  describe.runIf(process.env.TEST_REDIS_URL)('with Redis', () => {
    const r = redisServer('payrail-bound', { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' });

    it(`${REQUESTS} requests leave at most ${MAX_KEYS} keys of at most ${MAX_BYTES_PER_KEY} bytes each`, async () => {
      const m = await createMerchant(r.t.url);
      await flood(r.t.url, m);
      const keys = await r.redis.keys(`${r.prefix}*`);
      expect(keys.length).toBeLessThanOrEqual(MAX_KEYS);
      const values = keys.length ? await r.redis.mget(...keys) : [];
      const bytes = keys.reduce((sum, k, i) => sum + k.length + String(values[i] ?? '').length, 0);
      expect(bytes).toBeLessThanOrEqual(keys.length * MAX_BYTES_PER_KEY);
      for (const k of keys) expect(k.length).toBeLessThanOrEqual(r.prefix.length + 40);
      expect(keys.some((k) => k.includes(m.api_key))).toBe(false);
    }, 300_000);
  });

  describe.runIf(process.env.TEST_REDIS_URL)('with Redis and the default address limit', () => {
    const r = redisServer('payrail-cap', {});

    it(`${REQUESTS} guesses with new API keys from one address leave at most the address limit + 1 keys`, async () => {
      for (let i = 0; i < REQUESTS; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, () =>
            http(r.t.url, 'POST', '/v1/auth/client-token', { body: { apiKey: big(128), secretKey: big(128) } }),
          ),
        );
      }
      // The address counter and one counter per key it was allowed to fail with (50 by default): an address over
      // its limit creates no key counter (before, every request left one for 15 minutes).
      const keys = await r.redis.keys(`${r.prefix}*`);
      expect(keys.length).toBeLessThanOrEqual(51);
      expect(keys.length).toBeGreaterThan(1);
    }, 300_000);
  });
});
