import { encryptJson } from '@payrail/protocol';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, party, senderId, UNKNOWN_TXN_ID, type Party } from '../support/collectionFixtures.ts';
import { http, MerchantClient } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const JWT_SECRET = 'collection-status-post-test-jwt-secret-0123';
const LIMIT = 60;

/**
 * POST /collection/v1/status with {"payload": …} decrypting to {"txnId"} or {"senderId"}: the GET form's rules
 * 1–5 in the same order, the same codes and the same rate limit, except that the token comes first (4008), then
 * the payload must decrypt (4014).
 */
describe.each(ENGINES)('POST /collection/v1/status on %s', (engine) => {
  let t: TestServer;
  let owner: Party;
  let other: Party;
  let mine: Awaited<ReturnType<typeof initiateOk>>;
  let expiredToken: string;

  beforeAll(async () => {
    t = await startTestServer(engine, {
      env: { PAYRAIL_JWT_SECRET: JWT_SECRET, PAYRAIL_RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    });
    [owner, other] = await Promise.all([party(t.url, 'v2', 'Owner'), party(t.url, 'v1', 'Other')]);
    mine = await initiateOk(owner.client, { amount: '75.25', channel: 'pos' });
    const exp = Math.floor(Date.now() / 1000) - 60;
    expiredToken = await new SignJWT({ sub: owner.merchant.merchant_id, scheme: 'v2', cv: 1 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('payrail')
      .setIssuedAt(exp - 300)
      .setExpirationTime(exp)
      .setJti('0b8f6f0e-0000-4000-8000-000000000003')
      .sign(new TextEncoder().encode(JWT_SECRET));
  });
  afterAll(() => t.close());

  const post = (body: unknown, headers: Record<string, string>) =>
    http(t.url, 'POST', '/collection/v1/status', { body, headers });
  const expectCode = (res: { status: number; body: Record<string, unknown> }, code: number, httpStatus: number) =>
    expect({ status: res.status, body: res.body }).toEqual({
      status: httpStatus,
      body: { respCode: code, respMessage: expect.any(String) },
    });
  /** The payload sent by the owner (v2) and by the other merchant (v1), each in its own session. */
  const asBoth = async (plain: unknown, code: number, httpStatus: number) => {
    for (const p of [owner, other]) expectCode(await p.client.post('/collection/v1/status', plain), code, httpStatus);
  };

  describe('the token comes first (4008, HTTP 401)', () => {
    const tokens: [string, () => Record<string, string>][] = [
      ['no Authorization', () => ({})],
      ['a garbage token', () => ({ authorization: 'Bearer not.a.token' })],
      ['an expired token', () => ({ authorization: `Bearer ${expiredToken}` })],
      ['a token without Bearer', () => ({ authorization: owner.client.token })],
    ];
    it.each(tokens)('%s → 4008 whatever the payload', async (_name, headers) => {
      for (const body of [
        { payload: owner.client.encrypt({ txnId: mine.txnId }) },
        { payload: owner.client.encrypt({ txnId: mine.txnId, senderId: mine.senderId }) },
        { payload: owner.client.encrypt({}) },
        { payload: '!!!not-base64!!!' },
        {},
      ]) {
        expectCode(await post(body, headers()), 4008, 401);
      }
    });
  });

  describe('then the payload must decrypt (4014, HTTP 400)', () => {
    const bodies: [string, () => unknown][] = [
      ['payload missing', () => ({})],
      ['payload not base64', () => ({ payload: '!!!' })],
      ['payload a number', () => ({ payload: 7 })],
      ['payload a plain object', () => ({ payload: { txnId: mine.txnId } })],
      ['encrypted with another merchant’s keys', () => ({ payload: other.client.encrypt({ txnId: mine.txnId }) })],
      [
        'encrypted with the other scheme',
        () => ({
          payload: encryptJson({ txnId: mine.txnId }, 'v1', {
            apiKey: owner.merchant.api_key,
            secretKey: owner.merchant.secret_key,
          }),
        }),
      ],
      ['plaintext a JSON array', () => ({ payload: owner.client.encrypt([mine.txnId]) })],
      ['plaintext a JSON string', () => ({ payload: owner.client.encrypt(mine.txnId) })],
    ];
    it.each(bodies)('%s', async (_name, body) => {
      expectCode(await post(body(), owner.client.auth()), 4014, 400);
    });
  });

  describe('then the rules of the GET form, in the same order', () => {
    it.each([{}, { txnId: '' }, { senderId: '' }, { txnId: null, senderId: null }, { other: 1 }])(
      'rule 1: neither identifier (%j) → 4000',
      async (plain) => {
        await asBoth(plain, 4000, 400);
      },
    );

    it('rule 2: both identifiers → 4103, even with a malformed or unknown txnId', async () => {
      await asBoth({ txnId: mine.txnId, senderId: mine.senderId }, 4103, 400);
      await asBoth({ txnId: 'garbage', senderId: 'x' }, 4103, 400);
      await asBoth({ txnId: UNKNOWN_TXN_ID, senderId: 'nobody' }, 4103, 400);
    });

    it.each([
      ['garbage', 'garbage'],
      ['a payout id', 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D'],
      ['lower case', 'ct01jd3k8q5w2v7x9y0z1a2b3c4d'],
      ['a number', 12345],
      ['an object', { id: 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }],
    ])('rule 3: malformed txnId (%s) → 4105', async (_name, txnId) => {
      await asBoth({ txnId }, 4105, 400);
    });

    it('rule 4: a well-formed unknown txnId → 4104', async () => {
      await asBoth({ txnId: UNKNOWN_TXN_ID }, 4104, 404);
    });

    it("rule 5: another merchant's txnId → 4107", async () => {
      expectCode(await other.client.post('/collection/v1/status', { txnId: mine.txnId }), 4107, 403);
    });

    it('senderId is looked up within the caller’s own collections: unknown or another’s → 4104', async () => {
      await asBoth({ senderId: 'never-used' }, 4104, 404);
      await asBoth({ senderId: 'not valid!' }, 4104, 404);
      expectCode(await other.client.post('/collection/v1/status', { senderId: mine.senderId }), 4104, 404);
    });
  });

  describe('success (2000)', () => {
    it('answers the same object as the GET form, by txnId and by senderId', async () => {
      const get = await owner.client.get(`/collection/v1/status?txnId=${mine.txnId}`);
      const byTxn = await owner.client.post('/collection/v1/status', { txnId: mine.txnId });
      const bySender = await owner.client.post('/collection/v1/status', { senderId: mine.senderId });
      expect(byTxn.status).toBe(200);
      expect(byTxn.body).toEqual({ respCode: 2000, respMessage: expect.any(String), data: expect.any(String) });
      expect(byTxn.data).toEqual(get.data);
      expect(bySender.data).toEqual(get.data);
      expect(byTxn.data).toMatchObject({ txnId: mine.txnId, requestAmount: '75.25', channel: 'pos' });
      expect(byTxn.data?.paymentUrl).toBe(mine.paymentUrl);
    });

    it('answers in the scheme of the asking session (a V1 session of the same merchant)', async () => {
      const v1 = await MerchantClient.connect(t.url, owner.merchant, 'v1');
      const res = await v1.post('/collection/v1/status', { senderId: mine.senderId });
      expect(res.body.respCode).toBe(2000);
      expect(res.data?.txnId).toBe(mine.txnId);
    });
  });

  describe('rate limit', () => {
    it('shares one counter per merchant with the GET form', async () => {
      const p = await party(t.url, 'v2', 'Busy');
      const c = await initiateOk(p.client, { senderId: senderId('rl') });
      // Half of the allowance through each form: with separate counters neither would be exhausted.
      for (let i = 0; i < LIMIT / 2; i++) {
        expect((await p.client.get(`/collection/v1/status?txnId=${c.txnId}`)).body.respCode).toBe(2000);
        expect((await p.client.post('/collection/v1/status', { txnId: c.txnId })).body.respCode).toBe(2000);
      }
      for (const res of [
        await p.client.post('/collection/v1/status', { txnId: c.txnId }),
        await p.client.get(`/collection/v1/status?txnId=${c.txnId}`),
      ]) {
        expect(res.status).toBe(429);
        expect(res.body).toEqual({ respCode: 4290, respMessage: 'Rate limit exceeded' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
      }
      // Another merchant is not affected.
      expect((await owner.client.post('/collection/v1/status', { txnId: mine.txnId })).body.respCode).toBe(2000);
    });
  });
});
