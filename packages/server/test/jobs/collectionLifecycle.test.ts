import { decryptJsonObject, type Scheme } from '@payrail/protocol';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRepository } from '../../src/store/repositories/JobRepository.ts';
import {
  expectLedgerOk,
  initiate,
  initiateOk,
  party,
  senderId,
  setMerchant,
  simulate,
  status,
  waitForCollectionStatus,
  walletBalance,
  type Outcome,
  type Party,
} from '../support/collectionFixtures.ts';
import { admin, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { quiescent } from '../support/quiescent.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../support/webhookReceiver.ts';

const TTL_MS = 300;

interface Event {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Verifies a delivery per Standard Webhooks with the merchant's secret and decrypts its data with `scheme`. */
function openHook(hook: ReceivedWebhook, merchant: TestMerchant, scheme: Scheme): Event {
  const headers = {
    'webhook-id': String(hook.headers['webhook-id']),
    'webhook-timestamp': String(hook.headers['webhook-timestamp']),
    'webhook-signature': String(hook.headers['webhook-signature']),
  };
  const body = new Webhook(merchant.webhook_secret).verify(hook.body, headers) as Omit<Event, 'data'> & {
    data: string;
  };
  expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
  expect(body.id).toBe(headers['webhook-id']);
  expect(body.id).toMatch(/^EV[0-9A-HJKMNP-TV-Z]{26}$/);
  const keys = { apiKey: merchant.api_key, secretKey: merchant.secret_key };
  return { ...body, data: decryptJsonObject(body.data, scheme, keys) };
}

describe.each(ENGINES)('collection lifecycle on %s', (engine) => {
  /** Default TTL (30 minutes): collections created here stay INITIATED for the whole file. */
  let t: TestServer;
  /** A second instance on the same database whose collections expire after 300 ms. */
  let short: TestServer;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    // Two instances of one deployment share its public URL, so that both write the same paymentUrl.
    const PAYRAIL_PUBLIC_URL = 'https://payrail.example.test';
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000', PAYRAIL_PUBLIC_URL } });
    short = await startTestServer(engine, {
      env: { PAYRAIL_COLLECTION_TTL: `${TTL_MS}ms`, PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000', PAYRAIL_PUBLIC_URL },
      ...(engine === 'postgres' ? { schema: t.schema } : { db: t.db }),
    });
  });
  afterAll(async () => {
    await short?.close();
    await t?.close();
    await receiver.stop();
  });

  /** The same session, speaking to the other instance. */
  const on = (server: TestServer, client: MerchantClient) => {
    const c = new MerchantClient(server.url, client.merchant, client.scheme);
    c.token = client.token;
    return c;
  };

  const hooksAt = (path: string) => receiver.at(path);
  const ledgerEntries = async (txnId: string) => {
    const { rows } = await t.db.query<{ n: bigint }>(
      'SELECT count(*)::int8 AS n FROM ledger_entries WHERE collection_id = $1',
      [txnId],
    );
    return Number(rows[0]?.n);
  };
  const expireJobs = async (txnId: string) => {
    const { rows } = await t.db.query<{ n: bigint }>(
      "SELECT count(*)::int8 AS n FROM jobs WHERE kind = 'collection.expire' AND subject_id = $1",
      [txnId],
    );
    return Number(rows[0]?.n);
  };
  /** Waits until the worker and the dispatcher have nothing left to do now, so that anything extra would have shown. */
  const settle = () => quiescent(t.db);

  describe('webhooks', () => {
    it.each<Scheme>(['v1', 'v2'])(
      'sends collection.pending then collection.success to callbackUrl, signed, data in the %s scheme of the collection',
      async (scheme) => {
        const p = await party(t.url, scheme);
        const path = `/hook/${senderId('wh')}`;
        const c = await initiateOk(p.client, { amount: '64.00', callbackUrl: receiver.url + path });
        // Moved by a session of the other scheme: the events keep the collection's own scheme.
        const otherScheme = await MerchantClient.connect(t.url, p.merchant, scheme === 'v1' ? 'v2' : 'v1');
        expect((await simulate(otherScheme, c.txnId, 'PENDING')).body.respCode).toBe(2000);
        expect((await simulate(otherScheme, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
        await eventually(() => hooksAt(path).length >= 2);
        await settle();
        const events = hooksAt(path).map((h) => openHook(h, p.merchant, scheme));
        expect(events.map((e) => e.type)).toEqual(['collection.pending', 'collection.success']);
        expect(events[0]?.data).toMatchObject({ txnId: c.txnId, senderId: c.senderId, status: 'PENDING', utr: '' });
        const final = (await status(p.client, { txnId: c.txnId })).data;
        expect(events[1]?.data).toEqual(final);
        expect(new Set(events.map((e) => e.id)).size).toBe(2);
        for (const e of events) expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        for (const h of hooksAt(path)) {
          expect(h.headers['content-type']).toMatch(/^application\/json/);
          expect(Math.abs(Number(h.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
        }
      },
    );

    it('refuses a delivery that another secret signed (the verification can fail)', async () => {
      const p = await party(t.url, 'v2');
      const stranger = await party(t.url, 'v2');
      const path = `/hook/${senderId('sig')}`;
      const c = await initiateOk(p.client, { callbackUrl: receiver.url + path });
      await simulate(p.client, c.txnId, 'FAILED');
      await eventually(() => hooksAt(path).length > 0);
      const [hook] = hooksAt(path);
      expect(() => openHook(hook as ReceivedWebhook, stranger.merchant, 'v2')).toThrow();
      expect(openHook(hook as ReceivedWebhook, p.merchant, 'v2')).toMatchObject({
        type: 'collection.failed',
        data: { status: 'FAILED', txnId: c.txnId },
      });
    });

    it("goes to the merchant's collection_callback_url when the collection names none, else to its own", async () => {
      const p = await party(t.url, 'v1');
      const merchantPath = `/merchant/${p.merchant.merchant_id}`;
      const ownPath = `/own/${senderId('own')}`;
      await setMerchant(t.url, p.merchant.merchant_id, { collection_callback_url: receiver.url + merchantPath });
      const viaMerchant = await initiateOk(p.client);
      const viaOwn = await initiateOk(p.client, { callbackUrl: receiver.url + ownPath });
      await simulate(p.client, viaMerchant.txnId, 'SUCCESS');
      await simulate(p.client, viaOwn.txnId, 'FAILED');
      await eventually(() => hooksAt(merchantPath).length >= 1 && hooksAt(ownPath).length >= 1);
      await settle();
      const toMerchant = hooksAt(merchantPath).map((h) => openHook(h, p.merchant, 'v1'));
      const toOwn = hooksAt(ownPath).map((h) => openHook(h, p.merchant, 'v1'));
      expect(toMerchant.map((e) => [e.type, e.data.txnId])).toEqual([['collection.success', viaMerchant.txnId]]);
      expect(toOwn.map((e) => [e.type, e.data.txnId])).toEqual([['collection.failed', viaOwn.txnId]]);
    });

    it('records no delivery when neither address is set', async () => {
      const p = await party(t.url, 'v2');
      const c = await initiateOk(p.client);
      await simulate(p.client, c.txnId, 'SUCCESS');
      await settle();
      const res = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?merchant_id=${p.merchant.merchant_id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });

    it('sends nothing for a repeated outcome', async () => {
      const p = await party(t.url, 'v2');
      const path = `/hook/${senderId('rep')}`;
      const c = await initiateOk(p.client, { callbackUrl: receiver.url + path });
      for (let i = 0; i < 3; i++) expect((await simulate(p.client, c.txnId, 'PENDING')).body.respCode).toBe(2000);
      await eventually(() => hooksAt(path).length >= 1);
      await settle();
      expect(hooksAt(path).map((h) => openHook(h, p.merchant, 'v2').type)).toEqual(['collection.pending']);
    });
  });

  describe('expiry (PAYRAIL_COLLECTION_TTL)', () => {
    it('fails an INITIATED collection after the TTL, once, with a collection.failed webhook and no money', async () => {
      const p = await party(t.url, 'v1');
      const path = `/hook/${senderId('exp')}`;
      const c = await initiateOk(on(short, p.client), { amount: '80.00', callbackUrl: receiver.url + path });
      expect(Date.parse(c.expiresAt as string) - Date.parse(c.createdAt as string)).toBe(TTL_MS);
      const failed = await waitForCollectionStatus(p.client, c.txnId, 'FAILED', 5_000);
      expect(Date.parse(failed.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(c.expiresAt as string));
      expect(failed).toMatchObject({
        utr: '',
        requestAmount: '80.00',
        statusMessage: expect.stringMatching(/expire/i),
      });
      await eventually(() => hooksAt(path).length >= 1);
      await settle();
      const events = hooksAt(path).map((h) => openHook(h, p.merchant, 'v1'));
      expect(events.map((e) => e.type)).toEqual(['collection.failed']);
      expect(events[0]?.data).toEqual(failed);
      // Too late to pay now.
      const late = await simulate(p.client, c.txnId, 'SUCCESS');
      expect(late.status).toBe(409);
      expect(late.body.respCode).toBe(4113);
      expect(await walletBalance(p.client)).toBe('0.00');
      expect(await expireJobs(c.txnId)).toBe(0);
      await expectLedgerOk(t.url);
    });

    it('leaves a collection INITIATED until its TTL has passed', async () => {
      const p = await party(t.url, 'v2');
      const c = await initiateOk(on(short, p.client));
      const expiresAt = Date.parse(c.expiresAt as string);
      const seen = (await status(p.client, { txnId: c.txnId })).data as Record<string, string>;
      // Only meaningful when the answer came back before the expiry (a loaded machine may be slower).
      if (Date.now() < expiresAt) expect(seen.status).toBe('INITIATED');
      const failed = await waitForCollectionStatus(p.client, c.txnId, 'FAILED', 5_000);
      expect(Date.parse(failed.updatedAt as string)).toBeGreaterThanOrEqual(expiresAt);
    });

    it('never expires a PENDING or SUCCESS collection, even when its expiry job runs', async () => {
      const p = await party(t.url, 'v2');
      const path = `/hook/${senderId('noexp')}`;
      const pending = await initiateOk(p.client, { amount: '5.00', callbackUrl: receiver.url + path });
      const paid = await initiateOk(p.client, { amount: '7.00', callbackUrl: receiver.url + path });
      await simulate(p.client, pending.txnId, 'PENDING');
      await simulate(p.client, paid.txnId, 'SUCCESS');
      // A final status cancels the expiry job; PENDING keeps it (the expiry then finds it no longer INITIATED).
      expect(await expireJobs(paid.txnId)).toBe(0);
      expect(await expireJobs(pending.txnId)).toBe(1);
      await t.db.query("UPDATE jobs SET run_at = now() WHERE kind = 'collection.expire' AND subject_id = $1", [
        pending.txnId,
      ]);
      await JobRepository.schedule(t.db, 'collection.expire', paid.txnId, 0);
      await eventually(async () => (await expireJobs(pending.txnId)) + (await expireJobs(paid.txnId)) === 0);
      await settle();
      expect((await status(p.client, { txnId: pending.txnId })).data?.status).toBe('PENDING');
      expect((await status(p.client, { txnId: paid.txnId })).data?.status).toBe('SUCCESS');
      expect(await walletBalance(p.client)).toBe('7.00');
      expect(
        hooksAt(path)
          .map((h) => openHook(h, p.merchant, 'v2').type)
          .sort(),
      ).toEqual(['collection.pending', 'collection.success']);
    });
  });

  describe('credit once (double credit)', () => {
    /** Checks the money after a SUCCESS of `amount`: wallet, ledger entries, ledger verify and one webhook. */
    async function expectCreditedOnce(p: Party, txnId: string, amount: string, path: string) {
      expect(await walletBalance(p.client)).toBe(amount);
      expect(await ledgerEntries(txnId)).toBe(1);
      await expectLedgerOk(t.url);
      await eventually(() => hooksAt(path).length >= 1);
      await settle();
      expect(hooksAt(path).map((h) => openHook(h, p.merchant, p.client.scheme).type)).toEqual(['collection.success']);
    }

    it('the same SUCCESS reported twice in a row moves the money once', async () => {
      const p = await party(t.url, 'v2');
      const path = `/hook/${senderId('seq')}`;
      const c = await initiateOk(p.client, { amount: '123.45', callbackUrl: receiver.url + path });
      const first = await simulate(p.client, c.txnId, 'SUCCESS');
      const second = await simulate(p.client, c.txnId, 'SUCCESS');
      expect([first.body.respCode, second.body.respCode]).toEqual([2000, 2000]);
      expect(second.data).toEqual(first.data);
      await expectCreditedOnce(p, c.txnId, '123.45', path);
    });

    it('ten concurrent SUCCESS reports on one instance move the money once', async () => {
      const p = await party(t.url, 'v1');
      const path = `/hook/${senderId('conc')}`;
      const c = await initiateOk(p.client, { amount: '999.99', callbackUrl: receiver.url + path });
      const results = await Promise.all(Array.from({ length: 10 }, () => simulate(p.client, c.txnId, 'SUCCESS')));
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.data).toMatchObject({ status: 'SUCCESS', txnId: c.txnId });
      }
      expect(new Set(results.map((r) => r.data?.utr)).size).toBe(1);
      await expectCreditedOnce(p, c.txnId, '999.99', path);
    });

    it('ten concurrent SUCCESS reports spread over two instances on one database move the money once', async () => {
      const p = await party(t.url, 'v2');
      const path = `/hook/${senderId('multi')}`;
      const c = await initiateOk(p.client, { amount: '100000.00', callbackUrl: receiver.url + path });
      const clients = [p.client, on(short, p.client)];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => simulate(clients[i % 2] as MerchantClient, c.txnId, 'SUCCESS')),
      );
      expect(results.map((r) => r.body.respCode)).toEqual(Array(10).fill(2000));
      expect(new Set(results.map((r) => r.data?.utr)).size).toBe(1);
      await expectCreditedOnce(p, c.txnId, '100000.00', path);
    });

    it('ten concurrent PENDING → SUCCESS reports after a PENDING move the money once', async () => {
      const p = await party(t.url, 'v2');
      const path = `/hook/${senderId('pend')}`;
      const c = await initiateOk(p.client, { amount: '10.10', callbackUrl: receiver.url + path });
      await simulate(p.client, c.txnId, 'PENDING');
      const clients = [p.client, on(short, p.client)];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => simulate(clients[i % 2] as MerchantClient, c.txnId, 'SUCCESS')),
      );
      expect(results.map((r) => r.body.respCode)).toEqual(Array(10).fill(2000));
      expect(await walletBalance(p.client)).toBe('10.10');
      expect(await ledgerEntries(c.txnId)).toBe(1);
      await eventually(() => hooksAt(path).length >= 2);
      await settle();
      expect(hooksAt(path).map((h) => openHook(h, p.merchant, 'v2').type)).toEqual([
        'collection.pending',
        'collection.success',
      ]);
      await expectLedgerOk(t.url);
    });

    it('concurrent SUCCESS and FAILED reports: one outcome wins, the other is refused, money only with SUCCESS', async () => {
      const p = await party(t.url, 'v1');
      const c = await initiateOk(p.client, { amount: '40.00' });
      const clients = [p.client, on(short, p.client)];
      const outcomes: Outcome[] = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'SUCCESS' : 'FAILED'));
      const results = await Promise.all(
        outcomes.map((o, i) => simulate(clients[Math.floor(i / 2) % 2] as MerchantClient, c.txnId, o)),
      );
      const final = (await status(p.client, { txnId: c.txnId })).data?.status as Outcome;
      expect(['SUCCESS', 'FAILED']).toContain(final);
      results.forEach((r, i) => {
        expect(r.body.respCode).toBe(outcomes[i] === final ? 2000 : 4113);
      });
      expect(await walletBalance(p.client)).toBe(final === 'SUCCESS' ? '40.00' : '0.00');
      expect(await ledgerEntries(c.txnId)).toBe(final === 'SUCCESS' ? 1 : 0);
      await expectLedgerOk(t.url);
    });

    it('SUCCESS reports racing the expiry: either paid once or failed without money, never an error', async () => {
      /** One merchant and collection; ten SUCCESS reports fired around its expiry, `offsetMs` from it. */
      async function race(offsetMs: number) {
        const p = await party(t.url, 'v2');
        const path = `/hook/${senderId('race')}`;
        const c = await initiateOk(on(short, p.client), { amount: '55.00', callbackUrl: receiver.url + path });
        const fireAt = Date.parse(c.expiresAt as string) + offsetMs;
        await new Promise((r) => setTimeout(r, Math.max(0, fireAt - Date.now())));
        const clients = [p.client, on(short, p.client)];
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => simulate(clients[i % 2] as MerchantClient, c.txnId, 'SUCCESS')),
        );
        return { p, c, path, results };
      }
      // Several races, fired at different moments around the expiry, so that some meet the expiry job mid-way.
      const races = await Promise.all([-30, -10, 0, 10, 20, 40].map(race));
      await settle();
      for (const { p, c, path, results } of races) {
        const final = (await status(p.client, { txnId: c.txnId })).data?.status;
        expect(['SUCCESS', 'FAILED']).toContain(final);
        expect(results.map((r) => r.body.respCode)).toEqual(Array(10).fill(final === 'SUCCESS' ? 2000 : 4113));
        expect(await walletBalance(p.client)).toBe(final === 'SUCCESS' ? '55.00' : '0.00');
        expect(await ledgerEntries(c.txnId)).toBe(final === 'SUCCESS' ? 1 : 0);
        await eventually(() => hooksAt(path).length >= 1);
        await settle();
        expect(hooksAt(path).map((h) => openHook(h, p.merchant, 'v2').type)).toEqual([
          final === 'SUCCESS' ? 'collection.success' : 'collection.failed',
        ]);
      }
      await expectLedgerOk(t.url);
    });

    it('credits the wallet the collection names, and many collections add up exactly', async () => {
      const p = await party(t.url, 'v2');
      const second = (await admin(t.url, 'POST', `/admin/v1/merchants/${p.merchant.merchant_id}/wallets`)).body
        .wallet_id as string;
      const amounts = ['1.00', '2.50', '99999.99', '1.49'];
      const made = await Promise.all(amounts.map((amount) => initiateOk(p.client, { amount, walletId: second })));
      await Promise.all(made.map((c) => simulate(p.client, c.txnId, 'SUCCESS')));
      await Promise.all(made.map((c) => simulate(on(short, p.client), c.txnId, 'SUCCESS')));
      expect(await walletBalance(p.client, second)).toBe('100004.98');
      expect(await walletBalance(p.client)).toBe('0.00');
      await expectLedgerOk(t.url);
    });

    it('a refused initiation never creates anything that could be credited', async () => {
      const p = await party(t.url, 'v2');
      const res = await initiate(p.client, { senderId: senderId(), amount: '0.50' });
      expect(res.body.respCode).toBe(4110);
      const { rows } = await t.db.query<{ n: bigint }>(
        'SELECT count(*)::int8 AS n FROM collections WHERE merchant_id = $1',
        [p.merchant.merchant_id],
      );
      expect(Number(rows[0]?.n)).toBe(0);
    });
  });
});
