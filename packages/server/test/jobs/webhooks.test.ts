import { decryptJsonObject, type Scheme } from '@payrail/protocol';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  ISO_UTC,
  payoutRequest,
  SANDBOX,
  shapeOf,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { quiescent } from '../support/quiescent.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../support/webhookReceiver.ts';

const TIMEOUT_MS = 500;
const RETRIES_MS = [100, 200, 400];
const EVENT_ID = /^EV[0-9A-HJKMNP-TV-Z]{26}$/;

interface Delivery {
  id: string;
  merchant_id: string;
  subject_id: string;
  type: string;
  url: string;
  state: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  attempts: { attempted_at: string; duration_ms: number; http_status: number | null; error: string | null }[];
}

describe.each(ENGINES)('payout webhooks on %s', (engine) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let n = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestServer(engine, {
      env: {
        PAYRAIL_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        PAYRAIL_WEBHOOK_RETRY_SCHEDULE: RETRIES_MS.map((ms) => `${ms}ms`).join(','),
      },
    });
    // Each test sets its answers per path; unknown paths answer 200.
    receiver.respond = (hook, index) => answers.get(hook.path)?.(hook, index) ?? 200;
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  type Answer = (hook: ReceivedWebhook, index: number) => number | 'hang' | 'close';
  const answers = new Map<string, Answer>();

  /** A fresh callback path, answered by `answer` (called with the attempt number at this path). */
  function callback(answer?: (attempt: number, hook: ReceivedWebhook) => number | 'hang' | 'close') {
    const path = `/hooks/${n++}`;
    if (answer) answers.set(path, (hook) => answer(receiver.at(path).length - 1, hook));
    return { path, url: receiver.url + path };
  }

  async function pay(f: Funded, url: string | undefined, account: string = SANDBOX.success) {
    const p = await initiateOk(
      f.client,
      payoutRequest(shapeOf(f.client.scheme), {
        wallet_id: f.merchant.wallet_id,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: account,
        callback_url: url,
      }),
    );
    return p.transaction_id as string;
  }

  async function deliveries(merchantId: string, state?: string): Promise<Delivery[]> {
    const query = new URLSearchParams({ merchant_id: merchantId });
    if (state) query.set('state', state);
    const res = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?${query}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: expect.any(Boolean) });
    return res.body.data as Delivery[];
  }

  const headersOf = (h: ReceivedWebhook) => ({
    'webhook-id': h.headers['webhook-id'] as string,
    'webhook-timestamp': h.headers['webhook-timestamp'] as string,
    'webhook-signature': h.headers['webhook-signature'] as string,
  });

  const idsAt = (path: string) => receiver.at(path).map((h) => h.headers['webhook-id'] as string);

  describe.each(['v1', 'v2'] as Scheme[])('events of a %s payout', (scheme) => {
    it('one signed event per status change, in order, with data encrypted in the payout scheme', async () => {
      const f = await fundedMerchant(t.url, scheme, '1000.00');
      const ok = callback();
      const failed = callback();
      const okId = await pay(f, ok.url, SANDBOX.success);
      const failedId = await pay(f, failed.url, SANDBOX.failure);
      await eventually(() => receiver.at(ok.path).length >= 2 && receiver.at(failed.path).length >= 3);
      await waitForStatus(t.url, failedId, 'REFUNDED');
      // Every delivery made and no job due: anything more would have been recorded by now.
      await quiescent(t.db);
      const keys = { apiKey: f.merchant.api_key, secretKey: f.merchant.secret_key };
      const other: Scheme = scheme === 'v1' ? 'v2' : 'v1';

      for (const [path, transactionId, expected] of [
        [ok.path, okId, ['payout.processing:PROCESSING', 'payout.success:SUCCESS']],
        [failed.path, failedId, ['payout.processing:PROCESSING', 'payout.failed:FAILED', 'payout.refunded:REFUNDED']],
      ] as const) {
        const hooks = receiver.at(path);
        const seen: string[] = [];
        for (const h of hooks) {
          expect(h.headers['content-type']).toMatch(/^application\/json/);
          const verified = new Webhook(f.merchant.webhook_secret).verify(h.body, headersOf(h)) as Record<
            string,
            unknown
          >;
          const body = JSON.parse(h.body) as Record<string, unknown>;
          expect(verified).toEqual(body);
          expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
          expect(body.id).toBe(h.headers['webhook-id']);
          expect(body.id).toMatch(EVENT_ID);
          expect(body.created_at).toMatch(ISO_UTC);
          expect(Math.abs(Number(h.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
          const data = decryptJsonObject(body.data, scheme, keys);
          expect(() => decryptJsonObject(body.data, other, keys)).toThrow();
          expect(data).toMatchObject({
            transaction_id: transactionId,
            wallet_id: f.merchant.wallet_id,
            amount: '100.00',
            beneficiary: { beneficiary_acc_number: path === ok.path ? SANDBOX.success : SANDBOX.failure },
          });
          seen.push(`${String(body.type)}:${String(data.status)}`);
        }
        expect(seen).toEqual(expected);
        expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).toBe(hooks.length);
      }
      // Another merchant's secret does not verify these.
      const stranger = await fundedMerchant(t.url, scheme);
      const first = receiver.at(ok.path)[0] as ReceivedWebhook;
      expect(() => new Webhook(stranger.merchant.webhook_secret).verify(first.body, headersOf(first))).toThrow();
      // A body changed in transit does not verify.
      expect(() =>
        new Webhook(f.merchant.webhook_secret).verify(first.body.replace('payout.', 'payout '), headersOf(first)),
      ).toThrow();

      await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 5);
      const list = await deliveries(f.merchant.merchant_id);
      expect(list).toHaveLength(5);
      for (const d of list) {
        expect(d).toMatchObject({ state: 'delivered', attempt_count: 1, last_status: 200, next_attempt_at: null });
        expect(d.attempts).toEqual([
          {
            attempted_at: expect.stringMatching(ISO_UTC),
            duration_ms: expect.any(Number),
            http_status: 200,
            error: null,
          },
        ]);
      }
    });
  });

  it('records no delivery for a payout without callback_url', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const id = await pay(f, undefined);
    await waitForStatus(t.url, id, 'SUCCESS');
    expect(await deliveries(f.merchant.merchant_id)).toEqual([]);
  });

  it('retries a receiver that answered 500 with the same webhook-id, and keeps the order of one payout', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const cb = callback((attempt) => (attempt === 0 ? 500 : 200));
    const id = await pay(f, cb.url);
    await eventually(() => receiver.at(cb.path).length >= 3);
    await waitForStatus(t.url, id, 'SUCCESS');
    const ids = idsAt(cb.path);
    // processing (500), processing again (200), then success: the success waited for the retry.
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    const types = receiver.at(cb.path).map((h) => (JSON.parse(h.body) as { type: string }).type);
    expect(types).toEqual(['payout.processing', 'payout.processing', 'payout.success']);
    const gap = (receiver.at(cb.path)[1]?.receivedAt as number) - (receiver.at(cb.path)[0]?.receivedAt as number);
    expect(gap).toBeGreaterThanOrEqual(RETRIES_MS[0] as number);

    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 2);
    const processing = (await deliveries(f.merchant.merchant_id)).find((d) => d.type === 'payout.processing');
    expect(processing).toMatchObject({ id: ids[0], state: 'delivered', attempt_count: 2, subject_id: id, url: cb.url });
    expect(processing?.attempts.map((a) => a.http_status)).toEqual([500, 200]);
    expect(processing?.attempts[0]?.error).toMatch(/500/);
  });

  it('retries a receiver that closed the connection', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const cb = callback((attempt) => (attempt === 0 ? 'close' : 200));
    await pay(f, cb.url);
    await eventually(() => receiver.at(cb.path).length >= 3);
    const ids = idsAt(cb.path);
    expect(ids[0]).toBe(ids[1]);
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 2);
    const processing = (await deliveries(f.merchant.merchant_id)).find((d) => d.id === ids[0]);
    expect(processing?.attempts.map((a) => a.http_status)).toEqual([null, 200]);
    expect(processing?.attempts[0]?.error).toEqual(expect.any(String));
  });

  it("retries a receiver that hangs, without delaying another merchant's deliveries", async () => {
    const slow = await fundedMerchant(t.url, 'v2', '1000.00');
    const fast = await fundedMerchant(t.url, 'v1', '1000.00');
    // The slow receiver never answers its first three attempts: 3 timeouts plus the retry delays, about 1.8 s.
    const hanging = callback((attempt) => (attempt < 3 ? 'hang' : 200));
    const quick = callback();
    await pay(slow, hanging.url);
    await eventually(() => receiver.at(hanging.path).length >= 1);
    const fastId = await pay(fast, quick.url);
    await eventually(() => receiver.at(quick.path).length >= 2);
    await waitForStatus(t.url, fastId, 'SUCCESS');
    // The fast merchant got both its events while the slow one was still waiting for its first delivery.
    const stillPending = await deliveries(slow.merchant.merchant_id, 'pending');
    expect(stillPending.map((d) => d.type)).toContain('payout.processing');
    expect(receiver.at(hanging.path).length).toBeLessThan(4);

    await eventually(() => receiver.at(hanging.path).length >= 5, 10_000);
    const ids = idsAt(hanging.path);
    expect(new Set(ids.slice(0, 4)).size).toBe(1);
    await eventually(async () => (await deliveries(slow.merchant.merchant_id, 'delivered')).length === 2);
    const processing = (await deliveries(slow.merchant.merchant_id)).find((d) => d.id === ids[0]);
    expect(processing?.attempts.map((a) => a.http_status)).toEqual([null, null, null, 200]);
    for (const a of processing?.attempts.slice(0, 3) ?? []) {
      expect(a.error).toMatch(new RegExp(`${TIMEOUT_MS} ms`));
      expect(a.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(a.duration_ms).toBeLessThan(TIMEOUT_MS + 2000);
    }
  });

  it('gives up when the schedule runs out: state failed, with every attempt', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const cb = callback(() => 503);
    await pay(f, cb.url);
    // 1 attempt + 3 retries per event, two events (processing, then success once processing gave up).
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'failed')).length === 2, 10_000);
    const failed = await deliveries(f.merchant.merchant_id, 'failed');
    expect((await deliveries(f.merchant.merchant_id, 'pending')).length).toBe(0);
    expect((await deliveries(f.merchant.merchant_id, 'delivered')).length).toBe(0);
    for (const d of failed) {
      expect(d).toMatchObject({
        state: 'failed',
        attempt_count: 4,
        last_status: 503,
        next_attempt_at: null,
        delivered_at: null,
      });
      expect(d.attempts.map((a) => a.http_status)).toEqual([503, 503, 503, 503]);
      const times = d.attempts.map((a) => Date.parse(a.attempted_at));
      for (let i = 1; i < times.length; i++) {
        expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(
          (RETRIES_MS[i - 1] as number) - 5,
        );
      }
    }
    expect(receiver.at(cb.path)).toHaveLength(8);
    // Filters: another merchant's deliveries are not listed.
    const other = await fundedMerchant(t.url, 'v2');
    expect(await deliveries(other.merchant.merchant_id, 'failed')).toEqual([]);
  });

  it('replays a delivery with the same webhook-id: 202, sent again, freshly signed', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const cb = callback();
    await pay(f, cb.url);
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 2);
    const [latest] = await deliveries(f.merchant.merchant_id, 'delivered');
    const before = receiver.at(cb.path).length;
    const res = await admin(t.url, 'POST', `/admin/v1/webhooks/deliveries/${latest?.id}/replay`);
    expect(res.status).toBe(202);
    await eventually(() => receiver.at(cb.path).length === before + 1);
    const again = receiver.at(cb.path)[before] as ReceivedWebhook;
    expect(again.headers['webhook-id']).toBe(latest?.id);
    const body = new Webhook(f.merchant.webhook_secret).verify(again.body, headersOf(again)) as {
      id: string;
      type: string;
    };
    expect(body).toMatchObject({ id: latest?.id, type: latest?.type });
    await eventually(async () => {
      const d = (await deliveries(f.merchant.merchant_id)).find((x) => x.id === latest?.id);
      return d?.state === 'delivered' && d.attempts.length === 2;
    });
  });

  it('replays a failed delivery, which can then be delivered', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    let healthy = false;
    const cb = callback(() => (healthy ? 200 : 500));
    await pay(f, cb.url);
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'failed')).length === 2, 10_000);
    healthy = true;
    const failed = await deliveries(f.merchant.merchant_id, 'failed');
    for (const d of failed) {
      const res = await admin(t.url, 'POST', `/admin/v1/webhooks/deliveries/${d.id}/replay`);
      expect(res.status).toBe(202);
    }
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 2);
    expect(await deliveries(f.merchant.merchant_id, 'failed')).toEqual([]);
    const ids = idsAt(cb.path);
    for (const d of failed) expect(ids.filter((id) => id === d.id)).toHaveLength(5);
  });

  it('answers 404 to the replay of an unknown delivery', async () => {
    const res = await admin(t.url, 'POST', '/admin/v1/webhooks/deliveries/EV01ARZ3NDEKTSV4RRFFQ69G5FAV/replay');
    expect(res.status).toBe(404);
  });

  it('pages the delivery list and refuses an unknown state', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const cb = callback();
    await pay(f, cb.url);
    await pay(f, cb.url);
    await eventually(async () => (await deliveries(f.merchant.merchant_id, 'delivered')).length === 4);
    const first = await admin(
      t.url,
      'GET',
      `/admin/v1/webhooks/deliveries?merchant_id=${f.merchant.merchant_id}&limit=3`,
    );
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await admin(
      t.url,
      'GET',
      `/admin/v1/webhooks/deliveries?merchant_id=${f.merchant.merchant_id}&limit=3&cursor=${first.body.next_cursor as string}`,
    );
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const ids = [...(first.body.data as Delivery[]), ...(second.body.data as Delivery[])].map((d) => d.id);
    expect(new Set(ids).size).toBe(4);
    const bad = await admin(t.url, 'GET', '/admin/v1/webhooks/deliveries?state=lost');
    expect(bad.status).toBe(400);
  });
});
