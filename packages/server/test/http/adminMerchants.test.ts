import { encryptJson } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

const MERCHANT_ID = /^MR[0-9A-HJKMNP-TV-Z]{26}$/;
const WALLET_ID = /^WL[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ADMIN_ERROR = { error: { code: expect.any(String), message: expect.any(String) } };

describe.each(ENGINES)('admin merchant API on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t.close());

  const v2Token = (apiKey: string, secretKey: string) =>
    http(t.url, 'POST', '/v1/auth/client-token', { body: { apiKey, secretKey } });
  /** The respCode of a V1 token request with these credentials. */
  const v1Token = async (m: Pick<TestMerchant, 'api_key' | 'secret_key'>) => {
    const keys = { apiKey: m.api_key, secretKey: m.secret_key };
    const res = await http(t.url, 'POST', '/v1/auth/clients/token', {
      body: { payload: encryptJson(keys, 'v1', keys) },
      headers: { 'x-api-key': m.api_key },
    });
    expect(res.status).toBe(res.body.respCode === 2000 ? 200 : 401);
    return res.body.respCode;
  };
  const getMerchant = (id: string) => admin(t.url, 'GET', `/admin/v1/merchants/${id}`);

  describe('POST /admin/v1/merchants', () => {
    it('answers 201 with exactly the documented fields in the documented formats', async () => {
      const res = await admin(t.url, 'POST', '/admin/v1/merchants', { name: 'Acme Traders' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(
        // `warnings`: additive (issue 32), empty unless another merchant has the name.
        ['api_key', 'merchant_id', 'name', 'secret_key', 'wallet_id', 'warnings', 'webhook_secret'].sort(),
      );
      const m = res.body as unknown as TestMerchant & { name: string };
      expect(m.name).toBe('Acme Traders');
      expect(m.merchant_id).toMatch(MERCHANT_ID);
      expect(m.wallet_id).toMatch(WALLET_ID);
      expect(m.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(m.secret_key).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(m.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      const key = Buffer.from(m.webhook_secret.slice('whsec_'.length), 'base64');
      expect(key).toHaveLength(32);
      expect(key.toString('base64')).toBe(m.webhook_secret.slice('whsec_'.length));
    });

    it('gives every merchant its own identifiers and credentials', async () => {
      const [a, b] = await Promise.all([createMerchant(t.url, 'A'), createMerchant(t.url, 'B')]);
      for (const field of ['merchant_id', 'wallet_id', 'api_key', 'secret_key', 'webhook_secret'] as const) {
        expect(a[field]).not.toBe(b[field]);
      }
    });

    it('issues credentials that work on both token endpoints at once', async () => {
      const m = await createMerchant(t.url, 'Fresh');
      expect((await v2Token(m.api_key, m.secret_key)).body.respCode).toBe(2000);
      expect(await v1Token(m)).toBe(2000);
    });

    it('trims the name', async () => {
      const res = await admin(t.url, 'POST', '/admin/v1/merchants', { name: '  Spaced  ' });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('Spaced');
    });

    it.each([
      ['no body', undefined],
      ['empty object', {}],
      ['empty name', { name: '' }],
      ['blank name', { name: '   ' }],
      ['name too long', { name: 'x'.repeat(201) }],
      ['name not a string', { name: 42 }],
      ['name null', { name: null }],
      ['unknown field', { name: 'X', api_key: 'chosen-by-caller' }],
      ['array', ['X']],
    ])('answers 400 invalid_request for %s', async (_label, body) => {
      const res = await admin(t.url, 'POST', '/admin/v1/merchants', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(ADMIN_ERROR);
      expect((res.body.error as { code: string }).code).toBe('invalid_request');
    });
  });

  describe('GET /admin/v1/merchants/:id', () => {
    it('shows the merchant with wallets, limits and settings, and no secrets', async () => {
      const m = await createMerchant(t.url, 'Readable');
      const res = await getMerchant(m.merchant_id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        merchant_id: m.merchant_id,
        name: 'Readable',
        status: 'active',
        limits: { daily_limit: null, monthly_limit: null },
        settings: { collection_callback_url: null },
        wallets: [{ wallet_id: m.wallet_id, balance: '0.00', currency: 'INR' }],
      });
      expect(res.body.created_at).toMatch(ISO_UTC);
      expect(res.body.updated_at).toMatch(ISO_UTC);
      const text = JSON.stringify(res.body);
      for (const secret of [m.api_key, m.secret_key, m.webhook_secret, m.webhook_secret.slice(6)]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toMatch(/api_key|secret_key|webhook_secret|secret/i);
    });

    it('answers 404 for an unknown merchant', async () => {
      const res = await getMerchant(newId('merchant', Date.now()));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    });

    it.each(['nope', 'MR', "MR' OR 1=1 --", '%00', '../merchants', 'ÄÖÜ'])(
      'answers 404 or 400 for a malformed id %j, never 500',
      async (id) => {
        const res = await getMerchant(encodeURIComponent(id));
        expect([400, 404]).toContain(res.status);
        expect(res.body).toEqual(ADMIN_ERROR);
      },
    );

    it('answers 414 in the admin error shape for an id over the path parameter limit', async () => {
      const res = await getMerchant('M'.repeat(500));
      expect(res.status).toBe(414);
      expect(res.body).toEqual({ error: { code: 'uri_too_long', message: expect.any(String) } });
    });

    it('answers 400 in the admin error shape for a path that is not valid percent-encoding', async () => {
      const res = await getMerchant('%E0%A4%A');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    });
  });

  describe('PATCH /admin/v1/merchants/:id', () => {
    let m: TestMerchant;
    beforeAll(async () => {
      m = await createMerchant(t.url, 'Patchable');
    });
    const patch = (body: unknown, id = m.merchant_id) => admin(t.url, 'PATCH', `/admin/v1/merchants/${id}`, body);

    it('sets limits given as decimal text and answers the merchant', async () => {
      const res = await patch({ daily_limit: '50000', monthly_limit: '1000000.50' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        merchant_id: m.merchant_id,
        limits: { daily_limit: '50000.00', monthly_limit: '1000000.50' },
      });
      expect((await getMerchant(m.merchant_id)).body.limits).toEqual({
        daily_limit: '50000.00',
        monthly_limit: '1000000.50',
      });
    });

    it('leaves fields that are not named as they are', async () => {
      const res = await patch({ daily_limit: '60000.00' });
      expect(res.body.limits).toEqual({ daily_limit: '60000.00', monthly_limit: '1000000.50' });
    });

    it('accepts a limit as a JSON number too', async () => {
      const res = await patch({ daily_limit: 75000.5 });
      expect(res.status).toBe(200);
      expect((res.body.limits as Record<string, unknown>).daily_limit).toBe('75000.50');
    });

    it('removes a limit set to null', async () => {
      const res = await patch({ daily_limit: null });
      expect(res.status).toBe(200);
      expect(res.body.limits).toEqual({ daily_limit: null, monthly_limit: '1000000.50' });
      expect((await getMerchant(m.merchant_id)).body.limits).toEqual({
        daily_limit: null,
        monthly_limit: '1000000.50',
      });
    });

    it.each([
      ['negative limit', { daily_limit: '-1' }],
      ['zero limit', { daily_limit: '0' }],
      ['three decimals', { daily_limit: '1.234' }],
      ['exponent', { monthly_limit: '1e6' }],
      ['letters', { monthly_limit: 'lots' }],
      ['limit as boolean', { monthly_limit: true }],
      ['unknown status', { status: 'deleted' }],
      ['status null', { status: null }],
      ['unknown field', { nickname: 'x' }],
      ['callback URL that is not a URL', { collection_callback_url: 'not a url' }],
      ['callback URL with another scheme', { collection_callback_url: 'ftp://127.0.0.1/cb' }],
      ['valid and invalid together', { monthly_limit: '5.00', daily_limit: 'bad' }],
      ['array body', [{ daily_limit: '1' }]],
    ])('answers 400 for %s and changes nothing', async (_label, body) => {
      const before = (await getMerchant(m.merchant_id)).body;
      const res = await patch(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(ADMIN_ERROR);
      const after = (await getMerchant(m.merchant_id)).body;
      expect(after).toEqual(before);
    });

    it('sets and clears the collection callback URL', async () => {
      let res = await patch({ collection_callback_url: 'http://127.0.0.1:9/hooks/collections' });
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject({ collection_callback_url: 'http://127.0.0.1:9/hooks/collections' });
      res = await patch({ collection_callback_url: null });
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject({ collection_callback_url: null });
    });

    it('answers 404 for an unknown merchant', async () => {
      const res = await patch({ daily_limit: '1.00' }, newId('merchant', Date.now()));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    });

    it('a suspended merchant gets 4001 from both token endpoints, and can be reactivated', async () => {
      const s = await createMerchant(t.url, 'Suspendable');
      const client = await MerchantClient.connect(t.url, s, 'v2');
      let res = await admin(t.url, 'PATCH', `/admin/v1/merchants/${s.merchant_id}`, { status: 'suspended' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('suspended');
      const v2 = await v2Token(s.api_key, s.secret_key);
      expect(v2.status).toBe(401);
      expect(v2.body).toEqual({ respCode: 4001, respMessage: expect.any(String) });
      expect(await v1Token(s)).toBe(4001);
      // A token issued before the suspension stops working too.
      const balance = await client.get(`/payout/v1/balance?wallet_id=${s.wallet_id}`);
      expect(balance.body.resp_code).toBe(4001);

      res = await admin(t.url, 'PATCH', `/admin/v1/merchants/${s.merchant_id}`, { status: 'active' });
      expect(res.body.status).toBe('active');
      expect((await v2Token(s.api_key, s.secret_key)).body.respCode).toBe(2000);
    });
  });

  describe('POST /admin/v1/merchants/:id/wallets', () => {
    it('opens another wallet: 201 {wallet_id}, listed on the merchant', async () => {
      const m = await createMerchant(t.url, 'Two wallets');
      const res = await admin(t.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/wallets`);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ wallet_id: expect.stringMatching(WALLET_ID) });
      const wallets = (await getMerchant(m.merchant_id)).body.wallets as { wallet_id: string }[];
      expect(wallets.map((w) => w.wallet_id).sort()).toEqual([m.wallet_id, res.body.wallet_id as string].sort());
    });

    it('answers 404 for an unknown merchant', async () => {
      const res = await admin(t.url, 'POST', `/admin/v1/merchants/${newId('merchant', Date.now())}/wallets`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(ADMIN_ERROR);
    });
  });

  describe('POST /admin/v1/wallets/:id/credits and GET /admin/v1/wallets/:id', () => {
    let m: TestMerchant;
    beforeAll(async () => {
      m = await createMerchant(t.url, 'Creditable');
    });
    const credit = (body: unknown, walletId = m.wallet_id) =>
      admin(t.url, 'POST', `/admin/v1/wallets/${walletId}/credits`, body);
    const wallet = (walletId = m.wallet_id) => admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`);

    it('credits and answers the new balance as decimal text', async () => {
      const res = await credit({ amount: '1000' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ wallet_id: m.wallet_id, balance: '1000.00' });
      expect((await credit({ amount: '0.5' })).body.balance).toBe('1000.50');
      expect((await credit({ amount: 24.25 })).body.balance).toBe('1024.75');
    });

    it('shows the wallet with its balance', async () => {
      const res = await wallet();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        wallet_id: m.wallet_id,
        merchant_id: m.merchant_id,
        balance: '1024.75',
        on_hold: '0.00',
        currency: 'INR',
      });
      const listed = (await getMerchant(m.merchant_id)).body.wallets as { balance: string }[];
      expect(listed[0]?.balance).toBe('1024.75');
    });

    it('credits a reference once: a repeat answers the same balance and moves nothing', async () => {
      const first = await credit({ amount: '100.00', reference: 'NEFT-UTR-0001' });
      expect(first.status).toBe(200);
      expect(first.body.balance).toBe('1124.75');
      const again = await credit({ amount: '100.00', reference: 'NEFT-UTR-0001' });
      expect(again.status).toBe(200);
      expect(again.body.balance).toBe('1124.75');
      const concurrent = await Promise.all(
        Array.from({ length: 8 }, () => credit({ amount: '10.00', reference: 'NEFT-UTR-0002' })),
      );
      for (const r of concurrent) expect(r.status).toBe(200);
      expect((await wallet()).body.balance).toBe('1134.75');
    });

    it('the ledger agrees with every balance', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, mismatches: [] });
      expect(res.body.wallets_checked).toBeGreaterThan(0);
    });

    it.each([
      ['no amount', {}],
      ['zero', { amount: '0' }],
      ['zero with decimals', { amount: '0.00' }],
      ['negative', { amount: '-5' }],
      ['negative number', { amount: -5 }],
      ['exponent', { amount: '1e3' }],
      ['three decimals', { amount: '1.001' }],
      ['letters', { amount: 'abc' }],
      ['spaces', { amount: ' 5' }],
      ['floating noise', { amount: 0.1 + 0.2 }],
      ['null amount', { amount: null }],
      ['too many digits', { amount: '1234567890123456' }],
      ['empty reference', { amount: '1', reference: '' }],
      ['reference too long', { amount: '1', reference: 'r'.repeat(101) }],
      ['unknown field', { amount: '1', note: 'x' }],
    ])('answers 400 for %s and moves nothing', async (_label, body) => {
      const before = (await wallet()).body.balance;
      const res = await credit(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(ADMIN_ERROR);
      expect((await wallet()).body.balance).toBe(before);
    });

    it('answers 404 for an unknown wallet', async () => {
      const res = await credit({ amount: '1.00' }, newId('wallet', Date.now()));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      expect((await wallet(newId('wallet', Date.now()))).status).toBe(404);
    });
  });

  describe('POST /admin/v1/merchants/:id/credentials/rotate', () => {
    it('issues new keys; the old ones and tokens issued with them stop working', async () => {
      const m = await createMerchant(t.url, 'Rotating');
      const oldV2 = await MerchantClient.connect(t.url, m, 'v2');
      const oldV1 = await MerchantClient.connect(t.url, m, 'v1');
      const balancePath = `/payout/v1/balance?wallet_id=${m.wallet_id}`;
      expect((await oldV2.get(balancePath)).body.resp_code).toBe(2000);
      expect((await oldV1.get(balancePath)).body.resp_code).toBe(2000);

      const res = await admin(t.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        merchant_id: m.merchant_id,
        api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
        secret_key: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
      });
      const rotated = { ...m, api_key: res.body.api_key as string, secret_key: res.body.secret_key as string };
      expect(rotated.api_key).not.toBe(m.api_key);
      expect(rotated.secret_key).not.toBe(m.secret_key);

      // Old credentials: 4001 on both token endpoints, also the old key with the new secret and vice versa.
      const oldCreds = await v2Token(m.api_key, m.secret_key);
      expect(oldCreds.status).toBe(401);
      expect(oldCreds.body.respCode).toBe(4001);
      expect(await v1Token(m)).toBe(4001);
      expect((await v2Token(m.api_key, rotated.secret_key)).body.respCode).toBe(4001);
      expect((await v2Token(rotated.api_key, m.secret_key)).body.respCode).toBe(4001);

      // Tokens issued before the rotation are refused.
      for (const old of [oldV2, oldV1]) {
        const r = await old.get(balancePath);
        expect(r.status).toBe(401);
        expect(r.body.resp_code).toBe(4001);
      }

      // The new credentials work on both endpoints and their tokens are accepted.
      const fresh = await MerchantClient.connect(t.url, rotated, 'v2');
      expect((await fresh.get(balancePath)).body.resp_code).toBe(2000);
      expect(await v1Token(rotated)).toBe(2000);
    });

    it('answers 404 for an unknown merchant', async () => {
      const res = await admin(t.url, 'POST', `/admin/v1/merchants/${newId('merchant', Date.now())}/credentials/rotate`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(ADMIN_ERROR);
    });
  });

  describe('admin authentication', () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/admin/v1/merchants', { name: 'Intruder' }],
      ['GET', `/admin/v1/merchants/${newId('merchant', Date.now())}`],
      ['PATCH', `/admin/v1/merchants/${newId('merchant', Date.now())}`, { status: 'active' }],
      ['POST', `/admin/v1/merchants/${newId('merchant', Date.now())}/wallets`],
      ['POST', `/admin/v1/merchants/${newId('merchant', Date.now())}/credentials/rotate`],
      ['POST', `/admin/v1/wallets/${newId('wallet', Date.now())}/credits`, { amount: '1.00' }],
      ['GET', `/admin/v1/wallets/${newId('wallet', Date.now())}`],
      ['GET', '/admin/v1/payouts'],
      ['POST', `/admin/v1/payouts/${newId('payout', Date.now())}/resolve`, { status: 'SUCCESS' }],
      ['GET', '/admin/v1/webhooks/deliveries'],
      ['POST', '/admin/v1/webhooks/deliveries/1/replay'],
      ['GET', '/admin/v1/ledger/verify'],
    ];
    const badHeaders: [string, Record<string, string>][] = [
      ['no header', {}],
      ['wrong token', { authorization: 'Bearer not-the-admin-token' }],
      ['token with a suffix', { authorization: `Bearer ${TEST_ADMIN_TOKEN}x` }],
      ['token prefix', { authorization: `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}` }],
      ['another scheme', { authorization: `Basic ${TEST_ADMIN_TOKEN}` }],
      ['bare token', { authorization: TEST_ADMIN_TOKEN }],
      ['empty bearer', { authorization: 'Bearer ' }],
    ];

    it.each(routes)('%s %s answers 401 {"error"} for every bad Authorization', async (method, path, body) => {
      for (const [label, headers] of badHeaders) {
        const res = await http(t.url, method, path, { body, headers });
        expect(res.status, `${label}`).toBe(401);
        expect(res.body, label).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      }
    });

    it('creates nothing for an unauthenticated request', async () => {
      const before = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
      await http(t.url, 'POST', '/admin/v1/merchants', { body: { name: 'Intruder' } });
      const after = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
      expect(after.body.wallets_checked).toBe(before.body.wallets_checked);
    });

    it('accepts the bearer scheme case-insensitively', async () => {
      const res = await http(t.url, 'GET', '/admin/v1/ledger/verify', {
        headers: { authorization: `bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(res.status).toBe(200);
    });
  });
});
