import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { adminCollection, initiateOk, senderId, setMerchant, walletBalance } from '../support/collectionFixtures.ts';
import { admin, http, type HttpResult } from '../support/merchantClient.ts';
import { adminPayout, fundedMerchant, payoutRequest, waitForStatus, type Funded } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const BENEFICIARY = {
  beneficiary_name: 'Asha Rao',
  beneficiary_ifsc: 'HDFC0000001',
  beneficiary_acc_number: '123456789012',
};

type Event = Record<string, unknown>;

/**
 * A PSP notification whose `reference` already belongs to another collection or payout: 409 `reference_conflict`,
 * recorded once in the history of the item it names, and nothing of it is kept (not the reference, not the
 * outcome). Before, a reference already kept on another collection hit the unique index and answered 500, which a
 * PSP retries forever.
 */
describe.each(ENGINES)('PSP reference conflicts on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  let n = 0;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_MODE: 'live', PAYRAIL_PSP_NOTIFY_SECRET: SECRET } });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
    await setMerchant(t.url, f.merchant.merchant_id, { upi_vpa: 'acme@okhdfc' });
  });
  afterAll(async () => {
    await t.close();
  });

  const reference = () => `REF-${engine}-${Date.now().toString(36)}-${n++}`;
  const collection = async (amount = '250.50') =>
    (await initiateOk(f.client, { senderId: senderId('R'), amount })).txnId;
  const payout = async (amount = '100.00') => {
    const res = await f.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount }, { beneficiary: BENEFICIARY }),
    );
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    const id = res.data?.transaction_id as string;
    await waitForStatus(t.url, id, 'PROCESSING');
    return id;
  };
  const view = async (txnId: string) => (await adminCollection(t.url, f.merchant.merchant_id, txnId)) as Event;
  const history = async (kind: 'collections' | 'payouts', id: string): Promise<Event[]> => {
    const res = await admin(t.url, 'GET', `/admin/v1/${kind}/${id}/timeline`);
    expect(res.status).toBe(200);
    return (res.body.events as Event[]).filter((e) => e.type !== 'webhook_attempt' && e.type !== 'request');
  };
  const notify = (path: string, body: unknown): Promise<HttpResult> => {
    const raw = JSON.stringify(body);
    const signature = signPspNotification(SECRET, raw, Math.floor(Date.now() / 1000));
    return http(t.url, 'POST', path, {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'payrail-signature': signature },
    });
  };
  const notifyCollection = (body: unknown) => notify('/psp/v1/collections/notify', body);
  const notifyPayout = (body: unknown) => notify('/psp/v1/payouts/notify', body);
  const expectConflict = (res: HttpResult) =>
    expect([res.status, (res.body.error as Event | undefined)?.code], JSON.stringify(res.body)).toEqual([
      409,
      'reference_conflict',
    ]);

  it("refuses a collection notification with another collection's reference: 409, once in its history, nothing kept", async () => {
    const owner = await collection('99.00');
    const ref = reference();
    expect((await notifyCollection({ txnId: owner, reference: ref, status: 'PENDING' })).body).toMatchObject({
      result: 'applied',
    });
    const target = await collection('250.50');
    const before = await walletBalance(f.client);
    const reused = { txnId: target, reference: ref, status: 'SUCCESS', utr: '612345678901', amount: '250.50' };
    for (let i = 0; i < 3; i++) expectConflict(await notifyCollection(reused));

    // Nothing of the refused notification: no reference, no status, no credit; one error in the target's history.
    expect(await view(target)).toMatchObject({ status: 'INITIATED', psp_reference: null, utr: '' });
    expect(await walletBalance(f.client)).toBe(before);
    const events = await history('collections', target);
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ actor: 'psp' });
    expect(String(events.find((e) => e.type === 'error')?.reason)).toContain(ref);
    expect(String(events.find((e) => e.type === 'error')?.reason)).not.toContain(owner);

    // The owner keeps its reference and its history; the reference alone still names it.
    expect(await view(owner)).toMatchObject({ status: 'PENDING', psp_reference: ref });
    expect((await history('collections', owner)).map((e) => e.type)).toEqual(['status']);
    const paid = await notifyCollection({ reference: ref, status: 'SUCCESS', utr: '612345678902', amount: '99.00' });
    expect(paid.body).toEqual({ result: 'applied', txnId: owner, status: 'SUCCESS' });

    // The target is still free to get its own outcome and reference.
    const own = await notifyCollection({ ...reused, reference: reference() });
    expect(own.body).toEqual({ result: 'applied', txnId: target, status: 'SUCCESS' });
  });

  it('a refused notification keeps nothing of itself: its reference stays free for the collection it belongs to', async () => {
    const settled = await collection('10.00');
    expect((await notifyCollection({ txnId: settled, status: 'FAILED', reason: 'Expired' })).status).toBe(200);
    const ref = reference();
    const late = await notifyCollection({
      txnId: settled,
      reference: ref,
      status: 'SUCCESS',
      utr: 'U1',
      amount: '10.00',
    });
    expect([late.status, (late.body.error as Event).code]).toEqual([409, 'invalid_transition']);
    expect(await view(settled)).toMatchObject({ status: 'FAILED', psp_reference: null });

    const other = await collection('10.00');
    const res = await notifyCollection({ txnId: other, reference: ref, status: 'SUCCESS', utr: 'U2', amount: '10.00' });
    expect(res.body).toEqual({ result: 'applied', txnId: other, status: 'SUCCESS' });
    expect(await view(other)).toMatchObject({ psp_reference: ref });
  });

  it("refuses a collection notification whose reference is a payout's bank reference", async () => {
    const paidOut = await payout('20.00');
    const railReference = (await adminPayout(t.url, paidOut)).rail_reference as string;
    expect(railReference).toBeTruthy();
    const target = await collection('20.00');
    for (let i = 0; i < 2; i++)
      expectConflict(await notifyCollection({ txnId: target, reference: railReference, status: 'PENDING' }));
    expect(await view(target)).toMatchObject({ status: 'INITIATED', psp_reference: null });
    expect((await history('collections', target)).filter((e) => e.type === 'error')).toHaveLength(1);
    expect((await history('payouts', paidOut)).filter((e) => e.type === 'error')).toHaveLength(0);
  });

  it('refuses a payout notification whose reference belongs to a collection or another payout, once each', async () => {
    const owner = await collection('30.00');
    const ref = reference();
    expect((await notifyCollection({ txnId: owner, reference: ref, status: 'PENDING' })).status).toBe(200);
    const other = await payout('30.00');
    const otherRail = (await adminPayout(t.url, other)).rail_reference as string;
    const target = await payout('30.00');
    const success = { transactionId: target, status: 'SUCCESS', utr: 'HDFCN7000', amount: '30.00' };
    for (let i = 0; i < 2; i++) {
      expectConflict(await notifyPayout({ ...success, reference: ref }));
      expectConflict(await notifyPayout({ ...success, reference: otherRail }));
    }
    expect((await adminPayout(t.url, target)).status).toBe('PROCESSING');
    const errors = (await history('payouts', target)).filter((e) => e.type === 'error');
    expect(errors).toHaveLength(2);
    expect(errors.map((e) => e.actor)).toEqual(['psp', 'psp']);
    expect((await history('collections', owner)).filter((e) => e.type === 'error')).toHaveLength(0);
    expect((await history('payouts', other)).filter((e) => e.type === 'error')).toHaveLength(0);

    // Its own bank reference, or none, is no conflict.
    const ownRail = (await adminPayout(t.url, target)).rail_reference as string;
    const res = await notifyPayout({ ...success, reference: ownRail });
    expect(res.body).toEqual({ result: 'applied', transactionId: target, status: 'SUCCESS' });
    const bad = await notifyPayout({ transactionId: other, status: 'PENDING', reference: 'has space' });
    expect([bad.status, (bad.body.error as Event).code]).toEqual([400, 'invalid_request']);
  });

  it('two notifications racing for one new reference: the loser is refused with 409, not 500', async () => {
    const first = await collection('40.00');
    const second = await collection('40.00');
    const ref = reference();
    // The first claim is made and held uncommitted while the second notification runs: its check finds the
    // reference free, and only the unique index stops it when the first commits.
    let racing: Promise<HttpResult> | undefined;
    await t.db.transaction(async (tx) => {
      await tx.query('UPDATE collections SET psp_reference = $2 WHERE id = $1', [first, ref]);
      racing = notifyCollection({ txnId: second, reference: ref, status: 'PENDING' });
      if (engine === 'postgres') {
        await eventually(async () => {
          const { rows } = await t.db.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%psp_reference%'`,
          );
          return rows.length > 0;
        });
      } else {
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    expectConflict(await (racing as Promise<HttpResult>));
    expect(await view(second)).toMatchObject({ status: 'INITIATED', psp_reference: null });
    expect((await history('collections', second)).filter((e) => e.type === 'error')).toHaveLength(1);
    expect(await view(first)).toMatchObject({ psp_reference: ref });
  });
});
