import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('tokens on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await startTestServer(engine);
    m = await createMerchant(t.url);
  });
  afterAll(() => t.close());

  it('issues a V2 token whose data decrypts with V2', async () => {
    const c = await MerchantClient.connect(t.url, m, 'v2');
    expect(c.token.split('.')).toHaveLength(3);
  });

  it('issues a V1 token whose data decrypts with V1', async () => {
    const c = await MerchantClient.connect(t.url, m, 'v1');
    expect(c.token.split('.')).toHaveLength(3);
  });

  it('refuses a wrong secret with 4001', async () => {
    const res = await http(t.url, 'POST', '/v1/auth/client-token', {
      body: { apiKey: m.api_key, secretKey: 'x'.repeat(16) },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ respCode: 4001, respMessage: expect.any(String) });
  });
});
