import { istDay, istDayStart } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, party, setMerchant, simulate, type Party } from '../support/collectionFixtures.ts';
import { admin, MerchantClient } from '../support/merchantClient.ts';
import { expectLedgerOk, SANDBOX, waitForStatus } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** UPI collections cost ₹2.00 + 18% GST (₹0.36): a ₹100.00 collection nets ₹97.64. */
const PLAN = { name: 'Collect', rules: { UPI_COLLECTION: { slabs: [{ flat: '2.00' }] } } };

describe.each(ENGINES)('settlements on %s', (engine) => {
  let t: TestServer;
  // The system's time plus an offset, which a test moves forward; `hold` stops it at an instant (a collection credited
  // at 23:59:59 must not slip past midnight on a busy machine) until the next move.
  let offset = 0;
  let held: number | null = null;
  const clock = () => held ?? Date.now() + offset;

  beforeAll(async () => {
    // The scheduler stays out of the way: each test runs the pass itself (POST /admin/v1/settlements/run).
    t = await startTestServer(engine, { clock, env: { PAYRAIL_SETTLEMENT_SCAN_MS: '3600000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const collector = async (): Promise<Party> => {
    const p = await party(t.url, 'v2');
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${p.merchant.merchant_id}/pricing`, PLAN)).status).toBe(200);
    return p;
  };
  const collect = async (p: Party, amount: string) => {
    // Tokens last an hour; the daily tests move the clock by days.
    await p.client.login();
    const c = await initiateOk(p.client, { amount });
    expect((await simulate(p.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
    return c.txnId;
  };
  const setAccount = (p: Party, body: Row) =>
    admin(t.url, 'PUT', `/admin/v1/merchants/${p.merchant.merchant_id}/settlement`, {
      account_number: SANDBOX.success,
      ifsc: SANDBOX.ifsc,
      holder_name: 'Collector Pvt Ltd',
      ...body,
    });
  const settle = (client: MerchantClient, plain: Row) => client.post('/settlement/v1/initiate', plain);
  const run = async () => {
    const res = await admin(t.url, 'POST', '/admin/v1/settlements/run');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { settlements: Row[]; refused: Row[] };
  };
  const balance = async (p: Party) => {
    const res = await p.client.get(`/payout/v1/balance?wallet_id=${p.merchant.wallet_id}`);
    return res.data as Row;
  };
  /** Moves the clock to an instant (never back); `hold` keeps it there until the next move. */
  const moveTo = (at: number, hold = false) => {
    expect(at).toBeGreaterThan(clock());
    held = null;
    offset = at - Date.now();
    if (hold) held = at;
  };

  it('refuses without an account (4016), then settles the collections net of their fees (2000)', async () => {
    const p = await collector();
    const c1 = await collect(p, '100.00');
    const c2 = await collect(p, '50.00');
    const none = await settle(p.client, { wallet_id: p.merchant.wallet_id });
    expect(none.body).toMatchObject({ resp_code: 4016, resp_message: 'No active settlement account found' });
    expect(none.status).toBe(422);

    const account = await setAccount(p, {});
    expect(account.status, JSON.stringify(account.body)).toBe(200);
    expect(account.body).toMatchObject({ schedule: 'manual', reserve_percent: '0.00', bank_name: expect.any(String) });
    // The first account holds nothing.
    expect(Date.parse(account.body.active_from as string)).toBeLessThanOrEqual(clock());

    const res = await settle(p.client, { wallet_id: p.merchant.wallet_id });
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    const s = res.data as Row;
    // 100 − 2.36 + 50 − 2.36
    expect(s).toMatchObject({
      merchant_id: p.merchant.merchant_id,
      wallet_id: p.merchant.wallet_id,
      amount: '145.28',
      fees: '4.00',
      tax: '0.72',
      state: 'INITIATED',
      payment_mode: 'IMPS',
      trigger: 'manual',
      collection_count: 2,
    });
    expect(s.settlement_id).toMatch(/^ST[0-9A-Z]{26}$/);
    expect(s.collections).toEqual([
      { collection_id: c1, amount: '100.00', fee: '2.00', tax: '0.36', net: '97.64' },
      { collection_id: c2, amount: '50.00', fee: '2.00', tax: '0.36', net: '47.64' },
    ]);
    expect(await balance(p)).toMatchObject({ balance: '0.00' });
    // The wallet's statement names the settlement on its payout's line.
    const statement = await admin(t.url, 'GET', `/admin/v1/wallets/${p.merchant.wallet_id}/statement`);
    expect((statement.body.entries as Row[]).filter((e) => e.kind === 'payout_debit')).toMatchObject([
      { amount: '-145.28', reference: s.settlement_id, payout_id: s.payout_id },
    ]);

    // An ordinary payout with the settlement as its sender_id; the settlement follows it.
    const payout = await waitForStatus(t.url, s.payout_id as string, 'SUCCESS');
    expect(payout).toMatchObject({ sender_id: s.settlement_id, amount: '145.28', fees: '0.00' });
    const status = await p.client.get(`/settlement/v1/status?settlement_id=${s.settlement_id as string}`);
    expect(status.data).toMatchObject({ state: 'SUCCESS', utr: expect.stringMatching(/.+/) });

    // Nothing is left: 4002; an unknown wallet 4202; none given 4201; a bad amount 4004.
    expect((await settle(p.client, { wallet_id: p.merchant.wallet_id })).body.resp_code).toBe(4002);
    expect((await settle(p.client, { wallet_id: 'WL00000000000000000000000000' })).body.resp_code).toBe(4202);
    expect((await settle(p.client, {})).body.resp_code).toBe(4201);
    expect((await settle(p.client, { wallet_id: p.merchant.wallet_id, amount: '1.234' })).body.resp_code).toBe(4004);
    await expectLedgerOk(t.url);
  });

  it('settles exactly an amount when asked, the last collection in part, and the rest later', async () => {
    const p = await collector();
    await setAccount(p, {});
    const c1 = await collect(p, '100.00');
    const c2 = await collect(p, '100.00');
    expect((await settle(p.client, { wallet_id: p.merchant.wallet_id, amount: '200.00' })).body.resp_code).toBe(4002);
    const first = await settle(p.client, { wallet_id: p.merchant.wallet_id, amount: '120.00' });
    expect(first.data).toMatchObject({
      amount: '120.00',
      collections: [
        { collection_id: c1, net: '97.64', fee: '2.00' },
        { collection_id: c2, net: '22.36', fee: '2.00' },
      ],
    });
    const rest = await settle(p.client, { wallet_id: p.merchant.wallet_id });
    // The rest of c2; its fee was on the first settlement.
    expect(rest.data).toMatchObject({
      amount: '75.28',
      fees: '0.00',
      collections: [{ collection_id: c2, net: '75.28', fee: '0.00' }],
    });
  });

  it('keeps liens and the reserve out of a settlement', async () => {
    const p = await collector();
    // Without reserve_days the reserve holds 7 days of collections.
    expect((await setAccount(p, { reserve_percent: '10' })).body).toMatchObject({ reserve_days: 7 });
    await collect(p, '1000.00'); // nets 997.64; the reserve holds 99.77 (rounded up)
    const lien = await admin(t.url, 'POST', `/admin/v1/wallets/${p.merchant.wallet_id}/liens`, {
      amount: '100.00',
      reason: 'dispute',
    });
    expect(lien.status).toBe(201);
    const res = await settle(p.client, { wallet_id: p.merchant.wallet_id });
    expect(res.data).toMatchObject({ amount: '797.87' });
    expect(await balance(p)).toMatchObject({ balance: '199.77', available_balance: '99.77', on_lien: '100.00' });
  });

  it('never shows one merchant another merchant’s settlement (4107), nor settles its wallet (4202)', async () => {
    const a = await collector();
    const b = await collector();
    await setAccount(a, {});
    await collect(a, '10.00');
    const s = (await settle(a.client, { wallet_id: a.merchant.wallet_id })).data as Row;
    const other = await b.client.get(`/settlement/v1/status?settlement_id=${s.settlement_id as string}`);
    expect(other.body).toMatchObject({ resp_code: 4107 });
    expect(other.status).toBe(403);
    expect(
      (await b.client.get('/settlement/v1/status?settlement_id=ST00000000000000000000000000')).body.resp_code,
    ).toBe(4103);
    expect((await b.client.get('/settlement/v1/status')).body.resp_code).toBe(4101);
    expect((await settle(b.client, { wallet_id: a.merchant.wallet_id })).body.resp_code).toBe(4202);
    const history = await b.client.get('/settlement/v1/history');
    expect(history.data).toEqual({ settlements: [] });
    const own = await a.client.get('/api/settlement/v1/history');
    expect((own.data as { settlements: Row[] }).settlements).toMatchObject([
      { settlement_id: s.settlement_id, collection_count: 1, collections: [{ net: '7.64' }] },
    ]);
    expect((await a.client.get('/settlement/v1/history?from=2026-13-01')).body.resp_code).toBe(4017);
  });

  it('answers operators: the list, one settlement, its CSV report; settles for them and tells the merchant', async () => {
    const p = await collector();
    await setMerchant(t.url, p.merchant.merchant_id, { collection_callback_url: 'http://127.0.0.1:9/settlements' });
    await setAccount(p, {});
    const c = await collect(p, '100.00');
    const created = await admin(t.url, 'POST', '/admin/v1/settlements', { wallet_id: p.merchant.wallet_id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.settlement_id as string;
    const list = await admin(t.url, 'GET', `/admin/v1/settlements?merchant_id=${p.merchant.merchant_id}`);
    expect(list.body.data).toMatchObject([{ settlement_id: id, collections: [{ collection_id: c, net: '97.64' }] }]);
    const csv = await fetch(`${t.url}/admin/v1/settlements/${id}?format=csv`, {
      headers: { authorization: `Bearer ${t.config.adminToken as string}` },
    });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect((await csv.text()).split('\r\n')).toEqual([
      'settlement_id,collection_id,amount,fee,gst,net',
      `${id},${c},100.00,2.00,0.36,97.64`,
      '',
    ]);
    await waitForStatus(t.url, created.body.payout_id as string, 'SUCCESS');
    const { rows } = await t.db.query<{ type: string }>(
      `SELECT type FROM webhook_deliveries WHERE merchant_id = $1 AND subject_id = $2 ORDER BY seq`,
      [p.merchant.merchant_id, id],
    );
    expect(rows.map((r) => r.type)).toEqual(['settlement.initiated', 'settlement.processing', 'settlement.success']);
    const noAccount = await collector();
    await collect(noAccount, '5.00');
    const refused = await admin(t.url, 'POST', '/admin/v1/settlements', { wallet_id: noAccount.merchant.wallet_id });
    expect([refused.status, (refused.body.error as Row).code]).toEqual([422, 'no_settlement_account']);
  });

  it('settles instant merchants at the next pass', async () => {
    const p = await collector();
    await setAccount(p, { schedule: 'instant' });
    const c = await collect(p, '20.00');
    const result = await run();
    const mine = result.settlements.filter((s) => s.wallet_id === p.merchant.wallet_id);
    expect(mine).toMatchObject([{ trigger: 'instant', amount: '17.64', collection_count: 1 }]);
    const again = await run();
    expect(again.settlements.filter((s) => s.wallet_id === p.merchant.wallet_id)).toEqual([]);
    const got = await admin(t.url, 'GET', `/admin/v1/settlements/${mine[0]?.settlement_id as string}`);
    expect(got.body.collections).toMatchObject([{ collection_id: c }]);
  });

  it('holds a suspended merchant’s settlements until it is active again', async () => {
    const p = await collector();
    await setAccount(p, { schedule: 'instant' });
    await collect(p, '30.00');
    await setMerchant(t.url, p.merchant.merchant_id, { status: 'suspended' });
    const held = await run();
    expect(held.settlements.filter((s) => s.wallet_id === p.merchant.wallet_id)).toEqual([]);
    expect(held.refused.filter((r) => r.wallet_id === p.merchant.wallet_id)).toEqual([]);
    await setMerchant(t.url, p.merchant.merchant_id, { status: 'active' });
    const resumed = await run();
    expect(resumed.settlements.filter((s) => s.wallet_id === p.merchant.wallet_id)).toMatchObject([
      { trigger: 'instant', amount: '27.64' },
    ]);
  });

  // The tests below move the clock by days: they come last.
  it('runs daily: collections up to the previous midnight IST (23:59:59 in, 00:00:00 not), banking days only; a failed settlement is covered again the next day', async () => {
    const p = await collector();
    const failing = await collector();
    // A daily schedule without `at` runs at 11:00 IST.
    expect((await setAccount(p, { schedule: 'daily' })).body).toMatchObject({ schedule: 'daily', at: '11:00' });
    expect(
      (await setAccount(failing, { schedule: 'daily', at: '11:00', account_number: SANDBOX.failure })).status,
    ).toBe(200);
    // D: the next Tuesday (IST) at least a day ahead, so that D+1 (Wednesday) is a banking day.
    let d = new Date(clock() + DAY);
    while (new Date(`${istDay(d)}T00:00:00Z`).getUTCDay() !== 2) d = new Date(d.getTime() + DAY);
    const dStart = (istDayStart(istDay(d)) as Date).getTime();
    moveTo(dStart + DAY - 1000, true); // 23:59:59 IST on D
    const before = await collect(p, '10.00');
    const failed1 = await collect(failing, '10.00');
    moveTo(dStart + DAY, true); // 00:00:00 IST on D+1
    const after = await collect(p, '10.00');

    moveTo(dStart + DAY + 11 * HOUR - 60_000); // 10:59 on D+1: not yet
    expect((await run()).settlements.filter((s) => s.merchant_id === p.merchant.merchant_id)).toEqual([]);
    moveTo(dStart + DAY + 11 * HOUR); // 11:00 on D+1
    const day1 = await run();
    const mine = day1.settlements.filter((s) => s.merchant_id === p.merchant.merchant_id);
    expect(mine).toHaveLength(1);
    const s1 = await admin(t.url, 'GET', `/admin/v1/settlements/${mine[0]?.settlement_id as string}`);
    expect(s1.body).toMatchObject({ trigger: 'daily', collections: [{ collection_id: before }] });
    // Once a day, whatever the number of passes.
    expect((await run()).settlements.filter((s) => s.merchant_id === p.merchant.merchant_id)).toEqual([]);

    // The failing merchant's settlement fails and is refunded: its collection is settleable again.
    const f1 = day1.settlements.find((s) => s.merchant_id === failing.merchant.merchant_id) as Row;
    expect(f1).toBeDefined();
    await waitForStatus(t.url, f1.payout_id as string, 'REFUNDED');
    const f1After = await admin(t.url, 'GET', `/admin/v1/settlements/${f1.settlement_id as string}`);
    expect(f1After.body).toMatchObject({ state: 'REFUNDED' });
    // The merchant fixes the account: a change, held 24 hours.
    const fixed = await setAccount(failing, { schedule: 'daily', at: '11:00', account_number: SANDBOX.success });
    expect(Date.parse(fixed.body.active_from as string)).toBeGreaterThan(clock() + DAY - 60_000);
    await failing.client.login();
    const manual = await settle(failing.client, { wallet_id: failing.merchant.wallet_id });
    expect(manual.body.resp_code).toBe(4016);

    // D+2 (Thursday) 11:00: p's 00:00:00 collection; the failing merchant waits until its account is active (11:00
    // plus the minutes this test took on D+1), then the same collection is covered once.
    moveTo(dStart + 2 * DAY + 11 * HOUR);
    const day2 = await run();
    const s2 = day2.settlements.find((s) => s.merchant_id === p.merchant.merchant_id) as Row;
    const s2Full = await admin(t.url, 'GET', `/admin/v1/settlements/${s2.settlement_id as string}`);
    expect(s2Full.body).toMatchObject({ collections: [{ collection_id: after }] });
    moveTo(Date.parse(fixed.body.active_from as string) + 1000);
    const retried = (await run()).settlements.filter((s) => s.merchant_id === failing.merchant.merchant_id);
    expect(retried).toHaveLength(1);
    const again = await admin(t.url, 'GET', `/admin/v1/settlements/${retried[0]?.settlement_id as string}`);
    expect(again.body).toMatchObject({ amount: '7.64', collections: [{ collection_id: failed1, net: '7.64' }] });

    // Sunday: no run; Monday's run covers what came in on Saturday and Sunday.
    let sunday = new Date(clock());
    while (new Date(`${istDay(sunday)}T00:00:00Z`).getUTCDay() !== 0) sunday = new Date(sunday.getTime() + DAY);
    const sundayStart = (istDayStart(istDay(sunday)) as Date).getTime();
    moveTo(sundayStart + 9 * HOUR);
    const onSunday = await collect(p, '10.00');
    moveTo(sundayStart + 12 * HOUR);
    expect((await run()).settlements.filter((s) => s.merchant_id === p.merchant.merchant_id)).toEqual([]);
    moveTo(sundayStart + DAY + 11 * HOUR);
    const monday = (await run()).settlements.filter((s) => s.merchant_id === p.merchant.merchant_id);
    const mondayFull = await admin(t.url, 'GET', `/admin/v1/settlements/${monday[0]?.settlement_id as string}`);
    expect(mondayFull.body).toMatchObject({ collections: [{ collection_id: onSunday }] });
    await expectLedgerOk(t.url);
  });
});
