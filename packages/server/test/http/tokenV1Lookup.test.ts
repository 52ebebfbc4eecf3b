import { encryptV1, decryptJsonObject } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { V1KeyIndex } from '../../src/services/V1KeyIndex.ts';
import { admin, createMerchant, http, type HttpResult, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type EngineName, type TestServer } from '../support/testServer.ts';

const keysOf = (m: TestMerchant) => ({ apiKey: m.api_key, secretKey: m.secret_key });

/** A V1 token request exactly as the provider interface shows it: `{"payload"}` and no header naming the merchant. */
const headerless = (url: string, payload: string) => http(url, 'POST', '/v1/auth/clients/token', { body: { payload } });

/** The ways client libraries serialise the credentials object, including one the index has no entry for. */
const SERIALISATIONS: [string, (m: TestMerchant) => string][] = [
  ['compact', (m) => JSON.stringify(keysOf(m))],
  ['Python json.dumps', (m) => `{"apiKey": "${m.api_key}", "secretKey": "${m.secret_key}"}`],
  ['other key order', (m) => JSON.stringify({ secretKey: m.secret_key, apiKey: m.api_key })],
  ['pretty-printed', (m) => JSON.stringify(keysOf(m), null, 2)],
  ['extra field first (found by the scan)', (m) => JSON.stringify({ ts: 1700000000, ...keysOf(m) })],
];

function expectIssuedFor(res: HttpResult, m: TestMerchant) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(decryptJsonObject(res.body.data, 'v1', keysOf(m)))).toEqual(['token']);
}

function expectUnauthorized(res: HttpResult) {
  expect(res.status).toBe(401);
  expect(res.body.respCode).toBe(4001);
}

const sibling = (engine: EngineName, t: TestServer, env: Record<string, string> = {}) =>
  startTestServer(engine, { env, ...(engine === 'postgres' ? { schema: t.schema } : { db: t.db }) });

describe.each(ENGINES)('V1 token without X-Api-Key on %s', (engine) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '100000' };
    a = await startTestServer(engine, { env });
    b = await sibling(engine, a, env);
    // Some merchants beside the ones under test, so that the lookup has to choose.
    await Promise.all(Array.from({ length: 5 }, (_, i) => createMerchant(a.url, `Crowd ${i}`)));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it.each(SERIALISATIONS)('finds the merchant of a %s payload', async (_label, serialise) => {
    const m = await createMerchant(a.url, 'Seed integration');
    expectIssuedFor(await headerless(a.url, encryptV1(serialise(m), keysOf(m))), m);
  });

  it('refuses a payload holding another merchant’s keys, or a wrong secret, or no credentials', async () => {
    const [m, other] = await Promise.all([createMerchant(a.url, 'Owner'), createMerchant(a.url, 'Other')]);
    expectUnauthorized(await headerless(a.url, encryptV1(JSON.stringify(keysOf(other)), keysOf(m))));
    const wrongSecret = { apiKey: m.api_key, secretKey: 'Z'.repeat(16) };
    expectUnauthorized(await headerless(a.url, encryptV1(JSON.stringify(wrongSecret), keysOf(m))));
    expectUnauthorized(await headerless(a.url, encryptV1(JSON.stringify({ apiKey: m.api_key }), keysOf(m))));
    expectUnauthorized(await headerless(a.url, encryptV1(JSON.stringify(keysOf(m)), wrongSecret)));
  });

  it('with X-Api-Key the header must name the same merchant', async () => {
    const [m, other] = await Promise.all([createMerchant(a.url, 'Named'), createMerchant(a.url, 'Namesake')]);
    const payload = encryptV1(JSON.stringify(keysOf(m)), keysOf(m));
    const withHeader = (apiKey: string) =>
      http(a.url, 'POST', '/v1/auth/clients/token', { body: { payload }, headers: { 'x-api-key': apiKey } });
    expectIssuedFor(await withHeader(m.api_key), m);
    expectUnauthorized(await withHeader(other.api_key));
  });

  it('a merchant created, rotated or suspended through one instance is seen by the other at once', async () => {
    // Created on A, used on B (B's index has never heard of it: a miss, then a refresh from the database).
    const m = await createMerchant(a.url, 'Cross-instance');
    const payload = encryptV1(JSON.stringify(keysOf(m)), keysOf(m));
    expectIssuedFor(await headerless(b.url, payload), m);

    // Rotated on A: the old payload is refused on B, the new credentials work on B.
    const rotated = await admin(a.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`);
    const fresh = { ...m, api_key: rotated.body.api_key as string, secret_key: rotated.body.secret_key as string };
    expectUnauthorized(await headerless(b.url, payload));
    expectIssuedFor(await headerless(b.url, encryptV1(JSON.stringify(keysOf(fresh)), keysOf(fresh))), fresh);

    // Suspended on A: refused on B; active again: issued on B.
    await admin(a.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status: 'suspended' });
    const freshPayload = encryptV1(JSON.stringify(keysOf(fresh)), keysOf(fresh));
    expectUnauthorized(await headerless(b.url, freshPayload));
    await admin(a.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status: 'active' });
    expectIssuedFor(await headerless(b.url, freshPayload), fresh);
  });

  it('every headerless failure counts toward the per-address throttle (4290 with Retry-After)', async () => {
    const c = await sibling(engine, a, { PAYRAIL_TOKEN_FAILURES_PER_ADDRESS: '3' });
    try {
      const m = await createMerchant(a.url, 'Throttled address');
      const junk = Buffer.alloc(48, 9).toString('base64');
      for (let i = 0; i < 3; i++) expectUnauthorized(await headerless(c.url, junk));
      const res = await headerless(c.url, encryptV1(JSON.stringify(keysOf(m)), keysOf(m)));
      expect(res.status).toBe(429);
      expect(res.body.respCode).toBe(4290);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
    } finally {
      await c.close();
    }
  });

  it('refreshes from the database at most once per interval, however many misses arrive', async () => {
    // The system's clock: the refresh pace is measured against real time here.
    const index = new V1KeyIndex(a.db, { refreshIntervalMs: 200, scansPerSecond: 5, clock: systemClock });
    await index.load();
    const before = index.refreshes;
    const started = Date.now();
    const junk = Buffer.alloc(32, 1).toString('base64');
    // 60 misses in three waves over ~0.6 s: each wave shares one refresh.
    for (let wave = 0; wave < 3; wave++) {
      await Promise.all(Array.from({ length: 20 }, () => index.candidates(junk)));
    }
    const elapsed = Date.now() - started;
    const refreshes = index.refreshes - before;
    expect(refreshes).toBeGreaterThanOrEqual(1);
    expect(refreshes).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
    // A merchant created elsewhere after the load is found by the next refresh.
    const m = await createMerchant(b.url, 'Late');
    const [found] = await index.candidates(encryptV1(JSON.stringify(keysOf(m)), keysOf(m)));
    expect(found).toBe(m.merchant_id);
  });
});
