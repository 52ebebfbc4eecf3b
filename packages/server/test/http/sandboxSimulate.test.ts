import { SCHEMES } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminCollection,
  expectLedgerOk,
  initiateOk,
  party,
  simulate,
  status,
  UNKNOWN_TXN_ID,
  walletBalance,
  type Outcome,
  type Party,
} from '../support/collectionFixtures.ts';
import { http, MerchantClient } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('POST /sandbox/v1/collections/:txnId/simulate on %s', (engine) => {
  let t: TestServer;
  let other: Party;
  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    other = await party(t.url, 'v2', 'Other');
  });
  afterAll(() => t.close());

  describe.each(SCHEMES)('with a %s session', (scheme) => {
    let p: Party;
    beforeAll(async () => {
      p = await party(t.url, scheme);
    });

    it.each<[Outcome, string]>([
      ['SUCCESS', '100.00'],
      ['FAILED', '0.00'],
      ['PENDING', '0.00'],
    ])(
      'moves an INITIATED collection to %s and answers it encrypted (wallet credited: %s)',
      async (outcome, credit) => {
        const q = await party(t.url, scheme);
        const c = await initiateOk(q.client, { amount: '100.00' });
        const res = await simulate(q.client, c.txnId, outcome);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ respCode: 2000, respMessage: expect.any(String), data: expect.any(String) });
        expect(res.data).toMatchObject({
          txnId: c.txnId,
          senderId: c.senderId,
          status: outcome,
          requestAmount: '100.00',
        });
        expect(res.data?.utr).toEqual(outcome === 'SUCCESS' ? expect.stringMatching(/^\d{12}$/) : '');
        expect(res.data).not.toHaveProperty('intentUrl');
        expect((await status(q.client, { txnId: c.txnId })).data).toEqual(res.data);
        expect(await walletBalance(q.client)).toBe(credit);
      },
    );

    it('goes PENDING → SUCCESS and credits once', async () => {
      const c = await initiateOk(p.client, { amount: '33.30' });
      const before = await walletBalance(p.client);
      expect((await simulate(p.client, c.txnId, 'PENDING')).data?.status).toBe('PENDING');
      expect(await walletBalance(p.client)).toBe(before);
      expect((await simulate(p.client, c.txnId, 'SUCCESS')).data?.status).toBe('SUCCESS');
      expect(Number(await walletBalance(p.client)) - Number(before)).toBeCloseTo(33.3, 2);
      await expectLedgerOk(t.url);
    });

    it('goes PENDING → FAILED without money', async () => {
      const c = await initiateOk(p.client, { amount: '12.00' });
      const before = await walletBalance(p.client);
      await simulate(p.client, c.txnId, 'PENDING');
      const res = await simulate(p.client, c.txnId, 'FAILED');
      expect(res.body.respCode).toBe(2000);
      expect(res.data?.status).toBe('FAILED');
      expect(await walletBalance(p.client)).toBe(before);
    });

    it('uses the utr given with a SUCCESS', async () => {
      const c = await initiateOk(p.client);
      const res = await simulate(p.client, c.txnId, 'SUCCESS', { utr: '412345678901' });
      expect(res.data).toMatchObject({ status: 'SUCCESS', utr: '412345678901' });
    });
  });

  describe('the same outcome again changes nothing (2000)', () => {
    it.each<Outcome>(['SUCCESS', 'FAILED', 'PENDING'])('%s twice', async (outcome) => {
      const p = await party(t.url, 'v2');
      const c = await initiateOk(p.client, { amount: '50.00' });
      const first = await simulate(p.client, c.txnId, outcome);
      const balance = await walletBalance(p.client);
      await new Promise((r) => setTimeout(r, 5));
      const again = await simulate(p.client, c.txnId, outcome);
      expect(again.status).toBe(200);
      expect(again.body.respCode).toBe(2000);
      expect(again.data).toEqual(first.data);
      expect(await walletBalance(p.client)).toBe(balance);
      expect(await adminCollection(t.url, p.merchant.merchant_id, c.txnId)).toMatchObject({
        status: outcome,
        updatedAt: first.data?.updatedAt,
        utr: first.data?.utr,
      });
    });
  });

  describe('illegal moves (4113, HTTP 409)', () => {
    it.each<[Outcome[], Outcome]>([
      [['SUCCESS'], 'FAILED'],
      [['SUCCESS'], 'PENDING'],
      [['FAILED'], 'SUCCESS'],
      [['FAILED'], 'PENDING'],
      [['PENDING', 'SUCCESS'], 'FAILED'],
      [['PENDING', 'SUCCESS'], 'PENDING'],
      [['PENDING', 'FAILED'], 'SUCCESS'],
    ])('after %j, %s is refused and nothing changes', async (path, outcome) => {
      const p = await party(t.url, 'v1');
      const c = await initiateOk(p.client, { amount: '20.00' });
      let last;
      for (const step of path) last = await simulate(p.client, c.txnId, step);
      const balance = await walletBalance(p.client);
      const res = await simulate(p.client, c.txnId, outcome);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ respCode: 4113, respMessage: expect.any(String) });
      expect((await status(p.client, { txnId: c.txnId })).data).toEqual(last?.data);
      expect(await walletBalance(p.client)).toBe(balance);
      await expectLedgerOk(t.url);
    });
  });

  describe('refusals', () => {
    let p: Party;
    let txnId: string;
    beforeAll(async () => {
      p = await party(t.url, 'v2');
      txnId = (await initiateOk(p.client)).txnId;
    });

    it.each(['garbage', 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D', 'ct01jd3k8q5w2v7x9y0z1a2b3c4d', 'CT01JD3K8Q5W2V7X9Y0Z1A2B3CI'])(
      'malformed txnId %s → 4105 (400)',
      async (bad) => {
        const res = await simulate(p.client, bad, 'SUCCESS');
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ respCode: 4105, respMessage: expect.any(String) });
      },
    );

    it('unknown txnId → 4104 (404)', async () => {
      const res = await simulate(p.client, UNKNOWN_TXN_ID, 'SUCCESS');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ respCode: 4104, respMessage: expect.any(String) });
    });

    it("another merchant's collection → 4104 (404) and it does not move", async () => {
      const res = await simulate(other.client, txnId, 'SUCCESS');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ respCode: 4104, respMessage: expect.any(String) });
      expect((await status(p.client, { txnId })).data?.status).toBe('INITIATED');
      expect(await walletBalance(other.client)).toBe('0.00');
    });

    it.each<[string, unknown]>([
      ['lower case', { outcome: 'success' }],
      ['INITIATED', { outcome: 'INITIATED' }],
      ['REFUNDED', { outcome: 'REFUNDED' }],
      ['empty', { outcome: '' }],
      ['a number', { outcome: 1 }],
      ['null', { outcome: null }],
      ['missing', {}],
      ['an array body', ['SUCCESS']],
    ])('outcome %s → 4111 (400) naming outcome', async (_name, body) => {
      const res = await http(t.url, 'POST', `/sandbox/v1/collections/${txnId}/simulate`, {
        body,
        headers: p.client.auth(),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ respCode: 4111, respMessage: expect.stringContaining('outcome') });
      expect((await status(p.client, { txnId })).data?.status).toBe('INITIATED');
    });

    it.each<[string, Record<string, string>]>([
      ['no token', {}],
      ['a garbage token', { authorization: 'Bearer nope' }],
    ])('%s → 4008 (401)', async (_name, headers) => {
      const res = await http(t.url, 'POST', `/sandbox/v1/collections/${txnId}/simulate`, {
        body: { outcome: 'SUCCESS' },
        headers,
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ respCode: 4008, respMessage: expect.any(String) });
      expect((await status(p.client, { txnId })).data?.status).toBe('INITIATED');
    });
  });

  describe('in live mode', () => {
    let live: TestServer;
    beforeAll(async () => {
      // A second instance on the same database, in live mode (which must accept the sandbox data explicitly).
      live = await startTestServer(engine, {
        env: { PAYRAIL_MODE: 'live', PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE: 'true' },
        ...(engine === 'postgres' ? { schema: t.schema } : { db: t.db }),
      });
    });
    afterAll(() => live.close());

    it('has no simulate route (404), and the collection does not move', async () => {
      const p = await party(t.url, 'v2');
      const c = await initiateOk(p.client);
      const client = await MerchantClient.connect(live.url, p.merchant, 'v2');
      const res = await http(live.url, 'POST', `/sandbox/v1/collections/${c.txnId}/simulate`, {
        body: { outcome: 'SUCCESS' },
        headers: client.auth(),
      });
      expect(res.status).toBe(404);
      expect(res.body.respCode).toBeUndefined();
      // The same token and collection work on the live instance's status route.
      expect((await status(client, { txnId: c.txnId })).data?.status).toBe('INITIATED');
      // The sandbox instance still simulates.
      expect((await simulate(p.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
    });
  });
});
