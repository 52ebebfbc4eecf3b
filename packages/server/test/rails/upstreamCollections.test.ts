import { encryptJson, signBody, type Scheme } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderId, TXN_ID } from '../support/collectionFixtures.ts';
import { FaultProxy } from '../support/faultProxy.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { movableClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/*
 * Collections routed to the upstream connector (docs/operator/connectors.md, "Collections through the upstream"), end to end: a second Payrail server in sandbox mode
 * is the upstream, over real HTTP, with a proxy in front of it (counts requests, drops answers after the upstream
 * acted, or refuses to connect) and one in front of the downstream's public URL (drops the upstream's webhooks).
 * Nothing of the upstream is mocked: the payer pays through the upstream's own payment page.
 */

const CASES: { engine: (typeof ENGINES)[number]; scheme: Scheme }[] = ENGINES.map((engine) => ({
  engine,
  scheme: engine === 'postgres' ? 'v1' : 'v2',
}));

describe.each(CASES)('collections through the upstream connector ($engine, upstream scheme $scheme)', (c) => {
  const { engine, scheme } = c;
  /** The upstream's clock: moved to expire the token the downstream holds. */
  const upClock = movableClock();
  let up: TestServer;
  let down: TestServer;
  let toUp: FaultProxy;
  let toDown: FaultProxy;
  let receiver: WebhookReceiver;
  let account: TestMerchant;
  let shopMerchant: TestMerchant;
  let shop: MerchantClient;
  const INITIATE = 'POST /api/collection/v1/initiate';
  const STATUS = 'POST /api/collection/v1/status';

  /** The upstream's copies of our collection `txnId` (their senderId is our txnId). */
  const upstreamCopies = async (txnId: string) => {
    const { rows } = await up.db.query<{ id: string; status: string; utr: string; wallet_id: string; amount: bigint }>(
      'SELECT id, status, utr, wallet_id, amount FROM collections WHERE sender_id = $1',
      [txnId],
    );
    return rows;
  };
  const balance = async () =>
    String((await shop.get(`/payout/v1/balance?wallet_id=${shopMerchant.wallet_id}`)).data?.balance);
  const upstreamBalance = async () => {
    const { rows } = await up.db.query<{ b: string }>(
      'SELECT coalesce(sum(amount), 0)::text AS b FROM ledger_entries WHERE wallet_id = $1',
      [account.wallet_id],
    );
    return BigInt(rows[0]?.b ?? '0');
  };
  const status = async (txnId: string) => (await shop.get(`/collection/v1/status?txnId=${txnId}`)).data ?? {};
  const credits = async (txnId: string) => {
    const { rows } = await down.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM ledger_entries WHERE collection_id = $1',
      [txnId],
    );
    return Number(rows[0]?.n);
  };
  const hooks = (txnId: string, type: string) =>
    receiver.at('/hook').filter((h) => {
      const event = JSON.parse(h.body) as { type: string; data: string };
      return event.type === type && shop.decrypt(event.data).txnId === txnId;
    });
  /** The collection's follow-up job is gone: nothing more will be asked of the upstream about it. */
  const settled = async (txnId: string) => {
    const { rows } = await down.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM jobs WHERE kind = 'collection.upstream' AND subject_id = $1",
      [txnId],
    );
    return Number(rows[0]?.n) === 0;
  };

  const create = async (amount: string) => {
    const res = await shop.post('/collection/v1/initiate', {
      senderId: senderId('UPC'),
      requestAmount: amount,
      remarks: 'Order 42',
      callbackUrl: `${receiver.url}/hook`,
    });
    expect(res.body.respCode, JSON.stringify(res.body)).toBe(2000);
    return res.data as Record<string, string> & { txnId: string; paymentUrl: string; intentUrl: string };
  };
  /** The payer, on the upstream's hosted payment page (its sandbox button). */
  const pay = async (paymentUrl: string, outcome: 'SUCCESS' | 'FAILED' = 'SUCCESS') => {
    const res = await fetch(`${paymentUrl}/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  beforeAll(async () => {
    up = await startTestServer(engine, { clock: upClock, env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    account = await createMerchant(up.url, 'Payrail Treasury');
    toUp = await new FaultProxy().start();
    toUp.target = up.url;
    toDown = await new FaultProxy().start();
    receiver = await new WebhookReceiver().start();
    down = await startTestServer(engine, {
      env: {
        PAYRAIL_CONNECTOR: 'upstream',
        PAYRAIL_PUBLIC_URL: toDown.url,
        PAYRAIL_UPSTREAM_URL: `${toUp.url}/api`,
        PAYRAIL_UPSTREAM_API_KEY: account.api_key,
        PAYRAIL_UPSTREAM_SECRET_KEY: account.secret_key,
        PAYRAIL_UPSTREAM_WALLET_ID: account.wallet_id,
        PAYRAIL_UPSTREAM_SCHEME: scheme,
        PAYRAIL_UPSTREAM_WEBHOOK_SECRET: account.webhook_secret,
        PAYRAIL_UPSTREAM_POLL: '300ms,300ms',
        PAYRAIL_UPSTREAM_TIMEOUT: '3s',
      },
    });
    toDown.target = down.url;
    shopMerchant = await createMerchant(down.url, 'Downstream Shop');
    shop = await MerchantClient.connect(down.url, shopMerchant, 'v2');
  }, 180_000);

  afterAll(async () => {
    await down?.close();
    await up?.close();
    await toUp?.stop();
    await toDown?.stop();
    await receiver?.stop();
  });

  it('is created at the upstream and answered with the upstream’s intent and payment URL; paid there, credited once', async () => {
    const before = await balance();
    const upBefore = await upstreamBalance();
    const created = await create('321.00');
    expect(created.txnId).toMatch(TXN_ID);
    const [copy, ...more] = await upstreamCopies(created.txnId);
    expect(more).toHaveLength(0);
    expect(copy).toMatchObject({ status: 'INITIATED', wallet_id: account.wallet_id });
    expect(BigInt(copy?.amount ?? 0)).toBe(32_100n);
    // The payer is sent to the upstream: its page and its UPI link (reference = the upstream's txnId).
    expect(created.paymentUrl.startsWith(`${up.url}/pay/`), created.paymentUrl).toBe(true);
    expect(created.intentUrl).toMatch(new RegExp(`^upi://pay\\?.*[?&]tr=${copy?.id}&`));
    expect(created).toMatchObject({ status: 'INITIATED', requestAmount: '321.00' });
    // The merchant's status answer carries the same payment URL.
    expect((await status(created.txnId)).paymentUrl).toBe(created.paymentUrl);

    await pay(created.paymentUrl);
    const done = (await eventually(async () => {
      const s = await status(created.txnId);
      return s.status === 'SUCCESS' ? s : null;
    })) as Record<string, unknown>;
    const [paid] = await upstreamCopies(created.txnId);
    expect(done.utr).toBe(paid?.utr);
    await eventually(() => hooks(created.txnId, 'collection.success').length > 0);
    await eventually(() => settled(created.txnId));
    expect(await credits(created.txnId)).toBe(1);
    expect(Number(await balance()) - Number(before)).toBeCloseTo(321, 2);
    // The money is in Payrail's account at the upstream.
    expect((await upstreamBalance()) - upBefore).toBe(32_100n);
    // The upstream's webhook reached the downstream's route, verified.
    expect(toDown.count('POST /psp/v1/upstream/webhook')).toBeGreaterThanOrEqual(1);
    // Its outcome was applied once: one success webhook to the merchant however many reports arrived.
    await eventually(async () => {
      const { rows } = await up.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM webhook_deliveries WHERE subject_id = $1 AND last_status IS NULL`,
        [copy?.id],
      );
      return Number(rows[0]?.n) === 0;
    });
    expect(hooks(created.txnId, 'collection.success')).toHaveLength(1);
  });

  it('takes the outcome by polling when the upstream’s webhooks do not arrive', async () => {
    toDown.refuse = (method, path) => method === 'POST' && path === '/psp/v1/upstream/webhook';
    try {
      const created = await create('45.50');
      const polls = toUp.count(STATUS);
      const hooksIn = toDown.count('POST /psp/v1/upstream/webhook');
      await pay(created.paymentUrl, 'FAILED');
      const done = (await eventually(async () => {
        const s = await status(created.txnId);
        return s.status === 'FAILED' ? s : null;
      })) as Record<string, unknown>;
      expect(String(done.statusMessage)).toMatch(/^upstream: /);
      expect(toUp.count(STATUS)).toBeGreaterThan(polls);
      await eventually(() => hooks(created.txnId, 'collection.failed').length > 0);
      expect(await credits(created.txnId)).toBe(0);
      expect(toDown.count('POST /psp/v1/upstream/webhook')).toBeGreaterThan(hooksIn);
    } finally {
      toDown.refuse = () => false;
    }
  });

  it('refuses a forged upstream webhook (401), changes nothing, and asks the upstream instead', async () => {
    const before = await balance();
    const created = await create('99.00');
    const [copy] = await upstreamCopies(created.txnId);
    const keys = { apiKey: account.api_key, secretKey: account.secret_key };
    const data = encryptJson(
      { senderId: created.txnId, txnId: copy?.id, status: 'SUCCESS', requestAmount: '99.00', utr: 'FORGED000001' },
      scheme,
      keys,
    );
    const body = JSON.stringify({ id: 'EV-forged', type: 'collection.success', data });
    const polls = toUp.count(STATUS);
    const forged = await http(down.url, 'POST', '/psp/v1/upstream/webhook', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-signature': signBody('not-the-secret', body) },
    });
    expect(forged.status).toBe(401);
    // The upstream is asked at once; it says INITIATED, so nothing moves.
    await eventually(() => toUp.count(STATUS) > polls);
    expect(await status(created.txnId)).toMatchObject({ status: 'INITIATED', utr: '' });
    expect(await credits(created.txnId)).toBe(0);
    expect(await balance()).toBe(before);
    // Signed, but about another upstream copy than ours: ignored.
    const other = encryptJson(
      { senderId: created.txnId, txnId: 'CT00000000000000000000000000', status: 'SUCCESS', requestAmount: '99.00' },
      scheme,
      keys,
    );
    const otherBody = JSON.stringify({ id: 'EV-other', type: 'collection.success', data: other });
    const ignored = await http(down.url, 'POST', '/psp/v1/upstream/webhook', {
      rawBody: otherBody,
      headers: { 'content-type': 'application/json', 'x-signature': signBody(account.webhook_secret, otherBody) },
    });
    expect(ignored.status).toBe(200);
    expect(ignored.body).toMatchObject({ result: 'ignored' });
    expect(await credits(created.txnId)).toBe(0);
  });

  it('recovers a lost creation answer by reading, never creating twice', async () => {
    let dropped = 0;
    toUp.drop = (method, path) => method === 'POST' && path === '/api/collection/v1/initiate' && dropped++ === 0;
    const creates = toUp.count(INITIATE);
    const reads = toUp.count(STATUS);
    try {
      const created = await create('12.34');
      expect(dropped).toBe(1);
      expect(toUp.count(INITIATE) - creates).toBe(1);
      expect(toUp.count(STATUS) - reads).toBeGreaterThanOrEqual(1);
      const copies = await upstreamCopies(created.txnId);
      expect(copies).toHaveLength(1);
      expect(created.paymentUrl.startsWith(`${up.url}/pay/`)).toBe(true);
      expect(created.intentUrl).toContain(`tr=${copies[0]?.id}`);
      await pay(created.paymentUrl);
      await eventually(async () => (await status(created.txnId)).status === 'SUCCESS');
      await eventually(() => settled(created.txnId));
      expect(await credits(created.txnId)).toBe(1);
    } finally {
      toUp.drop = () => false;
    }
  });

  it('answers 503 (never 5000) when the upstream cannot be reached, and fails the collection it recorded', async () => {
    toUp.target = 'http://127.0.0.1:9';
    try {
      const sid = senderId('UPC');
      const res = await shop.post('/collection/v1/initiate', { senderId: sid, requestAmount: '10.00' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ respCode: 4014 });
      expect(String(res.body.respMessage)).toMatch(/upstream/i);
      const s = (await shop.get(`/collection/v1/status?senderId=${sid}`)).data ?? {};
      expect(s).toMatchObject({ status: 'FAILED' });
      expect(String(s.statusMessage)).toMatch(/Not created at the upstream provider/);
    } finally {
      toUp.target = up.url;
    }
  });

  it('takes a fresh token when the upstream refuses the one it holds (4008 on collection routes)', async () => {
    const tokenPath = scheme === 'v2' ? 'POST /api/v1/auth/client-token' : 'POST /api/v1/auth/clients/token';
    const tokens = toUp.count(tokenPath);
    // The upstream's time passes the token's expiry (300 s); the downstream still holds it as valid.
    upClock.advance(301_000);
    const created = await create('7.00');
    expect(toUp.count(tokenPath)).toBe(tokens + 1);
    expect(await upstreamCopies(created.txnId)).toHaveLength(1);
    expect(created.paymentUrl.startsWith(`${up.url}/pay/`)).toBe(true);
  });

  it('does not let the downstream’s sandbox make up the outcome of a collection paid upstream', async () => {
    const created = await create('5.00');
    const res = await http(down.url, 'POST', `/sandbox/v1/collections/${created.txnId}/simulate`, {
      body: { outcome: 'SUCCESS' },
      headers: shop.auth(),
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ respCode: 4113 });
    expect(await credits(created.txnId)).toBe(0);
  });

  it('declares the collections capability on the upstream connector', async () => {
    const res = await admin(down.url, 'GET', '/admin/v1/connectors');
    expect(res.status).toBe(200);
    const connectors = res.body.connectors as { name: string; capabilities: { collections: boolean } }[];
    expect(connectors.find((x) => x.name === 'upstream')?.capabilities).toMatchObject({ collections: true });
  });
});
