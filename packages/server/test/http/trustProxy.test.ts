import { encryptJson } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, http, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * Issue 10 finding 2: behind a proxy every client shares the proxy's address, so one client's bad guesses locked
 * every merchant out. With PAYRAIL_TRUST_PROXY the address comes from X-Forwarded-For; the 4290 says when to retry.
 */
const PER_ADDRESS = 3;
const env = (trust?: string) => ({
  PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  ...(trust ? { PAYRAIL_TRUST_PROXY: trust } : {}),
});

const token = (url: string, m: TestMerchant, from: string, secretKey = m.secret_key) =>
  http(url, 'POST', '/v1/auth/client-token', {
    body: { apiKey: m.api_key, secretKey },
    headers: { 'x-forwarded-for': from },
  });

describe('client address behind a proxy', () => {
  let trusting: TestServer;
  let plain: TestServer;
  beforeAll(async () => {
    trusting = await startTestServer('pglite', { env: env('127.0.0.1') });
    // A second instance on the same database, with the variable unset.
    plain = await startTestServer('pglite', { env: env(), db: trusting.db });
  }, 180_000);
  afterAll(async () => {
    await plain?.close();
    await trusting?.close();
  });

  it('with PAYRAIL_TRUST_PROXY one client’s failures do not lock out another client', async () => {
    const [victim, guessed] = await Promise.all([createMerchant(trusting.url), createMerchant(trusting.url)]);
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await token(trusting.url, guessed, '203.0.113.7', 'Z'.repeat(16))).status).toBe(401);
    }
    const locked = await token(trusting.url, guessed, '203.0.113.7');
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ respCode: 4290, respMessage: expect.any(String) });
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(15 * 60 - 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another client behind the same proxy.
    expect((await token(trusting.url, victim, '198.51.100.9')).status).toBe(200);
    const v1 = await http(trusting.url, 'POST', '/v1/auth/clients/token', {
      body: {
        payload: encryptJson({ apiKey: victim.api_key, secretKey: victim.secret_key }, 'v1', {
          apiKey: victim.api_key,
          secretKey: victim.secret_key,
        }),
      },
      headers: { 'x-forwarded-for': '198.51.100.9' },
    });
    expect(v1.status).toBe(200);
  });

  it('unset, X-Forwarded-For is ignored: the address is the connection’s', async () => {
    const [victim, guessed] = await Promise.all([createMerchant(plain.url), createMerchant(plain.url)]);
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await token(plain.url, guessed, '203.0.113.7', 'Z'.repeat(16))).status).toBe(401);
    }
    const res = await token(plain.url, victim, '198.51.100.9');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
