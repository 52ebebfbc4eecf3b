import { decryptJsonObject } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, http, MerchantClient } from '../support/merchantClient.ts';
import {
  expectLedgerOk,
  fundedMerchant,
  listPayouts,
  PLAIN_BENEFICIARY,
  SANDBOX,
  senderId,
  setLimits,
  snapshot,
  TRANSACTION_ID,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { quiescent } from '../support/quiescent.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/** docs/merchant/bulk-and-verification.md through real HTTP: every code of POST /payout/v1/bulk and GET /payout/v1/bulk/status. */

type Item = Record<string, unknown>;

const item = (walletId: string, amount: string, over: Item = {}): Item => ({
  sender_id: senderId('bk'),
  wallet_id: walletId,
  payment_mode: 'IMPS',
  amount,
  beneficiary: { ...PLAIN_BENEFICIARY },
  ...over,
});

const batchId = () => senderId('batch');

interface Verdict {
  index: number;
  sender_id: string;
  resp_code: number;
  resp_message: string;
  transaction_id?: string;
  status?: string;
}

const codes = (data: Record<string, unknown> | undefined) => ((data?.items ?? []) as Verdict[]).map((v) => v.resp_code);

describe.each(ENGINES)('bulk payouts on %s', (engine) => {
  let t: TestServer;
  let hooks: WebhookReceiver;
  beforeAll(async () => {
    [t, hooks] = await Promise.all([startTestServer(engine), new WebhookReceiver().start()]);
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.stop();
  });

  const bulk = (f: Funded, plain: unknown) => f.client.post('/payout/v1/bulk', plain);

  it('applies items in order: later items that exceed the balance get 4002, a smaller one after them passes', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const w = f.merchant.wallet_id;
    const items = [item(w, '300.00'), item(w, '300.00'), item(w, '300.00'), item(w, '300.00'), item(w, '100.00')];
    items.push(item(w, '1.00'));
    const res = await bulk(f, { batch_id: batchId(), items });
    expect({ http: res.status, code: res.body.resp_code }).toEqual({ http: 200, code: 2000 });
    expect(codes(res.data)).toEqual([2000, 2000, 2000, 4002, 2000, 4002]);
    expect(res.data?.summary).toEqual({
      accepted: 4,
      refused: 2,
      amount_accepted: '1000.00',
      fees: '0.00',
      tax: '0.00',
    });
    const verdicts = res.data?.items as Verdict[];
    expect(verdicts.map((v) => v.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(verdicts.map((v) => v.sender_id)).toEqual(items.map((i) => i.sender_id));
    for (const v of verdicts.filter((x) => x.resp_code === 2000)) {
      expect(v.transaction_id).toMatch(TRANSACTION_ID);
      expect(v.status).toBe('INITIATED');
      const status = await f.client.get(`/payout/v1/status?transaction_id=${v.transaction_id}`);
      expect(status.data).toMatchObject({ sender_id: v.sender_id, status: expect.any(String) });
    }
    expect(verdicts[3]).toMatchObject({ resp_message: 'Insufficient wallet balance' });
    expect(verdicts[3]?.transaction_id).toBeUndefined();
    expect(await walletBalance(t.url, f.merchant.merchant_id, w)).toBe('0.00');
    expect(await listPayouts(t.url, f.merchant.merchant_id)).toHaveLength(4);
    await expectLedgerOk(t.url);
  });

  it('gives every item the code a single initiation would get, in the contract order', async () => {
    const f = await fundedMerchant(t.url, 'v1', '5000.00');
    const other = await createMerchant(t.url, 'Other', '100.00');
    const w = f.merchant.wallet_id;
    const used = await f.client.post('/payout/v1/initiate', item(w, '10.00'));
    expect(used.body.resp_code).toBe(2000);
    const twin = senderId('twin');
    const refusedTwin = senderId('rtwin');
    const items: unknown[] = [
      { ...item(w, '10.00'), sender_id: 'bad sender!' }, // 4017
      item(other.wallet_id, '10.00'), // 4016
      item(w, '10.00', { payment_mode: 'UPI' }), // 4012
      item(w, '10.001'), // 4004
      item(w, '0.50'), // 4005
      item(w, '500000.01'), // 4006
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_name: '' } }), // 4003
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'NOPE' } }), // 4007
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_acc_number: '12' } }), // 4008
      item(w, '10.00', { remarks: 'x'.repeat(256) }), // 4017
      item(w, '10.00', { sender_id: used.data?.sender_id }), // 4009 against history
      item(w, '10.00', { sender_id: twin }), // 2000
      item(w, '10.00', { sender_id: twin }), // 4009 within the batch
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'DOWN0000001' } }), // 4014
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'BLOK0000001' } }), // 4015
      item(w, '10.00', {
        beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: '100000000004' },
      }), // 4013
      // A refused item does not use its sender_id: the next item with it passes.
      item(w, '999999.00', { payment_mode: 'NEFT', sender_id: refusedTwin }), // 4002
      item(w, '10.00', { sender_id: refusedTwin }), // 2000
      // Both a duplicate and a bank refusal: 4009 comes first.
      item(w, '10.00', {
        sender_id: twin,
        beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'DOWN0000001' },
      }), // 4009
      ['not', 'an', 'object'], // 4014 (what a single payload that is not an object gets)
      {
        sender_id: senderId('flat'),
        wallet_id: w,
        payment_mode: 'NEFT',
        amount: 25,
        ...PLAIN_BENEFICIARY,
      }, // 2000, flat shape with a numeric amount
    ];
    const before = await walletBalance(t.url, f.merchant.merchant_id, w);
    const res = await bulk(f, { batch_id: batchId(), items });
    expect(res.body.resp_code).toBe(2000);
    expect(codes(res.data)).toEqual([
      4017, 4016, 4012, 4004, 4005, 4006, 4003, 4007, 4008, 4017, 4009, 2000, 4009, 4014, 4015, 4013, 4002, 2000, 4009,
      4014, 2000,
    ]);
    const verdicts = res.data?.items as Verdict[];
    expect(verdicts[9]?.resp_message).toMatch(/remarks/);
    expect(verdicts[13]?.resp_message).toBe('Bank down for maintenance');
    expect(res.data?.summary).toEqual({
      accepted: 3,
      refused: 18,
      amount_accepted: '45.00',
      fees: '0.00',
      tax: '0.00',
    });
    expect(Number(before) - Number(await walletBalance(t.url, f.merchant.merchant_id, w))).toBe(45);
    await expectLedgerOk(t.url);
  });

  it('atomic: one bad item refuses the batch with 4018 and every verdict, and records nothing', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const w = f.merchant.wallet_id;
    const id = batchId();
    const items = [item(w, '100.00'), item(w, '100.00'), item(w, '100.00', { payment_mode: 'CASH' }), item(w, '1.00')];
    const before = await snapshot(t.url, f.merchant);
    const res = await bulk(f, { batch_id: id, items, atomic: true });
    expect({ http: res.status, code: res.body.resp_code }).toEqual({ http: 422, code: 4018 });
    expect(codes(res.data)).toEqual([2000, 2000, 4012, 2000]);
    expect(res.data).toMatchObject({ batch_id: id, dry_run: false, atomic: true });
    for (const v of res.data?.items as Verdict[]) expect(v.transaction_id).toBeUndefined();
    expect(await snapshot(t.url, f.merchant)).toEqual(before);
    for (const i of items) {
      const s = await f.client.get(`/payout/v1/status?sender_id=${i.sender_id}`);
      expect(s.body.resp_code).toBe(4103);
    }
    const status = await f.client.get(`/payout/v1/bulk/status?batch_id=${id}`);
    expect(status.body.resp_code).toBe(4103);
    await expectLedgerOk(t.url);

    // The batch_id was not used: the corrected batch goes through, all of it.
    items[2] = item(w, '100.00');
    const again = await bulk(f, { batch_id: id, items, atomic: true });
    expect(again.body.resp_code).toBe(2000);
    expect(codes(again.data)).toEqual([2000, 2000, 2000, 2000]);
  });

  it('dry run: the verdicts of the real run that follows, with nothing recorded', async () => {
    const f = await fundedMerchant(t.url, 'v2', '250.00');
    const w = f.merchant.wallet_id;
    await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '220.00' });
    const id = batchId();
    const items = [
      item(w, '100.00'),
      item(w, '100.00'),
      item(w, '30.00'), // 4010: 230 > 220
      item(w, '20.00'), // reaches the limit exactly
      item(w, '10.00', { beneficiary: { ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'BLOK0000001' } }),
      item(w, '10.00'), // 4010
    ];
    const before = await snapshot(t.url, f.merchant);
    const dry = await bulk(f, { batch_id: id, items, dry_run: true });
    expect({ http: dry.status, code: dry.body.resp_code }).toEqual({ http: 200, code: 2000 });
    expect(dry.data).toMatchObject({ batch_id: id, dry_run: true });
    expect(codes(dry.data)).toEqual([2000, 2000, 4010, 2000, 4015, 4010]);
    for (const v of dry.data?.items as Verdict[]) expect(v.transaction_id).toBeUndefined();
    expect(await snapshot(t.url, f.merchant)).toEqual(before);

    const real = await bulk(f, { batch_id: id, items });
    expect(real.data).toMatchObject({ batch_id: id, dry_run: false });
    expect(codes(real.data)).toEqual(codes(dry.data));
    expect(real.data?.summary).toEqual(dry.data?.summary);
    expect(await walletBalance(t.url, f.merchant.merchant_id, w)).toBe('30.00');
    // After the real run, a dry run of the same batch_id is a duplicate too.
    const dryAgain = await bulk(f, { batch_id: id, items, dry_run: true });
    expect(dryAgain.body.resp_code).toBe(4009);
    await setLimits(t.url, f.merchant.merchant_id, { daily_limit: null });
  });

  it('a repeated batch_id is 4009 with the existing batch, and moves nothing', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const w = f.merchant.wallet_id;
    const id = batchId();
    const items = [item(w, '100.00'), item(w, '100.00', { payment_mode: 'XYZ' })];
    const first = await bulk(f, { batch_id: id, items });
    expect(first.body.resp_code).toBe(2000);
    const before = await snapshot(t.url, f.merchant);
    const again = await bulk(f, { batch_id: id, items: [item(w, '5.00')] });
    expect({ http: again.status, code: again.body.resp_code }).toEqual({ http: 409, code: 4009 });
    expect(again.body.resp_message).toBe('Duplicate batch_id');
    expect(again.data).toMatchObject({
      batch_id: id,
      dry_run: false,
      summary: { accepted: 1, refused: 1, amount_accepted: '100.00' },
    });
    expect(codes(again.data)).toEqual([2000, 4012]);
    expect((again.data?.items as Verdict[])[0]?.transaction_id).toBe(
      (first.data?.items as Verdict[])[0]?.transaction_id,
    );
    expect(await snapshot(t.url, f.merchant)).toEqual(before);
    // Two at once with a new batch_id: one runs, the other is 4009.
    const id2 = batchId();
    const both = await Promise.all([
      bulk(f, { batch_id: id2, items: [item(w, '1.00')] }),
      bulk(f, { batch_id: id2, items: [item(w, '1.00')] }),
    ]);
    expect(both.map((r) => r.body.resp_code).sort()).toEqual([2000, 4009]);
    await expectLedgerOk(t.url);
  });

  it('refuses the batch as a whole: 4019 for 0 or over 1,000 items, 4017, 4014, 4001, 413 over 2 MiB', async () => {
    const f = await fundedMerchant(t.url, 'v2', '100.00');
    const w = f.merchant.wallet_id;
    const refused = async (plain: unknown, code: number, httpStatus: number) => {
      const res = await bulk(f, plain);
      expect({ code: res.body.resp_code, http: res.status }).toEqual({ code, http: httpStatus });
      return res;
    };
    await refused({ batch_id: batchId(), items: [] }, 4019, 400);
    await refused({ batch_id: batchId() }, 4019, 400);
    await refused({ batch_id: batchId(), items: { 0: item(w, '1.00') } }, 4019, 400);
    const tooMany = Array.from({ length: 1001 }, () => item(w, '1.00'));
    const res = await refused({ batch_id: batchId(), items: tooMany }, 4019, 400);
    expect(res.body.resp_message).toBe('A batch holds 1 to 1000 items');
    await refused({ items: [item(w, '1.00')] }, 4017, 400);
    await refused({ batch_id: 'has space', items: [item(w, '1.00')] }, 4017, 400);
    await refused({ batch_id: batchId(), items: [item(w, '1.00')], atomic: 'yes' }, 4017, 400);
    await refused({ batch_id: batchId(), items: [item(w, '1.00')], dry_run: 1 }, 4017, 400);
    const badUrl = await refused({ batch_id: batchId(), items: [item(w, '1.00')], callback_url: 'ftp://x' }, 4017, 400);
    expect(badUrl.body.resp_message).toMatch(/callback_url/);
    await refused([item(w, '1.00')], 4014, 400);

    const garbled = await http(t.url, 'POST', '/payout/v1/bulk', {
      body: { payload: 'not-base64!!' },
      headers: f.client.auth(),
    });
    expect({ code: garbled.body.resp_code, http: garbled.status }).toEqual({ code: 4014, http: 400 });
    const noToken = await http(t.url, 'POST', '/payout/v1/bulk', { body: { payload: f.client.encrypt({}) } });
    expect({ code: noToken.body.resp_code, http: noToken.status }).toEqual({ code: 4001, http: 401 });

    const huge = await http(t.url, 'POST', '/payout/v1/bulk', {
      rawBody: JSON.stringify({ payload: 'A'.repeat(2 * 1024 * 1024 + 10) }),
      headers: { ...f.client.auth(), 'content-type': 'application/json' },
    });
    expect({ code: huge.body.resp_code, http: huge.status }).toEqual({ code: 4000, http: 413 });
    expect(await listPayouts(t.url, f.merchant.merchant_id)).toHaveLength(0);
  });

  it('status: 4017 without batch_id or with a bad cursor, 4103 for an unknown or another merchant’s batch', async () => {
    const f = await fundedMerchant(t.url, 'v2', '10.00');
    const g = await fundedMerchant(t.url, 'v2', '10.00');
    const id = batchId();
    expect((await bulk(f, { batch_id: id, items: [item(f.merchant.wallet_id, '1.00')] })).body.resp_code).toBe(2000);
    const check = async (client: MerchantClient, query: string, code: number, httpStatus: number) => {
      const res = await client.get(`/payout/v1/bulk/status${query}`);
      expect({ code: res.body.resp_code, http: res.status }).toEqual({ code, http: httpStatus });
    };
    await check(f.client, '', 4017, 400);
    await check(f.client, '?batch_id=', 4017, 400);
    await check(f.client, `?batch_id=${id}&cursor=zzzz`, 4017, 400);
    await check(f.client, `?batch_id=${batchId()}`, 4103, 404);
    await check(f.client, `?batch_id=${encodeURIComponent('bad id!')}`, 4103, 404);
    await check(g.client, `?batch_id=${id}`, 4103, 404);
    await check(f.client, `?batch_id=${id}`, 2000, 200);
    const noToken = await http(t.url, 'GET', `/payout/v1/bulk/status?batch_id=${id}`);
    expect({ code: noToken.body.resp_code, http: noToken.status }).toEqual({ code: 4001, http: 401 });
  });

  it('sends payout.batch.completed to the batch callback once every accepted item is final', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const w = f.merchant.wallet_id;
    const id = batchId();
    const path = `/batch-${id}`;
    const sandbox = (account: string) => ({
      beneficiary: { beneficiary_name: 'Asha Rao', beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: account },
    });
    const res = await bulk(f, {
      batch_id: id,
      callback_url: hooks.url + path,
      items: [
        item(w, '10.00', sandbox(SANDBOX.success)),
        item(w, '20.00', sandbox(SANDBOX.failure)),
        item(w, '5000.00'),
      ],
    });
    expect(codes(res.data)).toEqual([2000, 2000, 4002]);
    await eventually(() => hooks.at(path).length > 0, 15_000);
    const [hook] = hooks.at(path);
    const body = JSON.parse(hook?.body ?? '{}') as { type: string; data: string };
    expect(body.type).toBe('payout.batch.completed');
    const data = decryptJsonObject(body.data, 'v1', { apiKey: f.merchant.api_key, secretKey: f.merchant.secret_key });
    expect(data).toMatchObject({
      batch_id: id,
      summary: {
        items: 3,
        accepted: 2,
        refused: 1,
        amount_accepted: '30.00',
        by_status: { SUCCESS: 1, REFUNDED: 1, INITIATED: 0 },
      },
    });
    const status = await f.client.get(`/payout/v1/bulk/status?batch_id=${id}`);
    expect(status.data?.completed_at).toEqual(expect.any(String));
    // Every delivery made and no job due: a second completion event would have been recorded by now.
    await quiescent(t.db);
    expect(hooks.at(path)).toHaveLength(1);

    // A batch whose items are all refused is complete at once.
    const none = batchId();
    await bulk(f, { batch_id: none, callback_url: `${hooks.url}/${none}`, items: [item(w, '99999.00')] });
    await eventually(() => hooks.at(`/${none}`).length === 1, 10_000);
  });

  it('admin: lists batches and shows one with its items', async () => {
    const f = await fundedMerchant(t.url, 'v2', '100.00');
    const w = f.merchant.wallet_id;
    const ids = [batchId(), batchId(), batchId()];
    for (const id of ids) await bulk(f, { batch_id: id, items: [item(w, '1.00'), item(w, '1000.00')] });
    const page = await admin(t.url, 'GET', `/admin/v1/batches?merchant_id=${f.merchant.merchant_id}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.has_more).toBe(true);
    const first = page.body.data as { batch_id: string }[];
    const next = await admin(
      t.url,
      'GET',
      `/admin/v1/batches?merchant_id=${f.merchant.merchant_id}&limit=2&cursor=${page.body.next_cursor}`,
    );
    const all = [...first, ...(next.body.data as { batch_id: string }[])].map((b) => b.batch_id);
    expect(all).toEqual([...ids].reverse());
    expect(page.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ item_count: 2, accepted: 1, refused: 1, amount_accepted: '1.00' }),
      ]),
    );
    const one = await admin(t.url, 'GET', `/admin/v1/batches/${f.merchant.merchant_id}/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ batch_id: ids[0], merchant_id: f.merchant.merchant_id, item_count: 2 });
    expect((one.body.items as { resp_code: number }[]).map((i) => i.resp_code)).toEqual([2000, 4002]);
    expect((await admin(t.url, 'GET', `/admin/v1/batches/${f.merchant.merchant_id}/nope`)).status).toBe(404);
    expect((await admin(t.url, 'GET', '/admin/v1/batches?cursor=garbage')).status).toBe(400);
  });
  it('takes a 1,000-item batch of over 1 MiB (its own body limit) and pages its status', async () => {
    // A server of its own whose rail does not move the 1,000 payouts while the test reads them.
    const still = await startTestServer(engine, { env: { PAYRAIL_SANDBOX_STEP_MS: '600000' } });
    try {
      await thousandItems(still);
    } finally {
      await still.close();
    }
  }, 120_000);

  async function thousandItems(t: TestServer) {
    const f = await fundedMerchant(t.url, 'v2', '2000.00');
    const w = f.merchant.wallet_id;
    const id = batchId();
    const items = Array.from({ length: 1000 }, (_, i) =>
      item(w, i === 999 ? '5000.00' : '1.00', {
        remarks: 'r'.repeat(250),
        metadata: 'm'.repeat(500),
        sender_id: `${id}-${i}`,
      }),
    );
    const res = await f.client.post('/payout/v1/bulk', { batch_id: id, items });
    expect(JSON.stringify({ payload: f.client.encrypt({ batch_id: id, items }) }).length).toBeGreaterThan(1024 * 1024);
    expect(res.body.resp_code).toBe(2000);
    expect(res.data?.summary).toEqual({
      accepted: 999,
      refused: 1,
      amount_accepted: '999.00',
      fees: '0.00',
      tax: '0.00',
    });
    expect(await walletBalance(t.url, f.merchant.merchant_id, w)).toBe('1001.00');

    const seen: Verdict[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const page = await f.client.get(`/payout/v1/bulk/status?batch_id=${id}${cursor ? `&cursor=${cursor}` : ''}`);
      expect({ http: page.status, code: page.body.resp_code }).toEqual({ http: 200, code: 2000 });
      pages++;
      const summary = page.data?.summary as { items: number; accepted: number; by_status: Record<string, number> };
      expect(summary).toMatchObject({ items: 1000, accepted: 999, refused: 1, amount_accepted: '999.00' });
      expect(Object.values(summary.by_status).reduce((a, b) => a + b, 0)).toBe(999);
      seen.push(...(page.data?.items as Verdict[]));
      if (!page.data?.has_more) break;
      cursor = page.data.next_cursor as string;
    }
    expect(pages).toBe(5);
    expect(seen.map((v) => v.index)).toEqual(items.map((_, i) => i));
    expect(seen[999]).toMatchObject({ resp_code: 4002, sender_id: `${id}-999` });
    expect(seen[0]).toMatchObject({ resp_code: 2000, transaction_id: expect.stringMatching(TRANSACTION_ID) });
    await expectLedgerOk(t.url);
  }
});
