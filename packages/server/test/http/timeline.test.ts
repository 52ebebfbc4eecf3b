import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as collections from '../support/collectionFixtures.ts';
import { admin } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

type Event = Record<string, unknown>;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const brief = (e: Event) => `${String(e.type)}:${String(e.from)}>${String(e.to)}:${String(e.actor)}`;

/** GET /admin/v1/payouts/{id}/timeline and /admin/v1/collections/{txnId}/timeline (SECURITY.md). */
describe.each(ENGINES)('transaction timelines on %s', (engine) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let f: Funded;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // The first delivery of every event fails once, so that attempts show their HTTP status.
    const idOf = (h: { headers: Record<string, unknown> }) => h.headers['webhook-id'];
    receiver.respond = (hook) => (receiver.received.filter((h) => idOf(h) === idOf(hook)).length === 1 ? 500 : 200);
    t = await startTestServer(engine, { env: { PAYRAIL_COLLECTION_TTL: '5s' } });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const send = async (account: string, path: string) =>
    (
      await initiateOk(
        f.client,
        payoutRequest('nested', {
          wallet_id: f.merchant.wallet_id,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: account,
          callback_url: receiver.url + path,
        }),
      )
    ).transaction_id as string;

  const payoutTimeline = async (id: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/payouts/${id}/timeline`);
    expect(res.status).toBe(200);
    expect(res.body.transaction_id).toBe(id);
    return res.body.events as Event[];
  };

  it('a successful payout: request, each change by the rail with its time, each webhook attempt', async () => {
    const id = await send(SANDBOX.success, '/t/success');
    await waitForStatus(t.url, id, 'SUCCESS');
    // PROCESSING and SUCCESS events, each delivered at the second attempt.
    await eventually(async () => (await payoutTimeline(id)).filter((e) => e.type === 'webhook_attempt').length >= 4);
    const events = await payoutTimeline(id);
    expect(events.filter((e) => e.type !== 'webhook_attempt').map(brief)).toEqual([
      'request:null>INITIATED:merchant',
      'status:INITIATED>PROCESSING:rail:sandbox',
      'status:PROCESSING>SUCCESS:rail:sandbox',
    ]);
    for (const e of events) expect(e.at).toMatch(ISO);
    const times = events.map((e) => Date.parse(e.at as string));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const attempts = events.filter((e) => e.type === 'webhook_attempt');
    expect(attempts.map((a) => `${String(a.event_type)}:${String(a.http_status)}`)).toEqual([
      'payout.processing:500',
      'payout.processing:200',
      'payout.success:500',
      'payout.success:200',
    ]);
    expect(attempts[0]).toMatchObject({ actor: 'worker', duration_ms: expect.any(Number) });
  });

  it('a REFUNDED payout still says why it failed; the refund is the worker', async () => {
    const id = await send(SANDBOX.failure, '/t/failure');
    const done = await waitForStatus(t.url, id, 'REFUNDED');
    expect(done.failure_reason).toMatch(/declined/);
    const events = (await payoutTimeline(id)).filter((e) => e.type !== 'webhook_attempt');
    expect(events.map(brief)).toEqual([
      'request:null>INITIATED:merchant',
      'status:INITIATED>PROCESSING:rail:sandbox',
      'status:PROCESSING>FAILED:rail:sandbox',
      'status:FAILED>REFUNDED:worker',
    ]);
    expect(events[2]?.reason).toMatch(/declined/);
  });

  it('an operator resolution is the operator', async () => {
    const id = await send(SANDBOX.pending, '/t/pending');
    await waitForStatus(t.url, id, 'PENDING');
    expect((await admin(t.url, 'POST', `/admin/v1/payouts/${id}/resolve`, { status: 'SUCCESS' })).status).toBe(200);
    const events = (await payoutTimeline(id)).filter((e) => e.type === 'status');
    expect(events.at(-1)).toMatchObject({
      from: 'PENDING',
      to: 'SUCCESS',
      actor: 'operator:admin-token',
      reason: 'Transfer completed (resolved by operator)',
    });
  });

  it('collections: the merchant simulating, the system expiring', async () => {
    const c = await collections.party(t.url, 'v2');
    const paid = await collections.initiateOk(c.client);
    expect((await collections.simulate(c.client, paid.txnId, 'SUCCESS')).status).toBe(200);
    const res = await admin(t.url, 'GET', `/admin/v1/collections/${paid.txnId}/timeline`);
    expect(res.status).toBe(200);
    expect(res.body.txnId).toBe(paid.txnId);
    expect((res.body.events as Event[]).map(brief)).toEqual([
      'request:null>INITIATED:merchant',
      'status:INITIATED>SUCCESS:merchant',
    ]);

    const expiring = await collections.initiateOk(c.client);
    await collections.waitForCollectionStatus(c.client, expiring.txnId, 'FAILED', 15_000);
    const expired = await admin(t.url, 'GET', `/admin/v1/collections/${expiring.txnId}/timeline`);
    expect((expired.body.events as Event[]).at(-1)).toMatchObject({
      type: 'status',
      from: 'INITIATED',
      to: 'FAILED',
      actor: 'system',
      reason: 'Collection request expired before payment',
    });
  });

  it('404 admin error for unknown or malformed ids', async () => {
    for (const path of [
      '/admin/v1/payouts/PT00000000000000000000000000/timeline',
      '/admin/v1/payouts/nope/timeline',
      '/admin/v1/collections/CT00000000000000000000000000/timeline',
      '/admin/v1/collections/%00/timeline',
    ]) {
      const res = await admin(t.url, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });
});
