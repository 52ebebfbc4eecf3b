import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePricingPlan } from '../../src/domain/pricingPlan.ts';
import { istDay } from '../../src/domain/istPeriod.ts';
import { PricingRepository } from '../../src/store/repositories/PricingRepository.ts';
import { initiateOk as initiateCollection, simulate } from '../support/collectionFixtures.ts';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

interface Row {
  key: string;
  count: number;
  fees: string;
  tax: string;
}

interface Entry {
  kind: string;
  description: string;
  amount: string;
  payout_id: string | null;
  collection_id: string | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The platform's books (docs/operator/charging-merchants.md, "Platform wallets and fee reports"): its wallets, the
 * fee report by day, merchant and product, the ledger check over them, the statement lines of fees, and fees on the
 * operator's views. Merchant A pays IMPS ₹5.00, NEFT ₹3.00 and UPI_COLLECTION ₹2.00; B pays IMPS ₹5.00; GST 18 %.
 */
describe.each(ENGINES)('platform wallets and fee reports on %s', (engine) => {
  let t: TestServer;
  let a: Funded;
  let b: Funded;
  let paid: string;
  let failed: string;
  let collected: string;
  /** A window around today (IST) that holds every fee this file charges through the API. */
  let around: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    [a, b] = await Promise.all([fundedMerchant(t.url, 'v2', '1000.00'), fundedMerchant(t.url, 'v2', '1000.00')]);
    const at = new Date();
    await PricingRepository.put(
      t.db,
      a.merchant.merchant_id,
      parsePricingPlan({
        name: 'A plan',
        rules: {
          IMPS: { slabs: [{ flat: '5.00' }] },
          NEFT: { slabs: [{ flat: '3.00' }] },
          UPI_COLLECTION: { slabs: [{ flat: '2.00' }] },
        },
      }),
      at,
    );
    await PricingRepository.put(
      t.db,
      b.merchant.merchant_id,
      parsePricingPlan({ name: 'B plan', rules: { IMPS: { slabs: [{ flat: '5.00' }] } } }),
      at,
    );
    const wa = a.merchant.wallet_id;
    paid = (await initiateOk(a.client, payoutRequest('nested', { wallet_id: wa, amount: '100.00' })))
      .transaction_id as string;
    const second = (await initiateOk(a.client, payoutRequest('nested', { wallet_id: wa, amount: '100.00' })))
      .transaction_id as string;
    failed = (
      await initiateOk(
        a.client,
        payoutRequest('nested', {
          wallet_id: wa,
          amount: '100.00',
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.failure,
        }),
      )
    ).transaction_id as string;
    const neft = (
      await initiateOk(a.client, payoutRequest('nested', { wallet_id: wa, amount: '100.00', payment_mode: 'NEFT' }))
    ).transaction_id as string;
    const theirs = (
      await initiateOk(b.client, payoutRequest('nested', { wallet_id: b.merchant.wallet_id, amount: '50.00' }))
    ).transaction_id as string;
    collected = (await initiateCollection(a.client, { amount: '100.00' })).txnId;
    expect((await simulate(a.client, collected, 'SUCCESS')).body.respCode).toBe(2000);
    await Promise.all([
      waitForStatus(t.url, paid, 'SUCCESS'),
      waitForStatus(t.url, second, 'SUCCESS'),
      waitForStatus(t.url, neft, 'SUCCESS'),
      waitForStatus(t.url, theirs, 'SUCCESS'),
      waitForStatus(t.url, failed, 'REFUNDED'),
    ]);
    const now = Date.now();
    around = `from=${istDay(new Date(now - DAY_MS))}&to=${istDay(new Date(now + DAY_MS))}`;
  }, 120_000);
  afterAll(() => t.close());

  const fees = async (query: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/platform/fees?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { from: string; to: string; group: string; rows: Row[]; total: Omit<Row, 'key'> };
  };

  it('lists the platform wallets with what they hold', async () => {
    const res = await admin(t.url, 'GET', '/admin/v1/platform/wallets');
    expect(res.status).toBe(200);
    // 5 fees charged (₹5 + ₹5 + ₹5 + ₹3 + ₹2 on A, ₹5 on B) less the failed payout's ₹5; GST 18 % of each.
    expect(res.body).toEqual({
      wallets: [
        { kind: 'fees', wallet_id: 'PW_FEES', balance: '20.00' },
        { kind: 'gst', wallet_id: 'PW_GST', balance: '3.60' },
        { kind: 'recovery', wallet_id: 'PW_RECOVERY', balance: '0.00' },
      ],
      suspense: { wallet_id: 'PW_SUSPENSE', balance: '0.00' },
    });
  });

  it('reports fees by merchant, net of the refunded fee', async () => {
    const report = await fees(`${around}&group=merchant`);
    expect(report.group).toBe('merchant');
    expect(report.rows).toEqual(
      [
        { key: a.merchant.merchant_id, count: 4, fees: '15.00', tax: '2.70' },
        { key: b.merchant.merchant_id, count: 1, fees: '5.00', tax: '0.90' },
      ].sort((x, y) => (x.key < y.key ? -1 : 1)),
    );
    expect(report.total).toEqual({ count: 5, fees: '20.00', tax: '3.60' });
  });

  it('reports fees by product, and for one merchant', async () => {
    expect((await fees(`${around}&group=product`)).rows).toEqual([
      { key: 'IMPS', count: 3, fees: '15.00', tax: '2.70' },
      { key: 'NEFT', count: 1, fees: '3.00', tax: '0.54' },
      { key: 'UPI_COLLECTION', count: 1, fees: '2.00', tax: '0.36' },
    ]);
    const onlyB = await fees(`${around}&group=product&merchant_id=${b.merchant.merchant_id}`);
    expect(onlyB.rows).toEqual([{ key: 'IMPS', count: 1, fees: '5.00', tax: '0.90' }]);
    expect(onlyB.total).toEqual({ count: 1, fees: '5.00', tax: '0.90' });
    const nobody = await fees(`${around}&group=merchant&merchant_id=MR00000000000000000000000000`);
    expect(nobody).toMatchObject({ rows: [], total: { count: 0, fees: '0.00', tax: '0.00' } });
  });

  it('reports by day every day of the window, zeros included; the default window is the month so far', async () => {
    const now = new Date();
    const report = await fees(around);
    expect(report.group).toBe('day');
    expect(report.rows.map((r) => r.key)).toEqual([
      istDay(new Date(now.getTime() - DAY_MS)),
      istDay(now),
      istDay(new Date(now.getTime() + DAY_MS)),
    ]);
    expect(report.rows.find((r) => r.key === istDay(now))).toEqual({
      key: istDay(now),
      count: 5,
      fees: '20.00',
      tax: '3.60',
    });
    const monthSoFar = await fees('');
    expect(monthSoFar).toMatchObject({ from: `${istDay(now).slice(0, 7)}-01`, to: istDay(now) });
    expect(monthSoFar.rows).toHaveLength(Number(istDay(now).slice(8, 10)));
  });

  it('exports CSV with a total line', async () => {
    const res = await fetch(`${t.url}/admin/v1/platform/fees?${around}&group=product&format=csv`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="platform-fees-.*-by-product\.csv"$/);
    expect((await res.text()).trimEnd().split('\r\n')).toEqual([
      'product,count,fees,tax',
      'IMPS,3,15.00,2.70',
      'NEFT,1,3.00,0.54',
      'UPI_COLLECTION,1,2.00,0.36',
      'total,5,20.00,3.60',
    ]);
  });

  it('refuses a window that is reversed, longer than 366 days or not made of days', async () => {
    expect((await fees('from=2024-01-01&to=2024-12-31')).rows).toHaveLength(366);
    for (const q of [
      'from=2024-01-01&to=2025-01-01',
      'from=2026-03-02&to=2026-03-01',
      'from=2026-02-30&to=2026-03-01',
      'from=2026-03-01&to=2026-13-01',
      'from=yesterday',
      'group=week',
      'format=pdf',
    ]) {
      const res = await admin(t.url, 'GET', `/admin/v1/platform/fees?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body, q).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
    }
  });

  it("puts fees and tax on the operator's payout and collection views", async () => {
    expect(await waitForStatus(t.url, paid, 'SUCCESS')).toMatchObject({ amount: '100.00', fees: '5.00', tax: '0.90' });
    // What was charged stays on the payout after its refund; the refund is a statement line of its own.
    expect(await waitForStatus(t.url, failed, 'REFUNDED')).toMatchObject({ fees: '5.00', tax: '0.90' });
    const list = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${b.merchant.merchant_id}`);
    expect(list.body.data).toEqual([expect.objectContaining({ amount: '50.00', fees: '5.00', tax: '0.90' })]);
    const collection = await admin(t.url, 'GET', `/admin/v1/collections/${collected}`);
    expect(collection.body).toMatchObject({ requestAmount: '100.00', fees: '2.00', tax: '0.36' });
  });

  it('puts each fee, its GST and their refunds on the statement, with the payout or collection they belong to', async () => {
    const res = await admin(t.url, 'GET', `/admin/v1/wallets/${a.merchant.wallet_id}/statement`);
    expect(res.status).toBe(200);
    const entries = res.body.entries as Entry[];
    const of = (id: string) =>
      entries
        .filter((e) => e.payout_id === id || e.collection_id === id)
        .map(({ kind, description, amount }) => ({ kind, description, amount }));
    expect(of(failed)).toEqual([
      { kind: 'payout_debit', description: 'Payout', amount: '-100.00' },
      { kind: 'payout_fee', description: 'Payout fee', amount: '-5.00' },
      { kind: 'payout_fee_gst', description: 'GST on payout fee', amount: '-0.90' },
      { kind: 'payout_refund', description: 'Payout refunded', amount: '100.00' },
      { kind: 'payout_fee_refund', description: 'Payout fee refunded', amount: '5.00' },
      { kind: 'payout_fee_gst_refund', description: 'GST on payout fee refunded', amount: '0.90' },
    ]);
    expect(of(collected)).toEqual([
      { kind: 'collection_credit', description: 'Collection received', amount: '100.00' },
      { kind: 'collection_fee', description: 'Collection fee', amount: '-2.00' },
      { kind: 'collection_fee_gst', description: 'GST on collection fee', amount: '-0.36' },
    ]);
    // ₹1,000 − 3 × ₹100 (the fourth refunded) − ₹5 − ₹5 − ₹3 − their GST ₹2.34 + ₹100 − ₹2 − ₹0.36.
    expect(res.body.closing_balance).toBe('782.30');

    const csv = await fetch(`${t.url}/admin/v1/wallets/${a.merchant.wallet_id}/statement?format=csv`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('entry_id,created_at,kind,amount,balance,reference,payout_id,collection_id,description');
    expect(lines.filter((l) => l.includes(`,payout_fee_refund,5.00,`))).toEqual([
      expect.stringMatching(new RegExp(`,,${failed},,Payout fee refunded$`)),
    ]);
    expect(lines.filter((l) => l.includes(',collection_fee_gst,'))).toEqual([
      expect.stringMatching(new RegExp(`,,,${collected},GST on collection fee$`)),
    ]);

    // The merchant's console reads the same statement.
    const mine = await ConsoleSession.merchant(t.url, a.merchant.api_key, a.merchant.secret_key);
    const own = await mine.request('GET', `/console/api/merchant/wallets/${a.merchant.wallet_id}/statement`);
    expect(own.status).toBe(200);
    expect(own.body.entries).toEqual(entries);
  });

  it("keeps the platform fees wallet's statement: the other side of each fee", async () => {
    const res = await admin(t.url, 'GET', '/admin/v1/wallets/PW_FEES/statement');
    expect(res.status).toBe(200);
    expect(res.body.closing_balance).toBe('20.00');
    const refund = (res.body.entries as Entry[]).filter((e) => e.payout_id === failed);
    expect(refund.map(({ kind, description, amount }) => ({ kind, description, amount }))).toEqual([
      { kind: 'payout_fee', description: 'Payout fee', amount: '5.00' },
      { kind: 'payout_fee_refund', description: 'Payout fee refunded', amount: '-5.00' },
    ]);
  });

  it('groups by IST day: an entry at 23:59:59.999 IST and one at 00:00 IST fall on two days', async () => {
    // Fees written straight into the ledger at chosen instants (both sides, so the books still balance), in a
    // month long past: 2001-03-01 00:00 IST is 2001-02-28T18:30Z.
    const entries: [string, string, string][] = [
      ['2001-02-28T18:29:59.999Z', 'PTPAST000000000000000000000', '100'], // 2001-02-28 23:59:59.999 IST: outside
      ['2001-02-28T18:30:00.000Z', 'PTPAST000000000000000000001', '200'], // 2001-03-01 00:00 IST
      ['2001-03-01T18:29:59.999Z', 'PTPAST000000000000000000002', '300'], // 2001-03-01 23:59:59.999 IST
      ['2001-03-01T18:30:00.000Z', 'PTPAST000000000000000000003', '400'], // 2001-03-02 00:00 IST
      ['2001-03-02T18:30:00.000Z', 'PTPAST000000000000000000004', '800'], // 2001-03-03 00:00 IST: outside
    ];
    for (const [at, payoutId, paise] of entries) {
      await t.db.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
         VALUES ($1, 'payout_fee', -$3::int8, 0, $2, $4), ('PW_FEES', 'payout_fee', $3::int8, 0, $2, $4)`,
        [b.merchant.wallet_id, payoutId, paise, at],
      );
    }
    const report = await fees('from=2001-03-01&to=2001-03-02&group=day');
    expect(report.rows).toEqual([
      { key: '2001-03-01', count: 2, fees: '5.00', tax: '0.00' },
      { key: '2001-03-02', count: 1, fees: '4.00', tax: '0.00' },
    ]);
    expect(report.total).toEqual({ count: 3, fees: '9.00', tax: '0.00' });
    expect((await fees('from=2001-02-28&to=2001-02-28')).rows).toEqual([
      { key: '2001-02-28', count: 1, fees: '1.00', tax: '0.00' },
    ]);
  });

  it('verifies the ledger over the platform wallets, and that each fee kind sums to zero', async () => {
    const res = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
    expect(res.status).toBe(200);
    const { rows } = await t.db.query<{ n: bigint }>('SELECT count(*)::int8 AS n FROM wallets');
    expect(res.body).toEqual({
      ok: true,
      wallets_checked: Number(rows[0]?.n),
      platform_wallets_checked: 4,
      mismatches: [],
      unbalanced_kinds: [],
    });
    // One side of a fee without the other: every balance still equals its entries, but the books do not balance.
    await t.db.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
       VALUES ('PW_GST', 'payout_fee_gst', 123, 0, 'PTONESIDED0000000000000000000')`,
    );
    const broken = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
    expect(broken.body).toMatchObject({
      ok: false,
      mismatches: [],
      unbalanced_kinds: [{ kind: 'payout_fee_gst', sum: '1.23' }],
    });
  });
});
