import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, ISO_MS, party, senderId, simulate, TXN_ID, type Party } from '../support/collectionFixtures.ts';
import { admin, http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const ADMIN_ERROR = { error: { code: expect.any(String), message: expect.any(String) } };

interface Page {
  data: Record<string, unknown>[];
  has_more: boolean;
  next_cursor: string | null;
}

describe.each(ENGINES)('GET /admin/v1/collections on %s', (engine) => {
  let t: TestServer;
  let a: Party;
  let b: Party;
  /** txnIds of merchant a, oldest first. */
  const created: string[] = [];

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    [a, b] = await Promise.all([party(t.url, 'v2', 'A'), party(t.url, 'v1', 'B')]);
    for (let i = 0; i < 5; i++) {
      created.push((await initiateOk(a.client, { senderId: `a-${i}`, amount: `${i + 1}.00` })).txnId);
    }
    await simulate(a.client, created[0] as string, 'SUCCESS');
    await simulate(a.client, created[1] as string, 'FAILED');
    await simulate(a.client, created[2] as string, 'PENDING');
    await initiateOk(b.client, { senderId: 'a-0', amount: '9.00', callbackUrl: 'https://merchant.example/hook' });
  });
  afterAll(() => t.close());

  const list = async (query: string): Promise<Page> => {
    const res = await admin(t.url, 'GET', `/admin/v1/collections?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    return res.body as unknown as Page;
  };

  it('lists one merchant’s collections newest first, with the operator fields', async () => {
    const page = await list(`merchant_id=${a.merchant.merchant_id}`);
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    expect(page.data.map((c) => c.txnId)).toEqual([...created].reverse());
    const oldest = page.data[4] as Record<string, unknown>;
    expect(oldest).toMatchObject({
      txnId: created[0],
      senderId: 'a-0',
      merchant_id: a.merchant.merchant_id,
      walletId: a.merchant.wallet_id,
      requestAmount: '1.00',
      paymentMode: 'Intent',
      status: 'SUCCESS',
      scheme: 'v2',
      callback_url: null,
    });
    expect(oldest.txnId).toMatch(TXN_ID);
    expect(oldest.createdAt).toMatch(ISO_MS);
    expect(oldest.utr).toMatch(/^\d{12}$/);
  });

  it('filters by status', async () => {
    const byStatus = async (s: string) =>
      (await list(`merchant_id=${a.merchant.merchant_id}&status=${s}`)).data.map((c) => c.txnId);
    expect(await byStatus('SUCCESS')).toEqual([created[0]]);
    expect(await byStatus('FAILED')).toEqual([created[1]]);
    expect(await byStatus('PENDING')).toEqual([created[2]]);
    expect(await byStatus('INITIATED')).toEqual([created[4], created[3]]);
  });

  it('filters by sender_id, across merchants unless merchant_id is given', async () => {
    const all = await list('sender_id=a-0');
    expect(all.data.map((c) => c.merchant_id).sort()).toEqual([a.merchant.merchant_id, b.merchant.merchant_id].sort());
    const onlyB = await list(`sender_id=a-0&merchant_id=${b.merchant.merchant_id}`);
    expect(onlyB.data).toHaveLength(1);
    expect(onlyB.data[0]).toMatchObject({
      merchant_id: b.merchant.merchant_id,
      scheme: 'v1',
      callback_url: 'https://merchant.example/hook',
      requestAmount: '9.00',
    });
    expect((await list('sender_id=nobody')).data).toEqual([]);
  });

  it('answers an empty page for an unknown merchant', async () => {
    expect(await list('merchant_id=MR00000000000000000000000000')).toEqual({
      data: [],
      has_more: false,
      next_cursor: null,
    });
  });

  it('pages with limit and cursor without gaps or repeats', async () => {
    const seen: unknown[] = [];
    const shapes: [number, boolean][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: Page = await list(`merchant_id=${a.merchant.merchant_id}&limit=2&cursor=${cursor}`);
      shapes.push([page.data.length, page.has_more]);
      seen.push(...page.data.map((c) => c.txnId));
      expect(page.next_cursor === null).toBe(!page.has_more);
      cursor = page.next_cursor;
    }
    expect(shapes).toEqual([
      [2, true],
      [2, true],
      [1, false],
    ]);
    expect(seen).toEqual([...created].reverse());
  });

  it('keeps the other filters across pages', async () => {
    const first = await list(`merchant_id=${a.merchant.merchant_id}&status=INITIATED&limit=1`);
    expect(first.data.map((c) => c.txnId)).toEqual([created[4]]);
    const second = await list(
      `merchant_id=${a.merchant.merchant_id}&status=INITIATED&limit=1&cursor=${first.next_cursor}`,
    );
    expect(second.data.map((c) => c.txnId)).toEqual([created[3]]);
    expect(second.has_more).toBe(false);
  });

  it('defaults to 50, takes at least 1, and answers everything under a limit above the count', async () => {
    const c = await party(t.url, 'v2', 'Many');
    for (let batch = 0; batch < 3; batch++) {
      await Promise.all(
        Array.from({ length: 17 }, (_, i) => initiateOk(c.client, { senderId: senderId(`m${batch}-${i}`) })),
      );
    }
    await initiateOk(c.client);
    const first = await list(`merchant_id=${c.merchant.merchant_id}`);
    expect(first.data).toHaveLength(50);
    expect(first.has_more).toBe(true);
    const rest = await list(`merchant_id=${c.merchant.merchant_id}&cursor=${first.next_cursor}`);
    expect(rest.data).toHaveLength(2);
    expect(rest.has_more).toBe(false);
    expect((await list(`merchant_id=${c.merchant.merchant_id}&limit=1000`)).data).toHaveLength(52);
    expect((await list(`merchant_id=${c.merchant.merchant_id}&limit=0`)).data).toHaveLength(1);
  });

  it.each([
    ['an unknown status', 'status=DONE'],
    ['a lower-case status', 'status=success'],
    ['a non-numeric limit', 'limit=ten'],
    ['a negative limit', 'limit=-1'],
    ['a forged cursor', 'cursor=bm90LWFuLWlk'],
    ['a payout cursor', `cursor=${Buffer.from('PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D').toString('base64url')}`],
  ])('refuses %s with 400', async (_name, query) => {
    const res = await admin(t.url, 'GET', `/admin/v1/collections?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ADMIN_ERROR);
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong' }],
    ["a merchant's token", null],
  ])('refuses %s with 401', async (_name, headers) => {
    const res = await http(t.url, 'GET', '/admin/v1/collections', { headers: headers ?? a.client.auth() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(ADMIN_ERROR);
  });
});
