import { decryptJsonObject, encryptJson, encryptV1, encryptV2, SCHEMES, type Scheme } from '@payrail/protocol';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initiate,
  initiateOk,
  ISO_MS,
  party,
  senderId,
  setMerchant,
  TXN_ID,
  walletBalance,
  type Party,
} from '../support/collectionFixtures.ts';
import { admin, createMerchant, http, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const JWT_SECRET = 'collection-initiate-test-jwt-secret-012345';
const WIRE_KEYS = [
  'channel',
  'createdAt',
  'expiresAt',
  'fees',
  'intentUrl',
  'payerVpa',
  'paymentMode',
  'paymentUrl',
  'remarks',
  'requestAmount',
  'senderId',
  'status',
  'statusMessage',
  'tax',
  'txnId',
  'txnType',
  'updatedAt',
  'utr',
  'vpa',
  'walletId',
].sort();

/** The query of an intent link as a UPI app reads it. */
function intentParams(url: unknown): Record<string, string> {
  expect(typeof url).toBe('string');
  expect(url as string).toMatch(/^upi:\/\/pay\?/);
  return Object.fromEntries(new URL(url as string).searchParams);
}

describe.each(ENGINES)('POST /collection/v1/initiate on %s', (engine) => {
  let t: TestServer;
  let stranger: TestMerchant;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_JWT_SECRET: JWT_SECRET } });
    stranger = await createMerchant(t.url, 'Stranger');
  });
  afterAll(() => t.close());

  /** Collections recorded for a merchant, as the operator sees them. */
  const recorded = async (merchantId: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/collections?merchant_id=${merchantId}&limit=200`);
    expect(res.status).toBe(200);
    return (res.body.data as unknown[]).length;
  };

  describe.each(SCHEMES)('with a %s session', (scheme: Scheme) => {
    let p: Party;
    beforeAll(async () => {
      p = await party(t.url, scheme, 'Corner Shop');
    });

    it('creates an INITIATED Intent collection and answers the whole object plus intentUrl', async () => {
      const sid = senderId();
      const before = Date.now();
      const res = await initiate(p.client, { senderId: sid, amount: '250.50', remarks: 'Order 42' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ respCode: 2000, respMessage: expect.any(String), data: expect.any(String) });
      const d = res.data as Record<string, string>;
      expect(Object.keys(d).sort()).toEqual(WIRE_KEYS);
      expect(d).toMatchObject({
        senderId: sid,
        walletId: p.merchant.wallet_id,
        requestAmount: '250.50',
        fees: '0.00',
        tax: '0.00',
        paymentMode: 'Intent',
        payerVpa: '',
        utr: '',
        remarks: 'Order 42',
        status: 'INITIATED',
      });
      expect(d.txnId).toMatch(TXN_ID);
      expect(d.statusMessage).toMatch(/\S/);
      for (const f of ['createdAt', 'updatedAt', 'expiresAt'] as const) expect(d[f]).toMatch(ISO_MS);
      expect(d.updatedAt).toBe(d.createdAt);
      const created = Date.parse(d.createdAt as string);
      expect(created).toBeGreaterThanOrEqual(before - 1000);
      expect(created).toBeLessThanOrEqual(Date.now() + 1000);
      // Default PAYRAIL_COLLECTION_TTL: 30 minutes.
      expect(Date.parse(d.expiresAt as string) - created).toBe(30 * 60_000);
      expect(intentParams(d.intentUrl)).toEqual({
        pa: `${p.merchant.merchant_id.toLowerCase()}@payrail`,
        pn: 'Corner Shop',
        am: '250.50',
        tr: d.txnId,
        tn: 'Order 42',
        cu: 'INR',
      });
    });

    it('answers data that only the session scheme decrypts', async () => {
      const res = await initiate(p.client, { senderId: senderId(), amount: '10' });
      const other = scheme === 'v1' ? 'v2' : 'v1';
      const keys = { apiKey: p.merchant.api_key, secretKey: p.merchant.secret_key };
      expect(() => decryptJsonObject(res.body.data, other, keys)).toThrow();
      expect(res.data?.requestAmount).toBe('10.00');
    });

    it.each([
      ['decimal text', '1.00', '1.00'],
      ['whole rupees as text', '99', '99.00'],
      ['one fraction digit', '7.5', '7.50'],
      ['the maximum', '100000.00', '100000.00'],
      ['a JSON number', 250.5, '250.50'],
      ['a whole JSON number', 100000, '100000.00'],
    ])('accepts the amount as %s (%j → %s)', async (_name, amount, text) => {
      const d = await initiateOk(p.client, { amount });
      expect(d.requestAmount).toBe(text);
      expect(intentParams(d.intentUrl).am).toBe(text);
    });

    it('makes a Collect request when payerVpa is given', async () => {
      const d = await initiateOk(p.client, { payerVpa: 'asha.rao@okicici' });
      expect(d).toMatchObject({ paymentMode: 'Collect', payerVpa: 'asha.rao@okicici', status: 'INITIATED' });
      expect(intentParams(d.intentUrl).tr).toBe(d.txnId);
    });

    it('round-trips remarks with spaces, & and # through the intent link', async () => {
      const remarks = 'Invoice #7 & tip for 2 cups + 1/2 = 100%';
      const d = await initiateOk(p.client, { remarks });
      expect(d.remarks).toBe(remarks);
      expect(intentParams(d.intentUrl).tn).toBe(remarks);
      expect((d.intentUrl as string).split('#')).toHaveLength(1);
    });

    it('leaves tn out of the link when there are no remarks', async () => {
      const d = await initiateOk(p.client, { remarks: '' });
      expect(d.remarks).toBe('');
      expect(intentParams(d.intentUrl)).not.toHaveProperty('tn');
    });

    it('credits the named wallet when walletId is given', async () => {
      const created = await admin(t.url, 'POST', `/admin/v1/merchants/${p.merchant.merchant_id}/wallets`);
      expect(created.status).toBe(201);
      const walletId = created.body.wallet_id as string;
      const d = await initiateOk(p.client, { walletId });
      expect(d.walletId).toBe(walletId);
      const none = await initiateOk(p.client, {});
      expect(none.walletId).toBe(p.merchant.wallet_id);
    });

    it('records nothing and moves no money on initiation', async () => {
      const balance = await walletBalance(p.client);
      await initiateOk(p.client, { amount: '5000.00' });
      expect(await walletBalance(p.client)).toBe(balance);
    });
  });

  describe('payee of the intent link', () => {
    it('uses the UPI settings of the merchant', async () => {
      const p = await party(t.url, 'v2', 'Legal Name Pvt Ltd');
      await setMerchant(t.url, p.merchant.merchant_id, { upi_vpa: 'shop@okbank', upi_payee_name: 'Shop & Café #1' });
      const d = await initiateOk(p.client, { amount: '12.30', remarks: 'tea' });
      expect(intentParams(d.intentUrl)).toEqual({
        pa: 'shop@okbank',
        pn: 'Shop & Café #1',
        am: '12.30',
        tr: d.txnId,
        tn: 'tea',
        cu: 'INR',
      });
    });

    it('uses the merchant name when only upi_vpa is set, and the sandbox address when only the name is', async () => {
      const p = await party(t.url, 'v1', 'Name Only');
      await setMerchant(t.url, p.merchant.merchant_id, { upi_vpa: 'only.vpa@okaxis' });
      expect(intentParams((await initiateOk(p.client)).intentUrl)).toMatchObject({
        pa: 'only.vpa@okaxis',
        pn: 'Name Only',
      });
      await setMerchant(t.url, p.merchant.merchant_id, { upi_vpa: null, upi_payee_name: 'Display Name' });
      expect(intentParams((await initiateOk(p.client)).intentUrl)).toMatchObject({
        pa: `${p.merchant.merchant_id.toLowerCase()}@payrail`,
        pn: 'Display Name',
      });
    });
  });

  describe('refusals record nothing', () => {
    let p: Party;
    let otherWallet: string;
    beforeAll(async () => {
      p = await party(t.url, 'v2');
      otherWallet = stranger.wallet_id;
    });

    const amountCases: [string, unknown][] = [
      ['below the minimum', '0.99'],
      ['zero', '0.00'],
      ['above the maximum', '100000.01'],
      ['three fraction digits', '1.005'],
      ['negative', '-1.00'],
      ['with an exponent', '1e2'],
      ['with a space', '10 .00'],
      ['missing', undefined],
      ['null', null],
      ['a number below the minimum', 0.5],
      ['a number above the maximum', 100000.5],
      ['an object', { amount: '1.00' }],
    ];

    it.each(amountCases)('amount %s → 4110 (HTTP 400)', async (_name, amount) => {
      const before = await recorded(p.merchant.merchant_id);
      const res = await initiate(p.client, { senderId: senderId(), amount });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ respCode: 4110, respMessage: expect.any(String) });
      expect(await recorded(p.merchant.merchant_id)).toBe(before);
    });

    const fieldCases: [string, string, () => Record<string, unknown>][] = [
      ['senderId missing', 'senderId', () => ({ senderId: undefined })],
      ['senderId empty', 'senderId', () => ({ senderId: '' })],
      ['senderId of 51 characters', 'senderId', () => ({ senderId: 'a'.repeat(51) })],
      ['senderId with a space', 'senderId', () => ({ senderId: 'a b' })],
      ['senderId a number', 'senderId', () => ({ senderId: 1234 })],
      ['remarks too long', 'remarks', () => ({ remarks: 'r'.repeat(256) })],
      ['remarks not text', 'remarks', () => ({ remarks: ['x'] })],
      ['walletId malformed', 'walletId', () => ({ walletId: 'wallet-1' })],
      ['walletId unknown', 'walletId', () => ({ walletId: 'WL00000000000000000000000000' })],
      ["walletId another merchant's", 'walletId', () => ({ walletId: otherWallet })],
      ['callbackUrl not a URL', 'callbackUrl', () => ({ callbackUrl: 'merchant.example/hook' })],
      ['callbackUrl not http(s)', 'callbackUrl', () => ({ callbackUrl: 'javascript:alert(1)' })],
      ['callbackUrl with credentials', 'callbackUrl', () => ({ callbackUrl: 'https://u:p@merchant.example/h' })],
      ['payerVpa without a handle', 'payerVpa', () => ({ payerVpa: 'asha' })],
      ['payerVpa with a space', 'payerVpa', () => ({ payerVpa: 'asha rao@okicici' })],
    ];

    it.each(fieldCases)('%s → 4111 naming %s (HTTP 400)', async (_name, field, over) => {
      const before = await recorded(p.merchant.merchant_id);
      const res = await initiate(p.client, { senderId: senderId(), amount: '10.00', ...over() });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ respCode: 4111, respMessage: expect.stringContaining(field) });
      expect(await recorded(p.merchant.merchant_id)).toBe(before);
    });
  });

  describe('duplicate senderId (4112, HTTP 409)', () => {
    it('answers the existing collection with its intent link and records nothing new', async () => {
      const p = await party(t.url, 'v1');
      const first = await initiateOk(p.client, { amount: '42.00', remarks: 'first' });
      const res = await initiate(p.client, { senderId: first.senderId, amount: '99.00', remarks: 'second' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ respCode: 4112, respMessage: expect.any(String), data: expect.any(String) });
      expect(res.data).toEqual(first);
      expect(await recorded(p.merchant.merchant_id)).toBe(1);
    });

    it('lets another merchant, and a payout, use the same senderId', async () => {
      const [a, b] = await Promise.all([party(t.url, 'v2', 'A'), party(t.url, 'v2', 'B')]);
      const sid = senderId('shared');
      const first = await initiateOk(a.client, { senderId: sid });
      const second = await initiateOk(b.client, { senderId: sid });
      expect(second.txnId).not.toBe(first.txnId);
      await admin(t.url, 'POST', `/admin/v1/wallets/${a.merchant.wallet_id}/credits`, { amount: '100.00' });
      const payout = await a.client.post('/payout/v1/initiate', {
        sender_id: sid,
        wallet_id: a.merchant.wallet_id,
        payment_mode: 'IMPS',
        amount: '1.00',
        beneficiary: {
          beneficiary_name: 'Asha Rao',
          beneficiary_ifsc: 'HDFC0001234',
          beneficiary_acc_number: '123456789012',
        },
      });
      expect(payout.body.resp_code).toBe(2000);
    });

    it('lets exactly one of ten concurrent requests with one senderId through', async () => {
      const p = await party(t.url, 'v2');
      const sid = senderId('race');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => initiate(p.client, { senderId: sid, amount: `${i + 1}.00` })),
      );
      const ok = results.filter((r) => r.body.respCode === 2000);
      const dup = results.filter((r) => r.body.respCode === 4112);
      expect(ok).toHaveLength(1);
      expect(dup).toHaveLength(9);
      for (const r of dup) {
        expect(r.status).toBe(409);
        expect(r.data?.txnId).toBe(ok[0]?.data?.txnId);
        expect(r.data?.requestAmount).toBe(ok[0]?.data?.requestAmount);
      }
      expect(await recorded(p.merchant.merchant_id)).toBe(1);
    });
  });

  describe('undecryptable payloads (4014, HTTP 400)', () => {
    const encryptRaw = (p: Party, text: string) => {
      const keys = { apiKey: p.merchant.api_key, secretKey: p.merchant.secret_key };
      return p.client.scheme === 'v1' ? encryptV1(text, keys) : encryptV2(text, keys);
    };
    const good = () => ({ senderId: senderId(), amount: '10.00' });
    const bodies: [string, (p: Party) => unknown][] = [
      ['payload not base64', () => ({ payload: '!!!not-base64!!!' })],
      ['payload empty', () => ({ payload: '' })],
      ['payload missing', () => ({})],
      ['payload a number', () => ({ payload: 42 })],
      ['payload a plain object', () => ({ payload: good() })],
      [
        "payload encrypted with another merchant's keys",
        (p) => ({
          payload: encryptJson(good(), p.client.scheme, { apiKey: stranger.api_key, secretKey: stranger.secret_key }),
        }),
      ],
      [
        'payload encrypted with the other scheme',
        (p) => ({
          payload: encryptJson(good(), p.client.scheme === 'v1' ? 'v2' : 'v1', {
            apiKey: p.merchant.api_key,
            secretKey: p.merchant.secret_key,
          }),
        }),
      ],
      [
        'payload truncated',
        (p) => {
          const raw = Buffer.from(p.client.encrypt(good()), 'base64');
          return { payload: raw.subarray(0, raw.length - 5).toString('base64') };
        },
      ],
      [
        'payload with a flipped byte',
        (p) => {
          const raw = Buffer.from(p.client.encrypt(good()), 'base64');
          raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 0xff;
          return { payload: raw.toString('base64') };
        },
      ],
      ['plaintext not JSON', (p) => ({ payload: encryptRaw(p, 'senderId=a&amount=10') })],
      ['plaintext a JSON array', (p) => ({ payload: p.client.encrypt([good()]) })],
      ['plaintext JSON null', (p) => ({ payload: p.client.encrypt(null) })],
      ['plaintext a JSON string', (p) => ({ payload: p.client.encrypt(JSON.stringify(good())) })],
    ];

    describe.each(SCHEMES)('with a %s session', (scheme) => {
      let p: Party;
      beforeAll(async () => {
        p = await party(t.url, scheme);
      });

      it.each(bodies)('%s', async (_name, build) => {
        const res = await http(t.url, 'POST', '/collection/v1/initiate', { body: build(p), headers: p.client.auth() });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ respCode: 4014, respMessage: expect.any(String) });
        expect(await recorded(p.merchant.merchant_id)).toBe(0);
      });
    });
  });

  describe('token (4008, HTTP 401)', () => {
    let p: Party;
    beforeAll(async () => {
      p = await party(t.url, 'v2');
    });
    const now = () => Math.floor(Date.now() / 1000);
    const sign = (exp: number, secret = JWT_SECRET) =>
      new SignJWT({ sub: p.merchant.merchant_id, scheme: 'v2', cv: 1 })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('payrail')
        .setIssuedAt(exp - 300)
        .setExpirationTime(exp)
        .setJti('0b8f6f0e-0000-4000-8000-000000000001')
        .sign(new TextEncoder().encode(secret));

    it('accepts a token signed with the configured key (the control of the cases below)', async () => {
      const res = await http(t.url, 'POST', '/collection/v1/initiate', {
        body: { payload: p.client.encrypt({ senderId: senderId(), amount: '1.00' }) },
        headers: { authorization: `Bearer ${await sign(now() + 300)}` },
      });
      expect(res.body.respCode).toBe(2000);
    });

    const cases: [string, () => Promise<Record<string, string>>][] = [
      ['Authorization missing', async () => ({})],
      ['garbage token', async () => ({ authorization: 'Bearer not-a-token' })],
      ['token without Bearer', async () => ({ authorization: p.client.token })],
      ['expired token', async () => ({ authorization: `Bearer ${await sign(now() - 60)}` })],
      [
        'token signed with another key',
        async () => ({ authorization: `Bearer ${await sign(now() + 300, 'y'.repeat(40))}` }),
      ],
    ];

    it.each(cases)('%s', async (_name, headers) => {
      const before = await recorded(p.merchant.merchant_id);
      const res = await http(t.url, 'POST', '/collection/v1/initiate', {
        body: { payload: p.client.encrypt({ senderId: senderId(), amount: '1.00' }) },
        headers: await headers(),
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ respCode: 4008, respMessage: expect.any(String) });
      expect(await recorded(p.merchant.merchant_id)).toBe(before);
    });

    it('checks the token before the body', async () => {
      const res = await http(t.url, 'POST', '/collection/v1/initiate', { body: { payload: '!!!' } });
      expect(res.status).toBe(401);
      expect(res.body.respCode).toBe(4008);
    });

    it("refuses a suspended merchant's open session", async () => {
      const q = await party(t.url, 'v1');
      await setMerchant(t.url, q.merchant.merchant_id, { status: 'suspended' });
      const res = await initiate(q.client, { senderId: senderId(), amount: '1.00' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ respCode: 4008, respMessage: expect.any(String) });
      expect(await recorded(q.merchant.merchant_id)).toBe(0);
    });
  });
});
