import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, createMerchant } from '../support/merchantClient.ts';
import { expectLedgerOk, SANDBOX, waitForStatus } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

type Row = Record<string, unknown>;
const utr = () => `UTR${randomBytes(6).toString('hex').toUpperCase()}`;
const UNKNOWN_VA = '99880000000000';

describe.each(ENGINES)('return_to_sender on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => {
    await t.close();
  });

  const sandboxDeposit = (body: Row) => admin(t.url, 'POST', '/admin/v1/sandbox/deposits', body);
  const resolve = (id: string, body: Row) => admin(t.url, 'POST', `/admin/v1/exceptions/${id}/resolve`, body);
  const exception = async (id: string) => (await admin(t.url, 'GET', `/admin/v1/exceptions/${id}`)).body;
  const suspense = async () =>
    String(
      (await t.db.query<{ balance: bigint }>("SELECT balance FROM wallets WHERE id = 'PW_SUSPENSE'")).rows[0]?.balance,
    );
  /** A deposit to a number that names no wallet: an unknown_virtual_account exception, credited nowhere. */
  const stray = async (amount: string, remitter: Row) => {
    const u = utr();
    const res = await sandboxDeposit({ virtual_account: UNKNOWN_VA, amount, utr: u, ...remitter });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.kind).toBe('unknown_virtual_account');
    return { utr: u, id: res.body.exception_id as string };
  };
  const remitter = (account: string) => ({
    remitter_name: 'Asha Traders',
    remitter_account: account,
    remitter_ifsc: SANDBOX.ifsc,
  });

  it('pays a deposit credited nowhere back to its remitter as the platform’s payout from the suspense wallet', async () => {
    const before = await suspense();
    const ex = await stray('1250.50', remitter(SANDBOX.success));
    expect((await exception(ex.id)).allowed_actions).toEqual(['assign_to_wallet', 'return_to_sender', 'dismiss']);

    const res = await resolve(ex.id, { action: 'return_to_sender', reason: 'nobody claims it' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ state: 'resolved', resolution: { action: 'return_to_sender' } });
    const payoutId = res.body.return_payout_id as string;
    expect(payoutId).toMatch(/^PT[0-9A-HJKMNP-TV-Z]{26}$/);

    const payout = await waitForStatus(t.url, payoutId, 'SUCCESS');
    expect(payout).toMatchObject({
      merchant_id: null,
      merchant_name: null,
      exception_id: ex.id,
      wallet_id: 'PW_SUSPENSE',
      sender_id: `${ex.id}-1`,
      amount: '1250.50',
      fees: '0.00',
      tax: '0.00',
      payment_mode: 'IMPS',
      beneficiary: {
        beneficiary_name: 'Asha Traders',
        beneficiary_acc_number: SANDBOX.success,
        beneficiary_ifsc: SANDBOX.ifsc,
      },
    });
    // In the books: the deposit entered the suspense wallet and left it again, once.
    const deposits = (await t.db.query<Row>('SELECT * FROM deposits WHERE utr = $1', [ex.utr])).rows;
    expect(deposits).toHaveLength(1);
    expect(deposits[0]).toMatchObject({ wallet_id: 'PW_SUSPENSE', merchant_id: null, exception_id: ex.id });
    expect(await suspense()).toBe(before);
    const entries = await t.db.query<{ kind: string; amount: bigint }>(
      `SELECT kind, amount FROM ledger_entries WHERE wallet_id = 'PW_SUSPENSE'
          AND (deposit_id = $1 OR payout_id = $2) ORDER BY id`,
      [deposits[0]?.id, payoutId],
    );
    expect(entries.rows.map((e) => `${e.kind}:${String(e.amount)}`)).toEqual([
      'deposit:125050',
      'payout_debit:-125050',
    ]);
    // No merchant is told, and no merchant's allowance counts it.
    const deliveries = await t.db.query('SELECT 1 FROM webhook_deliveries WHERE subject_id = $1', [payoutId]);
    expect(deliveries.rows).toHaveLength(0);
    // The operator lists it among the payouts; the same UTR cannot be assigned to a wallet any more.
    const list = await admin(t.url, 'GET', '/admin/v1/payouts?limit=100');
    expect((list.body.data as Row[]).some((p) => p.transaction_id === payoutId)).toBe(true);
    expect((await resolve(ex.id, { action: 'dismiss', reason: 'again' })).status).toBe(409);
    await expectLedgerOk(t.url);

    // The remitter's bank sends it back (account closed): the money is in the suspense wallet again, the exception open.
    const back = await admin(t.url, 'POST', `/admin/v1/payouts/${payoutId}/return`, { reason: 'AC04 account closed' });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    const reopened = await exception(ex.id);
    expect(reopened).toMatchObject({ state: 'open', allowed_actions: ['return_to_sender', 'dismiss'] });
    expect((reopened.reopened as Row).reason).toContain('returned by the bank: AC04 account closed');
    expect(BigInt(await suspense()) - BigInt(before)).toBe(125050n);
    expect((await resolve(ex.id, { action: 'dismiss', reason: 'returned by hand at the bank' })).status).toBe(200);
    await expectLedgerOk(t.url);
  });

  it('never shows the platform’s payout to a merchant', async () => {
    const m = await createMerchant(t.url, 'Return bystander');
    const ex = await stray('10.00', remitter(SANDBOX.success));
    const res = await resolve(ex.id, { action: 'return_to_sender', reason: 'return it' });
    expect(res.status).toBe(200);
    const payoutId = res.body.return_payout_id as string;
    const shop = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    expect((await shop.request('GET', `/console/api/merchant/payouts/${payoutId}`)).status).toBe(404);
    const page = await shop.request('GET', '/console/api/merchant/payouts');
    expect((page.body.data as Row[]).map((p) => p.transaction_id)).not.toContain(payoutId);
  });

  it('opens the exception again when the return fails, and a second return pays it once', async () => {
    const before = await suspense();
    const ex = await stray('300.00', remitter(SANDBOX.failure));
    const first = await resolve(ex.id, { action: 'return_to_sender', reason: 'send it back' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const failed = first.body.return_payout_id as string;
    await waitForStatus(t.url, failed, 'REFUNDED');

    const reopened = await exception(ex.id);
    expect(reopened).toMatchObject({ state: 'open', return_payout_id: failed });
    expect(reopened.resolution).toBeUndefined();
    expect((reopened.reopened as Row).reason).toContain(failed);
    // Its money waits in the suspense wallet: it can be returned again or dismissed, no longer assigned.
    expect(reopened.allowed_actions).toEqual(['return_to_sender', 'dismiss']);
    expect(BigInt(await suspense()) - BigInt(before)).toBe(30000n);
    const m = await createMerchant(t.url, 'Return assign');
    const assign = await resolve(ex.id, { action: 'assign_to_wallet', reason: 'x', wallet_id: m.wallet_id });
    expect(assign.status).toBe(409);
    expect(assign.body.error).toMatchObject({ code: 'action_not_allowed' });

    const second = await resolve(ex.id, { action: 'return_to_sender', reason: 'try again' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const again = second.body.return_payout_id as string;
    expect(again).not.toBe(failed);
    const payout = await adminPayoutOf(again);
    expect(payout.sender_id).toBe(`${ex.id}-2`);
    // The deposit entered the books once, for both attempts.
    const deposits = await t.db.query('SELECT 1 FROM deposits WHERE utr = $1', [ex.utr]);
    expect(deposits.rows).toHaveLength(1);
    expect(await suspense()).toBe(before);
    await waitForStatus(t.url, again, 'REFUNDED');
    expect((await exception(ex.id)).state).toBe('open');
    expect(await suspense()).toBe(String(BigInt(before) + 30000n));
    const dismissed = await resolve(ex.id, { action: 'dismiss', reason: 'returned at the bank by hand' });
    expect(dismissed.status).toBe(200);
    await expectLedgerOk(t.url);
  });

  const adminPayoutOf = async (id: string) => (await admin(t.url, 'GET', `/admin/v1/payouts/${id}`)).body;

  it('refuses a return the report cannot address, and one whose UTR a merchant’s wallet holds, changing nothing', async () => {
    const before = await suspense();
    const noAccount = await stray('50.00', { remitter_name: 'Someone', remitter_ifsc: SANDBOX.ifsc });
    const refused = await resolve(noAccount.id, { action: 'return_to_sender', reason: 'back' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('remitter_account is missing'),
    });
    const noIfsc = await stray('50.00', { remitter_name: 'Someone', remitter_account: '123456789' });
    const refusedIfsc = await resolve(noIfsc.id, { action: 'return_to_sender', reason: 'back' });
    expect(refusedIfsc.status).toBe(400);
    expect(refusedIfsc.body.error).toMatchObject({ message: expect.stringContaining('remitter_ifsc is missing') });
    expect((await exception(noAccount.id)).state).toBe('open');

    // The same UTR credited to a merchant's wallet (it arrived again, to the right number): nothing to return.
    const m = await createMerchant(t.url, 'Return credited');
    const va = (await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.virtual_account as Row;
    const ex = await stray('75.00', remitter(SANDBOX.success));
    const credited = await sandboxDeposit({ virtual_account: va.number, amount: '75.00', utr: ex.utr });
    expect(credited.status).toBe(200);
    const late = await resolve(ex.id, { action: 'return_to_sender', reason: 'back' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('credited') });
    expect((await exception(ex.id)).state).toBe('open');
    expect(await suspense()).toBe(before);
    const payouts = await t.db.query('SELECT 1 FROM payouts WHERE exception_id = ANY($1::text[])', [
      [noAccount.id, noIfsc.id, ex.id],
    ]);
    expect(payouts.rows).toHaveLength(0);
    await expectLedgerOk(t.url);
  });

  it('keeps an exception resolved by any other action resolved for good', async () => {
    const ex = await stray('20.00', remitter(SANDBOX.success));
    expect((await resolve(ex.id, { action: 'dismiss', reason: 'handled at the bank' })).status).toBe(200);
    await expect(
      t.db.query(
        `UPDATE exceptions SET state = 'open', resolved_at = NULL, resolved_by = NULL,
                    resolution_action = NULL, resolution_reason = NULL WHERE id = $1`,
        [ex.id],
      ),
    ).rejects.toThrow(/already resolved/);
  });
});
