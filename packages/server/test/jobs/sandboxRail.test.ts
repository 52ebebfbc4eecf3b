import { decryptJsonObject, type Scheme } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  expectRefused,
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  shapeOf,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

const STEP_MS = 150;

describe.each(ENGINES)('sandbox rail on %s', (engine) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let hook = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestServer(engine, { env: { PAYRAIL_SANDBOX_STEP_MS: String(STEP_MS) } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  interface Sent {
    id: string;
    path: string;
    f: Funded;
  }

  /** Initiates a payout to `ifsc`/`account` with its own callback path, so its events can be told apart. */
  async function send(f: Funded, account: string, ifsc = SANDBOX.ifsc, amount = '100.00'): Promise<Sent> {
    const path = `/rail/${hook++}`;
    const p = await initiateOk(
      f.client,
      payoutRequest(shapeOf(f.client.scheme), {
        wallet_id: f.merchant.wallet_id,
        amount,
        beneficiary_ifsc: ifsc,
        beneficiary_acc_number: account,
        callback_url: receiver.url + path,
      }),
    );
    expect(p.status).toBe('INITIATED');
    return { id: p.transaction_id as string, path, f };
  }

  /** The events received for a payout: type, the status inside the decrypted data, and the event time. */
  function events(s: Sent) {
    const seen = new Set<string>();
    return receiver
      .at(s.path)
      .filter((h) => {
        const id = h.headers['webhook-id'] as string;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      })
      .map((h) => {
        const body = JSON.parse(h.body) as { type: string; created_at: string; data: string };
        const data = decryptJsonObject(body.data, s.f.client.scheme, {
          apiKey: s.f.merchant.api_key,
          secretKey: s.f.merchant.secret_key,
        });
        return { type: body.type, status: data.status as string, at: Date.parse(body.created_at), data };
      });
  }

  const typesOf = (s: Sent) => events(s).map((e) => `${e.type}:${e.status}`);

  async function waitForEvents(s: Sent, count: number) {
    await eventually(() => events(s).length >= count, 8000);
    return events(s);
  }

  const jobsOf = async (id: string) =>
    Number(
      (await t.db.query<{ n: bigint }>('SELECT count(*)::int8 AS n FROM jobs WHERE subject_id = $1', [id])).rows[0]?.n,
    );

  const ledgerOf = async (id: string) =>
    (
      await t.db.query<{ kind: string; amount: bigint }>(
        'SELECT kind, amount FROM ledger_entries WHERE payout_id = $1 ORDER BY id',
        [id],
      )
    ).rows.map((r) => `${r.kind}:${String(r.amount)}`);

  describe.each(['v1', 'v2'] as Scheme[])('with a %s session', (scheme) => {
    let f: Funded;
    beforeAll(async () => {
      f = await fundedMerchant(t.url, scheme, '10000.00');
    });

    it('100000000001: INITIATED → PROCESSING → SUCCESS with a UTR, one step each', async () => {
      const s = await send(f, SANDBOX.success);
      const done = await waitForStatus(t.url, s.id, 'SUCCESS');
      const seen = await waitForEvents(s, 2);
      expect(typesOf(s)).toEqual(['payout.processing:PROCESSING', 'payout.success:SUCCESS']);
      expect(done.utr_number).toMatch(/^\d{12}$/);
      expect(seen[1]?.data.utr_number).toBe(done.utr_number);
      expect(seen[0]?.data.utr_number).toBe('');
      // One step each, measured on the recorded history: webhook arrival times also carry delivery jitter.
      const created = Date.parse((done.timestamps as { created_at: string }).created_at);
      const { events } = (await admin(t.url, 'GET', `/admin/v1/payouts/${s.id}/timeline`)).body as {
        events: { type: string; to?: string; at: string }[];
      };
      const changedAt = (to: string) => Date.parse(events.find((e) => e.type === 'status' && e.to === to)?.at ?? '');
      expect(changedAt('PROCESSING') - created).toBeGreaterThanOrEqual(STEP_MS - 20);
      expect(changedAt('SUCCESS') - changedAt('PROCESSING')).toBeGreaterThanOrEqual(STEP_MS - 20);
      expect((seen[1]?.at as number) >= (seen[0]?.at as number)).toBe(true);
      expect(await ledgerOf(s.id)).toEqual(['payout_debit:-10000']);
      expect(await jobsOf(s.id)).toBe(0);
      await expectLedgerOk(t.url);
    });

    it('100000000002: INITIATED → PROCESSING → FAILED → REFUNDED, with the money back once', async () => {
      const before = await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
      const s = await send(f, SANDBOX.failure, SANDBOX.ifsc, '250.50');
      const after = await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
      expect(Number(before) - Number(after)).toBeCloseTo(250.5, 2);
      const done = await waitForStatus(t.url, s.id, 'REFUNDED');
      await waitForEvents(s, 3);
      expect(typesOf(s)).toEqual(['payout.processing:PROCESSING', 'payout.failed:FAILED', 'payout.refunded:REFUNDED']);
      expect(done.utr_number).toBe('');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe(before);
      expect(await ledgerOf(s.id)).toEqual(['payout_debit:-25050', 'payout_refund:25050']);
      expect(await jobsOf(s.id)).toBe(0);
      await expectLedgerOk(t.url);
    });

    it('100000000003: INITIATED → PROCESSING → PENDING, and stays there', async () => {
      const s = await send(f, SANDBOX.pending);
      await waitForStatus(t.url, s.id, 'PENDING');
      await waitForEvents(s, 2);
      // No job is left to move it (that is what "stays" rests on); one step shows no move made at once.
      await eventually(async () => (await jobsOf(s.id)) === 0, 8000);
      await new Promise((r) => setTimeout(r, STEP_MS));
      expect((await adminPayout(t.url, s.id)).status).toBe('PENDING');
      expect(typesOf(s)).toEqual(['payout.processing:PROCESSING', 'payout.pending:PENDING']);
      expect(await jobsOf(s.id)).toBe(0);
    });

    it('100000000003 resolved SUCCESS by the operator', async () => {
      const s = await send(f, SANDBOX.pending);
      await waitForStatus(t.url, s.id, 'PENDING');
      const res = await admin(t.url, 'POST', `/admin/v1/payouts/${s.id}/resolve`, { status: 'SUCCESS' });
      expect(res.status).toBe(200);
      await waitForEvents(s, 3);
      expect(typesOf(s)).toEqual(['payout.processing:PROCESSING', 'payout.pending:PENDING', 'payout.success:SUCCESS']);
      await eventually(async () => (await jobsOf(s.id)) === 0, 8000);
      await new Promise((r) => setTimeout(r, STEP_MS));
      expect((await adminPayout(t.url, s.id)).status).toBe('SUCCESS');
      expect(await ledgerOf(s.id)).toEqual(['payout_debit:-10000']);
    });

    it('100000000003 resolved FAILED goes on to REFUNDED', async () => {
      const before = await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id);
      const s = await send(f, SANDBOX.pending);
      await waitForStatus(t.url, s.id, 'PENDING');
      const res = await admin(t.url, 'POST', `/admin/v1/payouts/${s.id}/resolve`, { status: 'FAILED' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('FAILED');
      await waitForStatus(t.url, s.id, 'REFUNDED');
      await waitForEvents(s, 4);
      expect(typesOf(s)).toEqual([
        'payout.processing:PROCESSING',
        'payout.pending:PENDING',
        'payout.failed:FAILED',
        'payout.refunded:REFUNDED',
      ]);
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe(before);
      expect(await ledgerOf(s.id)).toEqual(['payout_debit:-10000', 'payout_refund:10000']);
      await expectLedgerOk(t.url);
    });

    it('a FAILED payout stops counting against the allowances at once, before its refund', async () => {
      const g = await fundedMerchant(t.url, scheme, '1000.00');
      const limits = await admin(t.url, 'PATCH', `/admin/v1/merchants/${g.merchant.merchant_id}`, {
        daily_limit: '100.00',
        monthly_limit: '100.00',
      });
      expect(limits.status).toBe(200);
      const s = await send(g, SANDBOX.pending);
      await waitForStatus(t.url, s.id, 'PENDING');
      await expectRefused(
        g,
        payoutRequest(shapeOf(scheme), { wallet_id: g.merchant.wallet_id, amount: '1.00' }),
        4010,
        422,
      );
      const res = await admin(t.url, 'POST', `/admin/v1/payouts/${s.id}/resolve`, { status: 'FAILED' });
      expect(res.body.status).toBe('FAILED');
      // Limits count the payouts that are not FAILED or REFUNDED (docs/operator/admin-api.md); the refund is a step later.
      const next = await initiateOk(
        g.client,
        payoutRequest(shapeOf(scheme), { wallet_id: g.merchant.wallet_id, amount: '100.00' }),
      );
      expect(next.status).toBe('INITIATED');
      await waitForStatus(t.url, s.id, 'REFUNDED');
      // The refund does not free the allowance a second time.
      await expectRefused(
        g,
        payoutRequest(shapeOf(scheme), { wallet_id: g.merchant.wallet_id, amount: '1.00' }),
        4010,
        422,
      );
      await expectLedgerOk(t.url);
    });

    it.each([
      ['a real bank', 'HDFC0001234', '123456789012'],
      ['another sandbox account', SANDBOX.ifsc, '100000000005'],
      ['a designated account at another bank', 'ICIC0000001', SANDBOX.failure],
    ])('any other valid beneficiary (%s) succeeds like 100000000001', async (_name, ifsc, account) => {
      const s = await send(f, account, ifsc);
      const done = await waitForStatus(t.url, s.id, 'SUCCESS');
      expect(done.utr_number).toMatch(/^\d{12}$/);
      await waitForEvents(s, 2);
      expect(typesOf(s)).toEqual(['payout.processing:PROCESSING', 'payout.success:SUCCESS']);
    });

    it.each([
      ['100000000004 fails verification', SANDBOX.ifsc, SANDBOX.verificationFailure, 4013, 422],
      ['bank code DOWN is down', 'DOWN0000001', SANDBOX.success, 4014, 503],
      ['bank code BLOK is blocked', 'BLOK0000001', SANDBOX.success, 4015, 422],
    ])('%s: refused at initiation, no event', async (_name, ifsc, account, code, status) => {
      const path = `/rail/${hook++}`;
      await expectRefused(
        f,
        payoutRequest(shapeOf(scheme), {
          wallet_id: f.merchant.wallet_id,
          beneficiary_ifsc: ifsc,
          beneficiary_acc_number: account,
          callback_url: receiver.url + path,
        }),
        code,
        status,
      );
      // Nothing was recorded, so nothing can be sent; one step shows no delivery made at once.
      await new Promise((r) => setTimeout(r, STEP_MS));
      expect(receiver.at(path)).toEqual([]);
    });
  });
});
