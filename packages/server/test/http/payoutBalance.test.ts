import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, http, MerchantClient } from '../support/merchantClient.ts';
import {
  expectLedgerOk,
  fundedMerchant,
  initiateOk,
  ISO_UTC,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('wallet balance on %s', (engine) => {
  let t: TestServer;
  let stranger: Funded;

  beforeAll(async () => {
    // Slow enough steps that a payout is still open when the test looks at the balance right after initiation.
    t = await startTestServer(engine, { env: { PAYRAIL_SANDBOX_STEP_MS: '400' } });
    stranger = await fundedMerchant(t.url, 'v1', '50.00');
  });
  afterAll(() => t.close());

  const balanceOf = async (client: MerchantClient, walletId: string) => {
    const res = await client.get(`/payout/v1/balance?wallet_id=${walletId}`);
    expect(res.status).toBe(200);
    expect(res.body.resp_code).toBe(2000);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'resp_code', 'resp_message']);
    // available_balance: the name existing integrations read, equal to balance without liens (docs/operator/liens.md).
    expect(res.data?.available_balance).toBe(res.data?.balance);
    expect(res.data?.on_lien).toBe('0.00');
    return res.data as Record<string, string>;
  };

  it.each(['v1', 'v2'] as const)(
    'answers {wallet_id, balance, available_balance, on_lien, on_hold, currency, updated_at} (%s)',
    async (scheme) => {
      const f = await fundedMerchant(t.url, scheme, '1234.56');
      expect(await balanceOf(f.client, f.merchant.wallet_id)).toEqual({
        wallet_id: f.merchant.wallet_id,
        balance: '1234.56',
        available_balance: '1234.56',
        on_lien: '0.00',
        on_hold: '0.00',
        currency: 'INR',
        updated_at: expect.stringMatching(ISO_UTC),
      });
    },
  );

  it('holds non-final payouts in on_hold and takes them out of the spendable balance', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const before = await balanceOf(f.client, f.merchant.wallet_id);
    const pending = await initiateOk(
      f.client,
      payoutRequest('nested', {
        wallet_id: f.merchant.wallet_id,
        amount: '100.00',
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.pending,
      }),
    );
    // At once (INITIATED or PROCESSING), then PENDING: held either way.
    const right = await balanceOf(f.client, f.merchant.wallet_id);
    expect(right).toMatchObject({ balance: '900.00', on_hold: '100.00' });
    expect(Date.parse(right.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(before.updated_at as string));
    await waitForStatus(t.url, pending.transaction_id as string, 'PENDING');
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '900.00', on_hold: '100.00' });

    // A payout that succeeds leaves on_hold once it is final.
    const ok = await initiateOk(
      f.client,
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '50.25' }),
    );
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '849.75', on_hold: '150.25' });
    await waitForStatus(t.url, ok.transaction_id as string, 'SUCCESS');
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '849.75', on_hold: '100.00' });

    // Resolving the pending one as SUCCESS releases the hold without moving the balance.
    const resolved = await admin(t.url, 'POST', `/admin/v1/payouts/${pending.transaction_id as string}/resolve`, {
      status: 'SUCCESS',
    });
    expect(resolved.status).toBe(200);
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '849.75', on_hold: '0.00' });
    await expectLedgerOk(t.url);
  });

  it('returns a failed payout to the balance and out of on_hold', async () => {
    const f = await fundedMerchant(t.url, 'v1', '500.00');
    const failed = await initiateOk(
      f.client,
      payoutRequest('flat', {
        wallet_id: f.merchant.wallet_id,
        amount: 200,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.failure,
      }),
    );
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '300.00', on_hold: '200.00' });
    await waitForStatus(t.url, failed.transaction_id as string, 'REFUNDED');
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '500.00', on_hold: '0.00' });
  });

  it("keeps each wallet's balance separate", async () => {
    const f = await fundedMerchant(t.url, 'v2', '10.00');
    const created = await admin(t.url, 'POST', `/admin/v1/merchants/${f.merchant.merchant_id}/wallets`);
    const second = created.body.wallet_id as string;
    expect(await balanceOf(f.client, second)).toMatchObject({ wallet_id: second, balance: '0.00', on_hold: '0.00' });
    await admin(t.url, 'POST', `/admin/v1/wallets/${second}/credits`, { amount: '99.99' });
    expect(await balanceOf(f.client, second)).toMatchObject({ balance: '99.99' });
    expect(await balanceOf(f.client, f.merchant.wallet_id)).toMatchObject({ balance: '10.00' });
  });

  it.each([
    ['missing', ''],
    ['empty', '?wallet_id='],
  ])('4201 (HTTP 400) when wallet_id is %s', async (_name, query) => {
    const res = await stranger.client.get(`/payout/v1/balance${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ resp_code: 4201, resp_message: expect.any(String) });
  });

  it.each([
    ['unknown', () => 'WL01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['malformed', () => 'my-wallet'],
    ['a merchant_id', () => stranger.merchant.merchant_id],
  ])('4202 (HTTP 404) when the wallet is %s', async (_name, id) => {
    const res = await stranger.client.get(`/payout/v1/balance?wallet_id=${id()}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ resp_code: 4202, resp_message: expect.any(String) });
  });

  it("4202 (HTTP 404) for another merchant's wallet", async () => {
    const f = await fundedMerchant(t.url, 'v2', '10.00');
    const res = await f.client.get(`/payout/v1/balance?wallet_id=${stranger.merchant.wallet_id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ resp_code: 4202, resp_message: expect.any(String) });
  });

  it.each([
    ['Authorization missing', {}],
    ['garbage token', { authorization: 'Bearer x.y.z' }],
  ])('4001 (HTTP 401) with %s, before the parameters', async (_name, headers: Record<string, string>) => {
    for (const query of [`?wallet_id=${stranger.merchant.wallet_id}`, '']) {
      const res = await http(t.url, 'GET', `/payout/v1/balance${query}`, { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
    }
  });
});
