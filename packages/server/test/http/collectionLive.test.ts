import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiate, party, senderId, setMerchant, type Party } from '../support/collectionFixtures.ts';
import { http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** Collections in live mode: `vpa` must be a registered address; the payment page has no sandbox buttons. */
describe.each(ENGINES)('collections in live mode on %s', (engine) => {
  let t: TestServer;
  let p: Party;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_MODE: 'live', PAYRAIL_PUBLIC_URL: 'https://pay.acme.test' } });
    p = await party(t.url, 'v2', 'Acme Store');
  });
  afterAll(() => t.close());

  const create = (over: Record<string, unknown>) =>
    initiate(p.client, { senderId: senderId('live'), requestAmount: '10.00', ...over });

  it('refuses any vpa while the merchant has none registered (4111 naming vpa)', async () => {
    const res = await create({ vpa: 'anyone@okaxis' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ respCode: 4111, respMessage: expect.stringContaining('vpa') });
  });

  it('accepts the registered address (in any case) and refuses another (4111)', async () => {
    await setMerchant(t.url, p.merchant.merchant_id, { upi_vpa: 'acme@okhdfc' });
    const ok = await create({ vpa: 'acme@okhdfc' });
    expect(ok.body.respCode).toBe(2000);
    expect(ok.data?.vpa).toBe('acme@okhdfc');
    expect((await create({ vpa: 'ACME@okhdfc' })).body.respCode).toBe(2000);
    const other = await create({ vpa: 'someone.else@okhdfc' });
    expect(other.body).toEqual({ respCode: 4111, respMessage: expect.stringContaining('vpa') });
    const none = await create({});
    expect(none.data?.vpa).toBe('acme@okhdfc');
  });

  it('serves the payment page without sandbox buttons, and no simulate endpoint (404)', async () => {
    const c = await create({});
    expect(c.data?.paymentUrl).toMatch(/^https:\/\/pay\.acme\.test\/pay\/[A-Za-z0-9_-]{32}$/);
    const path = new URL(c.data?.paymentUrl as string).pathname;
    const res = await fetch(t.url + path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('₹10.00');
    expect(html).toContain('Open UPI app');
    expect(html).not.toContain('Simulate');
    expect(html).not.toMatch(/<button[^>]*data-outcome/);
    const sim = await http(t.url, 'POST', `${path}/simulate`, { body: { outcome: 'SUCCESS' } });
    expect(sim.status).toBe(404);
    expect((await http(t.url, 'GET', `${path}/status`)).body).toEqual({
      status: 'INITIATED',
      label: 'Waiting for payment',
      final: false,
    });
  });
});
