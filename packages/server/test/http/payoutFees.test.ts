import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { initiateOk, simulate } from '../support/collectionFixtures.ts';
import { admin, createMerchant, http, MerchantClient, type HttpResult } from '../support/merchantClient.ts';
import {
  expectLedgerOk,
  fundedMerchant,
  payoutRequest,
  senderId,
  setLimits,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
type Row = Record<string, unknown>;
const paise = (rupees: string) => BigInt(rupees.replace('.', ''));

/** The three-slab IMPS plan of a real provider's published pricing, NEFT by basis points with a floor and a cap. */
const PLAN = {
  name: 'Standard',
  rules: {
    IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '25000.00', flat: '5.00' }, { flat: '10.00' }] },
    NEFT: { slabs: [{ bps: 15, min: '3.00', max: '25.00' }] },
    UPI_COLLECTION: { slabs: [{ bps: 180 }] },
  },
};

const setPlan = (url: string, merchantId: string, plan: unknown) =>
  admin(url, 'PUT', `/admin/v1/merchants/${merchantId}/pricing`, plan);

/** Sum of one kind of the merchant wallet's entries of a payout, in paise, by kind. */
async function entriesOf(t: TestServer, payoutId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ wallet_id: string; kind: string; amount: bigint }>(
    'SELECT wallet_id, kind, amount FROM ledger_entries WHERE payout_id = $1 ORDER BY id',
    [payoutId],
  );
  return rows.map((r) => `${r.wallet_id.startsWith('PW_') ? r.wallet_id : 'merchant'}:${r.kind}:${String(r.amount)}`);
}

/** The platform's fee and GST wallets, and the sums of every fee kind over all wallets (double entry: all zero). */
async function platformBooks(t: TestServer) {
  const { rows } = await t.db.query<{ id: string; balance: bigint }>(
    "SELECT id, balance FROM platform_wallet_balances WHERE id IN ('PW_FEES', 'PW_GST') ORDER BY id",
  );
  const { rows: unbalanced } = await t.db.query<{ kind: string }>(
    "SELECT kind FROM ledger_entries WHERE kind LIKE '%fee%' GROUP BY kind HAVING sum(amount) <> 0",
  );
  return { fees: BigInt(rows[0]?.balance ?? 0), gst: BigInt(rows[1]?.balance ?? 0), unbalanced };
}

describe.each(ENGINES)('fees and GST on payouts on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestServer(engine, {
      env: { PAYRAIL_MODE: 'live', PAYRAIL_PSP_NOTIFY_SECRET: SECRET, PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    f = await fundedMerchant(t.url, 'v2', '100000.00');
    expect((await setPlan(t.url, f.merchant.merchant_id, PLAN)).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const balance = (m: Funded = f) => walletBalance(t.url, m.merchant.merchant_id, m.merchant.wallet_id);
  const notify = (body: unknown): Promise<HttpResult> => {
    const raw = JSON.stringify(body);
    return http(t.url, 'POST', '/psp/v1/payouts/notify', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'payrail-signature': signPspNotification(SECRET, raw, now()) },
    });
  };
  const initiate = (amount: string, mode = 'IMPS', m: Funded = f) =>
    m.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', {
        wallet_id: m.merchant.wallet_id,
        amount,
        payment_mode: mode,
        callback_url: `${receiver.url}/fees`,
      }),
    );
  const processing = async (amount: string, mode = 'IMPS') => {
    const res = await initiate(amount, mode);
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    const id = res.data?.transaction_id as string;
    await waitForStatus(t.url, id, 'PROCESSING');
    return id;
  };

  it('sets, reads and refuses plans, naming the field that breaks a rule', async () => {
    const got = await admin(t.url, 'GET', `/admin/v1/merchants/${f.merchant.merchant_id}/pricing`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      merchant_id: f.merchant.merchant_id,
      name: 'Standard',
      gst_rate: '18.00',
      rules: {
        IMPS: {
          slabs: [
            { up_to: '1000.00', flat: '2.00', bps: 0 },
            { up_to: '25000.00', flat: '5.00', bps: 0 },
            { flat: '10.00', bps: 0 },
          ],
        },
        NEFT: { slabs: [{ flat: '0.00', bps: 15, min: '3.00', max: '25.00' }] },
      },
    });
    const bad: [unknown, string][] = [
      [
        {
          name: 'x',
          rules: { IMPS: { slabs: [{ up_to: '10.00', flat: '1' }, { up_to: '5.00', flat: '1' }, { flat: '1' }] } },
        },
        'rules.IMPS.slabs[1].up_to',
      ],
      [{ name: 'x', rules: { IMPS: { slabs: [{ up_to: '10.00', flat: '1' }] } } }, 'rules.IMPS.slabs[0].up_to'],
      [{ name: 'x', rules: { UPI: { slabs: [{ flat: '1' }] } } }, 'rules.UPI'],
      [{ name: 'x', rules: { NEFT: { slabs: [{ bps: 2.5 }] } } }, 'rules.NEFT.slabs[0].bps'],
      [{ name: 'x', rules: { NEFT: { slabs: [{ flat: '-1.00' }] } } }, 'rules.NEFT.slabs[0].flat'],
      [{ name: 'x', rules: { NEFT: { slabs: [{ bps: 10, min: '5.00', max: '1.00' }] } } }, 'rules.NEFT.slabs[0].min'],
      [{ name: 'x', rules: { NEFT: { slabs: [{}] } } }, 'rules.NEFT.slabs[0]'],
      [{ name: '', rules: {} }, 'name'],
      [{ name: 'x', rules: [] }, 'rules'],
    ];
    for (const [body, field] of bad) {
      const res = await setPlan(t.url, f.merchant.merchant_id, body);
      expect([res.status, (res.body.error as Row).code], JSON.stringify(body)).toEqual([400, 'invalid_pricing']);
      expect(
        String((res.body.error as Row).message).startsWith(`${field}:`),
        String((res.body.error as Row).message),
      ).toBe(true);
    }
    // Nothing refused changed the plan.
    expect((await admin(t.url, 'GET', `/admin/v1/merchants/${f.merchant.merchant_id}/pricing`)).body.name).toBe(
      'Standard',
    );
    const other = await createMerchant(t.url, 'No plan');
    const none = await admin(t.url, 'GET', `/admin/v1/merchants/${other.merchant_id}/pricing`);
    expect([none.status, (none.body.error as Row).code]).toEqual([404, 'no_pricing']);
    const unknown = await setPlan(t.url, 'MR00000000000000000000000000', PLAN);
    expect([unknown.status, (unknown.body.error as Row).code]).toEqual([404, 'not_found']);
  });

  it('debits amount, fee and GST in one go and shows fees and tax in the answer, status and webhooks', async () => {
    const start = await balance();
    const before = await platformBooks(t);
    const cases: [string, string, string, string][] = [
      // amount, mode, fees, tax: ₹1,000.00 is the first slab (up_to inclusive), a paisa more the second.
      ['1000.00', 'IMPS', '2.00', '0.36'],
      ['1000.01', 'IMPS', '5.00', '0.90'],
      ['30000.00', 'IMPS', '10.00', '1.80'],
      // NEFT 15 bps: ₹3,003.34 → 450.501 paise → 4.51, GST 0.8118 → 0.81.
      ['3003.34', 'NEFT', '4.51', '0.81'],
    ];
    for (const [amount, mode, fees, tax] of cases) {
      const res = await initiate(amount, mode);
      expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
      expect(res.data).toMatchObject({ amount, fees, tax, status: 'INITIATED' });
      const id = res.data?.transaction_id as string;
      const status = await f.client.get(`/payout/v1/status?transaction_id=${id}`);
      expect(status.data).toMatchObject({ fees, tax });
      const adminView = await admin(t.url, 'GET', `/admin/v1/payouts/${id}`);
      expect(adminView.body).toMatchObject({ fees, tax });
    }
    // 1000 + 1000.01 + 30000 + 3003.34 = 35003.35; fees 21.51; GST 3.87.
    expect(paise(await balance())).toBe(paise(start) - 35_003_35n - 21_51n - 3_87n);
    const after = await platformBooks(t);
    expect(after.fees - before.fees).toBe(2151n);
    expect(after.gst - before.gst).toBe(387n);
    expect(after.unbalanced).toEqual([]);
    await eventually(() => receiver.at('/fees').length >= 4);
    const hook = JSON.parse((receiver.at('/fees')[0] as { body: string }).body) as { data: string };
    expect(f.client.decrypt(hook.data)).toMatchObject({
      fees: expect.stringMatching(/^\d+\.\d{2}$/),
      tax: expect.any(String),
    });
    await expectLedgerOk(t.url);
  });

  it('refuses 4002 when the balance covers the amount but not amount + fee + GST, and counts only the amount toward allowances', async () => {
    const m = await fundedMerchant(t.url, 'v2', '1002.35');
    expect((await setPlan(t.url, m.merchant.merchant_id, PLAN)).status).toBe(200);
    // ₹1,000.00 + ₹2.00 + ₹0.36 = ₹1,002.36: a paisa short.
    const short = await initiate('1000.00', 'IMPS', m);
    expect(short.body.resp_code).toBe(4002);
    expect(await balance(m)).toBe('1002.35');
    await admin(t.url, 'POST', `/admin/v1/wallets/${m.merchant.wallet_id}/credits`, {
      amount: '0.01',
      reference: `r-${senderId()}`,
    });
    await setLimits(t.url, m.merchant.merchant_id, { daily_limit: '1000.00' });
    // The day's allowance is exactly the amount: fee and GST do not count toward it.
    const fits = await initiate('1000.00', 'IMPS', m);
    expect(fits.body.resp_code, JSON.stringify(fits.body)).toBe(2000);
    expect(await balance(m)).toBe('0.00');
  });

  it('gives fee and GST back with the amount when a payout fails, and when it is returned (operator or bank)', async () => {
    const start = await balance();
    const failed = await processing('500.00');
    expect(await notify({ transactionId: failed, status: 'FAILED', reason: 'Account closed' })).toMatchObject({
      status: 200,
    });
    await waitForStatus(t.url, failed, 'REFUNDED');
    expect(await entriesOf(t, failed)).toEqual([
      'merchant:payout_debit:-50000',
      'merchant:payout_fee:-200',
      'merchant:payout_fee_gst:-36',
      'PW_FEES:payout_fee:200',
      'PW_GST:payout_fee_gst:36',
      'merchant:payout_refund:50000',
      'merchant:payout_fee_refund:200',
      'merchant:payout_fee_gst_refund:36',
      'PW_FEES:payout_fee_refund:-200',
      'PW_GST:payout_fee_gst_refund:-36',
    ]);
    // The payout keeps showing what it was charged; the refund is its own entry.
    expect((await f.client.get(`/payout/v1/status?transaction_id=${failed}`)).data).toMatchObject({
      status: 'REFUNDED',
      fees: '2.00',
      tax: '0.36',
    });
    expect(await balance()).toBe(start);

    const byOperator = await processing('700.00');
    expect((await notify({ transactionId: byOperator, status: 'SUCCESS', utr: 'UTRFEE0000001' })).body).toMatchObject({
      result: 'applied',
    });
    const returned = await admin(t.url, 'POST', `/admin/v1/payouts/${byOperator}/return`, {
      reason: 'Beneficiary account closed',
    });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);

    const byBank = await processing('800.00', 'NEFT');
    expect((await notify({ transactionId: byBank, status: 'SUCCESS', utr: 'UTRFEE0000002' })).body).toMatchObject({
      result: 'applied',
    });
    const bankReturn = await notify({
      transactionId: byBank,
      status: 'RETURNED',
      reason: 'Beneficiary deceased',
      amount: '800.00',
    });
    expect(bankReturn.body, JSON.stringify(bankReturn.body)).toMatchObject({ result: 'applied', status: 'REFUNDED' });

    for (const id of [byOperator, byBank]) {
      const kinds = (await entriesOf(t, id)).map((e) => e.replace(/:-?\d+$/, ''));
      expect(kinds).toEqual(
        expect.arrayContaining([
          'merchant:payout_fee_refund',
          'merchant:payout_fee_gst_refund',
          'PW_FEES:payout_fee_refund',
          'PW_GST:payout_fee_gst_refund',
        ]),
      );
    }
    expect(await balance()).toBe(start);
    expect((await platformBooks(t)).unbalanced).toEqual([]);
    await expectLedgerOk(t.url);
  });

  it('prices bulk items one by one; a dry run shows the batch’s fees and GST', async () => {
    const m = await fundedMerchant(t.url, 'v2', '2010.00');
    expect((await setPlan(t.url, m.merchant.merchant_id, PLAN)).status).toBe(200);
    const item = (amount: string, mode = 'IMPS') =>
      payoutRequest('nested', { wallet_id: m.merchant.wallet_id, amount, payment_mode: mode });
    const body = (dry: boolean) => ({
      batch_id: `fees-${senderId()}`,
      dry_run: dry,
      // 1000 + 2.36 leaves 1007.64; the second 1000 + 2.36 leaves 5.28; then 5.00 + 2.36 does not fit (4002).
      items: [item('1000.00'), item('1000.00'), item('5.00')],
    });
    const dry = await m.client.post('/payout/v1/bulk', body(true));
    expect(dry.body.resp_code, JSON.stringify(dry.body)).toBe(2000);
    const dryData = dry.data as { summary: Row; items: Row[] };
    expect(dryData.items.map((i) => i.resp_code)).toEqual([2000, 2000, 4002]);
    expect(dryData.summary).toMatchObject({ accepted: 2, amount_accepted: '2000.00', fees: '4.00', tax: '0.72' });
    expect(dryData.items[0]).toMatchObject({ fees: '2.00', tax: '0.36' });
    expect(await balance(m)).toBe('2010.00');
    const real = await m.client.post('/payout/v1/bulk', body(false));
    expect((real.data as { summary: Row }).summary).toMatchObject({ accepted: 2, fees: '4.00', tax: '0.72' });
    expect(await balance(m)).toBe('5.28');
    await expectLedgerOk(t.url);
  });
});

describe.each(ENGINES)('fees on collections and PAYRAIL_REQUIRE_PRICING on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_REQUIRE_PRICING: 'true' } });
  });
  afterAll(() => t.close());

  it('refuses payouts, bulk items and collections of a merchant without a plan with 4015, until it has one', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const payout = await f.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '10.00' }),
    );
    expect([payout.status, payout.body.resp_code, payout.body.resp_message]).toEqual([
      422,
      4015,
      'Commercials are not yet configured and activated',
    ]);
    const bulk = await f.client.post('/payout/v1/bulk', {
      batch_id: `b-${senderId()}`,
      items: [payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '10.00' })],
    });
    expect(((bulk.data as { items: Row[] }).items[0] as Row).resp_code).toBe(4015);
    const collection = await f.client.post('/collection/v1/initiate', { senderId: senderId(), amount: '10.00' });
    expect([collection.status, collection.body.respCode]).toEqual([422, 4015]);
    expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('1000.00');

    // A plan that prices nothing is still a plan: payouts go through, free.
    expect((await setPlan(t.url, f.merchant.merchant_id, { name: 'Free', rules: {} })).status).toBe(200);
    const ok = await f.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '10.00' }),
    );
    expect(ok.body.resp_code, JSON.stringify(ok.body)).toBe(2000);
    expect(ok.data).toMatchObject({ fees: '0.00', tax: '0.00' });
  });

  it('credits a collection, then debits its fee and GST in the same transaction; "0.00" until it succeeds', async () => {
    const merchant = await createMerchant(t.url, 'Collector');
    const client = await MerchantClient.connect(t.url, merchant, 'v2');
    expect((await setPlan(t.url, merchant.merchant_id, PLAN)).status).toBe(200);
    const created = await initiateOk(client, { amount: '250.50' });
    expect(created).toMatchObject({ fees: '0.00', tax: '0.00' });
    const done = await simulate(client, created.txnId, 'SUCCESS');
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    // 1.8 % of ₹250.50 = 450.9 paise → 4.51; GST 0.8118 → 0.81.
    expect(done.data).toMatchObject({ status: 'SUCCESS', fees: '4.51', tax: '0.81' });
    expect(await walletBalance(t.url, merchant.merchant_id, merchant.wallet_id)).toBe('245.18');
    const { rows } = await t.db.query<{ wallet_id: string; kind: string; amount: bigint }>(
      'SELECT wallet_id, kind, amount FROM ledger_entries WHERE collection_id = $1 ORDER BY id',
      [created.txnId],
    );
    expect(
      rows.map((r) => `${r.wallet_id.startsWith('PW_') ? r.wallet_id : 'merchant'}:${r.kind}:${String(r.amount)}`),
    ).toEqual([
      'merchant:collection_credit:25050',
      'merchant:collection_fee:-451',
      'merchant:collection_fee_gst:-81',
      'PW_FEES:collection_fee:451',
      'PW_GST:collection_fee_gst:81',
    ]);
    const status = await client.get(`/collection/v1/status?txnId=${created.txnId}`);
    expect(status.data).toMatchObject({ fees: '4.51', tax: '0.81' });
    expect((await platformBooks(t)).unbalanced).toEqual([]);
    await expectLedgerOk(t.url);
  });
});
