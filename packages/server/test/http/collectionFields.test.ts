import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initiate,
  initiateOk,
  party,
  senderId,
  setMerchant,
  simulate,
  status,
  type Party,
} from '../support/collectionFixtures.ts';
import { admin, http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/** Configured with a trailing slash, which the links must not repeat. */
const PUBLIC_URL = 'https://pay.example.test/payrail';
const PAGE_LINK = /^https:\/\/pay\.example\.test\/payrail\/pay\/([A-Za-z0-9_-]{32})$/;

/** The fields integrations of this interface send (docs/merchant/api-reference.md): requestAmount, vpa, txnType, channel, paymentUrl. */
describe.each(ENGINES)('collection fields of existing integrations on %s', (engine) => {
  let t: TestServer;
  let p: Party;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestServer(engine, {
      env: { PAYRAIL_PUBLIC_URL: `${PUBLIC_URL}/`, PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    p = await party(t.url, 'v2', 'Corner Shop');
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const recorded = async (merchantId: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/collections?merchant_id=${merchantId}&limit=200`);
    return (res.body.data as unknown[]).length;
  };
  /** The body of the first delivery to `path`, once it has arrived. */
  const firstHook = async (path: string) => {
    const hook = await eventually(() => receiver.at(path)[0] ?? null);
    return JSON.parse((hook as { body: string }).body) as { type: string; data: string };
  };
  const intentParams = (url: unknown) => Object.fromEntries(new URL(url as string).searchParams);
  /** Initiates with exactly these fields (no default amount). */
  const create = (plain: Record<string, unknown>) => initiate(p.client, { senderId: senderId(), ...plain });
  const refusedWith = async (plain: Record<string, unknown>, code: number, field?: string) => {
    const before = await recorded(p.merchant.merchant_id);
    const res = await create(plain);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      respCode: code,
      respMessage: field ? expect.stringContaining(field) : expect.any(String),
    });
    expect(await recorded(p.merchant.merchant_id)).toBe(before);
    return res;
  };

  describe('requestAmount, and amount as its alias', () => {
    it('takes requestAmount as the interface sends it', async () => {
      const res = await create({ requestAmount: '250.50' });
      expect(res.body.respCode).toBe(2000);
      expect(res.data).toMatchObject({ requestAmount: '250.50', status: 'INITIATED' });
      expect(intentParams(res.data?.intentUrl).am).toBe('250.50');
    });

    it('still takes amount alone, and both when they are equal in value', async () => {
      expect((await create({ amount: '12.00' })).data?.requestAmount).toBe('12.00');
      expect((await create({ requestAmount: '12.5', amount: 12.5 })).data?.requestAmount).toBe('12.50');
    });

    it('refuses both given and different with 4110, recording nothing', async () => {
      const res = await refusedWith({ requestAmount: '250.50', amount: '250.51' }, 4110, 'differ');
      expect(res.body.data).toBeUndefined();
    });

    it('refuses an invalid requestAmount even beside a valid amount (4110)', async () => {
      await refusedWith({ requestAmount: '0.99', amount: '10.00' }, 4110);
      await refusedWith({ requestAmount: '100000.01' }, 4110);
      await refusedWith({}, 4110);
    });
  });

  describe('vpa: the payee address', () => {
    it('in the sandbox, collects into any well-formed address, echoed as vpa and in the intent link', async () => {
      const res = await create({ requestAmount: '10.00', vpa: 'counter.7@oksbi' });
      expect(res.body.respCode).toBe(2000);
      expect(res.data?.vpa).toBe('counter.7@oksbi');
      expect(intentParams(res.data?.intentUrl)).toMatchObject({ pa: 'counter.7@oksbi', pn: 'Corner Shop' });
      const later = await status(p.client, { txnId: res.data?.txnId as string });
      expect(later.data?.vpa).toBe('counter.7@oksbi');
    });

    it("without vpa, uses the merchant's configured address (sandbox default: <merchant id>@payrail)", async () => {
      const q = await party(t.url, 'v1', 'Tea Stall');
      const before = await initiateOk(q.client);
      expect(before.vpa).toBe(`${q.merchant.merchant_id.toLowerCase()}@payrail`);
      await setMerchant(t.url, q.merchant.merchant_id, { upi_vpa: 'teastall@okhdfc' });
      const after = await initiateOk(q.client);
      expect(after.vpa).toBe('teastall@okhdfc');
      expect(intentParams(after.intentUrl).pa).toBe('teastall@okhdfc');
      // Fixed at creation: the earlier collection keeps the address its link was made with.
      expect((await status(q.client, { txnId: before.txnId })).data?.vpa).toBe(before.vpa);
    });

    it('refuses a malformed vpa with 4111 naming it', async () => {
      await refusedWith({ requestAmount: '10.00', vpa: 'not-an-address' }, 4111, 'vpa');
      await refusedWith({ requestAmount: '10.00', vpa: 42 }, 4111, 'vpa');
    });
  });

  describe('txnType', () => {
    it('defaults to INTENT (paymentMode Intent)', async () => {
      const d = await initiateOk(p.client);
      expect(d).toMatchObject({ txnType: 'INTENT', paymentMode: 'Intent', payerVpa: '' });
    });

    it('COLLECT with payerVpa makes a Collect request; any case is accepted', async () => {
      const d = await initiateOk(p.client, { txnType: 'collect', payerVpa: 'asha.rao@okicici' });
      expect(d).toMatchObject({ txnType: 'COLLECT', paymentMode: 'Collect', payerVpa: 'asha.rao@okicici' });
    });

    it('keeps the earlier rule: payerVpa alone makes a Collect request; INTENT with payerVpa stays Intent', async () => {
      expect(await initiateOk(p.client, { payerVpa: 'asha@okicici' })).toMatchObject({
        txnType: 'COLLECT',
        paymentMode: 'Collect',
      });
      expect(await initiateOk(p.client, { txnType: 'INTENT', payerVpa: 'asha@okicici' })).toMatchObject({
        txnType: 'INTENT',
        paymentMode: 'Intent',
        payerVpa: 'asha@okicici',
      });
    });

    it('refuses COLLECT without payerVpa (4111 naming payerVpa) and an unknown type (4111 naming txnType)', async () => {
      await refusedWith({ requestAmount: '10.00', txnType: 'COLLECT' }, 4111, 'payerVpa');
      await refusedWith({ requestAmount: '10.00', txnType: 'UPI' }, 4111, 'txnType');
    });
  });

  describe('channel', () => {
    it('is recorded and echoed by initiation, both status forms and the webhook', async () => {
      const path = `/hooks/${senderId('ch')}`;
      const c = await initiateOk(p.client, { channel: 'android-app', callbackUrl: receiver.url + path });
      expect(c.channel).toBe('android-app');
      expect((await status(p.client, { txnId: c.txnId })).data?.channel).toBe('android-app');
      expect((await p.client.post('/collection/v1/status', { txnId: c.txnId })).data?.channel).toBe('android-app');
      expect((await simulate(p.client, c.txnId, 'SUCCESS')).data?.channel).toBe('android-app');
      const event = await firstHook(path);
      expect(p.client.decrypt(event.data).channel).toBe('android-app');
    });

    it('is empty when not given, accepts 20 characters, refuses 21 (4111 naming channel)', async () => {
      expect((await initiateOk(p.client)).channel).toBe('');
      expect((await initiateOk(p.client, { channel: 'c'.repeat(20) })).channel).toBe('c'.repeat(20));
      expect((await initiateOk(p.client, { channel: 'मोबाइल-ऐप' })).channel).toBe('मोबाइल-ऐप');
      await refusedWith({ requestAmount: '10.00', channel: 'c'.repeat(21) }, 4111, 'channel');
      await refusedWith({ requestAmount: '10.00', channel: { name: 'web' } }, 4111, 'channel');
    });
  });

  describe('paymentUrl', () => {
    it('is in every answer that carries the collection, the same link each time, under PAYRAIL_PUBLIC_URL', async () => {
      const path = `/hooks/${senderId('pu')}`;
      const c = await initiateOk(p.client, { callbackUrl: receiver.url + path });
      expect(c.paymentUrl).toMatch(PAGE_LINK);
      const links = [
        (await status(p.client, { txnId: c.txnId })).data?.paymentUrl,
        (await status(p.client, { senderId: c.senderId })).data?.paymentUrl,
        (await p.client.post('/collection/v1/status', { senderId: c.senderId })).data?.paymentUrl,
        (await initiate(p.client, { senderId: c.senderId, amount: '1.00' })).data?.paymentUrl,
        (await simulate(p.client, c.txnId, 'PENDING')).data?.paymentUrl,
      ];
      expect(links).toEqual(Array(links.length).fill(c.paymentUrl));
      const event = await firstHook(path);
      expect(event.type).toBe('collection.pending');
      expect(p.client.decrypt(event.data).paymentUrl).toBe(c.paymentUrl);
      const listed = await admin(t.url, 'GET', `/admin/v1/collections?merchant_id=${p.merchant.merchant_id}`);
      const row = (listed.body.data as Record<string, unknown>[]).find((r) => r.txnId === c.txnId);
      expect(row?.paymentUrl).toBe(c.paymentUrl);
    });

    it('is unguessable: a random 32-character key, not derived from txnId or senderId, different every time', async () => {
      const sid = senderId('same');
      const [a, b] = await Promise.all([party(t.url, 'v2', 'A'), party(t.url, 'v1', 'B')]);
      const mine = await Promise.all(Array.from({ length: 10 }, () => initiateOk(p.client)));
      const twins = [await initiateOk(a.client, { senderId: sid }), await initiateOk(b.client, { senderId: sid })];
      const all = [...mine, ...twins];
      const tokens = all.map((c) => PAGE_LINK.exec(c.paymentUrl as string)?.[1] as string);
      expect(new Set(tokens).size).toBe(all.length);
      all.forEach((c, i) => {
        const token = tokens[i] as string;
        expect(token).toHaveLength(32);
        expect(token).not.toContain(c.txnId.slice(2, 12));
        expect(token.toLowerCase()).not.toContain(c.senderId.toLowerCase());
      });
      // Two collections created in the same millisecond series share their txnId prefix, not their page key.
      expect(tokens[0]?.slice(0, 8)).not.toBe(tokens[1]?.slice(0, 8));
    });

    it('opens the payment page on this server (path of the link)', async () => {
      const c = await initiateOk(p.client, { requestAmount: '77.70', amount: undefined });
      const path = new URL(c.paymentUrl as string).pathname.replace(/^\/payrail/, '');
      const res = await fetch(t.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('₹77.70');
      const guessed = await http(t.url, 'GET', `/pay/${c.txnId}`);
      expect(guessed.status).toBe(404);
    });
  });
});
