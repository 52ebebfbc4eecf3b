import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, createMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;

/**
 * A merchant's console overview (docs/operator/liens.md): the liens that hold its wallet's money now, as "On hold by
 * the operator" with amount and reason but never who placed them, and available_balance = balance − on_lien; another
 * merchant's liens never show.
 */
describe.each(ENGINES)('liens in the merchant console on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => {
    await t.close();
  });

  const overview = async (m: { api_key: string; secret_key: string }) => {
    const session = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    const res = await session.request('GET', '/console/api/merchant/overview');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.wallets as Row[];
  };

  it('shows the holding liens with amount and reason, not who placed them; others see none of them', async () => {
    const held = await createMerchant(t.url, 'Held merchant', '1000.00');
    const other = await createMerchant(t.url, 'Other merchant', '500.00');
    const place = (body: Row) => admin(t.url, 'POST', `/admin/v1/wallets/${held.wallet_id}/liens`, body);
    const active = (await place({ amount: '300.00', reason: 'chargeback dispute CB-7' })).body;
    const released = (await place({ amount: '100.00', reason: 'settled already' })).body;
    expect(
      (await admin(t.url, 'POST', `/admin/v1/liens/${released.lien_id as string}/release`, { reason: 'paid' })).status,
    ).toBe(200);

    const [wallet] = await overview(held);
    expect(wallet).toMatchObject({
      wallet_id: held.wallet_id,
      balance: '1000.00',
      on_lien: '300.00',
      available_balance: '700.00',
      holds: [{ amount: '300.00', reason: 'chargeback dispute CB-7', expires_at: null, since: active.created_at }],
    });
    // Who placed it is the operator's business: no actor, no lien id in the merchant's answer.
    expect(JSON.stringify(wallet)).not.toMatch(/operator:admin-token|placed_by|lien_id/);

    const [theirs] = await overview(other);
    expect(theirs).toMatchObject({ balance: '500.00', on_lien: '0.00', available_balance: '500.00', holds: [] });
  });

  it('answers available_balance equal to balance without liens', async () => {
    const m = await createMerchant(t.url, 'No liens', '42.00');
    const [wallet] = await overview(m);
    expect(wallet).toMatchObject({ balance: '42.00', available_balance: '42.00', on_lien: '0.00', holds: [] });
  });
});
