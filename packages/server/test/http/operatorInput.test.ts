import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, createMerchant, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** 2^63 - 1 paise, the largest balance a wallet can hold, in rupees. */
const MAX_RUPEES = '92233720368547758.07';

/** Operator input that used to reach SQL as a number or an amount and end as 500 (issue 10, finding 10). */
describe.each(ENGINES)('operator input at the edges on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer(engine);
    m = await createMerchant(t.url, 'Edges');
  });
  afterAll(() => t.close());

  const credit = (body: Record<string, unknown>, wallet = m.wallet_id) =>
    admin(t.url, 'POST', `/admin/v1/wallets/${wallet}/credits`, body);
  const balance = async () => (await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance;

  it('a webhook-deliveries cursor beyond int8 is 400, not 500', async () => {
    for (const key of ['9223372036854775808', '9999999999999999999']) {
      const res = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?cursor=${b64(key)}`);
      expect(res.status, key).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
    const edge = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?cursor=${b64('9223372036854775807')}`);
    expect(edge.status).toBe(200);
  });

  it('a sequence cursor beyond int8 is 400 on every list that pages by one (the audit log, the merchant console)', async () => {
    const merchantConsole = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    const lists = [
      (q: string) => admin(t.url, 'GET', `/admin/v1/audit${q}`),
      (q: string) => merchantConsole.request('GET', `/console/api/merchant/webhooks/deliveries${q}`),
    ];
    for (const list of lists) {
      for (const key of ['9223372036854775808', '9999999999999999999']) {
        const res = await list(`?cursor=${b64(key)}`);
        expect(res.status, key).toBe(400);
        expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
      }
      expect((await list(`?cursor=${b64('9223372036854775807')}`)).status).toBe(200);
    }
  });

  it('a cursor longer than any a list writes is 400', async () => {
    const lists = [
      'payouts',
      'collections',
      'merchants',
      'webhooks/deliveries',
      'credit-requests',
      'audit',
      'exceptions',
    ];
    for (const list of lists) {
      const res = await admin(t.url, 'GET', `/admin/v1/${list}?cursor=${'x'.repeat(101)}`);
      expect(res.status, list).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
    const batches = await admin(t.url, 'GET', `/admin/v1/batches?cursor=${'x'.repeat(401)}`);
    expect(batches.status).toBe(400);
  });

  it('a huge limit is clamped, never a SQL error', async () => {
    for (const path of ['/admin/v1/webhooks/deliveries', '/admin/v1/payouts', '/admin/v1/collections']) {
      const res = await admin(t.url, 'GET', `${path}?limit=99999999999999999999999`);
      expect(res.status, path).toBe(200);
    }
  });

  it('a credit that would overflow the balance is 422 balance_overflow and moves nothing', async () => {
    const w = await createMerchant(t.url, 'Full');
    // One credit can carry at most 15 digits of rupees: fill the wallet to the brim through the ledger itself.
    await t.db.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, reference) VALUES ($1, 'credit', $2, 0, 'fill')`,
      [w.wallet_id, 2n ** 63n - 2n],
    );
    expect((await credit({ amount: '0.01' }, w.wallet_id)).status).toBe(200);
    const res = await credit({ amount: '0.01' }, w.wallet_id);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: { code: 'balance_overflow' } });
    const after = await admin(t.url, 'GET', `/admin/v1/wallets/${w.wallet_id}`);
    expect(after.body.balance).toBe(MAX_RUPEES);
    expect((await admin(t.url, 'GET', '/admin/v1/ledger/verify')).body.ok).toBe(true);
  });

  it('a reused credit reference: same amount → duplicate, another amount → 409 reference_conflict', async () => {
    const first = await credit({ amount: '100.00', reference: 'bank-txn-1' });
    expect(first.status).toBe(200);
    expect(first.body.duplicate).toBe(false);
    const again = await credit({ amount: '100.00', reference: 'bank-txn-1' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, balance: first.body.balance });
    const other = await credit({ amount: '200.00', reference: 'bank-txn-1' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: { code: 'reference_conflict' } });
    expect(await balance()).toBe(first.body.balance);
  });
});
