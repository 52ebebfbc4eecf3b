import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/*
 * An integration written from the provider interface's documentation alone (docs/merchant/provider-interface.md):
 * node:crypto and fetch, nothing of ours on the client side. V1 everywhere (the scheme the provider interface
 * documents its status endpoints with), no X-Api-Key header, the collection fields and the POST status form that
 * existing integrations send, and webhooks checked by the plain body HMAC only. It runs twice: at the root with the encrypted V1 token request, and under `/api` (the provider's
 * documented base URL) with the credentials in plain JSON, as the live service takes them, for a merchant whose
 * `default_scheme` is v1, and who pays fees (a pricing plan: the answers carry `fees` and `tax`, which such an
 * integration ignores).
 */

interface Variant {
  name: string;
  /** Prefix of every merchant path. */
  prefix: '' | '/api';
  /** How the token is asked for on the V1 path. */
  tokenRequest: 'encrypted' | 'plain';
}

const VARIANTS: Variant[] = [
  { name: 'root, encrypted V1 token request', prefix: '', tokenRequest: 'encrypted' },
  { name: '/api, plain V1 credentials', prefix: '/api', tokenRequest: 'plain' },
];
const CASES = ENGINES.flatMap((engine) => VARIANTS.map((variant) => ({ engine, variant })));

function v1Encrypt(plain: unknown, apiKey: string, secretKey: string): string {
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(apiKey, 'utf8'), Buffer.from(secretKey, 'utf8'));
  return Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]).toString('base64');
}

function v1Decrypt(data: string, apiKey: string, secretKey: string): Record<string, unknown> {
  const decipher = createDecipheriv('aes-256-cbc', Buffer.from(apiKey, 'utf8'), Buffer.from(secretKey, 'utf8'));
  const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

/** The check an existing integration does: `X-Signature: sha256=<hex HMAC-SHA256(webhook_secret, body)>`. */
function xSignatureValid(header: string | undefined, body: string, webhookSecret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(createHmac('sha256', webhookSecret).update(body).digest('hex'));
  return header.split(',').some((part) => {
    const given = Buffer.from(part.trim().replace(/^sha256=/, ''));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A response whose body is read as loosely typed JSON, as a hand-written integration would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const asJson = (res: Response) => ({ status: res.status, json: (): Promise<Loose> => res.json() });

describe.each(CASES)('an integration of the provider interface ($engine, $variant.name)', ({ engine, variant }) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let merchant: { merchant_id: string; api_key: string; secret_key: string; webhook_secret: string; wallet_id: string };
  let token: string;

  /** A merchant path as this variant spells it. */
  const api = (path: string) => `${variant.prefix}${path}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(asJson);
  const bearer = () => ({ authorization: `Bearer ${token}` });
  const decrypt = (data: unknown) => v1Decrypt(String(data), merchant.api_key, merchant.secret_key);
  const encrypt = (plain: unknown) => v1Encrypt(plain, merchant.api_key, merchant.secret_key);

  beforeAll(async () => {
    t = await startTestServer(engine);
    receiver = await new WebhookReceiver().start();
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    merchant = await (await post('/admin/v1/merchants', { name: 'Seed Traders' }, admin)).json();
    const credit = await post(`/admin/v1/wallets/${merchant.wallet_id}/credits`, { amount: '5000.00' }, admin);
    expect(credit.status).toBe(200);
    if (variant.tokenRequest === 'plain') {
      const patch = await fetch(`${t.url}/admin/v1/merchants/${merchant.merchant_id}`, {
        method: 'PATCH',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ default_scheme: 'v1' }),
      });
      expect(patch.status).toBe(200);
      const plan = await fetch(`${t.url}/admin/v1/merchants/${merchant.merchant_id}/pricing`, {
        method: 'PUT',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Seed', rules: { IMPS: { slabs: [{ flat: '5.00' }] } } }),
      });
      expect(plan.status).toBe(200);
    }
  });
  /** A priced merchant also paid ₹5.00 and ₹0.90 GST on its payout. */
  const charged = () => (variant.tokenRequest === 'plain' ? '4868.60' : '4874.50');

  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
  });

  it('gets a V1 token with no other header', async () => {
    const res = await post(
      api('/v1/auth/clients/token'),
      variant.tokenRequest === 'plain'
        ? { api_key: merchant.api_key, secret_key: merchant.secret_key }
        : { payload: encrypt({ apiKey: merchant.api_key, secretKey: merchant.secret_key }) },
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ respCode: 2000, expiresIn: 300, tokenType: 'Bearer' });
    token = String(decrypt(body.data).token);
    expect(token.split('.')).toHaveLength(3);
  });

  it('sends a payout (flat shape, numeric amount) and sees it succeed, with a webhook checked by X-Signature', async () => {
    const res = await post(
      api('/payout/v1/initiate'),
      {
        payload: encrypt({
          sender_id: 'seed-payout-1',
          wallet_id: merchant.wallet_id,
          payment_mode: 'IMPS',
          amount: 125.5,
          beneficiary_name: 'Asha Rao',
          beneficiary_acc_number: '100000000001',
          beneficiary_ifsc: 'SBOX0000001',
          remarks: 'seed integration',
          callback_url: `${receiver.url}/payouts`,
        }),
      },
      bearer(),
    );
    const body = await res.json();
    expect(body.resp_code).toBe(2000);
    const payout = decrypt(body.data);
    expect(payout).toMatchObject({ sender_id: 'seed-payout-1', status: 'INITIATED', amount: '125.50' });

    const final: Loose = await eventually(async () => {
      const r = await fetch(`${t.url}${api('/payout/v1/status')}?transaction_id=${payout.transaction_id}`, {
        headers: bearer(),
      });
      const b: Loose = await r.json();
      const p = decrypt(b.data);
      return p.status === 'SUCCESS' ? p : null;
    });
    expect(final.utr_number).not.toBe('');

    const hook: Loose = await eventually(() => receiver.at('/payouts').find((h) => h.body.includes('payout.success')));
    expect(xSignatureValid(hook.headers['x-signature'] as string, hook.body, merchant.webhook_secret)).toBe(true);
    expect(xSignatureValid(hook.headers['x-signature'] as string, `${hook.body} `, merchant.webhook_secret)).toBe(
      false,
    );
    expect(hook.headers['user-agent']).toMatch(/^Payrail-Webhook\//);
    // Compact JSON: re-serialising the parsed body gives the same bytes, so either way of hashing agrees.
    expect(JSON.stringify(JSON.parse(hook.body))).toBe(hook.body);
    const event: Loose = JSON.parse(hook.body);
    expect(decrypt(event.data)).toMatchObject({ transaction_id: payout.transaction_id, status: 'SUCCESS' });
  });

  it('reads available_balance', async () => {
    const res = await fetch(`${t.url}${api('/payout/v1/balance')}?wallet_id=${merchant.wallet_id}`, {
      headers: bearer(),
    });
    const balance = decrypt(((await res.json()) as Loose).data);
    expect(balance.available_balance).toBe(charged());
    expect(balance.balance).toBe(balance.available_balance);
  });

  it('creates a collection with requestAmount and vpa, opens its paymentUrl and reads status by POST', async () => {
    const res = await post(
      api('/collection/v1/initiate'),
      {
        payload: encrypt({
          senderId: 'seed-col-1',
          requestAmount: '250.00',
          vpa: 'seedtraders@okaxis',
          txnType: 'INTENT',
          channel: 'web',
          remarks: 'Invoice 1',
          callbackUrl: `${receiver.url}/collections`,
        }),
      },
      bearer(),
    );
    const body = await res.json();
    expect(body.respCode).toBe(2000);
    const collection = decrypt(body.data);
    expect(collection).toMatchObject({ senderId: 'seed-col-1', requestAmount: '250.00', status: 'INITIATED' });
    expect(String(collection.intentUrl)).toContain('pa=seedtraders@okaxis');
    const paymentUrl = String(collection.paymentUrl);
    expect(paymentUrl).toMatch(/^https?:\/\//);
    expect(paymentUrl).not.toContain(String(collection.txnId));

    const page = await fetch(paymentUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('250.00');

    const simulated = await post(
      api(`/sandbox/v1/collections/${collection.txnId}/simulate`),
      { outcome: 'SUCCESS' },
      bearer(),
    );
    expect((await simulated.json()).respCode).toBe(2000);

    for (const query of [{ txnId: collection.txnId }, { senderId: 'seed-col-1' }]) {
      const status = await post(api('/collection/v1/status'), { payload: encrypt(query) }, bearer());
      const statusBody = await status.json();
      expect(statusBody.respCode).toBe(2000);
      expect(decrypt(statusBody.data)).toMatchObject({ txnId: collection.txnId, status: 'SUCCESS' });
    }

    const hook: Loose = await eventually(() =>
      receiver.at('/collections').find((h) => h.body.includes('collection.success')),
    );
    expect(xSignatureValid(hook.headers['x-signature'] as string, hook.body, merchant.webhook_secret)).toBe(true);
  });

  it('answers the POST status form with the provider interface codes', async () => {
    const unauthenticated = await post(api('/collection/v1/status'), { payload: encrypt({ txnId: 'CT0' }) });
    expect((await unauthenticated.json()).respCode).toBe(4008);
    const cases: [unknown, number][] = [
      [{}, 4000],
      [{ txnId: 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D', senderId: 'x' }, 4103],
      [{ txnId: 'nope' }, 4105],
      [{ txnId: 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }, 4104],
    ];
    for (const [query, code] of cases) {
      const res = await post(api('/collection/v1/status'), { payload: encrypt(query) }, bearer());
      expect((await res.json()).respCode, JSON.stringify(query)).toBe(code);
    }
    const garbage = await post(api('/collection/v1/status'), { payload: 'bm90IGVuY3J5cHRlZA==' }, bearer());
    expect((await garbage.json()).respCode).toBe(4014);
  });
});
