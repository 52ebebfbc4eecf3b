import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initiateOk,
  ISO_MS,
  party,
  senderId,
  simulate,
  UNKNOWN_TXN_ID,
  type Party,
} from '../support/collectionFixtures.ts';
import { http, MerchantClient } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const JWT_SECRET = 'collection-status-test-jwt-secret-0123456789';
const STATUS_KEYS = [
  'channel',
  'createdAt',
  'expiresAt',
  'fees',
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

type TokenKind = 'none' | 'garbage' | 'expired' | 'owner' | 'other';
const ALL_TOKENS: TokenKind[] = ['none', 'garbage', 'expired', 'owner', 'other'];

describe.each(ENGINES)('GET /collection/v1/status on %s', (engine) => {
  let t: TestServer;
  let owner: Party;
  let other: Party;
  let mine: Awaited<ReturnType<typeof initiateOk>>;
  let expiredToken: string;

  beforeAll(async () => {
    t = await startTestServer(engine, {
      env: { PAYRAIL_JWT_SECRET: JWT_SECRET, PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    [owner, other] = await Promise.all([party(t.url, 'v2', 'Owner'), party(t.url, 'v1', 'Other')]);
    mine = await initiateOk(owner.client, { amount: '75.25', remarks: 'status test' });
    const exp = Math.floor(Date.now() / 1000) - 60;
    expiredToken = await new SignJWT({ sub: owner.merchant.merchant_id, scheme: 'v2', cv: 1 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('payrail')
      .setIssuedAt(exp - 300)
      .setExpirationTime(exp)
      .setJti('0b8f6f0e-0000-4000-8000-000000000002')
      .sign(new TextEncoder().encode(JWT_SECRET));
  });
  afterAll(() => t.close());

  const headersFor = (kind: TokenKind): Record<string, string> => {
    switch (kind) {
      case 'none':
        return {};
      case 'garbage':
        return { authorization: 'Bearer not.a.token' };
      case 'expired':
        return { authorization: `Bearer ${expiredToken}` };
      case 'owner':
        return owner.client.auth();
      case 'other':
        return other.client.auth();
    }
  };

  /** GET with a raw query string (so that empty and repeated parameters can be sent as they are). */
  const get = (query: string, kind: TokenKind) =>
    http(t.url, 'GET', `/collection/v1/status${query ? `?${query}` : ''}`, { headers: headersFor(kind) });

  const expectCode = async (query: string, kinds: TokenKind[], code: number, httpStatus: number) => {
    for (const kind of kinds) {
      const res = await get(query, kind);
      expect({ kind, status: res.status, body: res.body }).toEqual({
        kind,
        status: httpStatus,
        body: { respCode: code, respMessage: expect.any(String) },
      });
    }
  };

  describe('the provider interface rules in precedence order', () => {
    it.each(['', 'txnId=', 'senderId=', 'txnId=&senderId=', 'other=1'])(
      'rule 1: neither identifier (%j) → 4000 (400), whatever the token',
      async (query) => {
        await expectCode(query, ALL_TOKENS, 4000, 400);
      },
    );

    it('rule 2: both identifiers → 4103 (400), whatever the token and even with a malformed txnId', async () => {
      await expectCode(`txnId=${mine.txnId}&senderId=${mine.senderId}`, ALL_TOKENS, 4103, 400);
      await expectCode('txnId=garbage&senderId=x', ALL_TOKENS, 4103, 400);
      await expectCode(`txnId=${UNKNOWN_TXN_ID}&senderId=nobody`, ALL_TOKENS, 4103, 400);
    });

    it.each([
      ['garbage', 'garbage'],
      ['a payout id', 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D'],
      ['lower case', 'ct01jd3k8q5w2v7x9y0z1a2b3c4d'],
      ['25 characters after CT', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C'],
      ['27 characters after CT', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4DE'],
      ['the letter I', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3CI'],
      ['the letter L', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3CL'],
      ['the letter O', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3CO'],
      ['the letter U', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3CU'],
      ['a trailing space', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D%20'],
      ['a leading space', '%20CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D'],
      ['CT only', 'CT'],
    ])('rule 3: malformed txnId (%s) → 4105 (400), whatever the token', async (_name, txnId) => {
      await expectCode(`txnId=${txnId}`, ALL_TOKENS, 4105, 400);
    });

    it('rule 4: a well-formed unknown txnId → 4104 (404), whatever the token', async () => {
      await expectCode(`txnId=${UNKNOWN_TXN_ID}`, ALL_TOKENS, 4104, 404);
    });

    it("rule 5: another merchant's txnId → 4107 (403)", async () => {
      await expectCode(`txnId=${mine.txnId}`, ['other'], 4107, 403);
    });

    it('rule 6: an existing txnId without a valid token → 4008 (401)', async () => {
      await expectCode(`txnId=${mine.txnId}`, ['none', 'garbage', 'expired'], 4008, 401);
      const basic = await http(t.url, 'GET', `/collection/v1/status?txnId=${mine.txnId}`, {
        headers: { authorization: owner.client.token },
      });
      expect(basic.status).toBe(401);
      expect(basic.body).toEqual({ respCode: 4008, respMessage: expect.any(String) });
    });

    it('senderId is looked up within the caller’s merchant: unknown → 4104, another’s → 4104, no token → 4008', async () => {
      await expectCode('senderId=never-used', ['owner', 'other'], 4104, 404);
      await expectCode(`senderId=${mine.senderId}`, ['other'], 4104, 404);
      await expectCode(`senderId=${mine.senderId}`, ['none', 'garbage', 'expired'], 4008, 401);
    });

    it('a repeated parameter is a malformed request, not a lookup', async () => {
      const res = await get(`txnId=${mine.txnId}&txnId=${mine.txnId}`, 'owner');
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.respCode).not.toBe(2000);
    });
  });

  describe('success (2000)', () => {
    it('answers the collection object by txnId, encrypted with the session scheme', async () => {
      const res = await owner.client.get(`/collection/v1/status?txnId=${mine.txnId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ respCode: 2000, respMessage: expect.any(String), data: expect.any(String) });
      const d = res.data as Record<string, string>;
      expect(Object.keys(d).sort()).toEqual(STATUS_KEYS);
      const { intentUrl: _ignored, ...created } = mine;
      expect(d).toEqual(created);
      for (const f of ['createdAt', 'updatedAt', 'expiresAt'] as const) expect(d[f]).toMatch(ISO_MS);
    });

    it('answers the same object by senderId', async () => {
      const byTxn = await owner.client.get(`/collection/v1/status?txnId=${mine.txnId}`);
      const bySender = await owner.client.get(`/collection/v1/status?senderId=${mine.senderId}`);
      expect(bySender.status).toBe(200);
      expect(bySender.body.respCode).toBe(2000);
      expect(bySender.data).toEqual(byTxn.data);
    });

    it('answers in the scheme of the asking session, not the one that created the collection', async () => {
      const v1 = await MerchantClient.connect(t.url, owner.merchant, 'v1');
      const res = await v1.get(`/collection/v1/status?txnId=${mine.txnId}`);
      expect(res.body.respCode).toBe(2000);
      expect(res.data?.txnId).toBe(mine.txnId);
      expect(() => owner.client.decrypt(res.body.data)).toThrow();
    });

    it('follows the collection through its lifecycle with utr and updatedAt', async () => {
      const p = await party(t.url, 'v1');
      const c = await initiateOk(p.client, { senderId: senderId('life') });
      expect((await simulate(p.client, c.txnId, 'PENDING')).body.respCode).toBe(2000);
      const pending = await p.client.get(`/collection/v1/status?senderId=${c.senderId}`);
      expect(pending.data).toMatchObject({ status: 'PENDING', utr: '' });
      await new Promise((r) => setTimeout(r, 5));
      expect((await simulate(p.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
      const done = await p.client.get(`/collection/v1/status?txnId=${c.txnId}`);
      const d = done.data as Record<string, string>;
      expect(d).toMatchObject({ status: 'SUCCESS', createdAt: c.createdAt, requestAmount: c.requestAmount });
      expect(d.utr).toMatch(/^\d{12}$/);
      expect(d.statusMessage).not.toBe(pending.data?.statusMessage);
      expect(Date.parse(d.updatedAt as string)).toBeGreaterThan(Date.parse(c.createdAt as string));
      expect(d.updatedAt).toMatch(ISO_MS);
    });
  });
});
