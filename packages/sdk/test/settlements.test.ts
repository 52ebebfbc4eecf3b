import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../../server/test/support/webhookReceiver.ts';
import {
  NoSettlementAccountError,
  NothingToSettleError,
  NotFoundError,
  PayrailError,
  ValidationError,
  type Payrail,
  type Scheme,
  type SettlementEvent,
} from '../src/index.ts';
import {
  admin,
  clientFor,
  createMerchant,
  SANDBOX,
  senderId,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from './support.ts';

/** UPI collections cost ₹2.00 + 18% GST (₹0.36): a ₹100.00 collection nets ₹97.64. */
const PLAN = { name: 'Collect', rules: { UPI_COLLECTION: { slabs: [{ flat: '2.00' }] } } };

let t: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestServer('pglite', { env: { PAYRAIL_SANDBOX_STEP_MS: '30' } });
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

async function caught(promise: Promise<unknown>): Promise<PayrailError> {
  const err = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PayrailError);
  return err as PayrailError;
}

interface Collector {
  m: TestMerchant;
  payrail: Payrail;
}

/** A merchant with a pricing plan for UPI collections, and its SDK client. */
async function collector(name: string, scheme: Scheme = 'v2'): Promise<Collector> {
  const m = await createMerchant(t.url, name);
  const plan = await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/pricing`, PLAN);
  expect(plan.status, JSON.stringify(plan.body)).toBe(200);
  return { m, payrail: clientFor(t.url, m, { scheme }) };
}

/** A collection the payer paid (sandbox): its net is credited to the wallet and becomes settleable. */
async function collect({ payrail }: Collector, amount: string): Promise<string> {
  const c = await payrail.collections.initiate({ senderId: senderId('C'), amount });
  expect((await payrail.sandbox.simulateCollection(c.txnId, 'SUCCESS')).status).toBe('SUCCESS');
  return c.txnId;
}

async function setAccount({ m }: Collector): Promise<void> {
  const res = await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/settlement`, {
    account_number: SANDBOX.success,
    ifsc: SANDBOX.ifsc,
    holder_name: 'Collector Pvt Ltd',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('settlements', () => {
  it('refuses without an account (NoSettlementAccountError), then settles, reads and lists the settlement', async () => {
    const p = await collector('Settler');
    const c1 = await collect(p, '100.00');
    const c2 = await collect(p, '50.00');
    const none = await caught(p.payrail.settlements.initiate({ walletId: p.m.wallet_id }));
    expect(none).toBeInstanceOf(NoSettlementAccountError);
    expect(none).toMatchObject({ code: 4016, httpStatus: 422, operation: 'settlements.initiate', retryable: false });

    await setAccount(p);
    const s = await p.payrail.settlements.initiate({ walletId: p.m.wallet_id });
    // 100 − 2.36 + 50 − 2.36
    expect(s).toMatchObject({
      merchantId: p.m.merchant_id,
      walletId: p.m.wallet_id,
      amount: '145.28',
      fees: '4.00',
      tax: '0.72',
      status: 'INITIATED',
      paymentMode: 'IMPS',
      utr: null,
      trigger: 'manual',
      collectionCount: 2,
    });
    expect(s.settlementId).toMatch(/^ST[0-9A-Z]{26}$/);
    expect(s.payoutId).toMatch(/^PT[0-9A-Z]{26}$/);
    expect(s.createdAt).toBeInstanceOf(Date);
    expect(s.collections).toEqual([
      { collectionId: c1, amount: '100.00', fee: '2.00', tax: '0.36', net: '97.64' },
      { collectionId: c2, amount: '50.00', fee: '2.00', tax: '0.36', net: '47.64' },
    ]);
    expect((await p.payrail.wallets.balance(p.m.wallet_id)).balance).toBe('0.00');

    // The settlement follows its payout to SUCCESS, with the bank's reference.
    const done = await p.payrail.settlements.waitFor(s.settlementId, { intervalMs: 50, timeoutMs: 20_000 });
    expect(done).toMatchObject({ settlementId: s.settlementId, status: 'SUCCESS', collectionCount: 2 });
    expect(done.utr).toMatch(/\S/);
    expect(done.collections).toHaveLength(2);
    const read = await p.payrail.settlements.status(s.settlementId);
    expect(read).toMatchObject({ status: 'SUCCESS', amount: '145.28', collections: s.collections });

    // The history lists it with its collections.
    const history = await p.payrail.settlements.history();
    expect(history.map((x) => x.settlementId)).toEqual([s.settlementId]);
    expect(history[0]).toMatchObject({
      amount: '145.28',
      status: 'SUCCESS',
      collectionCount: 2,
      collections: s.collections,
    });

    // Nothing is left: 4002, in the settlement's own meaning (not a short balance).
    const nothing = await caught(p.payrail.settlements.initiate({ walletId: p.m.wallet_id }));
    expect(nothing).toBeInstanceOf(NothingToSettleError);
    expect(nothing).toMatchObject({ code: 4002, httpStatus: 422 });
  });

  it('settles exactly an amount when asked; refuses more than is settleable, a bad amount and wallets not its own', async () => {
    const p = await collector('Amounts', 'v1');
    await setAccount(p);
    const c1 = await collect(p, '100.00');
    const c2 = await collect(p, '100.00');
    const more = await caught(p.payrail.settlements.initiate({ walletId: p.m.wallet_id, amount: '200.00' }));
    expect(more).toBeInstanceOf(NothingToSettleError);
    const part = await p.payrail.settlements.initiate({ walletId: p.m.wallet_id, amount: '120.00' });
    expect(part).toMatchObject({ amount: '120.00', collectionCount: 2 });
    expect(part.collections?.map((c) => [c.collectionId, c.net])).toEqual([
      [c1, '97.64'],
      [c2, '22.36'],
    ]);
    const bad = await caught(p.payrail.settlements.initiate({ walletId: p.m.wallet_id, amount: '1.234' }));
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.code).toBe(4004);
    const unknown = await caught(p.payrail.settlements.initiate({ walletId: 'WL00000000000000000000000000' }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.code).toBe(4202);
    // Refused before any request, with the code the server would answer.
    const missing = await caught(p.payrail.settlements.initiate({ walletId: '' }));
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing).toMatchObject({ code: 4201, httpStatus: undefined });
  });

  it('never shows one merchant another merchant’s settlement (NotFoundError 4107)', async () => {
    const a = await collector('Owner');
    const b = await collector('Other');
    await setAccount(a);
    await collect(a, '10.00');
    const s = await a.payrail.settlements.initiate({ walletId: a.m.wallet_id });

    const other = await caught(b.payrail.settlements.status(s.settlementId));
    expect(other).toBeInstanceOf(NotFoundError);
    expect(other).toMatchObject({ code: 4107, httpStatus: 403, operation: 'settlements.status' });
    const unknown = await caught(b.payrail.settlements.status('ST00000000000000000000000000'));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ code: 4103, httpStatus: 404 });
    const theirs = await caught(b.payrail.settlements.initiate({ walletId: a.m.wallet_id }));
    expect(theirs).toMatchObject({ code: 4202 });
    expect(await b.payrail.settlements.history()).toEqual([]);

    // IST calendar days, yesterday to today (a run at midnight still finds it).
    const istDay = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 10);
    const own = await a.payrail.settlements.history({ from: istDay(Date.now() - 86_400_000), to: istDay(Date.now()) });
    expect(own.map((x) => x.settlementId)).toEqual([s.settlementId]);
    const badDate = await caught(a.payrail.settlements.history({ from: '2026-13-01' }));
    expect(badDate).toBeInstanceOf(ValidationError);
    expect(badDate.code).toBe(4017);
  });

  it('verifies a settlement webhook and returns it as a typed settlement event', async () => {
    const p = await collector('Hooked');
    const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${p.m.merchant_id}`, {
      collection_callback_url: `${receiver.url}/settlements`,
    });
    expect(patched.status).toBe(200);
    await setAccount(p);
    const c = await collect(p, '20.00');
    const s = await p.payrail.settlements.initiate({ walletId: p.m.wallet_id });
    expect(s.collections?.map((x) => x.collectionId)).toEqual([c]);

    const delivered = (await eventually(
      () => receiver.at('/settlements').find((h) => h.body.includes('"settlement.success"')),
      20_000,
    )) as ReceivedWebhook;
    const event = await p.payrail.webhooks.verify(delivered.body, delivered.headers);
    expect(event).toMatchObject({
      type: 'settlement.success',
      kind: 'settlement',
      data: {
        settlementId: s.settlementId,
        walletId: p.m.wallet_id,
        amount: '17.64',
        fees: '2.00',
        tax: '0.36',
        status: 'SUCCESS',
        payoutId: s.payoutId,
        trigger: 'manual',
        collectionCount: 1,
        collections: null,
      },
    });
    // Narrowed by kind, as a handler would.
    const settled = event.kind === 'settlement' ? (event satisfies SettlementEvent).data : undefined;
    expect(settled?.utr).toMatch(/\S/);
    expect(event.id).toBe(delivered.headers['webhook-id']);

    // The earlier states came as their own events.
    const types = receiver
      .at('/settlements')
      .map((h) => (JSON.parse(h.body) as { type: string }).type)
      .filter((type) => type.startsWith('settlement.'));
    expect(types).toEqual(expect.arrayContaining(['settlement.initiated', 'settlement.success']));
  });
});
