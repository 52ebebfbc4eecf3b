import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { createTestSchema, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * docs/merchant/api-reference.md and ARCHITECTURE.md under concurrency: a wallet's balance never goes below zero, a sender_id is used once,
 * the daily allowance holds, each with every request in flight at once, on one instance and on two instances
 * sharing one PostgreSQL database (requests alternating between them).
 */

/** The sandbox's PENDING beneficiary: nothing moves money back while the assertions run. */
const PENDING_BENEFICIARY = {
  beneficiary_name: 'Concurrency Test',
  beneficiary_ifsc: 'SBOX0000001',
  beneficiary_acc_number: '100000000003',
};

const uniqueSender = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;

function payoutRequest(walletId: string, senderId: string, amount: string) {
  return { sender_id: senderId, wallet_id: walletId, amount, payment_mode: 'IMPS', beneficiary: PENDING_BENEFICIARY };
}

interface Outcome {
  status: number;
  code: unknown;
  data: Record<string, unknown> | undefined;
}

/**
 * Sends every request at once, spread round-robin over the clients (one per instance). Payloads are encrypted
 * before the first one leaves, so that nothing staggers them.
 */
async function fireAll(clients: MerchantClient[], plains: unknown[]): Promise<Outcome[]> {
  const prepared = plains.map((plain, i) => {
    const client = clients[i % clients.length] as MerchantClient;
    return { client, body: JSON.stringify({ payload: client.encrypt(plain) }) };
  });
  return Promise.all(
    prepared.map(async ({ client, body }) => {
      const res = await fetch(`${client.url}/payout/v1/initiate`, {
        method: 'POST',
        headers: { ...client.auth(), 'content-type': 'application/json' },
        body,
      });
      const json = (await res.json()) as Record<string, unknown>;
      return {
        status: res.status,
        code: json.resp_code,
        data: typeof json.data === 'string' ? client.decrypt(json.data) : undefined,
      };
    }),
  );
}

const count = (outcomes: Outcome[], code: number) => outcomes.filter((o) => o.code === code).length;

async function balanceOf(client: MerchantClient, walletId: string) {
  const res = await client.get(`/payout/v1/balance?wallet_id=${walletId}`);
  expect(res.body.resp_code).toBe(2000);
  return res.data as { balance: string; on_hold: string };
}

async function expectLedgerConsistent(url: string) {
  const res = await admin(url, 'GET', '/admin/v1/ledger/verify');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ ok: true, mismatches: [] });
}

interface Topology {
  /** Base URLs of the instances; requests alternate between them. */
  urls: string[];
}

/** The scenarios themselves, run against whichever topology `setup` provides. */
function payoutRaces(get: () => Topology) {
  async function merchantWith(credit: string): Promise<{ m: TestMerchant; clients: MerchantClient[] }> {
    const { urls } = get();
    const m = await createMerchant(urls[0] as string, 'Race Merchant', credit);
    // One session per instance: a token issued by one instance is good on the other (shared signing key).
    const clients = await Promise.all(urls.map((url, i) => MerchantClient.connect(url, m, i % 2 ? 'v1' : 'v2')));
    return { m, clients };
  }

  it('40 simultaneous payouts of 100.00 from 1000.00: exactly 10 accepted, balance 0.00', async () => {
    const { m, clients } = await merchantWith('1000.00');
    const outcomes = await fireAll(
      clients,
      Array.from({ length: 40 }, (_, i) => payoutRequest(m.wallet_id, uniqueSender(`b${i}`), '100.00')),
    );

    expect(count(outcomes, 2000)).toBe(10);
    expect(count(outcomes, 4002)).toBe(30);
    for (const o of outcomes) {
      if (o.code === 2000) expect(o).toMatchObject({ status: 200, data: { status: 'INITIATED', amount: '100.00' } });
      else expect(o.status).toBe(422);
    }
    const accepted = new Set(outcomes.filter((o) => o.code === 2000).map((o) => o.data?.transaction_id));
    expect(accepted.size).toBe(10);

    for (const client of clients) {
      expect(await balanceOf(client, m.wallet_id)).toMatchObject({ balance: '0.00', on_hold: '1000.00' });
    }
    await expectLedgerConsistent(get().urls[0] as string);
    // Exactly the accepted payouts exist: the refused ones left nothing behind.
    const list = await admin(
      get().urls[0] as string,
      'GET',
      `/admin/v1/payouts?merchant_id=${m.merchant_id}&limit=100`,
    );
    const ids = (list.body.data as { transaction_id: string }[]).map((p) => p.transaction_id);
    expect(new Set(ids)).toEqual(accepted);
  });

  it('20 simultaneous initiations with one sender_id: one 2000, nineteen 4009 carrying that payout', async () => {
    const { m, clients } = await merchantWith('5000.00');
    const senderId = uniqueSender('same');
    const outcomes = await fireAll(
      clients,
      Array.from({ length: 20 }, () => payoutRequest(m.wallet_id, senderId, '100.00')),
    );

    expect(count(outcomes, 2000)).toBe(1);
    expect(count(outcomes, 4009)).toBe(19);
    const winner = outcomes.find((o) => o.code === 2000) as Outcome;
    expect(winner.status).toBe(200);
    const id = winner.data?.transaction_id;
    expect(id).toMatch(/^PT[0-9A-Z]{26}$/);
    for (const o of outcomes.filter((x) => x.code === 4009)) {
      expect(o.status).toBe(409);
      expect(o.data).toMatchObject({ transaction_id: id, sender_id: senderId, amount: '100.00' });
    }

    for (const client of clients) {
      expect(await balanceOf(client, m.wallet_id)).toMatchObject({ balance: '4900.00', on_hold: '100.00' });
    }
    await expectLedgerConsistent(get().urls[0] as string);
  });

  it('daily limit 500.00, 20 simultaneous payouts of 100.00: exactly 5 accepted', async () => {
    const { m, clients } = await merchantWith('10000.00');
    const patched = await admin(get().urls[0] as string, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, {
      daily_limit: '500.00',
    });
    expect(patched.status).toBe(200);
    // The sessions were opened before the limit was set: the limit must hold for them too, on every instance.
    const outcomes = await fireAll(
      clients,
      Array.from({ length: 20 }, (_, i) => payoutRequest(m.wallet_id, uniqueSender(`d${i}`), '100.00')),
    );

    expect(count(outcomes, 2000)).toBe(5);
    expect(count(outcomes, 4010)).toBe(15);
    for (const o of outcomes.filter((x) => x.code === 4010)) expect(o.status).toBe(422);
    for (const client of clients) {
      expect(await balanceOf(client, m.wallet_id)).toMatchObject({ balance: '9500.00', on_hold: '500.00' });
    }
    await expectLedgerConsistent(get().urls[0] as string);
  });
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('payout races on PostgreSQL', () => {
  describe('one instance', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer('postgres');
    });
    afterAll(() => t?.close());
    payoutRaces(() => ({ urls: [t.url] }));
  });

  describe('two instances on one database', () => {
    let a: TestServer;
    let b: TestServer;
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const created = await createTestSchema();
      drop = created.drop;
      a = await startTestServer('postgres', { schema: created.schema });
      b = await startTestServer('postgres', { schema: created.schema });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await drop?.();
    });
    payoutRaces(() => ({ urls: [a.url, b.url] }));
  });
});

describe('payout races on PGlite (one instance)', () => {
  let t: TestServer;
  let m: TestMerchant;
  let client: MerchantClient;
  beforeAll(async () => {
    t = await startTestServer('pglite');
    m = await createMerchant(t.url, 'Race Merchant', '1000.00');
    client = await MerchantClient.connect(t.url, m, 'v2');
  });
  afterAll(() => t?.close());

  it('40 simultaneous payouts of 100.00 from 1000.00: exactly 10 accepted, balance 0.00', async () => {
    const outcomes = await fireAll(
      [client],
      Array.from({ length: 40 }, (_, i) => payoutRequest(m.wallet_id, uniqueSender(`b${i}`), '100.00')),
    );
    expect(count(outcomes, 2000)).toBe(10);
    expect(count(outcomes, 4002)).toBe(30);
    for (const o of outcomes) expect(o.status).toBe(o.code === 2000 ? 200 : 422);
    expect(await balanceOf(client, m.wallet_id)).toMatchObject({ balance: '0.00', on_hold: '1000.00' });
    await expectLedgerConsistent(t.url);
  });
});
