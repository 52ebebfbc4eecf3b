import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import type { Queryable } from '../../src/store/Database.ts';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin, http, type HttpResult } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  fundedMerchant,
  payoutRequest,
  senderId,
  setLimits,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { quiescent } from '../support/quiescent.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const now = () => Math.floor(Date.now() / 1000);
const returned = (reason: string) => `Returned by the beneficiary bank: ${reason}`;

type Row = Record<string, unknown>;

/**
 * Returns after success (docs/operator/admin-api.md, "Returns"): a SUCCESS payout whose money the bank sent back moves to
 * REFUNDED, by the operator's route or a signed RETURNED notification, over real HTTP against a live-mode server
 * (outcomes come from notifications there) on every engine.
 */
describe.each(ENGINES)('payout returns on %s', (engine) => {
  let t: TestServer;
  let f: Funded;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestServer(engine, {
      env: { PAYRAIL_MODE: 'live', PAYRAIL_PSP_NOTIFY_SECRET: SECRET, PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    f = await fundedMerchant(t.url, 'v2', '10000.00');
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const balance = () => walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
  const returnPayout = (id: string, body: unknown) => admin(t.url, 'POST', `/admin/v1/payouts/${id}/return`, body);
  const notifyPayout = (body: unknown): Promise<HttpResult> => {
    const raw = JSON.stringify(body);
    return http(t.url, 'POST', '/psp/v1/payouts/notify', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'payrail-signature': signPspNotification(SECRET, raw, now()) },
    });
  };
  const timeline = async (id: string): Promise<Row[]> => {
    const res = await admin(t.url, 'GET', `/admin/v1/payouts/${id}/timeline`);
    expect(res.status).toBe(200);
    return (res.body.events as Row[]).filter((e) => e.type !== 'webhook_attempt');
  };
  const changes = (events: Row[]) =>
    events.filter((e) => e.type !== 'request').map((e) => `${String(e.type)}:${String(e.to)}:${String(e.actor)}`);
  const refunds = async (id: string) => {
    const { rows } = await t.db.query<{ kind: string; amount: bigint }>(
      'SELECT kind, amount FROM ledger_entries WHERE payout_id = $1 ORDER BY id',
      [id],
    );
    return rows.map((r) => `${r.kind}:${String(r.amount)}`);
  };
  const hooksOf = (id: string) =>
    receiver
      .at('/payouts')
      .map((h) => JSON.parse(h.body) as { type: string; data: string })
      .map((h) => ({ type: h.type, data: f.client.decrypt(h.data) as Row }))
      .filter((h) => h.data.transaction_id === id);

  /** A live payout, PROCESSING (the manual rail took it). */
  const processing = async (amount = '100.00') => {
    const res = await f.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount, callback_url: `${receiver.url}/payouts` }),
    );
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    const id = res.data?.transaction_id as string;
    await waitForStatus(t.url, id, 'PROCESSING');
    return id;
  };
  /** A live payout the bank reported SUCCESS with `utr`. */
  const succeeded = async (amount = '100.00', utr = `UTR${randomBytes(5).toString('hex').toUpperCase()}`) => {
    const id = await processing(amount);
    const res = await notifyPayout({ transactionId: id, status: 'SUCCESS', utr });
    expect(res.body).toMatchObject({ result: 'applied', status: 'SUCCESS' });
    return { id, utr };
  };

  it('an operator return: 200, the money back once, the allowance freed, payout.refunded, the history kept', async () => {
    await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '150.00' });
    try {
      const start = await balance();
      const { id, utr } = await succeeded('100.00');
      // The SUCCESS still counts toward the day: 100 + 150 is over the limit.
      const over = await f.client.post(
        '/payout/v1/initiate',
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '150.00' }),
      );
      expect(over.body.resp_code).toBe(4010);

      const res = await returnPayout(id, { reason: 'Beneficiary account closed' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        transaction_id: id,
        status: 'REFUNDED',
        utr_number: utr,
        status_message: returned('Beneficiary account closed'),
        return_reason: 'Beneficiary account closed',
        returned_at: expect.stringMatching(ISO),
        failure_reason: null,
      });
      expect(await balance()).toBe(start);
      expect(await refunds(id)).toEqual(['payout_debit:-10000', 'payout_refund:10000']);
      await expectLedgerOk(t.url);

      // What the merchant reads: REFUNDED, why, and the UTR of the transfer that was returned.
      const status = await f.client.get(`/payout/v1/status?transaction_id=${id}`);
      expect(status.data).toMatchObject({
        status: 'REFUNDED',
        utr_number: utr,
        status_message: returned('Beneficiary account closed'),
      });

      // The returned payout no longer counts toward the day: exactly the limit fits now.
      const fits = await f.client.post(
        '/payout/v1/initiate',
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '150.00' }),
      );
      expect(fits.body.resp_code, JSON.stringify(fits.body)).toBe(2000);

      await eventually(() => hooksOf(id).length === 3);
      expect(hooksOf(id).map((h) => `${h.type}:${String(h.data.status)}`)).toEqual([
        'payout.processing:PROCESSING',
        'payout.success:SUCCESS',
        'payout.refunded:REFUNDED',
      ]);
      expect(hooksOf(id)[2]?.data).toMatchObject({
        utr_number: utr,
        status_message: returned('Beneficiary account closed'),
      });

      const events = await timeline(id);
      expect(changes(events)).toEqual([
        'status:PROCESSING:rail:manual',
        'status:SUCCESS:psp',
        'status:REFUNDED:operator:admin-token',
      ]);
      expect(events.find((e) => e.to === 'SUCCESS')).toMatchObject({ utr });
      expect(events.find((e) => e.to === 'REFUNDED')).toMatchObject({
        from: 'SUCCESS',
        reason: returned('Beneficiary account closed'),
      });

      // Audited with the reason.
      const audit = (await admin(t.url, 'GET', '/admin/v1/audit?limit=50')).body.data as Row[];
      const entry = audit.find((e) => e.action === 'payout.return' && e.target === id);
      expect(entry).toMatchObject({ outcome: 'ok', http_status: 200 });
      expect(entry?.detail).toContain('Beneficiary account closed');

      // A second return answers 200 with the payout as it is, and changes nothing.
      const again = await returnPayout(id, { reason: 'Another reason' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      expect(await refunds(id)).toEqual(['payout_debit:-10000', 'payout_refund:10000']);
      expect(changes(await timeline(id))).toHaveLength(3);
      expect(await balance()).toBe((Number(start) - 150).toFixed(2));
      // Every delivery made and no job due: a fourth webhook would have been recorded by now.
      await quiescent(t.db);
      expect(hooksOf(id)).toHaveLength(3);
    } finally {
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: null });
    }
  });

  it('refuses a return of a payout that is neither SUCCESS nor returned with 409 invalid_state', async () => {
    const inFlight = await processing('10.00');
    const pending = await processing('11.00');
    expect((await notifyPayout({ transactionId: pending, status: 'PENDING' })).body.status).toBe('PENDING');
    const failed = await processing('12.00');
    await notifyPayout({ transactionId: failed, status: 'FAILED', reason: 'Account closed' });
    await waitForStatus(t.url, failed, 'REFUNDED');
    const initiated = await insertInitiated();
    const before = await balance();
    for (const [id, status] of [
      [initiated, 'INITIATED'],
      [inFlight, 'PROCESSING'],
      [pending, 'PENDING'],
      [failed, 'REFUNDED'],
    ] as const) {
      const res = await returnPayout(id, { reason: 'Beneficiary refused' });
      expect([res.status, (res.body.error as Row)?.code], status).toEqual([409, 'invalid_state']);
      expect((res.body.error as Row).message).toContain(status);
      const after = await adminPayout(t.url, id);
      expect([after.status, after.returned_at], status).toEqual([status, null]);
    }
    expect(await balance()).toBe(before);
    expect(await refunds(failed)).toEqual(['payout_debit:-1200', 'payout_refund:1200']);
    await expectLedgerOk(t.url);
  });

  it('answers 404 for an unknown payout and 400 for a body without a proper reason, changing nothing', async () => {
    expect((await returnPayout('PT01ARZ3NDEKTSV4RRFFQ69G5FAV', { reason: 'x' })).status).toBe(404);
    expect((await returnPayout('nope', { reason: 'x' })).status).toBe(404);
    const { id } = await succeeded('5.00');
    for (const body of [
      {},
      { reason: '' },
      { reason: '   ' },
      { reason: 'x'.repeat(256) },
      { reason: 'line\nbreak' },
      { reason: 7 },
      { reason: 'ok', extra: 1 },
    ]) {
      const res = await returnPayout(id, body);
      expect([res.status, (res.body.error as Row)?.code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
    expect((await adminPayout(t.url, id)).status).toBe('SUCCESS');
    const anonymous = await http(t.url, 'POST', `/admin/v1/payouts/${id}/return`, { body: { reason: 'x' } });
    expect(anonymous.status).toBe(401);
  });

  it('needs the finance role: a viewer is refused with 403, a finance operator returns in their name', async () => {
    const { id } = await succeeded('7.00');
    await Promise.all([
      createOperator(t.url, `ret-viewer-${engine}@example.test`, 'viewer'),
      createOperator(t.url, `ret-finance-${engine}@example.test`, 'finance'),
    ]);
    const viewer = await ConsoleSession.signIn(t.url, `ret-viewer-${engine}@example.test`);
    const finance = await ConsoleSession.signIn(t.url, `ret-finance-${engine}@example.test`);
    const before = await balance();
    const denied = await viewer.request('POST', `/admin/v1/payouts/${id}/return`, { reason: 'Account closed' });
    expect([denied.status, (denied.body.error as Row)?.code]).toEqual([403, 'forbidden']);
    expect((await adminPayout(t.url, id)).status).toBe('SUCCESS');
    expect(await balance()).toBe(before);

    const ok = await finance.request('POST', `/admin/v1/payouts/${id}/return`, { reason: 'Account closed' });
    expect([ok.status, ok.body.status]).toEqual([200, 'REFUNDED']);
    expect(changes(await timeline(id)).at(-1)).toBe(`status:REFUNDED:operator:ret-finance-${engine}@example.test`);
  });

  describe('signed notifications (POST /psp/v1/payouts/notify)', () => {
    it('RETURNED with a reason moves SUCCESS to REFUNDED once; the same, or the old SUCCESS, again is unchanged', async () => {
      const before = await balance();
      const { id, utr } = await succeeded('20.00');
      const noReason = await notifyPayout({ transactionId: id, status: 'RETURNED' });
      expect([noReason.status, (noReason.body.error as Row).message]).toEqual([400, 'a RETURNED needs the reason']);
      expect((await adminPayout(t.url, id)).status).toBe('SUCCESS');

      const body = { transactionId: id, status: 'RETURNED', reason: 'Beneficiary deceased', amount: '20.00' };
      const res = await notifyPayout(body);
      expect([res.status, res.body]).toEqual([200, { result: 'applied', transactionId: id, status: 'REFUNDED' }]);
      expect(await balance()).toBe(before);
      for (const again of [
        body,
        { transactionId: id, status: 'FAILED', reason: 'Returned' },
        { transactionId: id, status: 'SUCCESS', utr },
        { transactionId: id, status: 'PROCESSING' },
      ]) {
        const r = await notifyPayout(again);
        expect([r.status, r.body], JSON.stringify(again)).toEqual([
          200,
          { result: 'unchanged', transactionId: id, status: 'REFUNDED' },
        ]);
      }
      // The operator's return of it is a repeat too.
      expect((await returnPayout(id, { reason: 'Same return' })).body).toMatchObject({
        status: 'REFUNDED',
        return_reason: 'Beneficiary deceased',
      });
      expect(await balance()).toBe(before);
      const done = await adminPayout(t.url, id);
      expect(done).toMatchObject({
        utr_number: utr,
        status_message: returned('Beneficiary deceased'),
        rail_error: null,
      });
      expect(changes(await timeline(id))).toEqual([
        'status:PROCESSING:rail:manual',
        'status:SUCCESS:psp',
        'status:REFUNDED:psp',
      ]);
      expect(await refunds(id)).toEqual(['payout_debit:-2000', 'payout_refund:2000']);
    });

    it('a FAILED about a SUCCESS payout is a contradiction, never a return: an exception, and nothing moves', async () => {
      const { id } = await succeeded('30.00');
      const before = await balance();
      const res = await notifyPayout({ transactionId: id, status: 'FAILED', reason: 'Credit reversed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'refused', transactionId: id, status: 'SUCCESS' });
      expect(await adminPayout(t.url, id)).toMatchObject({ status: 'SUCCESS', return_reason: null });
      expect(await balance()).toBe(before);
      const exception = await admin(t.url, 'GET', `/admin/v1/exceptions/${String(res.body.exception_id)}`);
      expect(exception.body).toMatchObject({ kind: 'status_contradiction', source: 'psp_notify', payout_id: id });
    });

    it('RETURNED about a payout that is not SUCCESS is refused with 409 invalid_state, and moves nothing', async () => {
      const inFlight = await processing('13.00');
      const failed = await processing('14.00');
      await notifyPayout({ transactionId: failed, status: 'FAILED', reason: 'Account closed' });
      await waitForStatus(t.url, failed, 'REFUNDED');
      const before = await balance();
      for (const [id, status] of [
        [inFlight, 'PROCESSING'],
        [failed, 'REFUNDED'],
      ] as const) {
        const res = await notifyPayout({ transactionId: id, status: 'RETURNED', reason: 'Account closed' });
        expect([res.status, (res.body.error as Row).code], status).toEqual([409, 'invalid_state']);
        expect((res.body.error as Row).message).toMatch(/only a SUCCESS payout can be returned/);
        expect((await adminPayout(t.url, id)).status).toBe(status);
      }
      expect(await balance()).toBe(before);
      expect(changes(await timeline(inFlight))).toEqual(['status:PROCESSING:rail:manual', 'error:null:psp']);
    });
  });

  it('two returns at once (operator and bank) credit once', async () => {
    const before = await balance();
    const ids = await Promise.all(['41.00', '42.00', '43.00'].map(async (amount) => (await succeeded(amount)).id));
    const afterDebits = await balance();
    const answers = await Promise.all(
      ids.flatMap((id) => [
        returnPayout(id, { reason: 'Account closed' }),
        notifyPayout({ transactionId: id, status: 'RETURNED', reason: 'Account closed' }),
        returnPayout(id, { reason: 'Account closed' }),
        notifyPayout({ transactionId: id, status: 'RETURNED', reason: 'Account closed' }),
      ]),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    // Exactly one of the bank's answers per payout applied it, or the operator's did.
    expect(answers.filter((a) => a.body.result === 'applied').length).toBeLessThanOrEqual(ids.length);
    expect(Number(await balance()) - Number(afterDebits)).toBeCloseTo(126, 2);
    expect(await balance()).toBe(before);
    for (const id of ids) {
      expect((await refunds(id)).filter((r) => r.startsWith('payout_refund'))).toHaveLength(1);
      expect(changes(await timeline(id)).filter((c) => c.startsWith('status:REFUNDED'))).toHaveLength(1);
    }
    await expectLedgerOk(t.url);
  });

  it('a batch completed at its SUCCESS is not counted again by a return; an open batch does not complete by one', async () => {
    const batchId = senderId('batch');
    const items = ['1.00', '2.00'].map((amount) => ({
      sender_id: senderId('bk'),
      wallet_id: f.merchant.wallet_id,
      payment_mode: 'IMPS',
      amount,
      beneficiary: {
        beneficiary_name: 'Asha Rao',
        beneficiary_ifsc: 'HDFC0001234',
        beneficiary_acc_number: '123456789012',
      },
    }));
    const res = await f.client.post('/payout/v1/bulk', {
      batch_id: batchId,
      items,
      callback_url: `${receiver.url}/batches`,
    });
    expect(res.body.resp_code, JSON.stringify(res.body)).toBe(2000);
    const [first, second] = (res.data?.items as Row[]).map((v) => v.transaction_id as string) as [string, string];
    await Promise.all([waitForStatus(t.url, first, 'PROCESSING'), waitForStatus(t.url, second, 'PROCESSING')]);
    const batch = async () =>
      (
        await t.db.query<{ open_items: number; completed_at: Date | null }>(
          'SELECT open_items, completed_at FROM payout_batches WHERE merchant_id = $1 AND batch_id = $2',
          [f.merchant.merchant_id, batchId],
        )
      ).rows[0];
    const completions = async () =>
      (
        await t.db.query<{ n: bigint }>(
          `SELECT count(*)::int8 AS n FROM webhook_deliveries WHERE subject_id = $1 AND type = 'payout.batch.completed'`,
          [`batch:${batchId}`],
        )
      ).rows[0]?.n;

    await notifyPayout({ transactionId: first, status: 'SUCCESS', utr: 'UTRBATCH1' });
    expect((await returnPayout(first, { reason: 'Account closed' })).status).toBe(200);
    expect(await batch()).toMatchObject({ open_items: 1, completed_at: null });
    await notifyPayout({ transactionId: second, status: 'SUCCESS', utr: 'UTRBATCH2' });
    expect(await batch()).toMatchObject({ open_items: 0, completed_at: expect.any(Date) });
    expect((await returnPayout(second, { reason: 'Account closed' })).status).toBe(200);
    expect(await batch()).toMatchObject({ open_items: 0 });
    expect(Number(await completions())).toBe(1);
  });

  /** A payout row written straight into the table (no job, so nothing moves it): it stays INITIATED. */
  async function insertInitiated(): Promise<string> {
    const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const id = `PT01ARZ3NDEKTSV4RRFF${[...randomBytes(8)].map((b) => crockford[b % 32]).join('')}`;
    await t.db.query(
      `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
         beneficiary_account, beneficiary_ifsc, scheme, status, rail, ist_day, ist_month, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 1000, 'IMPS', 'Asha Rao', '123456789012', 'HDFC0001234', 'v2', 'INITIATED', 'manual',
               '2026-01-01', '2026-01', now(), now())`,
      [id, f.merchant.merchant_id, f.merchant.wallet_id, `sql-${id}`],
    );
    return id;
  }

  describe('the database keeps a return whole', () => {
    const setStatus = (id: string, status: string) =>
      t.db.query('UPDATE payouts SET status = $2 WHERE id = $1', [id, status]);
    const refund = (tx: Queryable, id: string, amount: number) =>
      tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id) VALUES ($1, 'payout_refund', $2, 0, $3)`,
        [f.merchant.wallet_id, amount, id],
      );

    it('a SUCCESS payout leaves only for REFUNDED, with its refund entry and a reason, keeping its UTR', async () => {
      const { id, utr } = await succeeded('3.00');
      for (const to of ['INITIATED', 'PROCESSING', 'PENDING', 'FAILED']) {
        await expect(setStatus(id, to)).rejects.toThrow(/illegal payout transition/);
      }
      await expect(setStatus(id, 'REFUNDED')).rejects.toThrow(/only after its refund entry/);
      await expect(t.db.query(`UPDATE payouts SET return_reason = 'x' WHERE id = $1`, [id])).rejects.toThrow(
        /records a return only/,
      );
      await expect(
        t.db.transaction(async (tx) => {
          await refund(tx, id, 300);
          await tx.query(`UPDATE payouts SET status = 'REFUNDED' WHERE id = $1`, [id]);
        }),
      ).rejects.toThrow(/needs its reason/);
      await expect(
        t.db.transaction(async (tx) => {
          await refund(tx, id, 300);
          await tx.query(`UPDATE payouts SET status = 'REFUNDED', return_reason = 'x', utr = 'OTHER' WHERE id = $1`, [
            id,
          ]);
        }),
      ).rejects.toThrow(/keeps its UTR/);
      const still = await adminPayout(t.url, id);
      expect([still.status, still.utr_number, still.returned_at]).toEqual(['SUCCESS', utr, null]);
      await expectLedgerOk(t.url);

      // Whole, it passes; the database stamps returned_at, the history trigger writes the change, and the refund
      // cannot be made twice.
      await t.db.transaction(async (tx) => {
        await refund(tx, id, 300);
        await tx.query(`UPDATE payouts SET status = 'REFUNDED', return_reason = 'By SQL' WHERE id = $1`, [id]);
      });
      const done = await adminPayout(t.url, id);
      expect(done).toMatchObject({ status: 'REFUNDED', utr_number: utr, return_reason: 'By SQL' });
      expect(done.returned_at).toMatch(ISO);
      expect(changes(await timeline(id)).at(-1)).toBe('status:REFUNDED:system');
      await expect(refund(t.db, id, 300)).rejects.toThrow();
      await expect(t.db.query(`UPDATE payouts SET return_reason = 'rewritten' WHERE id = $1`, [id])).rejects.toThrow(
        /records a return only/,
      );
      await expect(setStatus(id, 'SUCCESS')).rejects.toThrow(/illegal payout transition/);
      await expectLedgerOk(t.url);
    });
  });
});
