import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, MerchantClient } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  ISO_UTC,
  payoutRequest,
  SANDBOX,
  senderId,
  TRANSACTION_ID,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('payout status on %s', (engine) => {
  let t: TestServer;
  let a: Funded;
  let b: Funded;
  /** A payout of merchant a, created with a V2 session. */
  let mine: Record<string, unknown>;
  /** A payout of merchant b. */
  let theirs: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    a = await fundedMerchant(t.url, 'v2', '1000.00');
    b = await fundedMerchant(t.url, 'v1', '1000.00');
    mine = await initiateOk(
      a.client,
      payoutRequest('nested', { wallet_id: a.merchant.wallet_id, amount: '123.45', remarks: 'status test' }),
    );
    theirs = await initiateOk(b.client, payoutRequest('flat', { wallet_id: b.merchant.wallet_id }));
  });
  afterAll(() => t.close());

  const envelopeOnly = { resp_code: expect.any(Number), resp_message: expect.any(String) };

  it('finds the payout by transaction_id and by sender_id, with the whole transaction object', async () => {
    const id = mine.transaction_id as string;
    const bySender = await a.client.get(`/payout/v1/status?sender_id=${mine.sender_id as string}`);
    const byId = await a.client.get(`/payout/v1/status?transaction_id=${id}`);
    for (const res of [byId, bySender]) {
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'resp_code', 'resp_message']);
      expect(res.body.resp_code).toBe(2000);
      expect(res.data).toEqual({
        ...mine,
        status: expect.stringMatching(/^(INITIATED|PROCESSING|SUCCESS)$/),
        status_message: expect.any(String),
        utr_number: expect.any(String),
        timestamps: {
          created_at: (mine.timestamps as { created_at: string }).created_at,
          updated_at: expect.stringMatching(ISO_UTC),
        },
      });
    }
    expect(byId.data?.transaction_id).toMatch(TRANSACTION_ID);
  });

  it("answers in the asking session's scheme, whatever scheme created the payout", async () => {
    const v1 = await MerchantClient.connect(t.url, a.merchant, 'v1');
    const res = await v1.get(`/payout/v1/status?transaction_id=${mine.transaction_id as string}`);
    expect(res.body.resp_code).toBe(2000);
    // The V1 client decrypted it; a V2 decryption of the same text must fail.
    expect(res.data?.transaction_id).toBe(mine.transaction_id);
    expect(() => a.client.decrypt(res.body.data)).toThrow();
  });

  it('shows the progress of the payout, with the UTR once it succeeded', async () => {
    const p = await initiateOk(a.client, payoutRequest('nested', { wallet_id: a.merchant.wallet_id }));
    await waitForStatus(t.url, p.transaction_id as string, 'SUCCESS');
    const res = await a.client.get(`/payout/v1/status?transaction_id=${p.transaction_id as string}`);
    expect(res.data).toMatchObject({ status: 'SUCCESS', utr_number: expect.stringMatching(/^\d{12}$/) });
    const created = Date.parse((res.data?.timestamps as { created_at: string }).created_at);
    const updated = Date.parse((res.data?.timestamps as { updated_at: string }).updated_at);
    expect(updated).toBeGreaterThan(created);
  });

  it.each([
    ['no parameter', ''],
    ['both empty', '?transaction_id=&sender_id='],
    ['another parameter only', '?txnId=abc'],
  ])('4101 when neither identifier is given (%s)', async (_name, query) => {
    const res = await a.client.get(`/payout/v1/status${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ...envelopeOnly, resp_code: 4101 });
  });

  it('4102 when both are given, even naming the same payout', async () => {
    for (const query of [
      `?transaction_id=${mine.transaction_id as string}&sender_id=${mine.sender_id as string}`,
      '?transaction_id=PT01ARZ3NDEKTSV4RRFFQ69G5FAV&sender_id=nope',
    ]) {
      const res = await a.client.get(`/payout/v1/status${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ...envelopeOnly, resp_code: 4102 });
    }
  });

  it.each([
    ['an unknown transaction_id', () => '?transaction_id=PT01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['a malformed transaction_id', () => '?transaction_id=not-an-id'],
    ['a sender_id never used', () => `?sender_id=${senderId('never')}`],
    ['a malformed sender_id', () => '?sender_id=has%20space'],
    ['a sender_id with a NUL character', () => '?sender_id=a%00b'],
    ['a sender_id of 5000 characters', () => `?sender_id=${'x'.repeat(5000)}`],
    ['a transaction_id with a NUL character', () => '?transaction_id=PT%00'],
    ["another merchant's transaction_id", () => `?transaction_id=${theirs.transaction_id as string}`],
    ["another merchant's sender_id", () => `?sender_id=${theirs.sender_id as string}`],
  ])('4103 (HTTP 404) for %s', async (_name, query) => {
    const res = await a.client.get(`/payout/v1/status${query()}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ...envelopeOnly, resp_code: 4103 });
  });

  it("answers with the caller's own payout when both merchants used the same sender_id", async () => {
    const shared = senderId('same');
    const pa = await initiateOk(
      a.client,
      payoutRequest('nested', { wallet_id: a.merchant.wallet_id, sender_id: shared }),
    );
    const pb = await initiateOk(
      b.client,
      payoutRequest('flat', { wallet_id: b.merchant.wallet_id, sender_id: shared }),
    );
    expect((await a.client.get(`/payout/v1/status?sender_id=${shared}`)).data?.transaction_id).toBe(pa.transaction_id);
    expect((await b.client.get(`/payout/v1/status?sender_id=${shared}`)).data?.transaction_id).toBe(pb.transaction_id);
  });

  it('finds a payout the sandbox left PENDING, and one refunded', async () => {
    const pending = await initiateOk(
      a.client,
      payoutRequest('nested', {
        wallet_id: a.merchant.wallet_id,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.pending,
      }),
    );
    const failed = await initiateOk(
      a.client,
      payoutRequest('nested', {
        wallet_id: a.merchant.wallet_id,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.failure,
      }),
    );
    await waitForStatus(t.url, pending.transaction_id as string, 'PENDING');
    await waitForStatus(t.url, failed.transaction_id as string, 'REFUNDED');
    const p = await a.client.get(`/payout/v1/status?sender_id=${pending.sender_id as string}`);
    expect(p.data).toMatchObject({ status: 'PENDING', utr_number: '' });
    const f = await a.client.get(`/payout/v1/status?transaction_id=${failed.transaction_id as string}`);
    expect(f.data).toMatchObject({ status: 'REFUNDED', utr_number: '' });
  });

  it.each([
    ['Authorization missing', {}],
    ['garbage token', { authorization: 'Bearer garbage' }],
    ['Basic credentials', { authorization: 'Basic YTpi' }],
  ])('4001 (HTTP 401) with %s', async (_name, headers: Record<string, string>) => {
    const res = await http(t.url, 'GET', `/payout/v1/status?transaction_id=${mine.transaction_id as string}`, {
      headers,
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ...envelopeOnly, resp_code: 4001 });
  });

  it('checks the token before the parameters', async () => {
    const res = await http(t.url, 'GET', '/payout/v1/status', {});
    expect(res.body.resp_code).toBe(4001);
    const both = await http(t.url, 'GET', '/payout/v1/status?transaction_id=a&sender_id=b', {});
    expect(both.body.resp_code).toBe(4001);
  });
});
