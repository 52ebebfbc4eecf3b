import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, MerchantClient } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * docs/merchant/api-reference.md and docs/merchant/bulk-and-verification.md under concurrency: two batches and twenty single initiations on one wallet at once, on
 * one instance, and on two instances sharing one PostgreSQL database. The balance never goes below zero, no
 * sender_id is used twice, every accepted payout is debited once, and the ledger verifies.
 */

const PENDING_BENEFICIARY = {
  beneficiary_name: 'Concurrency Test',
  beneficiary_ifsc: 'SBOX0000001',
  beneficiary_acc_number: '100000000003',
};

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;
const payout = (walletId: string, senderId: string, amount = '50.00') => ({
  sender_id: senderId,
  wallet_id: walletId,
  payment_mode: 'IMPS',
  amount,
  beneficiary: PENDING_BENEFICIARY,
});

async function post(client: MerchantClient, path: string, plain: unknown) {
  const body = JSON.stringify({ payload: client.encrypt(plain) });
  const res = await fetch(client.url + path, {
    method: 'POST',
    headers: { ...client.auth(), 'content-type': 'application/json' },
    body,
  });
  const json = (await res.json()) as { resp_code: number; data?: string };
  return { code: json.resp_code, data: json.data ? client.decrypt(json.data) : undefined };
}

function races(urls: () => string[]) {
  it('two batches and 20 single initiations on one wallet: never below zero, each sender_id once, ledger ok', async () => {
    const [first] = urls();
    const m = await createMerchant(first as string, 'Bulk Race', '3000.00');
    const clients = await Promise.all(urls().map((url, i) => MerchantClient.connect(url, m, i % 2 ? 'v1' : 'v2')));
    const client = (i: number) => clients[i % clients.length] as MerchantClient;
    // 30 + 30 batch items and 20 singles of 50.00 each: 4000.00 asked of 3000.00. Two singles reuse sender_ids
    // of batch B, so that a batch and a single race for the same sender_id too.
    const batchA = Array.from({ length: 30 }, () => payout(m.wallet_id, unique('a')));
    const batchB = Array.from({ length: 30 }, () => payout(m.wallet_id, unique('b')));
    const singles = Array.from({ length: 20 }, (_, i) =>
      payout(m.wallet_id, i < 2 ? (batchB[10 + i]?.sender_id as string) : unique('s')),
    );
    const requests = [
      post(client(0), '/payout/v1/bulk', { batch_id: unique('A'), items: batchA }),
      ...singles.slice(0, 10).map((p, i) => post(client(i), '/payout/v1/initiate', p)),
      post(client(1), '/payout/v1/bulk', { batch_id: unique('B'), items: batchB }),
      ...singles.slice(10).map((p, i) => post(client(i + 1), '/payout/v1/initiate', p)),
    ];
    const outcomes = await Promise.all(requests);
    const [a, b] = [outcomes[0], outcomes[11]];
    expect(a?.code).toBe(2000);
    expect(b?.code).toBe(2000);
    const singleCodes = outcomes.filter((o) => o !== a && o !== b).map((o) => o.code);
    for (const code of singleCodes) expect([2000, 4002, 4009]).toContain(code);
    const itemCodes = (o: typeof a) => (o?.data?.items as { resp_code: number }[]).map((i) => i.resp_code);
    for (const codes of [itemCodes(a), itemCodes(b)]) {
      for (const code of codes) expect([2000, 4002, 4009]).toContain(code);
      // A batch holds its wallet while it runs: once the balance stops covering 50.00, it stays so.
      const firstShort = codes.indexOf(4002);
      if (firstShort >= 0) expect(codes.slice(firstShort).every((c) => c !== 2000)).toBe(true);
    }
    const accepted =
      singleCodes.filter((c) => c === 2000).length +
      itemCodes(a).filter((c) => c === 2000).length +
      itemCodes(b).filter((c) => c === 2000).length;
    // Demand exceeds the balance, so exactly the balance is spent: 60 payouts of 50.00.
    expect(accepted).toBe(60);

    const merchant = await admin(first as string, 'GET', `/admin/v1/merchants/${m.merchant_id}`);
    expect((merchant.body.wallets as { balance: string }[])[0]?.balance).toBe('0.00');
    const list = await admin(first as string, 'GET', `/admin/v1/payouts?merchant_id=${m.merchant_id}&limit=200`);
    const senders = (list.body.data as { sender_id: string }[]).map((p) => p.sender_id);
    expect(senders).toHaveLength(60);
    expect(new Set(senders).size).toBe(60);
    const ledger = await admin(first as string, 'GET', '/admin/v1/ledger/verify');
    expect(ledger.body).toMatchObject({ ok: true, mismatches: [] });
  }, 60_000);
}

describe.each(ENGINES)('bulk payouts under concurrency on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t?.close());
  races(() => [t.url]);
});

describe.runIf(ENGINES.includes('postgres'))('bulk payouts on two instances sharing PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer('postgres');
    b = await startTestServer('postgres', { schema: a.schema });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });
  races(() => [a.url, b.url]);
});
