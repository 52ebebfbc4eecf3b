import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminPayout,
  fundedMerchant,
  payoutRequest,
  SANDBOX,
  senderId,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** PAYRAIL_CONNECTOR_ROUTES: each payout, single or in a batch, goes to its mode's connector and keeps it. */
describe.each(ENGINES)('connector routing (%s)', (engine) => {
  let t: TestServer;
  let f: Funded;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_CONNECTOR_ROUTES: 'NEFT=manual' } });
    f = await fundedMerchant(t.url, 'v2', '1000.00');
  });
  afterAll(() => t?.close());

  const plain = (mode: string) =>
    payoutRequest('nested', {
      wallet_id: f.merchant.wallet_id,
      sender_id: senderId('route'),
      payment_mode: mode,
      beneficiary_acc_number: SANDBOX.success,
      beneficiary_ifsc: SANDBOX.ifsc,
    });

  it('routes a single payout by its mode', async () => {
    for (const [mode, connector] of [
      ['IMPS', 'sandbox'],
      ['NEFT', 'manual'],
    ]) {
      const res = await f.client.post('/payout/v1/initiate', plain(mode as string));
      expect(res.body.resp_code).toBe(2000);
      expect(await adminPayout(t.url, String(res.data?.transaction_id))).toMatchObject({ connector });
    }
  });

  it('routes each item of a batch by its mode', async () => {
    const res = await f.client.post('/payout/v1/bulk', {
      batch_id: senderId('batch'),
      items: [plain('IMPS'), plain('NEFT'), plain('NEFT'), plain('IMPS')],
    });
    expect(res.body.resp_code).toBe(2000);
    const items = (res.data?.items ?? []) as { transaction_id: string }[];
    const connectors = await Promise.all(
      items.map(async (i) => (await adminPayout(t.url, i.transaction_id)).connector),
    );
    expect(connectors).toEqual(['sandbox', 'manual', 'manual', 'sandbox']);
  });
});
