import { readEnvelope } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

const AUTH = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const UNKNOWN_DELIVERY = 'EV01ARZ3NDEKTSV4RRFFQ69G5FAV';

// docs/operator/admin-api.md: a POST that takes no body accepts an empty one, with or without Content-Type: application/json.
describe.each(ENGINES)('request bodies and content types on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer(engine);
    m = await createMerchant(t.url, 'Empty Bodies', '100.00');
  });
  afterAll(() => t.close());

  const walletCount = async () => {
    const res = await http(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`, { headers: AUTH });
    return (res.body.wallets as unknown[]).length;
  };

  const bodyless = () =>
    [
      [`/admin/v1/merchants/${m.merchant_id}/wallets`, 201],
      [`/admin/v1/merchants/${m.merchant_id}/credentials/rotate`, 200],
      [`/admin/v1/merchants/${m.merchant_id}/webhook-secret/rotate`, 200],
      // An unknown delivery: 404 shows the empty body itself was accepted.
      [`/admin/v1/webhooks/deliveries/${UNKNOWN_DELIVERY}/replay`, 404],
    ] as const;

  it.each([
    ['no Content-Type', {}],
    ['Content-Type: application/json', { 'content-type': 'application/json' }],
    ['Content-Type: application/json; charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }],
    ['an empty form (curl -d "")', { 'content-type': 'application/x-www-form-urlencoded' }],
  ])('a POST that takes no body accepts an empty one with %s', async (_label, headers: Record<string, string>) => {
    for (const [path, status] of bodyless()) {
      const res = await http(t.url, 'POST', path, { rawBody: '', headers: { ...AUTH, ...headers } });
      expect(res.status, path).toBe(status);
      if (status === 404) expect(res.body).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('a route that takes a body still refuses an empty JSON body (400 invalid_request)', async () => {
    for (const path of ['/admin/v1/merchants', `/admin/v1/wallets/${m.wallet_id}/credits`]) {
      const res = await http(t.url, 'POST', path, {
        rawBody: '',
        headers: { ...AUTH, 'content-type': 'application/json' },
      });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    }
  });

  it.each([
    ['a form', 'application/x-www-form-urlencoded', 'name=Acme'],
    ['text', 'text/plain', '{"name":"Acme"}'],
    ['XML', 'application/xml', '<name>Acme</name>'],
  ])('the admin API answers %s body with 415 and the admin error body', async (_label, type, rawBody) => {
    const walletsBefore = await walletCount();
    for (const path of ['/admin/v1/merchants', `/admin/v1/merchants/${m.merchant_id}/wallets`]) {
      const res = await http(t.url, 'POST', path, { rawBody, headers: { ...AUTH, 'content-type': type } });
      expect(res.status, path).toBe(415);
      expect(res.body, path).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
    }
    // The refused wallet creation created nothing.
    expect(await walletCount()).toBe(walletsBefore);
  });

  it('merchant routes answer a form body with their malformed-body code and HTTP 415', async () => {
    // A merchant of its own: the tests above rotate m's credentials.
    const client = await MerchantClient.connect(t.url, await createMerchant(t.url, 'Form Sender'), 'v2');
    for (const path of ['/payout/v1/initiate', '/collection/v1/initiate']) {
      const res = await http(t.url, 'POST', path, {
        rawBody: 'payload=abc',
        headers: { ...client.auth(), 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status, path).toBe(415);
      expect(readEnvelope(res.body)?.code, path).toBe(4000);
    }
  });
});
