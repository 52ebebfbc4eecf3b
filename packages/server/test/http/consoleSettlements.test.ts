import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, party, simulate, type Party } from '../support/collectionFixtures.ts';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin } from '../support/merchantClient.ts';
import { SANDBOX } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;
const HOUR = 3_600_000;

/** UPI collections cost ₹2.00 + 18% GST (₹0.36): a ₹100.00 collection nets ₹97.64. */
const PLAN = { name: 'Collect', rules: { UPI_COLLECTION: { slabs: [{ flat: '2.00' }] } } };
const ACCOUNT = { account_number: SANDBOX.success, ifsc: SANDBOX.ifsc, holder_name: 'Console Shop Pvt Ltd' };

/**
 * The merchant console's settlements (docs/merchant/console.md): the merchant reads its own settlements with their
 * collections and report, never another merchant's, and sets its settlement account itself (audited; a change holds
 * settlements for 24 hours; the operator's schedule and reserve stay).
 */
describe.each(ENGINES)('merchant console settlements on %s', (engine) => {
  let t: TestServer;
  let a: Party;
  let b: Party;
  let shopA: ConsoleSession;
  let shopB: ConsoleSession;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_SETTLEMENT_SCAN_MS: '3600000' } });
    [a, b] = await Promise.all([party(t.url, 'v2', 'Shop A'), party(t.url, 'v2', 'Shop B')]);
    for (const p of [a, b]) {
      expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${p.merchant.merchant_id}/pricing`, PLAN)).status).toBe(
        200,
      );
    }
    shopA = await ConsoleSession.merchant(t.url, a.merchant.api_key, a.merchant.secret_key);
    shopB = await ConsoleSession.merchant(t.url, b.merchant.api_key, b.merchant.secret_key);
  });
  afterAll(async () => {
    await t.close();
  });

  const collect = async (p: Party, amount: string) => {
    const c = await initiateOk(p.client, { amount });
    expect((await simulate(p.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
    return c.txnId;
  };
  const auditOf = async (merchantId: string) => {
    const res = await admin(t.url, 'GET', '/admin/v1/audit?limit=200');
    return (res.body.data as Row[]).filter((e) => e.actor === `merchant:${merchantId}`);
  };

  it('sets the first account (not held, audited under the merchant), CSRF-checked, and shows it', async () => {
    const none = await shopA.request('GET', '/console/api/merchant/settlement');
    expect([none.status, (none.body.error as Row).code]).toEqual([404, 'not_found']);
    expect((await shopA.request('PUT', '/console/api/merchant/settlement', ACCOUNT, { csrf: null })).status).toBe(403);

    const set = await shopA.request('PUT', '/console/api/merchant/settlement', ACCOUNT);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      merchant_id: a.merchant.merchant_id,
      account_number: SANDBOX.success,
      ifsc: SANDBOX.ifsc,
      holder_name: 'Console Shop Pvt Ltd',
      bank_name: expect.any(String),
      schedule: 'manual',
      reserve_percent: '0.00',
    });
    expect(Date.parse(set.body.active_from as string)).toBeLessThanOrEqual(Date.now());
    const got = await shopA.request('GET', '/console/api/merchant/settlement');
    expect(got.body).toEqual(set.body);
    // The operator reads the same account.
    const operator = await admin(t.url, 'GET', `/admin/v1/merchants/${a.merchant.merchant_id}/settlement`);
    expect(operator.body).toEqual(set.body);

    const entries = await auditOf(a.merchant.merchant_id);
    const ok = entries.find((e) => e.action === 'merchant.settlement' && e.outcome === 'ok');
    expect(ok).toMatchObject({ actor_role: 'merchant', http_status: 200 });
    // The account number is kept to its last four digits in the log.
    expect(String(ok?.detail)).toContain(`settlement account ${SANDBOX.ifsc}`);
    expect(String(ok?.detail)).not.toContain(SANDBOX.success);
    expect(entries.some((e) => e.action === 'merchant.settlement' && e.outcome === 'denied')).toBe(true);
  });

  it('holds settlements 24 h after a change and keeps the schedule and reserve the operator set', async () => {
    const operatorSet = await admin(t.url, 'PUT', `/admin/v1/merchants/${b.merchant.merchant_id}/settlement`, {
      ...ACCOUNT,
      schedule: 'daily',
      at: '11:00',
      reserve_percent: '5',
      reserve_days: 7,
    });
    expect(operatorSet.status).toBe(200);
    const changed = await shopB.request('PUT', '/console/api/merchant/settlement', {
      ...ACCOUNT,
      holder_name: 'Shop B New Holder',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      holder_name: 'Shop B New Holder',
      schedule: 'daily',
      at: '11:00',
      reserve_percent: '5.00',
      reserve_days: 7,
    });
    expect(Date.parse(changed.body.active_from as string)).toBeGreaterThan(Date.now() + 23 * HOUR);
    const entry = (await auditOf(b.merchant.merchant_id)).find((e) => e.action === 'merchant.settlement');
    expect(String(entry?.detail)).toContain('held until');

    // The merchant sets the account only: a schedule or a reserve in the body is refused.
    for (const extra of [{ schedule: 'instant' }, { reserve_percent: '0' }]) {
      const refused = await shopB.request('PUT', '/console/api/merchant/settlement', { ...ACCOUNT, ...extra });
      expect([refused.status, (refused.body.error as Row).code]).toEqual([400, 'invalid_request']);
    }
  });

  it('lists and shows the merchant’s own settlements with their collections and report, never another’s', async () => {
    const c = await collect(a, '100.00');
    const created = await admin(t.url, 'POST', '/admin/v1/settlements', { wallet_id: a.merchant.wallet_id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.settlement_id as string;

    const list = await shopA.request('GET', '/console/api/merchant/settlements');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false });
    expect(list.body.data).toMatchObject([
      { settlement_id: id, merchant_id: a.merchant.merchant_id, amount: '97.64', fees: '2.00', tax: '0.36' },
    ]);
    const one = await shopA.request('GET', `/console/api/merchant/settlements/${id}`);
    expect(one.body).toMatchObject({
      settlement_id: id,
      trigger: 'manual',
      collections: [{ collection_id: c, amount: '100.00', fee: '2.00', tax: '0.36', net: '97.64' }],
    });
    const csv = await fetch(`${t.url}/console/api/merchant/settlements/${id}?format=csv`, {
      headers: { cookie: shopA.cookie },
    });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toContain(`settlement-${id}.csv`);
    expect((await csv.text()).split('\r\n')).toEqual([
      'settlement_id,collection_id,amount,fee,gst,net',
      `${id},${c},100.00,2.00,0.36,97.64`,
      '',
    ]);
    // Narrowed by the merchant's wallet and IST days.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(new Date());
    const byWallet = await shopA.request(
      'GET',
      `/console/api/merchant/settlements?wallet_id=${a.merchant.wallet_id}&from=${today}&to=${today}`,
    );
    expect((byWallet.body.data as Row[]).map((s) => s.settlement_id)).toEqual([id]);
    const before = await shopA.request('GET', '/console/api/merchant/settlements?to=2020-01-01');
    expect(before.body.data).toEqual([]);

    // Merchant B: not in its list, whatever it asks for, and 404 as if it did not exist (report included).
    const other = await shopB.request('GET', '/console/api/merchant/settlements');
    expect(other.body.data).toEqual([]);
    const asked = await shopB.request(
      'GET',
      `/console/api/merchant/settlements?merchant_id=${a.merchant.merchant_id}&wallet_id=${a.merchant.wallet_id}`,
    );
    expect(asked.status === 400 || (asked.body.data as Row[]).length === 0, JSON.stringify(asked.body)).toBe(true);
    const theirs = await shopB.request('GET', `/console/api/merchant/settlements/${id}`);
    expect([theirs.status, (theirs.body.error as Row).code]).toEqual([404, 'not_found']);
    const unknown = await shopB.request('GET', `/console/api/merchant/settlements/ST${'0'.repeat(26)}`);
    expect(unknown.status).toBe(404);
    const theirCsv = await fetch(`${t.url}/console/api/merchant/settlements/${id}?format=csv`, {
      headers: { cookie: shopB.cookie },
    });
    expect(theirCsv.status).toBe(404);
    expect(await theirCsv.text()).not.toContain(c);

    // Signed out: 401; the admin API is not the merchant's.
    expect((await fetch(`${t.url}/console/api/merchant/settlements`)).status).toBe(401);
    const adminRoute = await shopA.request('GET', `/admin/v1/settlements/${id}`);
    expect(adminRoute.status).toBe(401);
  });
});
