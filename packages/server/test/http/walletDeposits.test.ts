import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin, createMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;
const utr = () => `UTR${randomBytes(6).toString('hex').toUpperCase()}`;

/**
 * GET /admin/v1/wallets/{wallet_id}/deposits (docs/merchant/funding-a-wallet.md): a merchant wallet's deposits,
 * newest first, paged like every admin list; another wallet's deposits never show; an unknown wallet is 404.
 */
describe.each(ENGINES)('a wallet’s deposits on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => {
    await t.close();
  });

  const vaOf = async (walletId: string) =>
    ((await admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`)).body.virtual_account as { number: string }).number;
  const deposit = async (walletId: string, amount: string) => {
    const res = await admin(t.url, 'POST', '/admin/v1/sandbox/deposits', {
      virtual_account: await vaOf(walletId),
      amount,
      utr: utr(),
      remitter_name: 'Asha Traders',
      remitter_account: '50100012345678',
      remitter_ifsc: 'HDFC0000123',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.deposit_id as string;
  };

  it('lists the wallet’s deposits newest first, one page at a time, and no other wallet’s', async () => {
    const a = await createMerchant(t.url, 'Deposits listed');
    const b = await createMerchant(t.url, 'Deposits elsewhere');
    const ids = [];
    for (const amount of ['100.00', '200.00', '300.00']) ids.push(await deposit(a.wallet_id, amount));
    await deposit(b.wallet_id, '999.00');

    const first = await admin(t.url, 'GET', `/admin/v1/wallets/${a.wallet_id}/deposits?limit=2`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.has_more).toBe(true);
    const data = first.body.data as Row[];
    expect(data.map((d) => d.deposit_id)).toEqual([ids[2], ids[1]]);
    expect(data[0]).toMatchObject({
      wallet_id: a.wallet_id,
      merchant_id: a.merchant_id,
      amount: '300.00',
      fees: '0.00',
      source: 'sandbox',
      remitter_account: '50100012345678',
    });
    const second = await admin(
      t.url,
      'GET',
      `/admin/v1/wallets/${a.wallet_id}/deposits?limit=2&cursor=${first.body.next_cursor as string}`,
    );
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((second.body.data as Row[]).map((d) => d.deposit_id)).toEqual([ids[0]]);

    // A viewer reads it too.
    const email = `viewer-${randomBytes(3).toString('hex')}@example.test`;
    await createOperator(t.url, email, 'viewer');
    const viewer = await ConsoleSession.signIn(t.url, email);
    const res = await viewer.request('GET', `/admin/v1/wallets/${a.wallet_id}/deposits`);
    expect(res.status).toBe(200);
    expect((res.body.data as Row[]).length).toBe(3);
  });

  it('answers an empty page for a wallet without deposits, 404 for no merchant wallet, 400 for a foreign cursor', async () => {
    const m = await createMerchant(t.url, 'No deposits yet');
    expect((await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}/deposits`)).body).toEqual({
      data: [],
      has_more: false,
      next_cursor: null,
    });
    const unknown = await admin(t.url, 'GET', '/admin/v1/wallets/WL_NOPE/deposits');
    expect([unknown.status, (unknown.body.error as Row).code]).toEqual([404, 'not_found']);
    const platform = await admin(t.url, 'GET', '/admin/v1/wallets/PW_FEES/deposits');
    expect(platform.status).toBe(404);
    const cursor = Buffer.from('not-a-deposit').toString('base64url');
    const bad = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}/deposits?cursor=${cursor}`);
    expect([bad.status, (bad.body.error as Row).code]).toEqual([400, 'invalid_request']);
  });
});
