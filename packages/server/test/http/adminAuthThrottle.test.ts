import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/merchantClient.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/** Issue 10 finding 12: failed admin authentications are throttled per client address (CONTRACT.md §9). */
describe('admin authentication throttle', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: { PAYRAIL_ADMIN_FAILURES_PER_ADDRESS: '3', PAYRAIL_TRUST_PROXY: 'loopback' },
    });
  }, 180_000);
  afterAll(() => t?.close());

  const get = (token: string, from: string) =>
    http(t.url, 'GET', '/admin/v1/ledger/verify', {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from },
    });

  it('answers 429 with the admin error body and Retry-After after too many failures, even to the right token', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get(`guess-${i}`, '203.0.113.1');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    }
    for (const token of ['guess-4', TEST_ADMIN_TOKEN]) {
      const res = await get(token, '203.0.113.1');
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(15 * 60 - 60);
    }
    // Another address is not affected, and successes are never counted.
    for (let i = 0; i < 5; i++) expect((await get(TEST_ADMIN_TOKEN, '203.0.113.2')).status).toBe(200);
  });
});
