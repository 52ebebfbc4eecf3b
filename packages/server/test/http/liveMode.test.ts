import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, http } from '../support/merchantClient.ts';
import { fundedMerchant, payoutRequest, senderId, waitForStatus, type Funded } from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/** PAYRAIL_MODE=live: real branches only, operator bank rules, the manual rail, no sandbox routes. */
describe('live mode', () => {
  let t: TestServer;
  let f: Funded;
  const real = {
    beneficiary_name: 'Asha Rao',
    beneficiary_ifsc: 'HDFC0000001',
    beneficiary_acc_number: '123456789012',
  };
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: { PAYRAIL_MODE: 'live', PAYRAIL_BANKS_DOWN: 'ICIC', PAYRAIL_BANKS_BLOCKED: 'UTIB' },
    });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
  });
  afterAll(() => t.close());

  const initiate = (over: Record<string, unknown>) =>
    f.client.post('/payout/v1/initiate', payoutRequest('nested', { wallet_id: f.merchant.wallet_id }, over));

  it('requires an IFSC that names a real branch (4007), so the sandbox IFSCs are refused', async () => {
    for (const ifsc of ['SBOX0000001', 'DOWN0000001', 'HDFC0ZZZZZZ']) {
      const res = await initiate({ beneficiary: { ...real, beneficiary_ifsc: ifsc } });
      expect(res.body.resp_code, ifsc).toBe(4007);
    }
  });

  it('applies the operator bank rules: PAYRAIL_BANKS_DOWN → 4014 (503), PAYRAIL_BANKS_BLOCKED → 4015', async () => {
    const down = await initiate({ beneficiary: { ...real, beneficiary_ifsc: 'ICIC0000001' } });
    expect([down.status, down.body.resp_code]).toEqual([503, 4014]);
    const blocked = await initiate({ beneficiary: { ...real, beneficiary_ifsc: 'UTIB0000003' } });
    expect([blocked.status, blocked.body.resp_code]).toEqual([422, 4015]);
  });

  it('refuses callback URLs on private addresses by default (4017)', async () => {
    const res = await initiate({ beneficiary: real, callback_url: 'http://127.0.0.1:9/hook' });
    expect(res.body.resp_code).toBe(4017);
    expect(res.body.resp_message).toContain('callback_url');
  });

  it('hands a payout to the bank as PROCESSING and lets the operator settle it, FAILED ending REFUNDED', async () => {
    const ok = await initiate({ sender_id: senderId('live'), beneficiary: real });
    expect((ok.data?.beneficiary as Record<string, unknown>).bank_name).toBe('HDFC Bank');
    const id = ok.data?.transaction_id as string;
    await waitForStatus(t.url, id, 'PROCESSING');
    const resolved = await admin(t.url, 'POST', `/admin/v1/payouts/${id}/resolve`, {
      status: 'SUCCESS',
      utr_number: 'UTR123456789',
    });
    expect(resolved.body).toMatchObject({ status: 'SUCCESS', utr_number: 'UTR123456789' });

    const failing = await initiate({ sender_id: senderId('live'), beneficiary: real, amount: '250.00' });
    const failId = failing.data?.transaction_id as string;
    await waitForStatus(t.url, failId, 'PROCESSING');
    expect((await admin(t.url, 'POST', `/admin/v1/payouts/${failId}/resolve`, { status: 'FAILED' })).status).toBe(200);
    await waitForStatus(t.url, failId, 'REFUNDED');
    const balance = await f.client.get(`/payout/v1/balance?wallet_id=${f.merchant.wallet_id}`);
    expect(balance.data?.balance).toBe('9900.00');
    expect((await admin(t.url, 'GET', '/admin/v1/ledger/verify')).body.ok).toBe(true);
  });

  it('has no sandbox simulation route (404)', async () => {
    const res = await http(t.url, 'POST', '/sandbox/v1/collections/CT00000000000000000000000000/simulate', {
      body: { outcome: 'SUCCESS' },
      headers: f.client.auth(),
    });
    expect(res.status).toBe(404);
  });

  it('has no PSP notification routes without PAYRAIL_PSP_NOTIFY_SECRET (404)', async () => {
    for (const path of ['/psp/v1/collections/notify', '/psp/v1/payouts/notify']) {
      const res = await http(t.url, 'POST', path, {
        body: { txnId: 'CT00000000000000000000000000', status: 'SUCCESS' },
      });
      expect([path, res.status, (res.body.error as { code: string }).code]).toEqual([path, 404, 'route_not_found']);
    }
  });

  it('refuses collections until the operator sets the merchant’s UPI address (4111), then uses it', async () => {
    const before = await f.client.post('/collection/v1/initiate', { senderId: senderId('c'), amount: '10.00' });
    expect(before.body.respCode).toBe(4111);
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${f.merchant.merchant_id}`, {
      upi_vpa: 'acme@okhdfc',
      upi_payee_name: 'Acme Store',
    });
    const after = await f.client.post('/collection/v1/initiate', { senderId: senderId('c'), amount: '10.00' });
    expect(after.body.respCode).toBe(2000);
    const link = new URL(after.data?.intentUrl as string);
    expect(link.searchParams.get('pa')).toBe('acme@okhdfc');
    expect(link.searchParams.get('pn')).toBe('Acme Store');
  });
});
