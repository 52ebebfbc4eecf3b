import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin } from '../support/merchantClient.ts';
import { expectLedgerOk, fundedMerchant, payoutRequest, type Funded } from '../support/payoutFixtures.ts';
import { movableClock } from '../support/testClock.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;
const MINUTE = 60_000;

/** A one-slab IMPS plan: ₹10.00 a payout, GST ₹1.80 on it. */
const PLAN = { name: 'Flat', rules: { IMPS: { slabs: [{ flat: '10.00' }] } } };

describe.each(ENGINES)('liens on %s', (engine) => {
  let t: TestServer;
  const clock = movableClock();

  beforeAll(async () => {
    t = await startTestServer(engine, { clock, env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '50000.00' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const funded = async (credit = '1000.00', plan = true): Promise<Funded> => {
    const f = await fundedMerchant(t.url, 'v2', credit);
    if (plan)
      expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${f.merchant.merchant_id}/pricing`, PLAN)).status).toBe(
        200,
      );
    return f;
  };
  const place = (walletId: string, body: Row) => admin(t.url, 'POST', `/admin/v1/wallets/${walletId}/liens`, body);
  const initiate = (f: Funded, amount: string) =>
    f.client.post('/payout/v1/initiate', payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount }));
  const balance = async (f: Funded) => {
    const res = await f.client.get(`/payout/v1/balance?wallet_id=${f.merchant.wallet_id}`);
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    return res.data as Row;
  };

  it('places a lien (201), and a payout must fit amount + fee + GST in balance minus liens (4002 otherwise)', async () => {
    const f = await funded();
    const res = await place(f.merchant.wallet_id, { amount: '500.00', reason: 'chargeback dispute 42' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      wallet_id: f.merchant.wallet_id,
      amount: '500.00',
      reason: 'chargeback dispute 42',
      state: 'active',
      expires_at: null,
    });
    expect(res.body.lien_id).toMatch(/^LN[0-9A-Z]{26}$/);
    // 1000 − 500 = 500 spendable: 489 + 10 + 1.80 = 500.80 does not fit; 488 + 11.80 = 499.80 does.
    expect((await initiate(f, '489.00')).body.resp_code).toBe(4002);
    expect((await initiate(f, '488.00')).body.resp_code).toBe(2000);
    expect(await balance(f)).toMatchObject({ balance: '500.20', available_balance: '0.20', on_lien: '500.00' });
    const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${f.merchant.wallet_id}`);
    expect(wallet.body).toMatchObject({ balance: '500.20', available_balance: '0.20', on_lien: '500.00' });
    // A second lien beyond what can be spent is refused.
    const over = await place(f.merchant.wallet_id, { amount: '0.21', reason: 'more' });
    expect([over.status, (over.body.error as Row).code]).toEqual([422, 'insufficient_balance']);
    const list = await admin(t.url, 'GET', `/admin/v1/wallets/${f.merchant.wallet_id}/liens`);
    expect(list.body).toMatchObject({ on_lien: '500.00', liens: [{ lien_id: res.body.lien_id, state: 'active' }] });
  });

  it('answers balance = available_balance and on_lien 0.00 without liens', async () => {
    const f = await funded('250.00', false);
    expect(await balance(f)).toMatchObject({ balance: '250.00', available_balance: '250.00', on_lien: '0.00' });
  });

  it('prices bulk items against balance minus liens: an item beyond it is 4002, later ones that fit pass', async () => {
    const f = await funded('1000.00');
    expect((await place(f.merchant.wallet_id, { amount: '500.00', reason: 'hold' })).status).toBe(201);
    const item = (amount: string) => payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount });
    // 500 spendable: 300 + 11.80 leaves 188.20; 200 + 11.80 does not fit; 176 + 11.80 = 187.80 does.
    const res = await f.client.post('/payout/v1/bulk', {
      batch_id: `lien-${Date.now().toString(36)}`,
      items: [item('300.00'), item('200.00'), item('176.00')],
    });
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    expect((res.data as { items: Row[] }).items.map((i) => i.resp_code)).toEqual([2000, 4002, 2000]);
    expect(await balance(f)).toMatchObject({ balance: '500.40', available_balance: '0.40', on_lien: '500.00' });
    await expectLedgerOk(t.url);
  });

  it('releases in part and in full', async () => {
    const f = await funded('1000.00', false);
    const lien = (await place(f.merchant.wallet_id, { amount: '600.00', reason: 'review' })).body;
    const part = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/release`, {
      amount: '200.00',
      reason: 'partly cleared',
    });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body).toMatchObject({
      state: 'active',
      remaining: '400.00',
      released: '200.00',
      release_reason: 'partly cleared',
      released_by: 'operator:admin-token',
    });
    expect(lien).toMatchObject({ release_reason: null, released_by: null });
    expect(await balance(f)).toMatchObject({ available_balance: '600.00', on_lien: '400.00' });
    const tooMuch = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/release`, {
      amount: '400.01',
      reason: 'x',
    });
    expect([tooMuch.status, (tooMuch.body.error as Row).code]).toEqual([400, 'invalid_request']);
    const all = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/release`, { reason: 'cleared' });
    expect(all.body).toMatchObject({ state: 'released', remaining: '0.00', released: '600.00' });
    // The latest release's reason is kept on the lien (the audit log keeps each).
    const read = await admin(t.url, 'GET', `/admin/v1/liens/${lien.lien_id as string}`);
    expect(read.body).toMatchObject({ release_reason: 'cleared' });
    expect(await balance(f)).toMatchObject({ available_balance: '1000.00', on_lien: '0.00' });
    const again = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/release`, { reason: 'x' });
    expect([again.status, (again.body.error as Row).code]).toEqual([409, 'invalid_state']);
    expect((await initiate(f, '999.00')).body.resp_code).toBe(2000);
  });

  it('expires by itself once expires_at passes (the clock moved), and refuses an expiry in the past', async () => {
    const f = await funded('1000.00', false);
    const past = await place(f.merchant.wallet_id, {
      amount: '1.00',
      reason: 'x',
      expires_at: new Date(clock() - 1000).toISOString(),
    });
    expect([past.status, (past.body.error as Row).code]).toEqual([400, 'invalid_request']);
    const expiresAt = new Date(clock() + 2 * MINUTE).toISOString();
    const lien = await place(f.merchant.wallet_id, { amount: '900.00', reason: 'two minutes', expires_at: expiresAt });
    expect(lien.body).toMatchObject({ state: 'active', expires_at: expiresAt });
    expect((await initiate(f, '101.00')).body.resp_code).toBe(4002);
    clock.advance(2 * MINUTE + 1000);
    expect(await balance(f)).toMatchObject({ available_balance: '1000.00', on_lien: '0.00' });
    const read = await admin(t.url, 'GET', `/admin/v1/liens/${lien.body.lien_id as string}`);
    expect(read.body).toMatchObject({ state: 'expired', remaining: '0.00' });
    expect((await initiate(f, '101.00')).body.resp_code).toBe(2000);
    const enforce = await admin(t.url, 'POST', `/admin/v1/liens/${lien.body.lien_id as string}/enforce`, {
      reason: 'x',
    });
    expect([enforce.status, (enforce.body.error as Row).code]).toEqual([409, 'invalid_state']);
  });

  it('enforces: the amount moves to PW_RECOVERY as lien_enforced entries, and the ledger verifies', async () => {
    const f = await funded('1000.00', false);
    const recovery0 = await recoveryBalance();
    const lien = (await place(f.merchant.wallet_id, { amount: '300.00', reason: 'fraud recovery' })).body;
    const part = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/enforce`, {
      amount: '100.00',
      reason: 'first instalment',
    });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body).toMatchObject({ state: 'active', remaining: '200.00', enforced: '100.00' });
    const rest = await admin(t.url, 'POST', `/admin/v1/liens/${lien.lien_id as string}/enforce`, {
      reason: 'the rest',
    });
    expect(rest.body).toMatchObject({ state: 'enforced', remaining: '0.00', enforced: '300.00' });
    expect(await balance(f)).toMatchObject({ balance: '700.00', available_balance: '700.00', on_lien: '0.00' });
    expect((await recoveryBalance()) - recovery0).toBe(30000n);
    const { rows } = await t.db.query<{ wallet_id: string; amount: bigint; reference: string }>(
      "SELECT wallet_id, amount, reference FROM ledger_entries WHERE kind = 'lien_enforced' AND lien_id = $1 ORDER BY id",
      [lien.lien_id],
    );
    expect(rows.map((r) => [r.wallet_id, r.amount, r.reference])).toEqual([
      [f.merchant.wallet_id, -10000n, 'first instalment'],
      ['PW_RECOVERY', 10000n, 'first instalment'],
      [f.merchant.wallet_id, -20000n, 'the rest'],
      ['PW_RECOVERY', 20000n, 'the rest'],
    ]);
    const statement = await admin(t.url, 'GET', `/admin/v1/wallets/${f.merchant.wallet_id}/statement`);
    const lines = (statement.body.entries as Row[]).filter((e) => e.kind === 'lien_enforced');
    expect(lines.map((e) => [e.amount, e.description])).toEqual([
      ['-100.00', 'Lien enforced'],
      ['-200.00', 'Lien enforced'],
    ]);
    await expectLedgerOk(t.url);
  });

  it('a console operator above the threshold gets 202; a second operator approves', async () => {
    const f = await funded('200000.00', false);
    const tag = Math.random().toString(36).slice(2, 8);
    await createOperator(t.url, `maker-${tag}@example.com`, 'finance');
    await createOperator(t.url, `checker-${tag}@example.com`, 'finance');
    const maker = await ConsoleSession.signIn(t.url, `maker-${tag}@example.com`);
    const checker = await ConsoleSession.signIn(t.url, `checker-${tag}@example.com`);
    const small = await maker.request('POST', `/admin/v1/wallets/${f.merchant.wallet_id}/liens`, {
      amount: '50000.00',
      reason: 'at the threshold',
    });
    expect(small.status, JSON.stringify(small.body)).toBe(201);
    const big = await maker.request('POST', `/admin/v1/wallets/${f.merchant.wallet_id}/liens`, {
      amount: '50000.01',
      reason: 'above it',
    });
    expect(big.status, JSON.stringify(big.body)).toBe(202);
    expect(big.body).toMatchObject({ state: 'pending', placed_by: `maker-${tag}@example.com` });
    // Pending holds nothing yet.
    expect(await balance(f)).toMatchObject({ on_lien: '50000.00', available_balance: '150000.00' });
    const self = await maker.request('POST', `/admin/v1/liens/${big.body.lien_id as string}/approve`);
    expect([self.status, (self.body.error as Row).code]).toEqual([403, 'same_operator']);
    const ok = await checker.request('POST', `/admin/v1/liens/${big.body.lien_id as string}/approve`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ state: 'active', approved_by: `checker-${tag}@example.com` });
    expect(await balance(f)).toMatchObject({ on_lien: '100000.01', available_balance: '99999.99' });
    // Enforcing above the threshold waits for the second operator too.
    const enforce = await maker.request('POST', `/admin/v1/liens/${big.body.lien_id as string}/enforce`, {
      reason: 'recover',
    });
    expect(enforce.status, JSON.stringify(enforce.body)).toBe(202);
    expect(enforce.body).toMatchObject({
      state: 'active',
      pending_enforcement: { amount: '50000.01', requested_by: `maker-${tag}@example.com`, reason: 'recover' },
    });
    const done = await checker.request('POST', `/admin/v1/liens/${big.body.lien_id as string}/approve`);
    expect(done.body).toMatchObject({ state: 'enforced', enforced: '50000.01', pending_enforcement: null });
    expect(await balance(f)).toMatchObject({ balance: '149999.99', on_lien: '50000.00' });
    await expectLedgerOk(t.url);
  });

  const recoveryBalance = async () => {
    const { rows } = await t.db.query<{ balance: bigint }>(
      "SELECT balance FROM platform_wallet_balances WHERE id = 'PW_RECOVERY'",
    );
    return BigInt(rows[0]?.balance ?? 0);
  };
});
