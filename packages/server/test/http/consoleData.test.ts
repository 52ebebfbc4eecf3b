import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin, http } from '../support/merchantClient.ts';
import { initiateOk as initiateCollection, UNKNOWN_TXN_ID } from '../support/collectionFixtures.ts';
import {
  fundedMerchant,
  initiateOk,
  PLAIN_BENEFICIARY,
  payoutRequest,
  senderId,
  SANDBOX,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/** Statements, stats, bulk webhook replay and the merchant's own console session (docs/operator/console.md). */
describe.each(ENGINES)('console data routes on %s', (engine) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let a: Funded;
  let b: Funded;
  let failing = true;
  let started: Date;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    receiver.respond = () => (failing ? 500 : 200);
    t = await startTestServer(engine);
    started = new Date(Date.now() - 1000);
    [a, b] = await Promise.all([fundedMerchant(t.url, 'v2', '1000.00'), fundedMerchant(t.url, 'v2', '500.00')]);
    const w = a.merchant.wallet_id;
    const ok = await initiateOk(
      a.client,
      payoutRequest('nested', { wallet_id: w, amount: '100.00', callback_url: `${receiver.url}/a` }),
    );
    const bad = await initiateOk(
      a.client,
      payoutRequest('nested', {
        wallet_id: w,
        amount: '40.00',
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.failure,
      }),
    );
    await initiateOk(b.client, payoutRequest('nested', { wallet_id: b.merchant.wallet_id, amount: '10.00' }));
    await waitForStatus(t.url, ok.transaction_id as string, 'SUCCESS');
    await waitForStatus(t.url, bad.transaction_id as string, 'REFUNDED');
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  describe('wallet statement', () => {
    it('adds up: opening + entries = closing, and the whole range closes at the wallet balance', async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/wallets/${a.merchant.wallet_id}/statement`);
      expect(res.status).toBe(200);
      const s = res.body as {
        opening_balance: string;
        closing_balance: string;
        entries: { kind: string; amount: string; balance: string }[];
      };
      expect(s.opening_balance).toBe('0.00');
      expect(s.entries.map((e) => e.kind)).toEqual(['credit', 'payout_debit', 'payout_debit', 'payout_refund']);
      let running = 0;
      for (const e of s.entries) {
        running = Math.round((running + Number(e.amount)) * 100) / 100;
        expect(Number(e.balance)).toBe(running);
      }
      const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${a.merchant.wallet_id}`);
      expect(s.closing_balance).toBe(wallet.body.balance);
      expect(s.closing_balance).toBe('900.00');
    });

    it('splits at `from`: the opening balance is everything before it', async () => {
      const all = await admin(t.url, 'GET', `/admin/v1/wallets/${a.merchant.wallet_id}/statement`);
      const entries = all.body.entries as { created_at: string; balance: string }[];
      const cut = entries[1]?.created_at as string;
      const later = await admin(
        t.url,
        'GET',
        `/admin/v1/wallets/${a.merchant.wallet_id}/statement?from=${encodeURIComponent(cut)}`,
      );
      const before = entries.filter((e) => e.created_at < cut);
      expect(later.body.opening_balance).toBe(before.length ? before[before.length - 1]?.balance : '0.00');
      expect(later.body.closing_balance).toBe(all.body.closing_balance);
      const empty = await admin(
        t.url,
        'GET',
        `/admin/v1/wallets/${a.merchant.wallet_id}/statement?from=2000-01-01&to=2000-01-02`,
      );
      expect(empty.body).toMatchObject({ opening_balance: '0.00', closing_balance: '0.00', entries: [] });
    });

    it('exports CSV with a header row, opening and closing lines', async () => {
      const res = await fetch(`${t.url}/admin/v1/wallets/${a.merchant.wallet_id}/statement?format=csv`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-WL/);
      const lines = (await res.text()).trimEnd().split('\r\n');
      expect(lines[0]).toBe('entry_id,created_at,kind,amount,balance,reference,payout_id,collection_id,description');
      expect(lines[1]).toMatch(/,opening_balance,,0\.00,,,,$/);
      expect(lines[lines.length - 1]).toMatch(/,closing_balance,,900\.00,,,,$/);
      expect(lines).toHaveLength(1 + 1 + 4 + 1);
    });

    it('refuses bad bounds with 400 and an unknown wallet with 404', async () => {
      const w = a.merchant.wallet_id;
      for (const q of ['from=yesterday', 'to=2026-02-30', 'from=2026-03-02&to=2026-03-01', 'format=xml']) {
        const res = await admin(t.url, 'GET', `/admin/v1/wallets/${w}/statement?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.error).toBeDefined();
      }
      expect((await admin(t.url, 'GET', '/admin/v1/wallets/WL0/statement')).status).toBe(404);
    });
  });

  describe('stats', () => {
    it('counts payouts per status per hour over 24 hours, the success rate, backlog and money on hold', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/stats');
      expect(res.status).toBe(200);
      const hours = res.body.payouts_per_hour as Record<string, number | string>[];
      expect(hours).toHaveLength(24);
      const sum = (status: string) => hours.reduce((n, h) => n + Number(h[status] ?? 0), 0);
      expect(sum('SUCCESS')).toBeGreaterThanOrEqual(1);
      expect(sum('REFUNDED')).toBe(1);
      expect(res.body.payouts_by_status).toMatchObject({ REFUNDED: 1 });
      expect(res.body.success_rate).toBeGreaterThan(0);
      expect(res.body.success_rate).toBeLessThan(1);
      expect(res.body.money_on_hold).toMatch(/^\d+\.\d{2}$/);
      expect(res.body.webhook_backlog).toEqual({ pending: expect.any(Number), failed: expect.any(Number) });
    });
  });

  describe('bulk webhook replay', () => {
    it("sends again every failed delivery of a merchant since a time, and only that merchant's", async () => {
      const failed = (await eventually(async () => {
        const res = await admin(
          t.url,
          'GET',
          `/admin/v1/webhooks/deliveries?merchant_id=${a.merchant.merchant_id}&state=failed`,
        );
        return (res.body.data as unknown[]).length >= 2 ? (res.body.data as { id: string }[]) : null;
      })) as { id: string }[];
      failing = false;
      const future = await admin(t.url, 'POST', '/admin/v1/webhooks/deliveries/replay', {
        merchant_id: a.merchant.merchant_id,
        since: new Date(Date.now() + 60_000).toISOString(),
      });
      expect(future.body).toMatchObject({ replayed: 0 });
      const other = await admin(t.url, 'POST', '/admin/v1/webhooks/deliveries/replay', {
        merchant_id: b.merchant.merchant_id,
        since: started.toISOString(),
      });
      expect(other.body).toMatchObject({ replayed: 0 });
      const res = await admin(t.url, 'POST', '/admin/v1/webhooks/deliveries/replay', {
        merchant_id: a.merchant.merchant_id,
        since: started.toISOString(),
      });
      expect(res.status).toBe(202);
      expect((res.body.ids as string[]).sort()).toEqual(failed.map((d) => d.id).sort());
      await eventually(async () => {
        const r = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?merchant_id=${a.merchant.merchant_id}`);
        return (r.body.data as { state: string }[]).every((d) => d.state === 'delivered');
      });
      const bad = await admin(t.url, 'POST', '/admin/v1/webhooks/deliveries/replay', {
        merchant_id: a.merchant.merchant_id,
        since: 'last week',
      });
      expect(bad.status).toBe(400);
    });

    it('needs the finance role', async () => {
      await createOperator(t.url, `v-${engine}@example.test`, 'viewer');
      const viewer = await ConsoleSession.signIn(t.url, `v-${engine}@example.test`);
      const res = await viewer.request('POST', '/admin/v1/webhooks/deliveries/replay', {
        merchant_id: a.merchant.merchant_id,
        since: started.toISOString(),
      });
      expect(res.status).toBe(403);
    });
  });

  describe('merchant console session', () => {
    let mine: ConsoleSession;
    beforeAll(async () => {
      mine = await ConsoleSession.merchant(t.url, a.merchant.api_key, a.merchant.secret_key);
    });

    it('refuses wrong keys with 401 and sets an HttpOnly SameSite=Strict cookie for the right ones', async () => {
      const wrong = await http(t.url, 'POST', '/console/api/merchant/session', {
        body: { api_key: a.merchant.api_key, secret_key: 'x'.repeat(16) },
      });
      expect(wrong.status).toBe(401);
      expect(mine.setCookie).toMatch(/^payrail_mc=.*HttpOnly; SameSite=Strict/);
    });

    it("shows only the merchant's own balance, statement, payouts, collections and deliveries", async () => {
      const overview = await mine.request('GET', '/console/api/merchant/overview');
      expect(overview.status).toBe(200);
      expect(overview.body.wallets).toEqual([
        expect.objectContaining({ wallet_id: a.merchant.wallet_id, balance: '900.00' }),
      ]);
      const payouts = await mine.request('GET', '/console/api/merchant/payouts');
      const owners = new Set((payouts.body.data as { merchant_id: string }[]).map((p) => p.merchant_id));
      expect([...owners]).toEqual([a.merchant.merchant_id]);
      const statement = await mine.request('GET', `/console/api/merchant/wallets/${a.merchant.wallet_id}/statement`);
      expect(statement.body.closing_balance).toBe('900.00');
      const deliveries = await mine.request('GET', '/console/api/merchant/webhooks/deliveries');
      expect(
        (deliveries.body.data as { merchant_id: string }[]).every((d) => d.merchant_id === a.merchant.merchant_id),
      ).toBe(true);
      expect((await mine.request('GET', '/console/api/merchant/collections')).status).toBe(200);
    });

    it("answers 404 for another merchant's wallet, payout and delivery, and 401 on the admin API", async () => {
      expect(
        (await mine.request('GET', `/console/api/merchant/wallets/${b.merchant.wallet_id}/statement`)).status,
      ).toBe(404);
      const theirs = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${b.merchant.merchant_id}`);
      const payoutId = (theirs.body.data as { transaction_id: string }[])[0]?.transaction_id as string;
      expect((await mine.request('GET', `/console/api/merchant/payouts/${payoutId}`)).status).toBe(404);
      const all = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?merchant_id=${a.merchant.merchant_id}`);
      const myDelivery = (all.body.data as { id: string }[])[0]?.id as string;
      const other = await ConsoleSession.merchant(t.url, b.merchant.api_key, b.merchant.secret_key);
      expect(
        (await other.request('POST', `/console/api/merchant/webhooks/deliveries/${myDelivery}/replay`)).status,
      ).toBe(404);
      expect(
        (await mine.request('POST', `/console/api/merchant/webhooks/deliveries/${myDelivery}/replay`)).status,
      ).toBe(202);
      expect(
        (
          await mine.request('POST', `/console/api/merchant/webhooks/deliveries/${myDelivery}/replay`, undefined, {
            csrf: null,
          })
        ).status,
      ).toBe(403);
      expect((await mine.request('GET', '/admin/v1/payouts')).status).toBe(401);
    });

    it('rotates its own webhook secret (CSRF-checked) and answers the new one once', async () => {
      expect(
        (await mine.request('POST', '/console/api/merchant/webhook-secret/rotate', undefined, { csrf: null })).status,
      ).toBe(403);
      const res = await mine.request('POST', '/console/api/merchant/webhook-secret/rotate');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        merchant_id: a.merchant.merchant_id,
        webhook_secret: expect.stringMatching(/^whsec_/),
      });
      expect(res.body.webhook_secret).not.toBe(a.merchant.webhook_secret);
    });

    it('ends when the merchant’s credentials are rotated', async () => {
      const s = await ConsoleSession.merchant(t.url, b.merchant.api_key, b.merchant.secret_key);
      expect((await s.request('GET', '/console/api/merchant/overview')).status).toBe(200);
      await admin(t.url, 'POST', `/admin/v1/merchants/${b.merchant.merchant_id}/credentials/rotate`);
      expect((await s.request('GET', '/console/api/merchant/overview')).status).toBe(401);
    });
  });

  describe('batches, one collection and its QR', () => {
    let c: Funded;
    let batchId: string;
    let txnId: string;
    let mine: ConsoleSession;
    const item = (amount: string) => ({
      sender_id: senderId('bk'),
      wallet_id: c.merchant.wallet_id,
      payment_mode: 'IMPS',
      amount,
      beneficiary: { ...PLAIN_BENEFICIARY },
    });
    /** A batch of one 1.00 payout, accepted. */
    const sendBatch = async (id: string) => {
      const sent = await c.client.post('/payout/v1/bulk', { batch_id: id, items: [item('1.00')] });
      expect(sent.body.resp_code).toBe(2000);
    };
    beforeAll(async () => {
      c = await fundedMerchant(t.url, 'v2', '100.00');
      batchId = senderId('batch');
      const sent = await c.client.post('/payout/v1/bulk', { batch_id: batchId, items: [item('30.00'), item('90.00')] });
      expect(sent.body.resp_code).toBe(2000);
      // Settled first, so the merchant's and the operator's answers are read at rest.
      const first = (sent.data?.items as { transaction_id: string }[])[0]?.transaction_id as string;
      await waitForStatus(t.url, first, 'SUCCESS');
      txnId = (await initiateCollection(c.client)).txnId;
      mine = await ConsoleSession.merchant(t.url, c.merchant.api_key, c.merchant.secret_key);
    });

    it('GET /admin/v1/collections/{txnId} answers one collection, 404 for an unknown or malformed id', async () => {
      const one = await admin(t.url, 'GET', `/admin/v1/collections/${txnId}`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ txnId, merchant_id: c.merchant.merchant_id, status: 'INITIATED' });
      expect(one.body.paymentUrl).toEqual(expect.stringContaining('/pay/'));
      const listed = await admin(t.url, 'GET', `/admin/v1/collections?merchant_id=${c.merchant.merchant_id}`);
      expect((listed.body.data as unknown[])[0]).toEqual(one.body);
      for (const id of [UNKNOWN_TXN_ID, 'nonsense']) {
        const missing = await admin(t.url, 'GET', `/admin/v1/collections/${id}`);
        expect({ status: missing.status, code: (missing.body.error as { code: string }).code }).toEqual({
          status: 404,
          code: 'not_found',
        });
      }
      const spec = await http(t.url, 'GET', '/openapi.json');
      expect(Object.keys(spec.body.paths as object)).toContain('/admin/v1/collections/{txnId}');
    });

    it("lists the merchant's own batches and one batch with every item's verdict", async () => {
      const list = await mine.request('GET', '/console/api/merchant/batches');
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([
        expect.objectContaining({
          batch_id: batchId,
          item_count: 2,
          accepted: 1,
          refused: 1,
          amount_accepted: '30.00',
        }),
      ]);
      const one = await mine.request('GET', `/console/api/merchant/batches/${batchId}`);
      expect(one.status).toBe(200);
      const items = one.body.items as { index: number; resp_code: number; transaction_id?: string | null }[];
      expect(items.map((i) => [i.index, i.resp_code])).toEqual([
        [0, 2000],
        [1, 4002],
      ]);
      expect(items[0]?.transaction_id).toMatch(/^PT/);
      // The operator's route answers the same batch.
      const op = await admin(t.url, 'GET', `/admin/v1/batches/${c.merchant.merchant_id}/${batchId}`);
      expect(op.body.items).toEqual(one.body.items);
    });

    it("pages the merchant's batches with a cursor", async () => {
      const second = senderId('batch');
      await sendBatch(second);
      const all = await mine.request('GET', '/console/api/merchant/batches');
      const ids = (all.body.data as { batch_id: string }[]).map((b) => b.batch_id);
      expect(ids).toEqual([second, batchId]);
      const first = await mine.request('GET', '/console/api/merchant/batches?limit=1');
      expect(first.body).toMatchObject({ has_more: true, data: [expect.objectContaining({ batch_id: second })] });
      const next = await mine.request(
        'GET',
        `/console/api/merchant/batches?limit=1&cursor=${first.body.next_cursor as string}`,
      );
      expect(next.body).toMatchObject({ has_more: false, data: [expect.objectContaining({ batch_id: batchId })] });
      expect((await mine.request('GET', '/console/api/merchant/batches?cursor=bm9wZQ')).status).toBe(400);
    });

    it('pages past a batch whose cursor is longer than the other lists’ (100), on both sides alike', async () => {
      // The longest batch_id there is: its cursor (time, merchant and batch id) runs past 100 characters.
      const longest = `${senderId('b')}-${'x'.repeat(50)}`.slice(0, 50);
      await sendBatch(longest);
      const lists = [
        (q: string) => mine.request('GET', `/console/api/merchant/batches${q}`),
        (q: string) => admin(t.url, 'GET', `/admin/v1/batches?merchant_id=${c.merchant.merchant_id}&${q.slice(1)}`),
      ];
      for (const list of lists) {
        const first = await list('?limit=1');
        expect(first.body).toMatchObject({ has_more: true, data: [expect.objectContaining({ batch_id: longest })] });
        const cursor = first.body.next_cursor as string;
        expect(cursor.length).toBeGreaterThan(100);
        const next = await list(`?limit=1&cursor=${cursor}`);
        expect(next.status).toBe(200);
        expect((next.body.data as { batch_id: string }[])[0]?.batch_id).not.toBe(longest);
      }
    });

    it("answers 404 for another merchant's batch, collection and QR; the own QR is an SVG", async () => {
      const qr = await fetch(`${t.url}/console/api/merchant/collections/${txnId}/qr`, {
        headers: { cookie: mine.cookie },
      });
      expect(qr.status).toBe(200);
      expect(qr.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await qr.text()).toMatch(/^<svg/);
      const own = await mine.request('GET', `/console/api/merchant/collections/${txnId}`);
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ txnId, merchant_id: c.merchant.merchant_id });
      const stranger = await ConsoleSession.merchant(t.url, a.merchant.api_key, a.merchant.secret_key);
      expect((await stranger.request('GET', `/console/api/merchant/collections/${txnId}`)).status).toBe(404);
      expect((await stranger.request('GET', `/console/api/merchant/batches/${batchId}`)).status).toBe(404);
      expect((await stranger.request('GET', `/console/api/merchant/collections/${txnId}/qr`)).status).toBe(404);
      const theirs = await stranger.request('GET', '/console/api/merchant/batches');
      expect((theirs.body.data as { batch_id: string }[]).map((b) => b.batch_id)).not.toContain(batchId);
      expect((await mine.request('GET', `/console/api/merchant/collections/${UNKNOWN_TXN_ID}/qr`)).status).toBe(404);
      expect((await http(t.url, 'GET', '/console/api/merchant/batches')).status).toBe(401);
    });
  });
});
