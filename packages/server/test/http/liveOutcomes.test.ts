import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { expectLedgerOk, initiateOk, senderId, setMerchant, walletBalance } from '../support/collectionFixtures.ts';
import { admin, http, type HttpResult } from '../support/merchantClient.ts';
import { adminPayout, fundedMerchant, payoutRequest, waitForStatus, type Funded } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const BENEFICIARY = {
  beneficiary_name: 'Asha Rao',
  beneficiary_ifsc: 'HDFC0000001',
  beneficiary_acc_number: '123456789012',
};
const now = () => Math.floor(Date.now() / 1000);

type Event = Record<string, unknown>;

/**
 * How a live collection or payout gets its outcome (docs/operator/live-mode.md): the operator's resolve route and the
 * signed PSP/bank notification routes, over real HTTP against a live-mode server on every engine.
 */
describe.each(ENGINES)('live-mode outcomes on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestServer(engine, {
      env: { PAYRAIL_MODE: 'live', PAYRAIL_PSP_NOTIFY_SECRET: SECRET, PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
    await setMerchant(t.url, f.merchant.merchant_id, {
      upi_vpa: 'acme@okhdfc',
      collection_callback_url: `${receiver.url}/collections`,
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const collection = async (amount = '250.50') =>
    (await initiateOk(f.client, { senderId: senderId('L'), amount })).txnId;
  const balance = () => walletBalance(f.client);
  const resolve = (txnId: string, body: unknown) =>
    admin(t.url, 'POST', `/admin/v1/collections/${txnId}/resolve`, body);
  const timeline = async (kind: 'collections' | 'payouts', id: string): Promise<Event[]> => {
    const res = await admin(t.url, 'GET', `/admin/v1/${kind}/${id}/timeline`);
    expect(res.status).toBe(200);
    return (res.body.events as Event[]).filter((e) => e.type !== 'webhook_attempt');
  };
  const changes = (events: Event[]) =>
    events.filter((e) => e.type !== 'request').map((e) => `${String(e.type)}:${String(e.to)}:${String(e.actor)}`);
  const hooksOf = (txnId: string) =>
    receiver
      .at('/collections')
      .map((h) => JSON.parse(h.body) as { type: string; data: string })
      .filter((h) => f.client.decrypt(h.data).txnId === txnId)
      .map((h) => h.type);

  /** POSTs `body` to a notification route, signed as documented unless `sign` says otherwise. */
  const notify = (
    path: string,
    body: unknown,
    sign: { secret?: string; at?: number; header?: string | null; contentType?: string; raw?: string } = {},
  ): Promise<HttpResult> => {
    const raw = sign.raw ?? JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': sign.contentType ?? 'application/json' };
    if (sign.header !== null) {
      headers['payrail-signature'] = sign.header ?? signPspNotification(sign.secret ?? SECRET, raw, sign.at ?? now());
    }
    return http(t.url, 'POST', path, { rawBody: raw, headers });
  };
  const notifyCollection = (body: unknown, sign = {}) => notify('/psp/v1/collections/notify', body, sign);
  const notifyPayout = (body: unknown, sign = {}) => notify('/psp/v1/payouts/notify', body, sign);

  it('documents the resolve and notification routes in a valid OpenAPI document', async () => {
    const doc = (await http(t.url, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown; responses?: Record<string, unknown> }>>;
    };
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.paths['/admin/v1/collections/{txnId}/resolve']?.post?.security).toEqual([{ adminAuth: [] }]);
    for (const path of ['/psp/v1/collections/notify', '/psp/v1/payouts/notify']) {
      expect(doc.paths[path]?.post?.security, path).toEqual([{ pspSignature: [] }]);
      expect(Object.keys(doc.paths[path]?.post?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '400', '401', '404', '409', '422']),
      );
    }
  });

  describe('operator resolve (POST /admin/v1/collections/{txnId}/resolve)', () => {
    it('SUCCESS needs a UTR in live mode, then credits once; the same resolution again changes nothing', async () => {
      const txnId = await collection();
      const before = await balance();
      const noUtr = await resolve(txnId, { status: 'SUCCESS' });
      expect([noUtr.status, (noUtr.body.error as Event).code]).toEqual([400, 'invalid_request']);
      expect(await balance()).toBe(before);

      const ok = await resolve(txnId, { status: 'SUCCESS', utr: '412345678901', reason: 'Bank statement line 42' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body).toMatchObject({
        txnId,
        status: 'SUCCESS',
        utr: '412345678901',
        requestAmount: '250.50',
        statusMessage: 'Payment received (resolved by operator)',
        merchant_id: f.merchant.merchant_id,
      });
      const credited = await balance();
      expect(Number(credited) - Number(before)).toBeCloseTo(250.5, 2);

      // Idempotent: the same status with the same UTR, or none, answers 200 and moves nothing.
      for (const again of [{ status: 'SUCCESS', utr: '412345678901' }, { status: 'SUCCESS' }]) {
        const res = await resolve(txnId, again);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'SUCCESS', utr: '412345678901' });
      }
      const otherUtr = await resolve(txnId, { status: 'SUCCESS', utr: '999999999999' });
      expect([otherUtr.status, (otherUtr.body.error as Event).code]).toEqual([409, 'utr_conflict']);
      const failed = await resolve(txnId, { status: 'FAILED' });
      expect([failed.status, (failed.body.error as Event).code]).toEqual([409, 'invalid_state']);
      expect(await balance()).toBe(credited);

      const events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['status:SUCCESS:operator:admin-token']);
      expect(events[1]).toMatchObject({ from: 'INITIATED', to: 'SUCCESS', reason: 'Bank statement line 42' });
      await eventually(() => hooksOf(txnId).length === 1);
      expect(hooksOf(txnId)).toEqual(['collection.success']);
      await expectLedgerOk(t.url);
    });

    it('FAILED keeps the reason in the history and credits nothing', async () => {
      const txnId = await collection();
      const before = await balance();
      const res = await resolve(txnId, { status: 'FAILED', reason: 'Payer’s bank reversed the debit' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'FAILED', statusMessage: 'Payment failed (resolved by operator)' });
      expect(await balance()).toBe(before);
      const events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['status:FAILED:operator:admin-token']);
      expect(events[1]?.reason).toBe('Payer’s bank reversed the debit');
      await eventually(() => hooksOf(txnId).includes('collection.failed'));
    });

    it('PENDING, then SUCCESS; without a reason the history says what the merchant sees', async () => {
      const txnId = await collection('10.00');
      const before = await balance();
      expect((await resolve(txnId, { status: 'PENDING', reason: 'Awaiting the bank' })).body.status).toBe('PENDING');
      expect((await resolve(txnId, { status: 'PENDING' })).status).toBe(200);
      const ok = await resolve(txnId, { status: 'SUCCESS', utr: 'AXIS00012345' });
      expect(ok.body).toMatchObject({ status: 'SUCCESS', utr: 'AXIS00012345' });
      expect(Number(await balance()) - Number(before)).toBeCloseTo(10, 2);
      const events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['status:PENDING:operator:admin-token', 'status:SUCCESS:operator:admin-token']);
      expect(events.map((e) => e.reason)).toEqual([
        'Created',
        'Awaiting the bank',
        'Payment received (resolved by operator)',
      ]);
    });

    it('answers 404 for an unknown or malformed id, 400 for bad input, 401 without the admin token', async () => {
      expect((await resolve('CT00000000000000000000000000', { status: 'FAILED' })).status).toBe(404);
      expect((await resolve('nope', { status: 'FAILED' })).status).toBe(404);
      const txnId = await collection();
      for (const body of [
        {},
        { status: 'REFUNDED' },
        { status: 'SUCCESS', utr: 'has space' },
        { status: 'SUCCESS', utr: 'x'.repeat(41) },
        { status: 'FAILED', reason: '' },
        { status: 'FAILED', reason: 'line\nbreak' },
        { status: 'FAILED', reason: 'x'.repeat(256) },
        { status: 'FAILED', extra: 1 },
      ]) {
        const res = await resolve(txnId, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const anonymous = await http(t.url, 'POST', `/admin/v1/collections/${txnId}/resolve`, {
        body: { status: 'FAILED' },
      });
      expect(anonymous.status).toBe(401);
      expect(changes(await timeline('collections', txnId))).toEqual([]);
    });
  });

  describe('PSP notification (POST /psp/v1/collections/notify)', () => {
    it('refuses a missing, wrong, stale or replaced signature with 401 and changes nothing', async () => {
      const txnId = await collection();
      const before = await balance();
      const body = { txnId, status: 'SUCCESS', utr: '512345678901', amount: '250.50' };
      const refusals: Array<[Record<string, unknown>, string]> = [
        [{ header: null }, 'signature_required'],
        [{ secret: `${SECRET}-not` }, 'signature_invalid'],
        // 30 s beyond the 300 s window: a slow machine between signing and checking must not bring it back inside.
        [{ at: now() - 330 }, 'signature_expired'],
        [{ at: now() + 330 }, 'signature_expired'],
        [{ header: 'sha256=abc' }, 'signature_invalid'],
        [
          { header: signPspNotification(SECRET, JSON.stringify({ ...body, amount: '1.00' }), now()) },
          'signature_invalid',
        ],
      ];
      for (const [sign, code] of refusals) {
        const res = await notifyCollection(body, sign);
        expect([res.status, (res.body.error as Event)?.code], JSON.stringify(sign)).toEqual([401, code]);
      }
      // Checked before the body is read: an unsigned body that is not JSON is still a 401.
      expect((await notifyCollection(null, { header: null, raw: '{{{', contentType: 'text/plain' })).status).toBe(401);
      expect(await balance()).toBe(before);
      expect(changes(await timeline('collections', txnId))).toEqual([]);
    });

    it('applies a signed SUCCESS once: the same notification again answers unchanged and credits nothing', async () => {
      const txnId = await collection();
      const before = await balance();
      const body = { txnId, reference: `psp-${txnId}`, status: 'SUCCESS', utr: '512345678902', amount: '250.50' };
      const first = await notifyCollection(body);
      expect([first.status, first.body]).toEqual([200, { result: 'applied', txnId, status: 'SUCCESS' }]);
      const credited = await balance();
      expect(Number(credited) - Number(before)).toBeCloseTo(250.5, 2);
      for (let i = 0; i < 2; i++) {
        const again = await notifyCollection(body);
        expect([again.status, again.body]).toEqual([200, { result: 'unchanged', txnId, status: 'SUCCESS' }]);
      }
      // Older news after the final status is no error either.
      expect((await notifyCollection({ txnId, status: 'PENDING' })).body.result).toBe('unchanged');
      expect(await balance()).toBe(credited);
      const events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['status:SUCCESS:psp']);
      const view = (await admin(t.url, 'GET', `/admin/v1/collections?merchant_id=${f.merchant.merchant_id}`)).body
        .data as Event[];
      expect(view.find((c) => c.txnId === txnId)).toMatchObject({ utr: '512345678902', psp_reference: `psp-${txnId}` });
      await eventually(() => hooksOf(txnId).length === 1);
      await expectLedgerOk(t.url);
    });

    it('refuses an amount that differs (422), records it once in the history, and never credits it', async () => {
      const txnId = await collection('250.50');
      const before = await balance();
      const wrong = { txnId, status: 'SUCCESS', utr: '512345678903', amount: '25.05' };
      for (let i = 0; i < 2; i++) {
        const res = await notifyCollection(wrong);
        expect([res.status, (res.body.error as Event).code]).toEqual([422, 'amount_mismatch']);
      }
      expect(await balance()).toBe(before);
      let events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['error:null:psp']);
      expect(events[1]?.reason).toMatch(/25\.05.*250\.50/);
      expect(hooksOf(txnId)).toEqual([]);

      const right = await notifyCollection({ ...wrong, amount: '250.50' });
      expect(right.body).toMatchObject({ result: 'applied', status: 'SUCCESS' });
      events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['error:null:psp', 'status:SUCCESS:psp']);
      expect(Number(await balance()) - Number(before)).toBeCloseTo(250.5, 2);
    });

    it('names a collection by the PSP reference an earlier notification linked, and refuses another one', async () => {
      const txnId = await collection('99.00');
      const reference = `PSP${Date.now()}${engine}`;
      expect((await notifyCollection({ txnId, reference, status: 'PENDING', reason: 'Awaiting payer' })).body).toEqual({
        result: 'applied',
        txnId,
        status: 'PENDING',
      });
      const clash = await notifyCollection({ txnId, reference: `${reference}-other`, status: 'FAILED' });
      expect([clash.status, (clash.body.error as Event).code]).toEqual([409, 'reference_conflict']);
      const paid = await notifyCollection({ reference, status: 'SUCCESS', utr: '512345678904', amount: '99.00' });
      expect(paid.body).toEqual({ result: 'applied', txnId, status: 'SUCCESS' });
      const late = await notifyCollection({ reference, status: 'FAILED', reason: 'Timed out' });
      expect([late.status, (late.body.error as Event).code]).toEqual([409, 'invalid_transition']);
      const events = await timeline('collections', txnId);
      expect(changes(events)).toEqual(['status:PENDING:psp', 'error:null:psp', 'status:SUCCESS:psp', 'error:null:psp']);
      expect(events[1]).toMatchObject({ reason: 'Awaiting payer' });
      expect(events[4]?.reason).toMatch(/SUCCESS and cannot become FAILED/);
      const unknown = await notifyCollection({ reference: 'never-seen', status: 'FAILED' });
      expect(unknown.status).toBe(404);
      expect((await notifyCollection({ txnId: 'CT00000000000000000000000000', status: 'FAILED' })).status).toBe(404);
    });

    it('answers 400 to a signed body that is not a notification, 415 to one that is not JSON', async () => {
      const txnId = await collection();
      for (const body of [
        { txnId, status: 'SUCCESS', utr: '512345678905' },
        { txnId, status: 'SUCCESS', amount: '250.50' },
        { status: 'FAILED' },
        { txnId, status: 'DONE' },
        [],
      ]) {
        expect((await notifyCollection(body)).status, JSON.stringify(body)).toBe(400);
      }
      expect((await notifyCollection(null, { raw: '{"txnId":' })).status).toBe(400);
      expect((await notifyCollection(null, { raw: `txnId=${txnId}`, contentType: 'text/plain' })).status).toBe(415);
      expect(changes(await timeline('collections', txnId))).toEqual([]);
    });
  });

  describe('bank notification (POST /psp/v1/payouts/notify)', () => {
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

    it('drives PROCESSING → SUCCESS; the same notification again changes nothing', async () => {
      const id = await payout();
      const body = { transactionId: id, status: 'SUCCESS', utr: 'HDFCN52025011', amount: '100.00' };
      expect((await notifyPayout(body, { at: now() - 330 })).status).toBe(401);
      const res = await notifyPayout(body);
      expect([res.status, res.body]).toEqual([200, { result: 'applied', transactionId: id, status: 'SUCCESS' }]);
      expect((await notifyPayout(body)).body).toEqual({ result: 'unchanged', transactionId: id, status: 'SUCCESS' });
      expect((await notifyPayout({ transactionId: id, status: 'PROCESSING' })).body.result).toBe('unchanged');
      const done = await adminPayout(t.url, id);
      expect([done.status, done.utr_number, done.rail_error]).toEqual(['SUCCESS', 'HDFCN52025011', null]);
      expect(changes(await timeline('payouts', id))).toEqual(['status:PROCESSING:rail:manual', 'status:SUCCESS:psp']);
    });

    it('FAILED is refunded at once; FAILED again is a repeat, not an error', async () => {
      const before = await balance();
      const id = await payout('40.00');
      const res = await notifyPayout({ transactionId: id, status: 'FAILED', reason: 'Account closed' });
      expect(res.body).toMatchObject({ result: 'applied', status: 'FAILED' });
      const refunded = await waitForStatus(t.url, id, 'REFUNDED');
      expect(refunded.failure_reason).toBe('Account closed');
      expect((await notifyPayout({ transactionId: id, status: 'FAILED', reason: 'Account closed' })).body).toEqual({
        result: 'unchanged',
        transactionId: id,
        status: 'REFUNDED',
      });
      expect((await adminPayout(t.url, id)).rail_error).toBeNull();
      expect(await balance()).toBe(before);
      expect(changes(await timeline('payouts', id))).toEqual([
        'status:PROCESSING:rail:manual',
        'status:FAILED:psp',
        'status:REFUNDED:worker',
      ]);
    });

    it('refuses an amount that differs (200 refused, one exception) and a move the table refuses (409), keeping each on the payout', async () => {
      const id = await payout('60.00');
      const wrong = await notifyPayout({ transactionId: id, status: 'SUCCESS', utr: 'UTR6000', amount: '600.00' });
      // Contract §18: a report that does not match is answered 200, so that the sender stops, and queued.
      expect([wrong.status, wrong.body.result]).toEqual([200, 'refused']);
      const again = await notifyPayout({ transactionId: id, status: 'SUCCESS', utr: 'UTR6000', amount: '600.00' });
      expect([again.status, again.body.exception_id]).toEqual([200, wrong.body.exception_id]);
      const after = await adminPayout(t.url, id);
      expect(after.status).toBe('PROCESSING');
      expect(after.rail_error).toMatch(/600\.00.*60\.00/);
      expect(changes(await timeline('payouts', id))).toEqual(['status:PROCESSING:rail:manual', 'error:null:psp']);
      const ok = await notifyPayout({ transactionId: id, status: 'PENDING' });
      expect(ok.body).toMatchObject({ result: 'applied', status: 'PENDING' });
      const back = await notifyPayout({ transactionId: id, status: 'PROCESSING' });
      expect([back.status, (back.body.error as Event).code]).toEqual([409, 'refused']);
      expect((await notifyPayout({ transactionId: 'PT00000000000000000000000000', status: 'FAILED' })).status).toBe(
        404,
      );
      expect((await notifyPayout({ transactionId: id, status: 'SUCCESS' })).status).toBe(400);
    });
  });
});
